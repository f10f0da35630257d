package kafka

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/ingest"
)

// newCluster starts an in-process Kafka-protocol broker on 127.0.0.1:0
// with the topics seeded, closed when the test ends.
func newCluster(t testing.TB, partitions int32, topics ...string) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// readTopic reads every record of topic, by partition.
func readTopic(t *testing.T, brokers []string, topic string) map[int][]kafkago.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := NewAdmin(brokers, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	end, err := a.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	from := make(map[int]int64, len(end))
	for p := range end {
		from[p] = 0
	}
	out := make(map[int][]kafkago.Message)
	err = Replay(ctx, brokers, nil, topic, from, end, func(m kafkago.Message) error {
		out[m.Partition] = append(out[m.Partition], m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// produce writes msgs, each to its Partition, and waits for the acks.
func produce(t *testing.T, brokers []string, topic string, msgs ...kafkago.Message) {
	t.Helper()
	tr := &kafkago.Transport{}
	defer tr.CloseIdleConnections()
	w := &kafkago.Writer{
		Transport:    tr,
		Addr:         kafkago.TCP(brokers...),
		Topic:        topic,
		Balancer:     kafkago.BalancerFunc(func(m kafkago.Message, _ ...int) int { return m.Partition }),
		RequiredAcks: kafkago.RequireAll,
		BatchTimeout: time.Millisecond,
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatalf("producing %d records: %v", len(msgs), err)
	}
}

func TestDeadLetter(t *testing.T) {
	brokers := newCluster(t, 2, "edges", "dlq")
	dl, err := NewDeadLetter(DeadLetterOptions{Brokers: brokers, Topic: "dlq"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srcTime := time.Date(2024, 4, 5, 19, 34, 38, 123e6, time.UTC)
	src := []DeadRecord{
		{Msg: kafkago.Message{Topic: "edges", Partition: 1, Offset: 17, Key: []byte("a"), Value: []byte(`{"src":`),
			Headers: []kafkago.Header{{Key: "trace", Value: []byte("t1")}}, Time: srcTime},
			Reason: `invalid JSON: unexpected end of record, want a value`},
		{Msg: kafkago.Message{Topic: "edges", Partition: 0, Offset: 3, Value: []byte("x,y,1")}, Reason: ingest.ClassLate},
	}
	for _, batch := range [][]DeadRecord{src[:1], src[1:]} {
		out, err := dl.Write(ctx, batch)
		if err != nil || len(out.Written) != len(batch) || out.Truncated+out.Refused+len(out.Lost)+len(out.Retry) != 0 {
			t.Fatalf("Write(%d records) = %+v, %v; want all written whole", len(batch), out, err)
		}
	}
	if err := dl.Close(); err != nil {
		t.Fatal(err)
	}

	var got []kafkago.Message
	for _, ms := range readTopic(t, brokers, "dlq") {
		got = append(got, ms...)
	}
	byValue := map[string]kafkago.Message{}
	for _, m := range got {
		byValue[string(m.Value)] = m
	}
	for _, s := range src {
		m, ok := byValue[string(s.Msg.Value)]
		if !ok {
			t.Errorf("record %q not in the dead-letter topic", s.Msg.Value)
			continue
		}
		if string(m.Key) != string(s.Msg.Key) {
			t.Errorf("record %q: key %q; want %q", s.Msg.Value, m.Key, s.Msg.Key)
		}
		h := map[string]string{}
		for _, kv := range m.Headers {
			h[kv.Key] = string(kv.Value)
		}
		want := map[string]string{
			HeaderReason:          s.Reason,
			HeaderSourceTopic:     "edges",
			HeaderSourcePartition: strconv.Itoa(s.Msg.Partition),
			HeaderSourceOffset:    strconv.FormatInt(s.Msg.Offset, 10),
		}
		for _, kv := range s.Msg.Headers {
			want[kv.Key] = string(kv.Value)
		}
		if !s.Msg.Time.IsZero() {
			want[HeaderSourceTime] = "2024-04-05T19:34:38.123Z"
		}
		if !maps.Equal(h, want) {
			t.Errorf("record %q: headers %v; want %v", s.Msg.Value, h, want)
		}
	}
}

func TestOffsetsForTimeAndReplay(t *testing.T) {
	const parts = 2
	brokers := newCluster(t, parts, "edges")
	t0 := time.Unix(1_700_000_000, 0)
	// Partition 0 has records at t0+0s..t0+9s; partition 1 at t0+0s,
	// t0+2s, ..., t0+8s (offset i at t0+2i s).
	var msgs []kafkago.Message
	for i := 0; i < 10; i++ {
		msgs = append(msgs, kafkago.Message{Partition: 0, Value: []byte(fmt.Sprintf("p0-%d", i)), Time: t0.Add(time.Duration(i) * time.Second)})
	}
	for i := 0; i < 5; i++ {
		msgs = append(msgs, kafkago.Message{Partition: 1, Value: []byte(fmt.Sprintf("p1-%d", i)), Time: t0.Add(time.Duration(2*i) * time.Second)})
	}
	produce(t, brokers, "edges", msgs...)

	admin, err := NewAdmin(brokers, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tests := []struct {
		at   time.Time
		want map[int]int64
	}{
		{t0.Add(-time.Hour), map[int]int64{0: 0, 1: 0}},
		{t0, map[int]int64{0: 0, 1: 0}},
		{t0.Add(5 * time.Second), map[int]int64{0: 5, 1: 3}},
		{t0.Add(5500 * time.Millisecond), map[int]int64{0: 6, 1: 3}},
		{t0.Add(9 * time.Second), map[int]int64{0: 9, 1: 5}}, // nothing in partition 1: its end
		{t0.Add(time.Hour), map[int]int64{0: 10, 1: 5}},      // after everything: the ends
		// Before 1970 (-1 and -2 would mean latest and earliest on the wire):
		// everything.
		{time.UnixMilli(-1), map[int]int64{0: 0, 1: 0}},
		{time.UnixMilli(-2), map[int]int64{0: 0, 1: 0}},
		{time.Unix(-3600, 0), map[int]int64{0: 0, 1: 0}},
	}
	for _, tc := range tests {
		got, err := admin.OffsetsForTime(ctx, "edges", tc.at)
		if err != nil {
			t.Fatalf("OffsetsForTime(t0%+v): %v", tc.at.Sub(t0), err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("OffsetsForTime(t0%+v) = %v; want %v", tc.at.Sub(t0), got, tc.want)
		}
	}
	ends, err := admin.EndOffsets(ctx, "edges")
	if err != nil || !reflect.DeepEqual(ends, map[int]int64{0: 10, 1: 5}) {
		t.Errorf("EndOffsets = %v, %v; want map[0:10 1:5]", ends, err)
	}
	if _, err := admin.Partitions(ctx, "nope"); err == nil {
		t.Errorf("Partitions(unknown topic) succeeded")
	}

	// Replay from t0+5s to the ends.
	from, err := admin.OffsetsForTime(ctx, "edges", t0.Add(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = Replay(ctx, brokers, nil, "edges", from, ends, func(m kafkago.Message) error {
		got = append(got, string(m.Value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p0-5", "p0-6", "p0-7", "p0-8", "p0-9", "p1-3", "p1-4"}
	if !slices.Equal(got, want) {
		t.Errorf("Replay = %v; want %v", got, want)
	}
}
