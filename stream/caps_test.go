package stream

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// capProcessor returns a processor with the caps of opts, one query, a
// registry and the log it writes.
func capProcessor(t testing.TB, opts Options, q Query) (*Processor, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	opts.Engine = cpu.New(2)
	opts.Schema = window.Schema{TimeUnit: time.Second}
	opts.Registerer = prometheus.NewRegistry()
	opts.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetQueries([]Query{q}); err != nil {
		t.Fatal(err)
	}
	return p, &log
}

// pathQuery is a 2-edge path A->B->C within delta ticks: cheap to mine,
// and it matches often on the graphs below.
func pathQuery(delta int64, enumerate bool) Query {
	return Query{Enumerate: enumerate, Query: &motif.Query{
		Name: "path", Delta: motif.TicksSpan(delta),
		Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}},
	}}
}

func process(t testing.TB, p *Processor, batch []ingest.Edge) *Output {
	t.Helper()
	out, err := p.Process(context.Background(), batch, batch[len(batch)-1].T)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// counter reads a counter's value.
func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// TestNodeCapRefusesNewIDs: ids that never repeat, in a window that keeps
// everything (large delta): past max_nodes, edges with new ids are
// refused for the dead-letter topic, counted and logged once; edges
// between live nodes still go in; live ids never exceed the cap.
func TestNodeCapRefusesNewIDs(t *testing.T) {
	const maxNodes = 1000
	p, log := capProcessor(t, Options{MaxNodes: maxNodes}, pathQuery(1<<40, false))
	refused := 0
	for b := 0; b < 10; b++ {
		var batch []ingest.Edge
		for i := 0; i < 100; i++ {
			n := b*100 + i
			batch = append(batch, ingest.Edge{Src: fmt.Sprint("s", n), Dst: fmt.Sprint("d", n), T: int64(n),
				Origin: ingest.Origin{Partition: 1, Offset: int64(n)}})
		}
		batch = append(batch, ingest.Edge{Src: "s0", Dst: "d1", T: int64(b*100 + 99)}) // live ids: always taken
		out := process(t, p, batch)
		refused += len(out.Refused)
		if got := p.Window().IDs().Len(); got > maxNodes {
			t.Fatalf("batch %d: %d live ids; want at most window.max_nodes %d", b, got, maxNodes)
		}
		for _, r := range out.Refused {
			if r.Class != ingest.ClassNodeCap || !strings.Contains(r.Reason, "window.max_nodes 1000") || r.Edge.Origin.Offset < 500 {
				t.Fatalf("refused %+v; want class node_cap, a reason naming window.max_nodes 1000, offsets from 500 on", r)
			}
		}
	}
	// 500 edges fill the 1000 ids; the other 500 are refused, the 10 edges
	// s0->d1 never are.
	if refused != 500 || p.Window().Len() != 510 {
		t.Errorf("refused %d, window holds %d; want 500 refused, 510 appended", refused, p.Window().Len())
	}
	if got := counter(p.metrics.capActions.WithLabelValues(capNodes)); got != 500 {
		t.Errorf("motifwatch_cap_actions_total{cap=nodes} = %v; want 500", got)
	}
	if n := strings.Count(log.String(), "node cap reached"); n != 1 {
		t.Errorf("logged the node cap %d times within 10 s; want once (rate-limited):\n%s", n, log)
	}
}

// TestNeverRepeatingIDsStayBounded: without any cap, ids leave with their
// last edge, so a stream of ever-new ids keeps the dictionary (and the
// arrays indexed by dense id) at the size of the window, not the stream.
func TestNeverRepeatingIDsStayBounded(t *testing.T) {
	p, _ := capProcessor(t, Options{}, pathQuery(100, false))
	const edges = 200_000
	maxLive, maxCap := 0, 0
	for b := 0; b < edges/1000; b++ {
		batch := make([]ingest.Edge, 1000)
		for i := range batch {
			n := b*1000 + i
			batch[i] = ingest.Edge{Src: fmt.Sprint("s", n), Dst: fmt.Sprint("d", n), T: int64(n)}
		}
		process(t, p, batch)
		ids := p.Window().IDs()
		maxLive, maxCap = max(maxLive, ids.Len()), max(maxCap, ids.Cap())
	}
	// delta 100 keeps about 100 edges plus one batch: ~2 200 ids.
	if maxLive > 2500 || maxCap > 2500 {
		t.Errorf("after %d never-repeating ids: at most %d live, dense id capacity %d; want both under 2500", 2*edges, maxLive, maxCap)
	}
}

// TestMemoryCapBoundsWindow: a hub with a huge degree, and a burst of
// equal timestamps (the span cannot evict any of it), in a window that
// would otherwise keep everything: after every batch the window is
// within max_bytes, the early evictions are counted and logged, and the
// window is not emptied.
func TestMemoryCapBoundsWindow(t *testing.T) {
	const maxBytes = 4 << 20
	for _, tc := range []struct {
		name string
		edge func(n int) ingest.Edge
	}{
		{"hub", func(n int) ingest.Edge { return ingest.Edge{Src: "hub", Dst: fmt.Sprint(n % 5000), T: int64(n)} }},
		{"equal timestamps", func(n int) ingest.Edge {
			return ingest.Edge{Src: fmt.Sprint(n % 3000), Dst: fmt.Sprint(n%7000 + 3000), T: 1_700_000_000}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, log := capProcessor(t, Options{MaxBytes: maxBytes}, pathQuery(1<<40, false))
			early, appended := 0, 0
			for b := 0; b < 100; b++ {
				batch := make([]ingest.Edge, 2000)
				for i := range batch {
					batch[i] = tc.edge(b*2000 + i)
				}
				out := process(t, p, batch)
				early += out.EvictedEarly
				appended += out.Appended
				if got := p.Window().Bytes(); got > maxBytes {
					t.Log(log)
					t.Fatalf("batch %d: window holds %d bytes; want at most window.max_bytes %d", b, got, maxBytes)
				}
			}
			w := p.Window()
			if early == 0 || w.Bytes() < maxBytes/4 || w.Len()+early != appended {
				t.Errorf("evicted early %d of %d, %d left in %d bytes; want some evicted, the rest kept in at least a quarter of the cap",
					early, appended, w.Len(), w.Bytes())
			}
			if got := counter(p.metrics.evictedEarly); got != float64(early) {
				t.Errorf("motifwatch_window_evicted_early_total = %v; want %d", got, early)
			}
			if got := counter(p.metrics.capActions.WithLabelValues(capWindowBytes)); got == 0 {
				t.Errorf("motifwatch_cap_actions_total{cap=window_bytes} = 0; want the early evictions counted")
			}
			if !strings.Contains(log.String(), "window memory cap reached") {
				t.Errorf("no log line for the memory cap:\n%s", log)
			}
			t.Logf("%d edges appended, %d evicted early, %d left in %d bytes (%.0f B/edge)", appended, early, w.Len(), w.Bytes(), w.BytesPerEdge())
		})
	}
}

// TestMemoryCapReleasesHeldMatches: a held match whose edges the memory
// cap evicts is reported at once, provisional, never dropped.
func TestMemoryCapReleasesHeldMatches(t *testing.T) {
	q := Query{Enumerate: true, Query: &motif.Query{
		Name: "reply-unanswered", Delta: motif.TicksSpan(1 << 40),
		Nodes:     []motif.Node{{Name: "A"}, {Name: "B"}},
		Edges:     []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}},
		AntiEdges: []motif.AntiEdge{{From: 0, To: 1, After: 1}},
	}}
	p, _ := capProcessor(t, Options{MaxBytes: 2 << 20}, q)
	// A reply at t=1 holds a match open until t = 1+delta: long after.
	out, err := p.Process(context.Background(), []ingest.Edge{{Src: "a", Dst: "b", T: 0}, {Src: "b", Dst: "a", T: 1}}, 1)
	if err != nil || out.Held != 1 {
		t.Fatalf("Process = %+v, %v; want one held match", out, err)
	}
	provisional := 0
	for b := 0; b < 40 && provisional == 0; b++ {
		batch := make([]ingest.Edge, 2000)
		for i := range batch {
			batch[i] = ingest.Edge{Src: fmt.Sprint("x", i%4000), Dst: fmt.Sprint("y", (b*2000+i)%9000), T: int64(2 + b)}
		}
		out := process(t, p, batch)
		for _, a := range out.Alerts {
			if a.Query == "reply-unanswered" && a.Provisional && a.Edges[0].Src == "a" {
				provisional++
			}
		}
	}
	if provisional != 1 {
		t.Errorf("the held a->b->a match was reported %d times as provisional; want once, when the cap evicted its edges", provisional)
	}
}

// TestMatchCapTruncates: a hub whose edges make far more matches in one
// batch than max_matches_per_batch: the query reports exactly the cap,
// the truncation is counted per query and logged with the batch's range,
// and the next batch starts a new count.
func TestMatchCapTruncates(t *testing.T) {
	const cap = 1000
	p, log := capProcessor(t, Options{MaxMatchesPerBatch: cap}, pathQuery(1<<40, true))
	var batch []ingest.Edge
	for i := 0; i < 300; i++ { // 300 edges into the hub, then 300 out: 90 000 paths
		batch = append(batch, ingest.Edge{Src: fmt.Sprint("in", i), Dst: "hub", T: int64(i), Origin: ingest.Origin{Offset: int64(i)}})
	}
	for i := 0; i < 300; i++ {
		batch = append(batch, ingest.Edge{Src: "hub", Dst: fmt.Sprint("out", i), T: int64(300 + i), Origin: ingest.Origin{Offset: int64(300 + i)}})
	}
	out := process(t, p, batch)
	if len(out.Alerts) != cap {
		t.Errorf("%d alerts; want exactly max_matches_per_batch %d", len(out.Alerts), cap)
	}
	if got := counter(p.metrics.truncated.WithLabelValues("path")); got != 1 {
		t.Errorf("motifwatch_matches_truncated_total{query=path} = %v; want 1", got)
	}
	for _, want := range []string{"match cap reached", "query=path", "max_matches_per_batch=1000", "from_t=0", "to_t=599", "from=0@0", "to=0@599"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	// A small batch under the cap: all its matches, no truncation.
	out = process(t, p, []ingest.Edge{{Src: "out1", Dst: "z", T: 700}})
	if len(out.Alerts) != 1 || counter(p.metrics.truncated.WithLabelValues("path")) != 1 {
		t.Errorf("next batch: %d alerts, truncations %v; want 1 alert (hub->out1->z), still 1 truncation",
			len(out.Alerts), counter(p.metrics.truncated.WithLabelValues("path")))
	}
}

// TestMineBudgetTruncates: a batch whose mining takes more than
// max_mine_steps engine steps (a hub: 300 edges in, 300 out) is truncated
// for the query like one over max_matches_per_batch: counted, logged with
// the range; the next batch, under the budget, is mined exactly.
func TestMineBudgetTruncates(t *testing.T) {
	const budget = 5000
	p, log := capProcessor(t, Options{MaxMineSteps: budget, MaxMatchesPerBatch: 0}, pathQuery(1<<40, true))
	var batch []ingest.Edge
	for i := 0; i < 300; i++ {
		batch = append(batch, ingest.Edge{Src: fmt.Sprint("in", i), Dst: "hub", T: int64(i), Origin: ingest.Origin{Offset: int64(i)}})
	}
	for i := 0; i < 300; i++ {
		batch = append(batch, ingest.Edge{Src: "hub", Dst: fmt.Sprint("out", i), T: int64(300 + i), Origin: ingest.Origin{Offset: int64(300 + i)}})
	}
	out := process(t, p, batch)
	if len(out.Alerts) == 0 || len(out.Alerts) > budget+2*2*1024 {
		t.Errorf("%d alerts; want some, at most the budget's worth", len(out.Alerts))
	}
	if got := counter(p.metrics.truncated.WithLabelValues("path")); got != 1 {
		t.Errorf("motifwatch_matches_truncated_total{query=path} = %v; want 1", got)
	}
	if got := counter(p.metrics.capActions.WithLabelValues(capMineSteps)); got != 1 {
		t.Errorf("motifwatch_cap_actions_total{cap=mine_steps} = %v; want 1", got)
	}
	for _, want := range []string{"mining budget reached", "query=path", "window.max_mine_steps=5000", "from_t=0", "to_t=599", "from=0@0", "to=0@599", "cap=mine_steps"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	out = process(t, p, []ingest.Edge{{Src: "out1", Dst: "z", T: 700}})
	if len(out.Alerts) != 1 || counter(p.metrics.truncated.WithLabelValues("path")) != 1 {
		t.Errorf("next batch: %d alerts, truncations %v; want 1 alert (hub->out1->z), still 1 truncation",
			len(out.Alerts), counter(p.metrics.truncated.WithLabelValues("path")))
	}
}

// TestExtremeTimestamps: edges dated at the ends of int64 time go through
// the processor without a crash or a wrapped eviction threshold, and are
// mined (interval ends saturate instead of wrapping).
func TestExtremeTimestamps(t *testing.T) {
	p, _ := capProcessor(t, Options{}, pathQuery(100, true))
	out := process(t, p, []ingest.Edge{{Src: "a", Dst: "b", T: math.MinInt64}, {Src: "b", Dst: "c", T: math.MinInt64 + 50}})
	if p.Window().Len() != 2 {
		t.Errorf("at the start of int64 time: %d edges kept; want both (the span must not wrap and evict them)", p.Window().Len())
	}
	if len(out.Alerts) != 1 {
		t.Errorf("at the start of int64 time: %d alerts; want the path a->b->c", len(out.Alerts))
	}
	out = process(t, p, []ingest.Edge{{Src: "c", Dst: "d", T: math.MaxInt64}})
	if len(out.Alerts) != 0 || p.Window().Len() != 1 {
		t.Errorf("at the end of int64 time: %d alerts, %d edges kept; want none, 1", len(out.Alerts), p.Window().Len())
	}
}
