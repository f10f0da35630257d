package feed_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// transfers has ties, lines out of time order, a missing number and a
// missing string; the loader puts it in (t, line) order.
const transfers = `src,dst,t,amount,channel
a,b,20,100,wire
b,c,10,2000,card
c,a,20,3.5,wire
a,c,20,,
d,a,5,7,card
b,d,30,12,
`

func loadString(t *testing.T, text string, unit time.Duration) *window.Window {
	t.Helper()
	w, _, err := ingest.Load(strings.NewReader(text), "transfers.txt", ingest.FileOptions{TimeUnit: unit})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// checkProduced reads topic back and checks it against w edge by edge:
// every seq once, in order within each partition, fields, key and time.
func checkProduced(t *testing.T, addrs []string, topic string, w *window.Window, format kafka.Format, part kafka.Partitioning) []kafka.Message {
	t.Helper()
	msgs := readAll(t, addrs, topic, w.Len())
	seen := make([]bool, w.Len())
	lastSeq := map[int]int64{}
	partOf := map[string]int{}
	schema := w.Schema()
	for _, m := range msgs {
		src, dst, ts, seq, attrs := decode(t, m.Value, format, schema)
		if seq < 0 || seq >= int64(len(seen)) || seen[seq] {
			t.Fatalf("seq %d out of range or repeated: %s", seq, m.Value)
		}
		seen[seq] = true
		if last, ok := lastSeq[m.Partition]; ok && seq <= last {
			t.Errorf("partition %d: seq %d after %d: file order lost", m.Partition, seq, last)
		}
		lastSeq[m.Partition] = seq
		p := w.First() + seq
		if src != w.IDs().Name(w.Src(p)) || dst != w.IDs().Name(w.Dst(p)) || ts != w.T(p) {
			t.Errorf("seq %d = %s->%s@%d; want %s->%s@%d", seq, src, dst, ts,
				w.IDs().Name(w.Src(p)), w.IDs().Name(w.Dst(p)), w.T(p))
		}
		for i, a := range schema.EdgeAttrs {
			v := w.EdgeAttr(i, p)
			var want string
			switch {
			case a.Kind == window.String:
				want = w.Strings().Value(uint32(v))
			case !math.IsNaN(v):
				want = strconv.FormatFloat(v, 'g', -1, 64)
			}
			if attrs[a.Name] != want {
				t.Errorf("seq %d: %s = %q; want %q (%s)", seq, a.Name, attrs[a.Name], want, m.Value)
			}
		}
		if wantTime := time.UnixMilli(0).Add(time.Duration(ts) * schema.TimeUnit); !m.Time.Equal(wantTime) {
			t.Errorf("seq %d: message time %v; want %v", seq, m.Time.UTC(), wantTime.UTC())
		}
		switch part {
		case kafka.BySrc:
			if string(m.Key) != src {
				t.Errorf("seq %d: key %q; want the source %q", seq, m.Key, src)
			}
			if p, ok := partOf[src]; ok && p != m.Partition {
				t.Errorf("source %s in partitions %d and %d", src, p, m.Partition)
			}
			partOf[src] = m.Partition
		case kafka.RoundRobin:
			if m.Key != nil {
				t.Errorf("seq %d: key %q; want none with round robin", seq, m.Key)
			}
		}
	}
	return msgs
}

// decode reads one record value; attributes come back as strings
// ("" when missing).
func decode(t *testing.T, v []byte, format kafka.Format, schema *window.Schema) (src, dst string, ts, seq int64, attrs map[string]string) {
	t.Helper()
	attrs = map[string]string{}
	if format == kafka.CSV {
		rec, err := csv.NewReader(strings.NewReader(string(v))).Read()
		if err != nil || len(rec) != 4+len(schema.EdgeAttrs) {
			t.Fatalf("bad CSV record %q: %v", v, err)
		}
		ts, _ = strconv.ParseInt(rec[2], 10, 64)
		seq, _ = strconv.ParseInt(rec[3], 10, 64)
		for i, a := range schema.EdgeAttrs {
			attrs[a.Name] = rec[4+i]
		}
		return rec[0], rec[1], ts, seq, attrs
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(v)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad JSON record %s: %v", v, err)
	}
	if len(m) < 4 {
		t.Fatalf("JSON record %s lacks fields", v)
	}
	ts, _ = m["t"].(json.Number).Int64()
	seq, _ = m["seq"].(json.Number).Int64()
	for _, a := range schema.EdgeAttrs {
		switch x := m[a.Name].(type) {
		case json.Number:
			attrs[a.Name] = x.String()
		case string:
			attrs[a.Name] = x
		}
	}
	return m["src"].(string), m["dst"].(string), ts, seq, attrs
}

func TestProduceWindow(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Brokers: 3})
	ctx := testContext(t)
	addrs := e.Addrs()
	small := loadString(t, transfers, time.Second)
	milli := loadString(t, transfers, time.Millisecond)
	shipped, _, err := ingest.LoadFile("../ingest/testdata/transfers.csv", ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	generated, err := synth.Window(synth.Default(3000, 7)) // ties included
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		w      *window.Window
		format kafka.Format
		part   kafka.Partitioning
	}{
		{small, kafka.JSON, kafka.BySrc},
		{small, kafka.CSV, kafka.BySrc},
		{milli, kafka.JSON, kafka.RoundRobin},
		{shipped, kafka.CSV, kafka.RoundRobin},
		{generated, kafka.JSON, kafka.BySrc},
	} {
		topic := fmt.Sprintf("edges-%d", i)
		t.Run(fmt.Sprintf("%s/%v/%v/%d-edges", topic, c.format, c.part, c.w.Len()), func(t *testing.T) {
			if err := kafka.EnsureTopics(ctx, addrs, nil, []kafka.TopicSpec{{Name: topic, Partitions: 4}}); err != nil {
				t.Fatal(err)
			}
			var progress []int
			n, err := feed.ProduceWindow(ctx, c.w, kafka.ProduceOptions{
				Brokers: addrs[1:], Topic: topic, Format: c.format, Partitioning: c.part,
				BatchSize: 500, Progress: func(sent int) { progress = append(progress, sent) },
			})
			if err != nil || n != c.w.Len() {
				t.Fatalf("ProduceWindow = %d, %v; want %d records", n, err, c.w.Len())
			}
			if len(progress) == 0 || progress[len(progress)-1] != n {
				t.Errorf("progress calls %v; want the last to be %d", progress, n)
			}
			msgs := checkProduced(t, addrs, topic, c.w, c.format, c.part)
			used := map[int]bool{}
			srcPartition := kafka.SrcPartitioner(4)
			for _, m := range msgs {
				used[m.Partition] = true
				if p := srcPartition(string(m.Key)); c.part == kafka.BySrc && p != m.Partition {
					t.Errorf("source %s produced to partition %d; SrcPartitioner says %d", m.Key, m.Partition, p)
				}
			}
			if c.w.Len() >= 100 && len(used) != 4 {
				t.Errorf("records landed in partitions %v; want all 4", used)
			}
		})
	}
}

func TestProduceOmitSeqAndCustomFields(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges"}}})
	ctx := testContext(t)
	w := loadString(t, transfers, time.Second)
	_, err := feed.ProduceWindow(ctx, w, kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges", OmitSeq: true,
		Fields: kafka.Fields{Src: "from", Dst: "to", T: "ts", Seq: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, e.Addrs(), "edges", w.Len())
	if got, want := string(msgs[0].Value), `{"from":"d","to":"a","ts":5,"amount":7,"channel":"card"}`; got != want {
		t.Errorf("first record %s; want %s", got, want)
	}
	// An attribute named like a fixed field is refused before anything is sent.
	clash := loadString(t, "src dst t seq\na b 1 5\n", time.Second)
	if _, err := feed.ProduceWindow(ctx, clash, kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges"}); err == nil || !strings.Contains(err.Error(), `"seq"`) {
		t.Errorf("ProduceWindow with an attribute named seq = %v; want an error naming it", err)
	}
}

func TestProduceRateLimits(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 2}}})
	ctx := testContext(t)
	w, err := synth.Window(synth.Default(60, 1))
	if err != nil {
		t.Fatal(err)
	}
	// 200/s with a burst of 10 (50 ms): 60 records take at least 250 ms.
	start := time.Now()
	n, err := feed.ProduceWindow(ctx, w, kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges", Rate: 200})
	took := time.Since(start)
	if err != nil || n != 60 {
		t.Fatalf("ProduceWindow = %d, %v", n, err)
	}
	if took < 250*time.Millisecond {
		t.Errorf("60 records at 200/s took %v; want at least 250ms", took)
	}
	checkProduced(t, e.Addrs(), "edges", w, kafka.JSON, kafka.BySrc)
}

func TestProduceSpeedupPacesByEdgeTime(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges"}}})
	ctx := testContext(t)
	// Times 1000..1020 s at 40×: the last record is due 0.5 s after the first.
	var b strings.Builder
	for i := range 21 {
		fmt.Fprintf(&b, "n%d n%d %d\n", i, i+1, 1000+i)
	}
	w := loadString(t, b.String(), time.Second)
	start := time.Now()
	n, err := feed.ProduceWindow(ctx, w, kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges", Speedup: 40})
	took := time.Since(start)
	if err != nil || n != 21 {
		t.Fatalf("ProduceWindow = %d, %v", n, err)
	}
	if took < 480*time.Millisecond {
		t.Errorf("20 s of edges at 40x took %v; want at least 500ms", took)
	}
	checkProduced(t, e.Addrs(), "edges", w, kafka.JSON, kafka.BySrc)
}

func TestProduceErrors(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges"}}})
	ctx := testContext(t)
	w := loadString(t, transfers, time.Second)
	base := kafka.ProduceOptions{Brokers: e.Addrs(), Topic: "edges"}
	for _, c := range []struct {
		name string
		edit func(o *kafka.ProduceOptions)
		want string
	}{
		{"missing topic", func(o *kafka.ProduceOptions) { o.Topic = "nope" }, `topic "nope" does not exist`},
		{"bad topic", func(o *kafka.ProduceOptions) { o.Topic = "a/b" }, `topic "a/b"`},
		{"no brokers", func(o *kafka.ProduceOptions) { o.Brokers = nil }, "no broker addresses"},
		{"rate and speedup", func(o *kafka.ProduceOptions) { o.Rate, o.Speedup = 10, 2 }, "exclude each other"},
		{"negative rate", func(o *kafka.ProduceOptions) { o.Rate = -1 }, "rate -1"},
		{"NaN speedup", func(o *kafka.ProduceOptions) { o.Speedup = math.NaN() }, "speedup NaN"},
		{"empty field", func(o *kafka.ProduceOptions) { o.Fields = kafka.Fields{Src: "s"} }, "JSON field name 2"},
		{"same field", func(o *kafka.ProduceOptions) { o.Fields = kafka.Fields{Src: "s", Dst: "s", T: "t", Seq: "q"} }, `"s" is used twice`},
	} {
		o := base
		c.edit(&o)
		// A bad setting fails at once rather than retrying: under a
		// deadline far beyond a first attempt's cost, a retry loop
		// would end in the deadline's error, not the setting's.
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		n, err := feed.ProduceWindow(cctx, w, o)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: ProduceWindow retried until the deadline: %v", c.name, err)
		}
		if err == nil || n != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ProduceWindow = %d, %v; want 0 and an error containing %q", c.name, n, err, c.want)
		}
	}
	// An edge before 1970 has no Kafka timestamp: the error names it.
	neg := loadString(t, "a b -5\n", time.Second)
	if _, err := feed.ProduceWindow(ctx, neg, base); err == nil || !strings.Contains(err.Error(), "record 0 (a -> b)") {
		t.Errorf("ProduceWindow of a negative time = %v; want an error naming record 0", err)
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// readAll reads every record of topic (kafkatest.ReadTopic: from the log
// start, partition by partition in offset order) and checks that there
// are want.
func readAll(t *testing.T, addrs []string, topic string, want int) []kafka.Message {
	t.Helper()
	out := kafkatest.ReadTopic(t, addrs, topic)
	if len(out) != want {
		t.Fatalf("read %d messages from %q; want %d", len(out), topic, want)
	}
	return out
}
