package kafkatest

import (
	"context"
	"fmt"
	"iter"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/kafka"
)

// Produce writes edge records to topic in format, one second per time
// unit (kafka.Produce), creating the topic with partitions if it is
// missing; it fails the test on an error.
func Produce(t testing.TB, brokers []string, topic string, partitions int, format kafka.Format, records iter.Seq[kafka.Record]) {
	t.Helper()
	if err := kafka.EnsureTopics(context.Background(), brokers, nil, []kafka.TopicSpec{{Name: topic, Partitions: partitions}}); err != nil {
		t.Fatal(err)
	}
	if _, err := kafka.Produce(context.Background(), records, kafka.ProduceOptions{Brokers: brokers, Topic: topic, TimeUnit: time.Second, Format: format}); err != nil {
		t.Fatal(err)
	}
}

// SendOptions say how Send writes.
type SendOptions struct {
	// Compress sends zstd-compressed batches, as a producer other than
	// motifwatch may (the broker measures a batch compressed).
	Compress bool
	// Timeout bounds the write (default 30 s).
	Timeout time.Duration
	// BatchSize is the most records per batch (default kafka-go's, 100);
	// large backlogs go faster in larger ones.
	BatchSize int
}

// Send writes msgs to topic, each to its Partition, acknowledged by all
// in-sync replicas, in batches of up to 8 MiB before compression: raw
// records, as a producer other than motifwatch would write them.
func Send(t testing.TB, brokers []string, topic string, opts SendOptions, msgs ...kafka.Message) {
	t.Helper()
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{Addr: kafkago.TCP(brokers...), Topic: topic, Transport: tr, BatchTimeout: time.Millisecond,
		RequiredAcks: kafkago.RequireAll, BatchBytes: 8 << 20, BatchSize: opts.BatchSize,
		Balancer: kafkago.BalancerFunc(func(m kafka.Message, _ ...int) int { return m.Partition })}
	if opts.Compress {
		w.Compression = kafkago.Zstd
	}
	defer w.Close()
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(errorf(topic, len(msgs), err))
	}
}

// WriteAlerts writes as to the alert topic through motifwatch's own
// AlertSink, as the daemon does.
func WriteAlerts(t testing.TB, ctx context.Context, brokers []string, topic string, as ...alerts.Alert) {
	t.Helper()
	sink, err := kafka.NewAlertSink(kafka.AlertSinkOptions{Brokers: brokers, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	if err := sink.Write(ctx, as); err != nil {
		t.Fatal(err)
	}
}

// errorf names the topic in a producing error.
func errorf(topic string, n int, err error) error {
	return fmt.Errorf("producing %d records to topic %q: %w", n, topic, err)
}

// Values makes a message of each value, all for partition 0 (for Send),
// in order.
func Values(values ...string) []kafka.Message {
	msgs := make([]kafka.Message, len(values))
	for i, v := range values {
		msgs[i] = kafka.Message{Value: []byte(v)}
	}
	return msgs
}
