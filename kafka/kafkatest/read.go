package kafkatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/kafka"
)

// readTimeout bounds one read of a topic or of offsets.
const readTimeout = 60 * time.Second

// Conn says how to reach a cluster: its bootstrap brokers, and the
// transport (metadata, offsets) and dialer (fetches) that carry TLS and
// SASL; nil ones mean plain TCP.
type Conn struct {
	Brokers   []string
	Transport *kafka.Transport
	Dialer    *kafka.Dialer
}

// admin returns an Admin for c (the caller closes it).
func (c Conn) admin() (*kafka.Admin, error) {
	if c.Transport == nil {
		// A nil *Transport in the interface would not read as "none".
		return kafka.NewAdmin(c.Brokers, nil)
	}
	return kafka.NewAdmin(c.Brokers, c.Transport)
}

// offsets asks the cluster, through an admin client and within 10 s,
// for per-partition offsets.
func (c Conn) offsets(ask func(ctx context.Context, admin *kafka.Admin) (map[int]int64, error)) (map[int]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := c.admin()
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	return ask(ctx, admin)
}

// TryEndOffsets returns each partition's end offset (the next record's).
func (c Conn) TryEndOffsets(topic string) (map[int]int64, error) {
	return c.offsets(func(ctx context.Context, admin *kafka.Admin) (map[int]int64, error) {
		return admin.EndOffsets(ctx, topic)
	})
}

// TryCommitted returns group's committed offsets of topic by partition;
// none (not an error) when the group has committed nothing yet.
func (c Conn) TryCommitted(group, topic string) (map[int]int64, error) {
	return c.offsets(func(ctx context.Context, admin *kafka.Admin) (map[int]int64, error) {
		o, err := admin.Committed(ctx, group, topic)
		if errors.Is(err, kafkago.GroupIdNotFound) {
			return map[int]int64{}, nil
		}
		return o, err
	})
}

// TryStartOffsets returns each partition's log start offset (its first
// record's, once retention has dropped older ones).
func (c Conn) TryStartOffsets(topic string) (map[int]int64, error) {
	return c.offsets(func(ctx context.Context, admin *kafka.Admin) (map[int]int64, error) {
		return admin.StartOffsets(ctx, topic)
	})
}

// TryReadTopic reads every record of topic, from each partition's log
// start up to the end offsets it finds first, partition by partition in
// offset order.
func (c Conn) TryReadTopic(topic string) ([]kafka.Message, error) {
	end, err := c.TryEndOffsets(topic)
	if err != nil {
		return nil, err
	}
	from, err := c.TryStartOffsets(topic)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	var out []kafka.Message
	err = kafka.Replay(ctx, c.Brokers, c.Dialer, topic, from, end, func(m kafka.Message) error {
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading topic %q from %v to %v: %w", topic, from, end, err)
	}
	return out, nil
}

// ReadTopic is TryReadTopic that fails the test on an error.
func (c Conn) ReadTopic(t testing.TB, topic string) []kafka.Message {
	t.Helper()
	ms, err := c.TryReadTopic(topic)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// Logged is an alert record with its place on the alert topic.
type Logged struct {
	alerts.Alert
	Partition int
	Offset    int64
}

// Key identifies the match or incident: its query and match id.
func (l Logged) Key() string { return l.Query + "/" + l.MatchID }

// ReadAlerts reads the whole alert topic, partition by partition in
// offset order; a record that is not an alert fails the test.
func (c Conn) ReadAlerts(t testing.TB, topic string) []Logged {
	t.Helper()
	ms := c.ReadTopic(t, topic)
	out := make([]Logged, 0, len(ms))
	for _, m := range ms {
		var a alerts.Alert
		if err := json.Unmarshal(m.Value, &a); err != nil {
			t.Fatalf("topic %q: alert %d@%d: %v", topic, m.Partition, m.Offset, err)
		}
		out = append(out, Logged{a, m.Partition, m.Offset})
	}
	return out
}

// Plain is a Conn over plain TCP to brokers.
func Plain(brokers []string) Conn { return Conn{Brokers: brokers} }

// ReadTopic reads every record of topic over plain TCP (Conn.ReadTopic).
func ReadTopic(t testing.TB, brokers []string, topic string) []kafka.Message {
	t.Helper()
	return Plain(brokers).ReadTopic(t, topic)
}

// ReadAlerts reads the alert topic over plain TCP (Conn.ReadAlerts).
func ReadAlerts(t testing.TB, brokers []string, topic string) []Logged {
	t.Helper()
	return Plain(brokers).ReadAlerts(t, topic)
}

// Alerts returns the alerts of log, without their places.
func Alerts(log []Logged) []alerts.Alert {
	out := make([]alerts.Alert, len(log))
	for i, l := range log {
		out[i] = l.Alert
	}
	return out
}

// EndOffsets returns topic's end offsets over plain TCP, failing the test
// on an error.
func EndOffsets(t testing.TB, brokers []string, topic string) map[int]int64 {
	t.Helper()
	end, err := Plain(brokers).TryEndOffsets(topic)
	if err != nil {
		t.Fatal(err)
	}
	return end
}

// Committed returns group's committed offsets of topic over plain TCP
// (none before its first commit), failing the test on an error.
func Committed(t testing.TB, brokers []string, group, topic string) map[int]int64 {
	t.Helper()
	c, err := Plain(brokers).TryCommitted(group, topic)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Sum adds up per-partition offsets: the records below them all.
func Sum(offsets map[int]int64) int64 {
	var s int64
	for _, v := range offsets {
		s += v
	}
	return s
}
