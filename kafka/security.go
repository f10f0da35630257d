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

	"github.com/motifwatch/motifwatch/config"
)

// security builds the TLS config and SASL mechanism of kafka settings
// (nil, nil for plain TCP). Secrets never reach a log line: errors name
// files and mechanisms, not passwords.
func security(k *config.Kafka) (*tls.Config, sasl.Mechanism, error) {
	var tc *tls.Config
	if k.TLS.Enabled {
		tc = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: k.TLS.ServerName, InsecureSkipVerify: k.TLS.InsecureSkipVerify}
		if k.TLS.CAFile != "" {
			pem, err := os.ReadFile(k.TLS.CAFile)
			if err != nil {
				return nil, nil, fmt.Errorf("kafka.tls.ca_file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, nil, fmt.Errorf("kafka.tls.ca_file: %s holds no PEM certificate", k.TLS.CAFile)
			}
			tc.RootCAs = pool
		}
		if k.TLS.CertFile != "" || k.TLS.KeyFile != "" {
			cert, err := tls.LoadX509KeyPair(k.TLS.CertFile, k.TLS.KeyFile)
			if err != nil {
				return nil, nil, fmt.Errorf("kafka.tls.cert_file/key_file: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
	}
	var mech sasl.Mechanism
	switch k.SASL.Mechanism {
	case "":
	case config.SASLPlain:
		mech = plain.Mechanism{Username: k.SASL.Username, Password: k.SASL.Password}
	case config.SASLScramSHA256, config.SASLScramSHA512:
		algo := scram.SHA256
		if k.SASL.Mechanism == config.SASLScramSHA512 {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, k.SASL.Username, k.SASL.Password)
		if err != nil {
			return nil, nil, fmt.Errorf("kafka.sasl: %w", err)
		}
		mech = m
	default:
		return nil, nil, fmt.Errorf("kafka.sasl.mechanism: %q (want plain, scram-sha-256 or scram-sha-512)", k.SASL.Mechanism)
	}
	return tc, mech, nil
}

// defaultMetadataTTL is kafka-go's metadata lifetime when a transport
// sets none.
const defaultMetadataTTL = 6 * time.Second

// Clients returns the transport (writers, admin calls) and dialer
// (readers) for a configuration's kafka section, with its TLS and SASL
// settings: what the daemon uses, and the subcommands that talk to the
// same cluster (monitor alerts --config).
func Clients(k *config.Kafka) (*Transport, *Dialer, error) {
	tc, mech, err := security(k)
	if err != nil {
		return nil, nil, err
	}
	tr := &kafkago.Transport{TLS: tc, SASL: mech, ClientID: k.ClientID, DialTimeout: 10 * time.Second}
	if r := k.MetadataRefresh; r > 0 && r < defaultMetadataTTL {
		// The fetchers route by the transport's cached metadata: partitions
		// added are found within one refresh, not kafka-go's 6 s.
		tr.MetadataTTL = r
	}
	d := &kafkago.Dialer{TLS: tc, SASLMechanism: mech, ClientID: k.ClientID, Timeout: 10 * time.Second, DualStack: true}
	return tr, d, nil
}
