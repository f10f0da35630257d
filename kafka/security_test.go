package kafka_test

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestClientsOverTLSAndSCRAM: the transport and dialer that Clients
// builds from kafka's own ClientOptions reach a broker that takes only
// TLS with a client certificate and SASL/SCRAM-SHA-512 (the dialer pings
// it, the transport's admin calls create a topic), a wrong password is an
// authentication failure, and bad settings are errors that name the
// setting and file but never the password.
func TestClientsOverTLSAndSCRAM(t *testing.T) {
	certPEM, keyPEM, pair := kafkatest.SelfSigned(t)
	dir := t.TempDir()
	certFile, keyFile, notPEM := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "not.pem")
	for f, b := range map[string][]byte{certFile: certPEM, keyFile: keyPEM, notPEM: []byte("no certificate here")} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(pair.Leaf)
	c := kafkatest.StartKfake(t, kfake.NumBrokers(1),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCAs}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", "mw", "s3cret"))
	ctx := testContext(t)
	good := kafka.ClientOptions{ClientID: "clients-test", Security: kafka.Security{
		TLS:  &kafka.TLS{CAFile: certFile, CertFile: certFile, KeyFile: keyFile},
		SASL: &kafka.SASL{Mechanism: kafka.SASLScramSHA512, Username: "mw", Password: "s3cret"},
	}}
	tr, d, err := kafka.Clients(good)
	if err != nil {
		t.Fatalf("Clients(%+v) = %v", good.Security, err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	if err := kafka.Ping(ctx, c.ListenAddrs(), d); err != nil {
		t.Fatalf("Ping with Clients' dialer = %v; want the broker's answer", err)
	}
	if err := kafka.EnsureTopics(ctx, c.ListenAddrs(), tr, []kafka.TopicSpec{{Name: "edges"}}); err != nil {
		t.Fatalf("EnsureTopics with Clients' transport = %v", err)
	}

	wrong := good
	wrong.Security.SASL = &kafka.SASL{Mechanism: kafka.SASLScramSHA512, Username: "mw", Password: "wrong"}
	_, d, err = kafka.Clients(wrong)
	if err != nil {
		t.Fatal(err)
	}
	if err := kafka.Ping(ctx, c.ListenAddrs(), d); !kafka.IsAuthError(err) {
		t.Errorf("Ping with a wrong password = %v; want an authentication failure", err)
	}
	plainTCP := kafka.ClientOptions{}
	if _, d, err = kafka.Clients(plainTCP); err != nil {
		t.Fatal(err)
	}
	if err := kafka.Ping(ctx, c.ListenAddrs(), d); err == nil {
		t.Errorf("Ping over plain TCP to a TLS-only broker succeeded")
	}

	for _, bad := range []struct {
		name string
		s    kafka.Security
		want string
	}{
		{"no CA file", kafka.Security{TLS: &kafka.TLS{CAFile: filepath.Join(dir, "none.pem")}}, "TLS CA file: open " + filepath.Join(dir, "none.pem")},
		{"CA not PEM", kafka.Security{TLS: &kafka.TLS{CAFile: notPEM}}, "TLS CA file: " + notPEM + " holds no PEM certificate"},
		{"key missing", kafka.Security{TLS: &kafka.TLS{CertFile: certFile}}, "TLS client certificate and key"},
		{"mechanism", kafka.Security{SASL: &kafka.SASL{Mechanism: "gssapi", Password: "s3cret"}}, `SASL mechanism "gssapi" (want plain, scram-sha-256 or scram-sha-512)`},
	} {
		_, _, err := kafka.Clients(kafka.ClientOptions{Security: bad.s})
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: Clients = %v; want an error containing %q and no password", bad.name, err, bad.want)
		}
	}
}
