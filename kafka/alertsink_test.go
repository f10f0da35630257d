package kafka

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/alerts/alertstest"
)

const alertTopic = "motifwatch-alerts"

// newAlertCluster starts an in-process Kafka-protocol broker on 127.0.0.1 with
// the alert topic, closed when the test ends.
func newAlertCluster(t *testing.T, partitions int32) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, alertTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// testAlertSink returns a sink on c with short timeouts, closed when the
// test ends.
func testAlertSink(t *testing.T, c *kfake.Cluster, opts AlertSinkOptions) *AlertSink {
	t.Helper()
	opts.Brokers = c.ListenAddrs()
	if opts.Topic == "" {
		opts.Topic = alertTopic
	}
	opts.WriteTimeout = cmp.Or(opts.WriteTimeout, 2*time.Second)
	opts.BackoffMin = cmp.Or(opts.BackoffMin, 10*time.Millisecond)
	opts.BackoffMax = cmp.Or(opts.BackoffMax, 100*time.Millisecond)
	s, err := NewAlertSink(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing kafka sink: %v", err)
		}
	})
	return s
}

func header(m kafkago.Message, key string) (string, bool) {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}

func TestAlertSinkRoundTrip(t *testing.T) {
	const partitions = 3
	c := newAlertCluster(t, partitions)
	s := testAlertSink(t, c, AlertSinkOptions{})
	want := alertstest.Sample()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Two writes: records of one query from both land in order.
	for _, part := range [][]alerts.Alert{want[:5], want[5:]} {
		if err := s.Write(ctx, part); err != nil {
			t.Fatal(err)
		}
	}

	byPartition := readTopic(t, c.ListenAddrs(), alertTopic)
	partitionOf := make(map[string]int)
	var got []alerts.Alert
	n := 0
	for p, msgs := range byPartition {
		for _, m := range msgs {
			n++
			var a alerts.Alert
			if err := json.Unmarshal(m.Value, &a); err != nil {
				t.Fatalf("partition %d offset %d: value %q: %v", p, m.Offset, m.Value, err)
			}
			if string(m.Key) != a.Query {
				t.Errorf("record key %q; want the query %q", m.Key, a.Query)
			}
			if h, ok := header(m, HeaderKind); !ok || h != string(a.Kind) {
				t.Errorf("%s header = %q, %v; want %q", HeaderKind, h, ok, a.Kind)
			}
			if h, ok := header(m, HeaderQuery); !ok || h != a.Query {
				t.Errorf("%s header = %q, %v; want %q", HeaderQuery, h, ok, a.Query)
			}
			if !m.Time.Equal(a.DetectedAt) {
				t.Errorf("record time %v; want DetectedAt %v", m.Time, a.DetectedAt)
			}
			if q, ok := partitionOf[a.Query]; ok && q != p {
				t.Errorf("query %q on partitions %d and %d; want one (keyed by query)", a.Query, q, p)
			}
			partitionOf[a.Query] = p
			got = append(got, a)
		}
	}
	if n != len(want) {
		t.Fatalf("read %d records; want %d", n, len(want))
	}
	// Per query, the records come back in write order, as written.
	for _, q := range []string{"ring", "fan-in", "ünïcode query"} {
		var w, g [][]byte
		for _, a := range want {
			if a.Query == q {
				b, _ := json.Marshal(a)
				w = append(w, b)
			}
		}
		for _, a := range got {
			if a.Query == q {
				b, _ := json.Marshal(a)
				g = append(g, b)
			}
		}
		if len(g) != len(w) {
			t.Errorf("query %q: %d records; want %d", q, len(g), len(w))
			continue
		}
		for i := range w {
			if !bytes.Equal(g[i], w[i]) {
				t.Errorf("query %q record %d:\n got %s\nwant %s", q, i, g[i], w[i])
			}
		}
	}
}

// TestAlertSinkRetriesTransient fails the first produce request with a
// retriable broker error: Write retries and every record lands once.
func TestAlertSinkRetriesTransient(t *testing.T) {
	c := newAlertCluster(t, 1)
	var produces atomic.Int32
	c.ControlKey(kmsg.Produce.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		produces.Add(1)
		c.KeepControl()
		return nil, nil, false // observe only
	})
	c.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		return produceError(req, kafkago.NotEnoughReplicas), nil, true // once
	})
	s := testAlertSink(t, c, AlertSinkOptions{})
	want := alertstest.Sample()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Write(ctx, want); err != nil {
		t.Fatal(err)
	}
	if got := produces.Load(); got != 2 {
		t.Errorf("%d produce requests; want 2 (one failed, one retry)", got)
	}
	if got := len(readTopic(t, c.ListenAddrs(), alertTopic)[0]); got != len(want) {
		t.Errorf("read %d records; want %d, each once", got, len(want))
	}
}

// produceError answers a produce request with code for every partition.
func produceError(req kmsg.Request, code kafkago.Error) kmsg.Response {
	preq := req.(*kmsg.ProduceRequest)
	resp := preq.ResponseKind().(*kmsg.ProduceResponse)
	for _, rt := range preq.Topics {
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.ErrorCode = int16(code)
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// TestAlertSinkErrors checks which failures return at once and which are
// retried until the context ends; either way the error names the topic
// and wraps the cause. A retried failure's context is cancelled once the
// sink has retried it a few times with the expected error (OnRetry), not
// at a deadline: a loaded machine may take longer than any deadline to
// get the broker's first answer.
func TestAlertSinkErrors(t *testing.T) {
	huge := alerts.Alert{Kind: alerts.KindMatch, Query: "big", Edges: make([]alerts.Edge, 30000)} // > 1 MB of JSON
	tests := []struct {
		name      string
		topic     string
		code      kafkago.Error // produce error code to inject, always; 0 = none
		batch     []alerts.Alert
		stop      bool // close the cluster first
		want      []error
		untilDone bool // the error must come when ctx ends, not before
	}{
		{
			name:      "broker stopped",
			stop:      true,
			want:      []error{context.Canceled},
			untilDone: true,
		},
		{
			name:      "retriable broker error",
			code:      kafkago.LeaderNotAvailable,
			want:      []error{context.Canceled, kafkago.LeaderNotAvailable},
			untilDone: true,
		},
		{
			// A missing alert topic is retriable in Kafka's terms
			// (UNKNOWN_TOPIC_OR_PARTITION): Write waits for it to appear.
			name:      "missing topic",
			topic:     "no-such-topic",
			want:      []error{context.Canceled, kafkago.UnknownTopicOrPartition},
			untilDone: true,
		},
		{
			name: "permanent broker error",
			code: kafkago.TopicAuthorizationFailed,
			want: []error{kafkago.TopicAuthorizationFailed},
		},
		{
			name:  "record too large",
			batch: []alerts.Alert{huge},
			want:  []error{kafkago.MessageSizeTooLarge},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newAlertCluster(t, 1)
			if tt.code != 0 {
				c.ControlKey(kmsg.Produce.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
					c.KeepControl()
					return produceError(req, tt.code), nil, true
				})
			}
			topic := tt.topic
			if topic == "" {
				topic = alertTopic
			}
			// A retried failure ends when the sink has retried it
			// retriesBeforeCancel times with every expected error (other
			// than the context's): then the context is cancelled. The
			// limit only guards against a hang.
			const retriesBeforeCancel = 3
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var armed bool // the Write under test has begun
			var retried int
			onRetry := func(_ int, err error) { // on the test's goroutine
				if !armed {
					return
				}
				for _, w := range tt.want {
					if w != context.Canceled && !errors.Is(err, w) {
						return
					}
				}
				if retried++; retried == retriesBeforeCancel {
					cancel()
				}
			}
			s := testAlertSink(t, c, AlertSinkOptions{Topic: topic, WriteTimeout: 500 * time.Millisecond, OnRetry: onRetry})
			if tt.stop {
				// First a good write, so the sink holds connections and
				// metadata of the cluster that then goes away.
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := s.Write(ctx, alertstest.Sample()[:1])
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			batch := tt.batch
			if batch == nil {
				batch = alertstest.Sample()
			}
			armed = true
			err := s.Write(ctx, batch)
			if err == nil {
				t.Fatal("Write succeeded; want an error")
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("Write error %q does not wrap %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), `topic "`+topic+`"`) {
				t.Errorf("Write error %q does not name topic %q", err, topic)
			}
			if tt.untilDone && retried < retriesBeforeCancel {
				t.Errorf("Write returned after %d retries with the expected error; want it to retry until the context ends (cancelled after %d)", retried, retriesBeforeCancel)
			}
			if !tt.untilDone && retried > 0 {
				t.Errorf("Write of a permanent failure retried %d times; want it to return at once", retried)
			}
			start := time.Now()
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("Close took %v; want it bounded by the write timeout", took)
			}
			if err := s.Write(context.Background(), batch); !errors.Is(err, alerts.ErrClosed) {
				t.Errorf("Write after Close = %v; want ErrClosed", err)
			}
		})
	}
}

func TestNewAlertSinkErrors(t *testing.T) {
	tests := []struct {
		name string
		opts AlertSinkOptions
		want string
	}{
		{"no brokers", AlertSinkOptions{Topic: "t"}, "no brokers"},
		{"empty broker", AlertSinkOptions{Brokers: []string{"h:1", ""}, Topic: "t"}, "broker 1 is empty"},
		{"no topic", AlertSinkOptions{Brokers: []string{"h:1"}}, "no topic"},
		{"negative timeout", AlertSinkOptions{Brokers: []string{"h:1"}, Topic: "t", WriteTimeout: -1}, "negative"},
	}
	for _, tt := range tests {
		s, err := NewAlertSink(tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewAlertSink error = %v; want it to contain %q", tt.name, err, tt.want)
		}
		if s != nil {
			s.Close()
		}
	}
}

func TestBackoff(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		attempt  int
		min, max time.Duration
		want     time.Duration
	}{
		{0, 100 * ms, 5000 * ms, 100 * ms},
		{1, 100 * ms, 5000 * ms, 200 * ms},
		{5, 100 * ms, 5000 * ms, 3200 * ms},
		{6, 100 * ms, 5000 * ms, 5000 * ms},
		{1000, 100 * ms, 5000 * ms, 5000 * ms},
	}
	for _, tt := range tests {
		if got := backoff(tt.attempt, tt.min, tt.max); got != tt.want {
			t.Errorf("backoff(%d, %v, %v) = %v; want %v", tt.attempt, tt.min, tt.max, got, tt.want)
		}
	}
}
