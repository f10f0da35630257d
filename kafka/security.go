package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// ClientOptions are the settings every connection to a cluster shares:
// what Clients builds a transport and a dialer from. The zero value is a
// plain TCP client without authentication and library defaults.
type ClientOptions struct {
	// ClientID names this client to the brokers (their logs and quotas).
	ClientID string
	// MetadataRefresh is how long the transport trusts its cached topic
	// metadata; 0, or anything above kafka-go's 6 s, keeps 6 s.
	MetadataRefresh time.Duration
	Security        Security
}

// Security is how connections are encrypted and authenticated; the zero
// value is neither.
type Security struct {
	// TLS, when set, encrypts every connection.
	TLS *TLS
	// SASL, when set, authenticates every connection.
	SASL *SASL
}

// TLS configures TLS to the brokers.
type TLS struct {
	// CAFile is a PEM bundle of CAs to trust instead of the system's.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (PEM), both
	// or neither.
	CertFile, KeyFile  string
	InsecureSkipVerify bool
	ServerName         string
}

// SASLMechanism names a SASL mechanism.
type SASLMechanism string

// The SASL mechanisms Clients speaks.
const (
	SASLPlain       SASLMechanism = "plain"
	SASLScramSHA256 SASLMechanism = "scram-sha-256"
	SASLScramSHA512 SASLMechanism = "scram-sha-512"
)

// SASL configures SASL authentication.
type SASL struct {
	Mechanism          SASLMechanism
	Username, Password string
}

// security builds the TLS config and SASL mechanism of s (nil, nil for
// plain TCP). Secrets never reach an error: errors name files and
// mechanisms, not passwords.
func security(s Security) (*tls.Config, sasl.Mechanism, error) {
	var tc *tls.Config
	if t := s.TLS; t != nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
		if t.CAFile != "" {
			pem, err := os.ReadFile(t.CAFile)
			if err != nil {
				return nil, nil, fmt.Errorf("TLS CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, nil, fmt.Errorf("TLS CA file: %s holds no PEM certificate", t.CAFile)
			}
			tc.RootCAs = pool
		}
		if t.CertFile != "" || t.KeyFile != "" {
			cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
			if err != nil {
				return nil, nil, fmt.Errorf("TLS client certificate and key: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
	}
	a := s.SASL
	if a == nil {
		return tc, nil, nil
	}
	switch a.Mechanism {
	case SASLPlain:
		return tc, plain.Mechanism{Username: a.Username, Password: a.Password}, nil
	case SASLScramSHA256, SASLScramSHA512:
		algo := scram.SHA256
		if a.Mechanism == SASLScramSHA512 {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, a.Username, a.Password)
		if err != nil {
			return nil, nil, fmt.Errorf("SASL %s: %w", a.Mechanism, err)
		}
		return tc, m, nil
	}
	return nil, nil, fmt.Errorf("SASL mechanism %q (want %s, %s or %s)", a.Mechanism, SASLPlain, SASLScramSHA256, SASLScramSHA512)
}

// defaultMetadataTTL is kafka-go's metadata lifetime when a transport
// sets none.
const defaultMetadataTTL = 6 * time.Second

// Clients returns the transport (writers, admin calls) and dialer
// (readers) that o describes: what the daemon uses, and the subcommands
// that talk to the same cluster (monitor alerts --config).
func Clients(o ClientOptions) (*Transport, *Dialer, error) {
	tc, mech, err := security(o.Security)
	if err != nil {
		return nil, nil, err
	}
	tr := &kafkago.Transport{TLS: tc, SASL: mech, ClientID: o.ClientID, DialTimeout: 10 * time.Second}
	if r := o.MetadataRefresh; r > 0 && r < defaultMetadataTTL {
		// The fetchers route by the transport's cached metadata: partitions
		// added are found within one refresh, not kafka-go's 6 s.
		tr.MetadataTTL = r
	}
	d := &kafkago.Dialer{TLS: tc, SASLMechanism: mech, ClientID: o.ClientID, Timeout: 10 * time.Second, DualStack: true}
	return tr, d, nil
}
