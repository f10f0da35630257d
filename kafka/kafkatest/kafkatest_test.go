package kafkatest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestRestartableKeepsDataAndPort: what was produced, sent and committed
// before a Stop is there after Start, on the same address.
func TestRestartableKeepsDataAndPort(t *testing.T) {
	b := kafkatest.StartRestartable(t, kafkatest.BrokerOptions{Persistent: true,
		Topics: []kafka.TopicSpec{{Name: "raw", Partitions: 2}, {Name: "motif-alerts", Partitions: 2}}})
	addrs := b.Addrs()
	records := []kafka.Record{{Src: "a", Dst: "b", T: 1, Seq: 1}, {Src: "b", Dst: "c", T: 2, Seq: 2}, {Src: "c", Dst: "a", T: 3, Seq: 3}}
	kafkatest.Produce(t, addrs, "edges", 3, kafka.JSON, slices.Values(records))
	kafkatest.Send(t, addrs, "raw", kafkatest.SendOptions{Compress: true},
		kafka.Message{Partition: 1, Value: []byte("x")}, kafka.Message{Partition: 1, Value: []byte("y")}, kafka.Message{Partition: 0, Value: []byte("z")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	match := alerts.Alert{Kind: alerts.KindMatch, Query: "q", MatchID: "m1"}
	kafkatest.WriteAlerts(t, ctx, addrs, "motif-alerts", match)

	if c := kafkatest.Committed(t, addrs, "nobody", "edges"); len(c) != 0 {
		t.Fatalf("committed offsets of a group that never committed: %v; want none", c)
	}
	admin, err := kafka.NewAdmin(addrs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.CommitOutsideGroup(ctx, "g", "edges", map[int]kafka.Commit{0: {Offset: 1}}); err != nil {
		t.Fatal(err)
	}

	b.Stop()
	b.Stop() // stopping twice is harmless
	if _, err := kafkatest.Plain(addrs).TryEndOffsets("edges"); err == nil {
		t.Fatal("end offsets read from a stopped broker")
	}
	b.Start()
	if !slices.Equal(b.Addrs(), addrs) {
		t.Fatalf("after a restart the broker is at %v; want %v", b.Addrs(), addrs)
	}

	if got := kafkatest.Sum(kafkatest.EndOffsets(t, addrs, "edges")); got != int64(len(records)) {
		t.Errorf("edges hold %d records; want %d", got, len(records))
	}
	var raw []string
	for _, m := range kafkatest.ReadTopic(t, addrs, "raw") {
		raw = append(raw, string(m.Value)+"@"+string(rune('0'+m.Partition)))
	}
	if want := []string{"z@0", "x@1", "y@1"}; !slices.Equal(raw, want) {
		t.Errorf("raw topic read back as %v; want %v (partition, then offset order)", raw, want)
	}
	log := kafkatest.ReadAlerts(t, addrs, "motif-alerts")
	if len(log) != 1 || log[0].Key() != "q/m1" || log[0].Offset != 0 {
		t.Fatalf("alert log %+v; want the one match q/m1 at offset 0", log)
	}
	if as := kafkatest.Alerts(log); len(as) != 1 || as[0].MatchID != "m1" {
		t.Errorf("Alerts(log) = %+v", as)
	}
	if c := kafkatest.Committed(t, addrs, "g", "edges"); !maps.Equal(c, map[int]int64{0: 1}) {
		t.Errorf("committed offsets after the restart: %v; want 0:1", c)
	}
	b.Cluster() // running: no panic
}

// TestStartBroker: the embedded broker has the topics asked for.
func TestStartBroker(t *testing.T) {
	addrs := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 3})
	if end := kafkatest.EndOffsets(t, addrs, "edges"); len(end) != 3 || kafkatest.Sum(end) != 0 {
		t.Fatalf("end offsets of a new 3-partition topic: %v", end)
	}
	if _, err := kafkatest.Plain(addrs).TryReadTopic("missing"); err == nil {
		t.Fatal("reading a missing topic succeeded")
	}
}

// TestStartKfakeOverTLS: a kfake cluster serving SelfSigned's pair is
// reached by a client that trusts the certificate, and refused by one
// that does not.
func TestStartKfakeOverTLS(t *testing.T) {
	certPEM, keyPEM, pair := kafkatest.SelfSigned(t)
	if len(certPEM) == 0 || len(keyPEM) == 0 || pair.Leaf == nil {
		t.Fatalf("SelfSigned: %d bytes of certificate, %d of key, leaf %v", len(certPEM), len(keyPEM), pair.Leaf)
	}
	c := kafkatest.StartKfake(t, kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{pair}}))
	pool := x509.NewCertPool()
	pool.AddCert(pair.Leaf)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	trusted := &kafka.Dialer{TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Timeout: 5 * time.Second}
	if err := kafka.Ping(ctx, c.ListenAddrs(), trusted); err != nil {
		t.Fatalf("Ping trusting the certificate: %v", err)
	}
	untrusted := &kafka.Dialer{TLS: &tls.Config{MinVersion: tls.VersionTLS12}, Timeout: 5 * time.Second}
	if err := kafka.Ping(ctx, c.ListenAddrs(), untrusted); !kafka.IsTLSError(err) {
		t.Fatalf("Ping not trusting the certificate = %v; want a TLS error", err)
	}
}
