package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// stopAt is a log handler that records the messages of a run and ends its
// context at the first record whose message is at: a SIGTERM that lands
// exactly there.
type stopAt struct {
	mu     sync.Mutex
	msgs   []string
	at     string
	cancel context.CancelFunc
}

func (h *stopAt) Enabled(context.Context, slog.Level) bool { return true }
func (h *stopAt) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *stopAt) WithGroup(string) slog.Handler            { return h }
func (h *stopAt) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	if h.at != "" && r.Message == h.at && h.cancel != nil {
		h.cancel()
		h.cancel = nil
	}
	return nil
}

func (h *stopAt) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}

// TestStopWhileStartingIsClean: a stop at any point of the start (at each
// line the start logs before the daemon consumes: connecting, topics,
// reading the committed offsets back, rebuilding the window) ends Run
// without an error, as a stop while the brokers do not answer does: a
// supervisor takes a non-zero exit for a crash. The group has committed
// offsets, so the start rebuilds its window from the topic.
func TestStopWhileStartingIsClean(t *testing.T) {
	brokers := kafkatest.StartBroker(t, kafka.TopicSpec{Name: "edges", Partitions: 2})
	var records []kafka.Record
	for i := range 200 {
		records = append(records, kafka.Record{Src: fmt.Sprint("a", i%7), Dst: fmt.Sprint("a", (i*3+1)%7), T: 1_700_000_000 + int64(i), Seq: int64(i)})
	}
	kafkatest.SendRecords(t, brokers, "edges", func(r kafka.Record) int { return int(r.Seq % 2) }, records)
	cfg, err := config.Parse(fmt.Appendf(nil, `kafka: {brokers: [%s], edge_topic: edges, group: stop-start, partitions: 2}
metrics: {listen: "127.0.0.1:0"}
window: {idle_timeout: 1s}
queries:
  inline: [{name: q, delta: 1m, edges: [A -> B, B -> C]}]
alerts: {sink: stdout}
`, strings.Join(brokers, ", ")), "stop-start.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(h *stopAt, ctx context.Context, started func(Info)) error {
		return Run(ctx, Options{Config: cfg, Logger: slog.New(h), Stdout: io.Discard, Started: started})
	}

	// A first run consumes and commits everything; the lines it logged
	// before it consumed are the start's.
	first := &stopAt{}
	var start []string
	d := testenv.Start(t, time.Minute, func(ctx context.Context, up func(Info)) error {
		return run(first, ctx, func(i Info) { start = first.messages(); up(i) })
	})
	if !testenv.Poll(time.Minute, 50*time.Millisecond, func() bool {
		return kafkatest.Sum(kafkatest.Committed(t, brokers, "stop-start", "edges")) == int64(len(records))
	}) {
		t.Fatalf("the first run did not commit its %d records within a minute", len(records))
	}
	if err := d.Stop(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	seen := map[string]bool{}
	for _, at := range start {
		if seen[at] {
			continue
		}
		seen[at] = true
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		h := &stopAt{at: at}
		stop, cancelStop := context.WithCancel(ctx)
		h.cancel = cancelStop
		err := run(h, stop, nil)
		cancelStop()
		if ctx.Err() != nil {
			t.Errorf("stopped at %q: Run did not return within a minute", at)
		}
		cancel()
		if err != nil {
			t.Errorf("stopped at %q: Run = %v; want a clean stop (nil)", at, err)
		}
	}
	t.Logf("start lines: %q", start)
	if len(seen) < 3 {
		t.Errorf("the start logged %d distinct lines (%q); want connecting, topics and the rebuild among them", len(seen), start)
	}
}
