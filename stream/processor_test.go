package stream

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// edgesOf turns a batch-loaded window into the decoded edges a stream
// would carry, with seq = window position (what `monitor produce` writes).
func edgesOf(w *window.Window) []ingest.Edge {
	var out []ingest.Edge
	for p := w.First(); p < w.End(); p++ {
		out = append(out, ingest.Edge{
			Src: w.IDs().Name(w.Src(p)), Dst: w.IDs().Name(w.Dst(p)), T: w.T(p),
			Seq: p, HasSeq: true, Origin: ingest.Origin{Partition: int(p % 3), Offset: p / 3},
		})
	}
	return out
}

func testQueries(t *testing.T, delta time.Duration) []Query {
	t.Helper()
	var qs []Query
	for _, c := range []struct {
		name      string
		enumerate bool
	}{{"M1", false}, {"M4", true}, {"M4-A", true}, {"M4-A", false}, {"snap-5-2", true}} {
		q, err := motif.Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(delta)
		if !c.enumerate {
			q.Name += "-count"
		}
		qs = append(qs, Query{Query: q, Enumerate: c.enumerate})
	}
	// An anti-edge attached to the LAST edge: its interval always reaches
	// past the match, so every match is held until the watermark passes.
	qs = append(qs, Query{Enumerate: true, Query: &motif.Query{
		Name: "reply-unanswered", Delta: motif.DurationSpan(delta),
		Nodes:     []motif.Node{{Name: "A"}, {Name: "B"}},
		Edges:     []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}},
		AntiEdges: []motif.AntiEdge{{From: 0, To: 1, After: 1}},
	}})
	return qs
}

// batchTruth mines the whole window at once: the reference.
func batchTruth(t *testing.T, w *window.Window, qs []Query) (alertIDs map[string]bool, counts map[string]int64) {
	t.Helper()
	p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	out, err := p.Process(context.Background(), edgesOf(w), motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	if out.Held != 0 {
		t.Fatalf("batch run holds %d matches with a complete horizon", out.Held)
	}
	alertIDs = map[string]bool{}
	for _, a := range out.Alerts {
		alertIDs[a.Query+"/"+a.MatchID] = true
	}
	return alertIDs, out.Counts
}

// batchWatermark is the largest watermark a batch ending before edges[j]
// allows: its last edge's time, and just below the next batch's first.
func batchWatermark(edges []ingest.Edge, j int) int64 {
	wm := edges[j-1].T
	if j < len(edges) {
		wm = min(wm, edges[j].T-1)
	}
	return wm
}

// streamRun feeds edges in batches of size n with the largest watermark
// the stream allows (just below the next batch's first time), then a
// final settling call, and collects alerts and counts.
func streamRun(t *testing.T, p *Processor, edges []ingest.Edge, n int, ids map[string]int, counts map[string]int64) {
	t.Helper()
	for i := 0; i < len(edges); i += n {
		j := min(i+n, len(edges))
		wm := batchWatermark(edges, j)
		out, err := p.Process(context.Background(), edges[i:j], wm)
		if err != nil {
			t.Fatal(err)
		}
		collect(out, ids, counts)
	}
	out, err := p.Process(context.Background(), nil, motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	collect(out, ids, counts)
}

func collect(out *Output, ids map[string]int, counts map[string]int64) {
	for _, a := range out.Alerts {
		ids[a.Query+"/"+a.MatchID]++
	}
	for q, c := range out.Counts {
		counts[q] += c
	}
}

func compare(t *testing.T, label string, wantIDs map[string]bool, wantCounts map[string]int64, ids map[string]int, counts map[string]int64) {
	t.Helper()
	var missing, extra, dup []string
	for id := range wantIDs {
		if ids[id] == 0 {
			missing = append(missing, id)
		}
	}
	for id, n := range ids {
		if !wantIDs[id] {
			extra = append(extra, id)
		}
		if n > 1 {
			dup = append(dup, id)
		}
	}
	sort.Strings(missing)
	if len(missing)+len(extra)+len(dup) > 0 {
		t.Errorf("%s: %d alerts missing (e.g. %.3v), %d extra (e.g. %.3v), %d duplicated", label, len(missing), missing, len(extra), extra, len(dup))
	}
	for q, c := range wantCounts {
		if counts[q] != c {
			t.Errorf("%s: count of %s = %d; want %d", label, q, counts[q], c)
		}
	}
	if len(wantIDs) == 0 {
		t.Errorf("%s: no alerts at all: the test compares nothing", label)
	}
}

func loadGraph(t *testing.T) *window.Window {
	t.Helper()
	if !testing.Short() {
		w, _, err := ingest.LoadFile(testenv.Data(t, "temporal/CollegeMsg.txt"), ingest.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	t.Log("-short: a synthetic graph instead of CollegeMsg")
	w, err := synth.Window(synth.Default(20000, 3))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestStreamingEqualsBatch: every match is reported exactly once, in the
// batch of its last edge or when the watermark settles it, and the union
// over batches equals one batch run: alert ids and counts.
func TestStreamingEqualsBatch(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	wantIDs, wantCounts := batchTruth(t, w, qs)
	for _, n := range []int{997, 10000} {
		p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema()})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries(qs); err != nil {
			t.Fatal(err)
		}
		ids, counts := map[string]int{}, map[string]int64{}
		streamRun(t, p, edgesOf(w), n, ids, counts)
		compare(t, fmt.Sprintf("batches of %d", n), wantIDs, wantCounts, ids, counts)
		if max := w.Len() / 2; p.Window().Len() > max {
			t.Errorf("batches of %d: window kept %d edges of %d; eviction is not working", n, p.Window().Len(), w.Len())
		}
	}
}

// TestRestartRebuildsHistory simulates a crash-free restart: the first
// processor handles the stream up to a cut; a new one is fed the edges
// within the span before the cut as history (no alerts), then the rest.
// Alerts over both equal one uninterrupted run: none missing, none doubled.
func TestRestartRebuildsHistory(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	wantIDs, wantCounts := batchTruth(t, w, qs)
	edges := edgesOf(w)
	cut := len(edges) / 2
	ids, counts := map[string]int{}, map[string]int64{}

	p1, _ := New(Options{Engine: cpu.New(1), Schema: *w.Schema()})
	if err := p1.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	// Before the clean shutdown the processor handles edges up to the cut;
	// matches still held then are not alerted yet.
	first := edges[:cut]
	var shutdownWM int64
	for i := 0; i < len(first); i += 1000 {
		j := min(i+1000, len(first))
		shutdownWM = min(first[j-1].T, edges[j].T-1)
		out, err := p1.Process(context.Background(), first[i:j], shutdownWM)
		if err != nil {
			t.Fatal(err)
		}
		collect(out, ids, counts)
	}
	// The daemon commits no further than the last edge of the oldest held
	// match (resume). The restarted processor re-reads the span before
	// resume as History, the processed edges from resume to the cut as
	// Replayed, and then the new edges.
	resume := cut
	for part, off := range p1.HeldMinOffsets() {
		for i := range edges {
			if edges[i].Origin.Partition == part && edges[i].Origin.Offset == off && i < resume {
				resume = i
			}
		}
	}
	if resume == cut {
		t.Fatalf("no match held at the cut: the test does not exercise replay")
	}
	start := resume
	for start > 0 && edges[start-1].T >= edges[resume].T-p1.Span() {
		start--
	}
	var replay []ingest.Edge
	for i, e := range edges[start:cut] {
		if start+i < resume {
			e.History = true
		} else {
			e.Replayed = true
		}
		replay = append(replay, e)
	}
	p2, _ := New(Options{Engine: cpu.New(2), Schema: *w.Schema()})
	if err := p2.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	p2.Resume(shutdownWM)
	streamRun(t, p2, append(replay, edges[cut:]...), 1500, ids, counts)
	compare(t, "restart", wantIDs, wantCounts, ids, counts)
}

func TestSetQueriesKeepsOldSetOnError(t *testing.T) {
	p, _ := New(Options{Engine: cpu.New(1), Schema: window.Schema{TimeUnit: time.Second}})
	qs := testQueries(t, time.Minute)
	if err := p.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	bad := &motif.Query{Name: "bad", Delta: motif.TicksSpan(10), Nodes: []motif.Node{{Name: "A"}, {Name: "B"}},
		Edges: []motif.Edge{{From: 0, To: 1}},
		Where: []motif.Predicate{{Left: motif.Operand{Kind: motif.EdgeAttr, Attr: "amount"}, Op: motif.OpGt, Right: motif.Operand{Num: 3}, Field: "where", Text: "amount > 3"}}}
	if err := p.SetQueries(append(qs, Query{Query: bad})); err == nil {
		t.Fatal("SetQueries with an attribute the schema lacks succeeded")
	}
	if got := len(p.Queries()); got != len(qs) {
		t.Errorf("after a rejected set, %d queries registered; want the old %d", got, len(qs))
	}
	if err := p.SetQueries(append(qs, qs[0])); err == nil {
		t.Errorf("duplicate query names accepted")
	}
}

// owner is one processor of a scaled-out run and the partitions it owns.
type owner struct {
	p     *Processor
	parts []int
}

func newOwner(t *testing.T, w *window.Window, qs []Query, parts []int) *owner {
	t.Helper()
	p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	p.Own(parts)
	return &owner{p: p, parts: parts}
}

// TestOwnedPartitionsSplitTheMatches: processors that each see every edge
// but own a share of the partitions report, together, every match of one
// batch run exactly once.
func TestOwnedPartitionsSplitTheMatches(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	wantIDs, wantCounts := batchTruth(t, w, qs)
	for _, split := range [][][]int{{{0, 2}, {1}}, {{0}, {1}, {2}}} {
		ids, counts := map[string]int{}, map[string]int64{}
		for _, parts := range split {
			o := newOwner(t, w, qs, parts)
			streamRun(t, o.p, edgesOf(w), 1999, ids, counts)
		}
		compare(t, fmt.Sprintf("owners %v", split), wantIDs, wantCounts, ids, counts)
	}
}

// TestHandoffBetweenOwners: two owners stop at different points (as at a
// rebalance: each finishes its batch and commits), and two new owners
// take the partitions over in another split. Each new owner rebuilds its
// window from the span before the oldest committed position it owns:
// edges of its partitions before the commit are History, the ones from
// the commit to where the old owner stopped are Replayed against that
// owner's watermark, and other partitions' edges only join the window.
// Alerts over all four equal one batch run.
func TestHandoffBetweenOwners(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	wantIDs, wantCounts := batchTruth(t, w, qs)
	edges := edgesOf(w)
	// Cuts at a change of time, so that every edge before a cut is at or
	// below the stopping owner's watermark.
	cutAt := func(i int) int {
		for i < len(edges) && edges[i].T == edges[i-1].T {
			i++
		}
		return i
	}
	stops := []int{cutAt(len(edges) / 2), cutAt(len(edges) / 3)}
	ids, counts := map[string]int{}, map[string]int64{}
	type stopped struct {
		committed, processed int64
		watermark            int64
	}
	state := map[int]stopped{}
	for i, parts := range [][]int{{0, 1}, {2}} {
		o := newOwner(t, w, qs, parts)
		stop := stops[i]
		var wm int64
		for a := 0; a < stop; a += 1000 {
			b := min(a+1000, stop)
			wm = min(edges[b-1].T, edges[b].T-1)
			out, err := o.p.Process(context.Background(), edges[a:b], wm)
			if err != nil {
				t.Fatal(err)
			}
			collect(out, ids, counts)
		}
		held := o.p.HeldMinOffsets()
		for _, part := range parts {
			st := stopped{watermark: wm}
			for _, e := range edges[:stop] {
				if e.Origin.Partition == part {
					st.processed = e.Origin.Offset + 1
				}
			}
			st.committed = st.processed
			if off, ok := held[part]; ok {
				st.committed = off
			}
			state[part] = st
		}
	}
	if state[0].committed == state[0].processed && state[1].committed == state[1].processed {
		t.Fatalf("no match held at the stop: the test does not exercise replay")
	}
	for _, parts := range [][]int{{0, 2}, {1}} {
		o := newOwner(t, w, qs, parts)
		// The window starts a span before the oldest committed edge owned.
		first := len(edges)
		for i, e := range edges {
			if slices.Contains(parts, e.Origin.Partition) && e.Origin.Offset == state[e.Origin.Partition].committed {
				first = min(first, i)
			}
		}
		for first > 0 && edges[first-1].T >= edges[first].T-o.p.Span() {
			first--
		}
		var feed []ingest.Edge
		for _, e := range edges[first:] {
			if st := state[e.Origin.Partition]; slices.Contains(parts, e.Origin.Partition) {
				e.History = e.Origin.Offset < st.committed
				e.Replayed = !e.History && e.Origin.Offset < st.processed
			}
			feed = append(feed, e)
		}
		for _, part := range parts {
			o.p.ResumePartition(part, []ResumeSpan{{Until: state[part].processed, Watermark: state[part].watermark}})
		}
		streamRun(t, o.p, feed, 1500, ids, counts)
	}
	compare(t, "handoff", wantIDs, wantCounts, ids, counts)
}

// TestParallelAppendEqualsBatch is TestStreamingEqualsBatch with the
// window appended to and evicted from by workers (batches past their
// threshold) and node ids found by the decoders' keys in parallel: the
// same alerts and counts, and the same window as one goroutine leaves.
func TestParallelAppendEqualsBatch(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	wantIDs, wantCounts := batchTruth(t, w, qs)
	keys := window.NewKeys()
	edges := edgesOf(w)
	for i := range edges {
		e := &edges[i]
		e.SrcKey, e.Src = keys.Of(e.Src)
		e.DstKey, e.Dst = keys.Of(e.Dst)
	}
	procs := make([]*Processor, 2)
	for k, workers := range []int{1, 8} {
		p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema(), NodeKeys: keys, AppendWorkers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries(qs); err != nil {
			t.Fatal(err)
		}
		procs[k] = p
	}
	ids, counts := map[string]int{}, map[string]int64{}
	const n = 6000
	for i := 0; i < len(edges); i += n {
		j := min(i+n, len(edges))
		wm := batchWatermark(edges, j)
		var outs [2]*Output
		for k, p := range procs {
			out, err := p.Process(context.Background(), edges[i:j], wm)
			if err != nil {
				t.Fatal(err)
			}
			outs[k] = out
		}
		collect(outs[1], ids, counts)
		a, b := procs[0].Window(), procs[1].Window()
		if a.First() != b.First() || a.End() != b.End() || a.IDs().Len() != b.IDs().Len() {
			t.Fatalf("after edge %d: window [%d, %d) of %d ids by one goroutine, [%d, %d) of %d by workers",
				j, a.First(), a.End(), a.IDs().Len(), b.First(), b.End(), b.IDs().Len())
		}
		for p := a.First(); p < a.End(); p++ {
			if a.Src(p) != b.Src(p) || a.Dst(p) != b.Dst(p) || a.T(p) != b.T(p) {
				t.Fatalf("after edge %d: window edge %d differs", j, p)
			}
		}
	}
	out, err := procs[1].Process(context.Background(), nil, motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	collect(out, ids, counts)
	compare(t, "workers", wantIDs, wantCounts, ids, counts)
}

// TestParallelAppendKeepsFlags: a batch whose append passes run on eight
// workers, with self-loops, History and Replayed edges and another
// instance's partitions, mines, holds and offsets exactly as one
// goroutine's append: the same alerts and counts, window, held matches'
// offsets and appended/self-loop counts, batch after batch.
func TestParallelAppendKeepsFlags(t *testing.T) {
	w := loadGraph(t)
	qs := testQueries(t, time.Hour)
	keys := window.NewKeys()
	var edges []ingest.Edge
	for i, e := range edgesOf(w) {
		e.SrcKey, e.Src = keys.Of(e.Src)
		e.DstKey, e.Dst = keys.Of(e.Dst)
		e.History = i < 3000
		e.Replayed = i >= 3000 && i < 9000 && i%5 == 0
		edges = append(edges, e)
		if i%97 == 0 {
			loop := e
			loop.Dst, loop.DstKey = e.Src, e.SrcKey
			loop.Seq, loop.Origin.Offset = e.Seq+1<<40, e.Origin.Offset+1<<40
			edges = append(edges, loop)
		}
	}
	procs := make([]*Processor, 2)
	for k, workers := range []int{1, 8} {
		p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema(), NodeKeys: keys, AppendWorkers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries(qs); err != nil {
			t.Fatal(err)
		}
		p.Own([]int{0, 2})
		p.ResumePartition(0, []ResumeSpan{{Until: 2000, Watermark: edges[6000].T}})
		p.Resume(edges[7000].T)
		procs[k] = p
	}
	var ids [2]map[string]int
	var counts [2]map[string]int64
	for k := range ids {
		ids[k], counts[k] = map[string]int{}, map[string]int64{}
	}
	const n = 5000
	for i := 0; i <= len(edges); i += n {
		j := min(i+n, len(edges))
		wm := motif.Batch // the last call settles everything held
		if j < len(edges) {
			wm = batchWatermark(edges, j)
		}
		var outs [2]*Output
		for k, p := range procs {
			out, err := p.Process(context.Background(), edges[i:j], wm)
			if err != nil {
				t.Fatal(err)
			}
			outs[k] = out
			collect(out, ids[k], counts[k])
		}
		if outs[0].Appended != outs[1].Appended || outs[0].SelfLoops != outs[1].SelfLoops || outs[0].Held != outs[1].Held {
			t.Fatalf("batch at %d: appended/self-loops/held %d/%d/%d by one goroutine, %d/%d/%d by workers", i,
				outs[0].Appended, outs[0].SelfLoops, outs[0].Held, outs[1].Appended, outs[1].SelfLoops, outs[1].Held)
		}
		a, b := procs[0].Window(), procs[1].Window()
		if a.First() != b.First() || a.End() != b.End() || a.IDs().Len() != b.IDs().Len() {
			t.Fatalf("batch at %d: window [%d, %d) of %d ids by one goroutine, [%d, %d) of %d by workers",
				i, a.First(), a.End(), a.IDs().Len(), b.First(), b.End(), b.IDs().Len())
		}
		for p := a.First(); p < a.End(); p++ {
			if a.Src(p) != b.Src(p) || a.Dst(p) != b.Dst(p) || a.T(p) != b.T(p) {
				t.Fatalf("batch at %d: window edge %d differs", i, p)
			}
		}
		if ha, hb := procs[0].HeldMinOffsets(), procs[1].HeldMinOffsets(); !maps.Equal(ha, hb) {
			t.Fatalf("batch at %d: held matches' offsets %v by one goroutine, %v by workers", i, ha, hb)
		}
	}
	if !maps.Equal(ids[0], ids[1]) || !maps.Equal(counts[0], counts[1]) {
		t.Fatalf("%d alerts, counts %v by one goroutine; %d alerts, counts %v by workers", len(ids[0]), counts[0], len(ids[1]), counts[1])
	}
	if len(ids[0]) == 0 {
		t.Fatal("no alert: the test tests nothing")
	}
}
