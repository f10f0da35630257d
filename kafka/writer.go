package kafka

import (
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Writer writes records to one topic; WriteMessages returns once they
// are acknowledged, and Close flushes and releases it.
type Writer = kafkago.Writer

// NewWriter returns a writer to topic whose records are acknowledged by
// every in-sync replica, batched for at most 10 ms: for the daemon's
// occasional records (the GPM snapshots). transport carries TLS and SASL
// (nil: plain TCP).
func NewWriter(brokers []string, topic string, transport *Transport) *Writer {
	w := &Writer{Addr: kafkago.TCP(brokers...), Topic: topic, RequiredAcks: kafkago.RequireAll, BatchTimeout: 10 * time.Millisecond}
	if transport != nil {
		w.Transport = transport
	}
	return w
}
