package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// The SASL secret of the security tests: it must never show in a log
// line or in what `monitor validate` prints.
const (
	saslUser     = "motifwatch"
	saslPassword = "pw-9f3c1e7a-never-logged"
)

// selfSigned writes a self-signed ECDSA certificate for 127.0.0.1 (usable
// by server and client, and as its own CA) and its key, and returns the
// paths and the pair.
func selfSigned(t *testing.T) (certFile, keyFile string, pair tls.Certificate) {
	t.Helper()
	certPEM, keyPEM, pair := kafkatest.SelfSigned(t)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pair
}

// secureBroker starts kfake with a TLS listener that requires a client
// certificate signed by the test CA, and SASL/SCRAM-SHA-512 with one
// user; it returns the brokers and a client transport and dialer that
// pass both.
func secureBroker(t *testing.T, pair tls.Certificate) ([]string, *kafka.Transport, *kafka.Dialer) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(pair.Leaf)
	c := kafkatest.StartKfake(t, kfake.NumBrokers(1), kfake.DefaultNumPartitions(3),
		kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", saslUser, saslPassword))
	mech, err := scram.Mechanism(scram.SHA512, saslUser, saslPassword)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	tr := &kafka.Transport{TLS: tc, SASL: mech}
	t.Cleanup(tr.CloseIdleConnections)
	return c.ListenAddrs(), tr, &kafka.Dialer{TLS: tc, SASLMechanism: mech, Timeout: 10 * time.Second}
}

func secureConfig(brokers []string, certFile, keyFile, password, queries string) string {
	return fmt.Sprintf(`kafka:
  brokers: [%s]
  partitions: 3
  group: secure
  tls: {enabled: true, ca_file: %s, cert_file: %s, key_file: %s}
  sasl: {mechanism: scram-sha-512, username: %s, password: %q}
demo: false
input:
  fields: {src: src, dst: dst, time: t, seq: seq}
window:
  allowed_lateness: 0s
  batch_max_wait: 50ms
  idle_timeout: 200ms
queries:
  files: [%s]
metrics:
  listen: 127.0.0.1:0
log:
  level: debug
`, strings.Join(brokers, ", "), certFile, certFile, keyFile, saslUser, password, queries)
}

// TestDaemonOverTLSAndSCRAM runs the daemon against a broker that takes
// only TLS with a client certificate and SASL/SCRAM-SHA-512, all set in
// the configuration: edges produced over the same security reach it and
// its alert comes back. Its log, at debug level, never shows the
// password or the private key; a wrong password stops the start with an
// error that names the mechanism and not the password.
func TestDaemonOverTLSAndSCRAM(t *testing.T) {
	t.Parallel()
	certFile, keyFile, pair := selfSigned(t)
	brokers, tr, dialer := secureBroker(t, pair)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, tr, []kafka.TopicSpec{{Name: "edges", Partitions: 3}}); err != nil {
		t.Fatal(err)
	}
	queries := writeQueries(t, "queries:\n  - {name: triangle, delta: 60, edges: [A -> B, B -> C, C -> A]}\n")
	logs := &testenv.SyncBuffer{}
	d := startLoggedDaemon(t, secureConfig(brokers, certFile, keyFile, saslPassword, queries), logs)

	triangle := []kafka.Record{{Src: "x", Dst: "y", T: 10, Seq: 0}, {Src: "y", Dst: "z", T: 20, Seq: 1}, {Src: "z", Dst: "x", T: 30, Seq: 2}}
	if _, err := kafka.Produce(ctx, slices.Values(triangle), kafka.ProduceOptions{Brokers: brokers, Transport: tr, Topic: "edges", TimeUnit: time.Second}); err != nil {
		t.Fatal(err)
	}
	var got []alerts.Alert
	if !testenv.Poll(30*time.Second, 100*time.Millisecond, func() bool {
		got = readSecureAlerts(t, brokers, dialer, tr)
		return len(got) > 0
	}) {
		t.Fatalf("no alert over TLS+SCRAM within 30s; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	if len(got) != 1 || got[0].Query != "triangle" || len(got[0].Edges) != 3 {
		t.Errorf("alerts %+v; want the one triangle", got)
	}
	if err := d.stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
	keyPEM, _ := os.ReadFile(keyFile)
	assertNoSecrets(t, "the daemon's debug log", logs.String(), string(keyPEM))

	// A wrong password: the daemon keeps trying, saying where, never
	// what; stopped meanwhile, it logs the last error and stops cleanly.
	bad := secureConfig(brokers, certFile, keyFile, "wrong-"+saslPassword, queries)
	cfg, err := config.Parse([]byte(bad), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	logs = &testenv.SyncBuffer{}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	err = daemon.Run(sctx, daemon.Options{Config: cfg, Logger: newTestLogger(logs)})
	if err != nil {
		t.Errorf("start with a wrong password, stopped while connecting: %v; want nil (a clean stop)", err)
	}
	stopped := `level=WARN msg="stopped before connecting to the kafka brokers"`
	if i := strings.Index(logs.String(), stopped); i < 0 || !strings.Contains(logs.String()[i:], "SASL Authentication Failed") {
		t.Errorf("no line %s with the authentication error; log:\n%s", stopped, testenv.Tail(logs.String(), 10))
	}
	assertNoSecrets(t, "a failed start's error and log", fmt.Sprint(err)+logs.String(), "")
}

// readSecureAlerts reads the alert topic through TLS and SASL (none
// before the topic exists).
func readSecureAlerts(t *testing.T, brokers []string, dialer *kafka.Dialer, tr *kafka.Transport) []alerts.Alert {
	t.Helper()
	c := kafkatest.Conn{Brokers: brokers, Transport: tr, Dialer: dialer}
	if _, err := c.TryEndOffsets("motif-alerts"); err != nil {
		return nil // not created yet
	}
	return kafkatest.Alerts(c.ReadAlerts(t, "motif-alerts"))
}

// assertNoSecrets fails if text shows the SASL password (or a part of it
// long enough to matter) or, when given, the private key.
func assertNoSecrets(t *testing.T, where, text, keyPEM string) {
	t.Helper()
	if strings.Contains(text, saslPassword[3:]) {
		i := strings.Index(text, saslPassword[3:])
		t.Errorf("%s shows the SASL password: …%s…", where, text[max(0, i-80):min(len(text), i+40)])
	}
	if keyPEM != "" {
		for _, line := range strings.Split(keyPEM, "\n") {
			if len(line) > 20 && !strings.HasPrefix(line, "-----") && strings.Contains(text, line) {
				t.Errorf("%s shows the private key", where)
				break
			}
		}
	}
	if text == "" {
		t.Errorf("%s is empty: nothing was checked", where)
	}
}

// TestValidateShowsNoSecrets runs `monitor validate` on configurations
// with a SASL password (in the file, and from the environment) and a TLS
// key: neither the summary of a good one nor the problems of a bad one
// show the password.
func TestValidateShowsNoSecrets(t *testing.T) {
	certFile, keyFile, _ := selfSigned(t)
	queries := writeQueries(t, "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(secureConfig([]string{"kafka-1:9093"}, certFile, keyFile, saslPassword, queries)), 0o644)
	out, errOut, code := monitor(t, "validate", good)
	if code != 0 || !strings.Contains(out, "config OK") {
		t.Fatalf("validate good: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	assertNoSecrets(t, "validate's output for a good config", out+errOut, "")

	// Problems next to the password: an unknown key, a bad mechanism and a
	// missing username, all reported, the password in none of them.
	bad := strings.Replace(secureConfig([]string{"kafka-1:9093"}, certFile, keyFile, saslPassword, queries),
		"mechanism: scram-sha-512, username: "+saslUser, "mechanism: scram-md5, username: \"\"", 1)
	bad = strings.Replace(bad, "demo: false", "demo: false\nextra_key: 1", 1)
	badPath := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badPath, []byte(bad), 0o644)
	out, errOut, code = monitor(t, "validate", badPath)
	if code == 0 || !strings.Contains(errOut, "extra_key") {
		t.Fatalf("validate bad: exit %d, stderr %q; want the problems listed", code, errOut)
	}
	assertNoSecrets(t, "validate's problems", out+errOut, "")

	// The password from the environment, with the mechanism invalid.
	t.Setenv("MONITOR_KAFKA_SASL_PASSWORD", saslPassword)
	env := strings.Replace(bad, fmt.Sprintf("password: %q", saslPassword), `password: ""`, 1)
	os.WriteFile(badPath, []byte(env), 0o644)
	out, errOut, code = monitor(t, "validate", badPath)
	if code == 0 {
		t.Fatalf("validate bad (env password): exit 0")
	}
	assertNoSecrets(t, "validate's problems with the password from the environment", out+errOut, "")
}
