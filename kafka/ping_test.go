package kafka_test

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestPing: a live broker answers (also as the second seed after a dead
// one); a dead one's error names its address and is neither an
// authentication nor a TLS failure; a refused login is an authentication
// failure; an untrusted certificate is a TLS failure.
func TestPing(t *testing.T) {
	ctx := testContext(t)
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{})
	dead := deadAddr(t)
	if err := kafka.Ping(ctx, e.Addrs(), nil); err != nil {
		t.Errorf("Ping(live) = %v", err)
	}
	if err := kafka.Ping(ctx, []string{dead, e.Addrs()[0]}, nil); err != nil {
		t.Errorf("Ping(dead, live) = %v; want nil", err)
	}
	err := kafka.Ping(ctx, []string{dead}, &kafkago.Dialer{Timeout: 2 * time.Second})
	if err == nil || !strings.HasPrefix(err.Error(), dead+": ") || !strings.Contains(err.Error(), "connection refused") ||
		kafka.IsAuthError(err) || kafka.IsTLSError(err) {
		t.Errorf("Ping(dead) = %v (auth %v, tls %v); want %s: … connection refused, neither auth nor TLS", err, kafka.IsAuthError(err), kafka.IsTLSError(err), dead)
	}

	sasl := kafkatest.StartKfake(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "u", "right"))
	for _, c := range []struct {
		password string
		auth     bool
	}{{"right", false}, {"wrong", true}} {
		mech, _ := scram.Mechanism(scram.SHA256, "u", c.password)
		err := kafka.Ping(ctx, sasl.ListenAddrs(), &kafkago.Dialer{SASLMechanism: mech, Timeout: 5 * time.Second})
		if (err != nil) != c.auth || kafka.IsAuthError(err) != c.auth || kafka.IsTLSError(err) {
			t.Errorf("Ping with password %s = %v (auth %v); want auth failure %v", c.password, err, kafka.IsAuthError(err), c.auth)
		}
	}

	_, _, pair := kafkatest.SelfSigned(t)
	secure := kafkatest.StartKfake(t, kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}}))
	err = kafka.Ping(ctx, secure.ListenAddrs(), &kafkago.Dialer{TLS: &tls.Config{MinVersion: tls.VersionTLS12}, Timeout: 5 * time.Second})
	if err == nil || !kafka.IsTLSError(err) || kafka.IsAuthError(err) {
		t.Errorf("Ping with an untrusted certificate = %v (tls %v); want a TLS failure", err, kafka.IsTLSError(err))
	}
}
