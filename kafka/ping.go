package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Ping asks the seed brokers, one after the other, for the cluster's
// broker list over a connection of dialer (its TLS and SASL settings; nil:
// plain TCP) and returns nil at the first that answers with one. Otherwise
// it returns every broker's error, each prefixed by its address. Each
// broker gets dialer.Timeout (10 s if 0) to answer.
//
// It dials rather than going through a kafkago.Transport because a
// Transport reports a refused SASL login as "unexpected EOF", while a
// Dialer's handshake returns the broker's answer (kafkago.SASLAuthenticationFailed):
// what an operator needs to tell a wrong password from a dead broker.
func Ping(ctx context.Context, brokers []string, dialer *kafkago.Dialer) error {
	if len(brokers) == 0 {
		return ErrNoBrokers
	}
	if dialer == nil {
		dialer = &kafkago.Dialer{}
	}
	var errs pingErrors
	for _, addr := range brokers {
		err := ping(ctx, addr, dialer)
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
		if ctx.Err() != nil {
			break
		}
	}
	return errs
}

func ping(ctx context.Context, addr string, dialer *kafkago.Dialer) error {
	timeout := dialer.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	dl, _ := ctx.Deadline()
	conn.SetDeadline(dl)
	bs, err := conn.Brokers()
	if err != nil {
		return err
	}
	if len(bs) == 0 {
		return errors.New("metadata lists no brokers")
	}
	return nil
}

// pingErrors are the errors of the brokers Ping tried, on one line.
type pingErrors []error

func (e pingErrors) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e pingErrors) Unwrap() []error { return e }

// IsAuthError reports whether err is the brokers refusing the client's
// SASL login: wrong credentials, or a mechanism they do not enable.
func IsAuthError(err error) bool {
	return errors.Is(err, kafkago.SASLAuthenticationFailed) || errors.Is(err, kafkago.UnsupportedSASLMechanism) ||
		errors.Is(err, kafkago.IllegalSASLState)
}

// IsTLSError reports whether err is a TLS handshake that failed on the
// brokers' certificate (unknown authority, wrong host name, expired) or on
// a TLS alert from the broker (such as a refused client certificate).
func IsTLSError(err error) bool {
	var verify *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var alert tls.AlertError
	var record tls.RecordHeaderError
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) ||
		errors.As(err, &invalid) || errors.As(err, &alert) || errors.As(err, &record)
}
