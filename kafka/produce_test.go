package kafka_test

import (
	"context"
	"errors"
	"testing"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// endless yields records forever.
func endless(yield func(kafka.Record) bool) {
	for i := int64(0); ; i++ {
		if !yield(kafka.Record{Src: "a", Dst: "b", T: i, Seq: i}) {
			return
		}
	}
}

// TestProduceStopsWithContext: Produce of an endless source returns the
// context's error once it ends, and the count it reports is exact (what
// it had written is on the topic). The context ends after the source has
// yielded cancelAfter records, not at a deadline: on a loaded machine
// the first write may not have begun within any short deadline.
func TestProduceStopsWithContext(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges"}}})
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	const cancelAfter = 20
	yielded := 0
	src := func(yield func(kafka.Record) bool) {
		for r := range endless {
			if yielded == cancelAfter {
				cancel()
			}
			if !yield(r) {
				return
			}
			yielded++
		}
	}
	n, err := kafka.Produce(ctx, src, kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges", Rate: 100})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Produce of an endless source = %v; want the context's error", err)
	}
	if n > cancelAfter {
		t.Errorf("Produce reported %d records sent; the source had yielded %d when the context ended", n, cancelAfter)
	}
	if got := len(readAll(t, e.Addrs(), "edges", n)); got != n {
		t.Errorf("topic holds %d records; Produce reported %d", got, n)
	}
}
