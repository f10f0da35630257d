package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// testTransport is a transport closed at the end of the test, so no
// connection pool outlives it.
func testTransport(t *testing.T) *kafkago.Transport {
	tr := &kafkago.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// partitions returns the partition count of each topic.
func partitions(t *testing.T, ctx context.Context, addrs []string, tr *kafkago.Transport, topics ...string) map[string]int {
	t.Helper()
	// A fresh transport: tr's metadata cache may predate the topics.
	fresh := &kafkago.Transport{}
	defer fresh.CloseIdleConnections()
	client := &kafkago.Client{Addr: kafkago.TCP(addrs...), Transport: fresh}
	meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: topics})
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	out := map[string]int{}
	for _, tp := range meta.Topics {
		if tp.Error == nil {
			out[tp.Name] = len(tp.Partitions)
		}
	}
	return out
}

func TestEmbeddedProduceConsume(t *testing.T) {
	for _, brokers := range []int{1, 3} {
		t.Run(fmt.Sprintf("brokers=%d", brokers), func(t *testing.T) {
			e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Brokers: brokers})
			if got := len(e.Addrs()); got != brokers {
				t.Fatalf("Addrs() = %v; want %d addresses", e.Addrs(), brokers)
			}
			for _, a := range e.Addrs() {
				if !strings.HasPrefix(a, "127.0.0.1:") {
					t.Errorf("address %q is not on 127.0.0.1", a)
				}
			}
			ctx := testContext(t)
			tr := testTransport(t)
			// Bootstrap from the first broker only: with 3 brokers it is not
			// the controller, and kafkago.Client must route CreateTopics.
			addrs := e.Addrs()[:1]
			specs := []kafka.TopicSpec{
				{Name: "edges", Partitions: 3, ReplicationFactor: brokers},
				{Name: "alerts"},
			}
			if err := kafka.EnsureTopics(ctx, addrs, tr, specs); err != nil {
				t.Fatalf("EnsureTopics: %v", err)
			}
			// Idempotent, also with different counts: existing topics stay.
			specs[0].Partitions = 5
			if err := kafka.EnsureTopics(ctx, addrs, tr, specs); err != nil {
				t.Fatalf("EnsureTopics again: %v", err)
			}
			if err := kafka.EnsureTopics(ctx, addrs, nil, specs); err != nil {
				t.Fatalf("EnsureTopics with a nil transport: %v", err)
			}
			got := partitions(t, ctx, addrs, tr, "edges", "alerts")
			if got["edges"] != 3 || got["alerts"] != 1 {
				t.Errorf("partitions = %v; want edges:3 alerts:1 (the default)", got)
			}

			w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), Topic: "edges", Transport: tr,
				Balancer: &kafkago.Murmur2Balancer{}, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond}
			at := time.UnixMilli(1_700_000_000_000)
			if err := w.WriteMessages(ctx, kafkago.Message{Key: []byte("a"), Value: []byte("hello"), Time: at}); err != nil {
				t.Fatalf("WriteMessages: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			msgs := readAll(t, addrs, "edges", 1)
			if len(msgs) != 1 || string(msgs[0].Value) != "hello" || string(msgs[0].Key) != "a" || !msgs[0].Time.Equal(at) {
				t.Fatalf("read back %+v; want one message a=hello at %v", msgs, at)
			}
		})
	}
}

// readAll reads every record of topic (kafkatest.ReadTopic: from the log
// start, partition by partition in offset order) and checks that there
// are want.
func readAll(t *testing.T, addrs []string, topic string, want int) []kafkago.Message {
	t.Helper()
	out := kafkatest.ReadTopic(t, addrs, topic)
	if len(out) != want {
		t.Fatalf("read %d messages from %q; want %d", len(out), topic, want)
	}
	return out
}

func TestEmbeddedSeedsTopicsAndListsOffsetsByTime(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{
		Brokers: 3,
		Topics:  []kafka.TopicSpec{{Name: "edges", Partitions: 2}, {Name: "dead-letter"}},
	})
	ctx := testContext(t)
	if got := partitions(t, ctx, e.Addrs(), nil, "edges", "dead-letter"); got["edges"] != 2 || got["dead-letter"] != 1 {
		t.Fatalf("partitions = %v; want edges:2 dead-letter:1", got)
	}
	// The daemon rebuilds its window by seeking each partition to a time:
	// ListOffsets by timestamp must answer the first offset at or after it.
	tr := testTransport(t)
	w := &kafkago.Writer{Addr: kafkago.TCP(e.Addrs()...), Topic: "edges", Transport: tr,
		Balancer: &kafkago.Murmur2Balancer{}, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	for i := range 10 {
		m := kafkago.Message{Key: []byte("k"), Value: []byte{byte(i)}, Time: time.Unix(int64(100+10*i), 0)}
		if err := w.WriteMessages(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	msgs := readAll(t, e.Addrs(), "edges", 10)
	p := msgs[0].Partition
	client := &kafkago.Client{Addr: kafkago.TCP(e.Addrs()...), Transport: tr}
	for _, c := range []struct {
		at   time.Time
		want int64
	}{
		{time.Unix(0, 0), 0},
		{time.Unix(100, 0), 0},
		{time.Unix(125, 0), 3},
		{time.Unix(130, 0), 3},
		{time.Unix(190, 0), 9},
		{time.Unix(191, 0), -1}, // after the newest: no offset
	} {
		resp, err := client.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{
			"edges": {kafkago.TimeOffsetOf(p, c.at)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		po := resp.Topics["edges"][0]
		got := int64(-1)
		for off := range po.Offsets {
			got = off
		}
		if po.Error != nil || got != c.want {
			t.Errorf("ListOffsets(time %d) = %d, %v (%+v); want %d", c.at.Unix(), got, po.Error, po, c.want)
		}
	}
}

func TestEmbeddedFixedPortAndRestartWithDataDir(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	ctx := testContext(t)
	opts := kafka.EmbeddedOptions{Port: port, DataDir: dir, Topics: []kafka.TopicSpec{{Name: "edges"}}}
	e, err := kafka.StartEmbedded(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("127.0.0.1:%d", port); len(e.Addrs()) != 1 || e.Addrs()[0] != want {
		t.Fatalf("Addrs() = %v; want [%s]", e.Addrs(), want)
	}
	tr := &kafkago.Transport{}
	w := &kafkago.Writer{Addr: kafkago.TCP(e.Addrs()...), Topic: "edges", Transport: tr, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond}
	if err := w.WriteMessages(ctx, kafkago.Message{Value: []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tr.CloseIdleConnections()
	e.Close()
	e.Close() // idempotent

	// Same data directory, a free port: the topic and record survive.
	opts.Port = 0
	e2 := kafkatest.StartEmbedded(t, opts)
	msgs := readAll(t, e2.Addrs(), "edges", 1)
	if string(msgs[0].Value) != "kept" {
		t.Errorf("after restart read %q; want kept", msgs[0].Value)
	}
}

func TestEnsureTopicsErrorsNameTheTopic(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{})
	ctx := testContext(t)
	for _, c := range []struct {
		specs []kafka.TopicSpec
		want  string
	}{
		{[]kafka.TopicSpec{{Name: "ok"}, {Name: "too-many", ReplicationFactor: 3}}, `topic "too-many"`},
		{[]kafka.TopicSpec{{Name: "bad name"}}, `topic "bad name": character ' '`},
		{[]kafka.TopicSpec{{Name: "neg", Partitions: -1}}, `topic "neg": partitions -1`},
		{[]kafka.TopicSpec{{Name: "twice"}, {Name: "twice"}}, `topic "twice" listed twice`},
		{[]kafka.TopicSpec{{Name: ""}}, "empty topic name"},
		{[]kafka.TopicSpec{{Name: ".."}}, `topic ".."`},
	} {
		err := kafka.EnsureTopics(ctx, e.Addrs(), nil, c.specs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("EnsureTopics(%+v) = %v; want an error containing %q", c.specs, err, c.want)
		}
	}
	if err := kafka.EnsureTopics(ctx, nil, nil, []kafka.TopicSpec{{Name: "x"}}); !errors.Is(err, kafka.ErrNoBrokers) {
		t.Errorf("EnsureTopics with no brokers = %v; want ErrNoBrokers", err)
	}
	if err := kafka.EnsureTopics(ctx, nil, nil, nil); err != nil {
		t.Errorf("EnsureTopics with no topics = %v; want nil", err)
	}
}

func TestStartEmbeddedBadOptions(t *testing.T) {
	ctx := testContext(t)
	for _, c := range []struct {
		opts kafka.EmbeddedOptions
		want string
	}{
		{kafka.EmbeddedOptions{Brokers: -1}, "brokers -1"},
		{kafka.EmbeddedOptions{Port: 70000}, "port 70000"},
		{kafka.EmbeddedOptions{DefaultPartitions: -2}, "default partitions -2"},
		{kafka.EmbeddedOptions{RetentionBytes: -5}, "retention -5 bytes"},
		{kafka.EmbeddedOptions{CleanInterval: -time.Second}, "clean interval -1s"},
		{kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "x", ReplicationFactor: 2}}}, `topic "x": replication factor 2 exceeds`},
	} {
		e, err := kafka.StartEmbedded(ctx, c.opts)
		if err == nil {
			e.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StartEmbedded(%+v) = %v; want an error containing %q", c.opts, err, c.want)
		}
	}
}

func TestWaitReady(t *testing.T) {
	e := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{})
	ctx := testContext(t)
	if err := kafka.WaitReady(ctx, e.Addrs(), testTransport(t)); err != nil {
		t.Fatalf("WaitReady on a running broker: %v", err)
	}
	// A port nobody listens on: WaitReady keeps polling until ctx ends.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = kafka.WaitReady(short, []string{addr}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), addr) {
		t.Errorf("WaitReady on a closed port = %v; want a deadline error naming %s", err, addr)
	}
	if err := kafka.WaitReady(ctx, nil, nil); !errors.Is(err, kafka.ErrNoBrokers) {
		t.Errorf("WaitReady with no brokers = %v; want ErrNoBrokers", err)
	}
}

// TestEmbeddedStorageErrorsLogged: when the embedded broker cannot write
// its data directory (a full disk), producers only get "[-1] Unknown: an
// unexpected server error occurred"; the broker used to say nothing beyond a warning per batch (and
// nothing at all under `monitor broker`). Now it logs an ERROR naming the
// directory, the file and the error, at most once per 10 s with the
// number held back, and reports every failure to OnStorageError (the
// daemon's metric).
func TestEmbeddedStorageErrorsLogged(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	logs := &testenv.SyncBuffer{}
	var failures atomic.Int64
	start := time.Now()
	emb := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{DataDir: dir, Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 1}},
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		OnStorageError: func(error) { failures.Add(1) }})
	want := kafkatest.FillDisk(t, dir, "edges")

	w := &kafkago.Writer{Addr: kafkago.TCP(emb.Addrs()...), Topic: "edges", Transport: testTransport(t), BatchTimeout: time.Millisecond,
		RequiredAcks: kafkago.RequireAll, MaxAttempts: 1}
	defer w.Close()
	const produces = 20
	for i := range produces {
		err := w.WriteMessages(ctx, kafkago.Message{Value: []byte(fmt.Sprint(i))})
		if err == nil {
			t.Fatalf("produce %d to a full disk succeeded", i)
		}
		if i == 0 {
			t.Logf("the producer sees: %v", err)
		}
	}
	elapsed := time.Since(start)
	seg := filepath.Join(dir, "partitions", "edges-0", "0.dat")
	line := fmt.Sprintf(`level=ERROR msg="embedded broker cannot write its data directory; producers get an unexpected server error (code -1) until it can" dir=%s path=%s`, dir, seg)
	var errLines []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=ERROR") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) == 0 || !strings.HasPrefix(errLines[0][strings.Index(errLines[0], "level="):], line) || !strings.Contains(errLines[0], want) {
		t.Fatalf("no ERROR line %s … %s; log:\n%s", line, want, logs.String())
	}
	if max := 1 + int(elapsed/(10*time.Second)); len(errLines) > max {
		t.Errorf("%d ERROR lines in %v; want at most %d (one per 10 s):\n%s", len(errLines), elapsed, max, strings.Join(errLines, "\n"))
	}
	if strings.Contains(logs.String(), "level=WARN msg=\"persist batch") {
		t.Errorf("the failure is also logged as kfake's warning per batch:\n%s", logs.String())
	}
	if n := failures.Load(); n < produces {
		t.Errorf("OnStorageError called %d times; want every failed write (%d produces)", n, produces)
	}
}
