//go:build cuda

package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// The GPU tests need a CUDA device; they skip without one. They compare
// the GPU engine with the oracle on random windows and queries, and with
// the CPU engine on CollegeMsg and in streaming, with one device and with
// two logical partitions of one device (tiny output buffers force the
// drain-and-resume path).

var (
	enginesOnce sync.Once
	engines     map[string]*gpu.Engine
	enginesErr  error
)

func testEngines(t testing.TB) map[string]*gpu.Engine {
	t.Helper()
	enginesOnce.Do(func() {
		one, err := gpu.New(gpu.Options{Devices: []int{0}})
		if err != nil {
			enginesErr = err
			return
		}
		// The counted last step and closing edges three ways: default
		// thresholds, always by the pair arrays, never (scans, and whole-list
		// binary searches). The step above the counted one: expanded across
		// lanes up to the default run length, never (walked depth-first),
		// and up to 3 (longer runs walked) with every swept last-step run
		// past 2 cut into tasks. Work sharing: the defaults; none of the
		// kernel's optional kinds (32-root claims, halves of long runs
		// only); every candidate with a run handed on and single-root
		// claims. The closing-edge pruning: where it pays (the default);
		// on every plan that has a prunable closing edge (its kernel build
		// on the plans the default mines without it), here with
		// suspensions on a tiny output buffer. Claims of whole root chunks
		// (tuning.ChunkRoots, 32 roots, as on a 10M-edge window) on every
		// launch of a four-edge plan, with those suspensions. expand2 (the step two above
		// the counted last one and the next across lanes): the default
		// engine's rule (on launches of 2^20 roots or more, none here); on
		// every run of a plan of four edges or more, with the pruning
		// (mine6px); on runs of up to 2 (longer ones walked) with tail
		// splits (mine6x).
		two, err := gpu.New(gpu.Options{Devices: []int{0, 0}, OutRecords: 5, Chunks: 3}.WithTuning(gpu.Tuning{ExpandRun: -1,
			SplitTail: -1, SplitRun: -1, RootGuide: -1, ChunkRoots: 1, ClosePruneAll: true, Expand2Run: 1 << 30, Expand2All: true, RankPick: -1}))
		if err != nil {
			enginesErr = err
			return
		}
		// Time partitions, and the pruning on every prunable plan with the
		// light launches' choice of closing edge (ClosePruneRoot: one
		// anchored at the root where a plan has two). Closing runs walked
		// depth-first prescanned up to 2 entries (longer ones walked whole).
		// Closing steps scan the list whose run ends at a rank wherever it is
		// not the longer (RankPick 1; the pair above: never, always the
		// shorter; the anchor engine below: always the ranked one).
		parts, err := gpu.New(gpu.Options{Devices: []int{0, 0}, PartitionEdges: 4, OutRecords: 7}.WithTuning(gpu.Tuning{NoGallop: true,
			ExpandRun: 3, SplitTail: 2, SplitRun: 1, RootGuide: 1 << 20, Expand2Run: 2, Expand2All: true, ClosePruneAll: true, ClosePruneRoot: true, PreScan: 2,
			RankPick: 1}))
		if err != nil {
			enginesErr = err
			return
		}
		// The anchor builds (runs from the previous edge's rank, closing
		// last steps on the host's list) on every plan without the pruning,
		// not only where they pay (about one random plan in nine): mine6a,
		// and mine6ax (expand2 on runs of up to 2) for the counted plans of
		// four edges or more; closing runs never prescanned.
		anchor, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{AnchorAll: true, Expand2Run: 2, Expand2All: true, PreScan: -1, RankPick: 1 << 20}))
		if err != nil {
			enginesErr = err
			return
		}
		engines = map[string]*gpu.Engine{"1dev": one, "2part-tinybuf-subtract": two, "timeparts-sweep": parts, "1dev-anchor-all": anchor}
	})
	if enginesErr != nil {
		if errors.Is(enginesErr, gpu.ErrNoDevice) {
			t.Skipf("no CUDA device: %v", enginesErr)
		}
		t.Fatal(enginesErr)
	}
	return engines
}

func key(m *motif.Match) string {
	k := fmt.Sprintf("%v %v", m.Edges, m.Nodes)
	if m.Open {
		k += fmt.Sprintf(" open %d", m.OpenUntil)
	}
	return k
}

func enumerate(t *testing.T, e motif.Engine, w *window.Window, p *motif.Plan, req motif.Request) ([]string, motif.Result) {
	t.Helper()
	var got []string
	req.Sink = motif.SinkFunc(func(m *motif.Match) error {
		got = append(got, key(m))
		return nil
	})
	res, err := e.Mine(context.Background(), w, p, req)
	if err != nil {
		t.Fatalf("%s: %v", p.Query.Name, err)
	}
	slices.Sort(got)
	return got, res
}

func count(t *testing.T, e motif.Engine, w *window.Window, p *motif.Plan, req motif.Request) motif.Result {
	t.Helper()
	res, err := e.Mine(context.Background(), w, p, req)
	if err != nil {
		t.Fatalf("%s: %v", p.Query.Name, err)
	}
	return res
}

func TestDiffGPUOracle(t *testing.T) {
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	diffGPUOracle(t, 7, cases, oracle.DefaultWindowConfig(), oracle.DefaultQueryConfig())
}

// TestDiffGPUOracleExtreme: times at the ends of the int64 range and
// deltas up to 2^63−1, where the kernel's interval ends must saturate
// (kernels/temporal.cu addTicks/subTicks).
func TestDiffGPUOracleExtreme(t *testing.T) {
	cases := 1000
	if testing.Short() {
		cases = 100
	}
	diffGPUOracle(t, 11, cases, oracle.ExtremeWindowConfig(), oracle.ExtremeQueryConfig())
}

func diffGPUOracle(t *testing.T, seed uint64, cases int, wcfg oracle.WindowConfig, qcfg oracle.QueryConfig) {
	engs := testEngines(t)
	for i := 0; i < cases; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		w := oracle.RandomWindow(rng, wcfg)
		q := oracle.RandomQuery(rng, qcfg)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		o, err := oracle.New(w, q)
		if err != nil {
			t.Fatalf("case %d: oracle: %v", i, err)
		}
		r := motif.WholeWindow(w)
		h := motif.Batch
		if w.Len() > 0 && rng.IntN(2) == 0 {
			h = w.T(w.First() + int64(w.Len())/2)
		}
		if rng.IntN(3) == 0 && w.Len() > 1 {
			r.Lo += rng.Int64N(int64(w.Len()))
		}
		var mask []bool
		if rng.IntN(4) == 0 {
			mask = make([]bool, r.Hi-r.Lo)
			for j := range mask {
				mask[j] = rng.IntN(2) == 0
			}
		}
		var want []string
		var wantFinal, wantOpen int64
		for _, m := range o.Mine(r, h) {
			if mask != nil && !mask[m.Edges[len(m.Edges)-1]-r.Lo] {
				continue
			}
			want = append(want, key(&m))
			if m.Open {
				wantOpen++
			} else {
				wantFinal++
			}
		}
		slices.Sort(want)
		wantRoots := r.Hi - r.Lo
		if mask != nil {
			wantRoots = 0
			for _, m := range mask {
				if m {
					wantRoots++
				}
			}
		}
		for name, e := range engs {
			req := motif.Request{Range: r, Horizon: h, RootMask: mask}
			if i%2 == 1 {
				// A budget and a deadline that are never reached: the
				// kernel's limited path must change nothing.
				req.Budget, req.Deadline = 1<<40, time.Now().Add(time.Hour)
			}
			res := count(t, e, w, p, req)
			got, eres := enumerate(t, e, w, p, req)
			if res.Roots != wantRoots && r.Hi > r.Lo {
				t.Fatalf("case %d engine %s: %d roots, want %d (unmasked positions)", i, name, res.Roots, wantRoots)
			}
			if res.Matches != wantFinal || res.Open != wantOpen || !slices.Equal(got, want) || eres.Matches != wantFinal || eres.Open != wantOpen {
				t.Fatalf("case %d engine %s range %v horizon %d mask %v:\ncount: %d final %d open, enumerate %d/%d (%d matches), oracle %d final %d open\n%s%s%s\ngot  %v\nwant %v",
					i, name, r, h, mask != nil, res.Matches, res.Open, eres.Matches, eres.Open, len(got), wantFinal, wantOpen,
					oracle.FormatWindow(w), oracle.FormatQuery(q), p, got, want)
			}
		}
	}
}

// dataDir is ../shared/data, or $MOTIFWATCH_DATA where the test binary
// runs elsewhere (the GPU machine): the benchmarks' larger graphs.
func dataDir() string {
	if d := os.Getenv("MOTIFWATCH_DATA"); d != "" {
		return d
	}
	return "../../shared/data"
}

// loadCollegeMsg loads testdata/'s CollegeMsg (testenv.Data): the
// reference checks run wherever the repository is, the GPU machine's copy
// included, and fail rather than skip without it.
func loadCollegeMsg(t testing.TB) *window.Window {
	w, _, err := ingest.LoadFile(testenv.Data(t, "temporal/CollegeMsg.txt"), ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func builtins() []string {
	return []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A"}
}

// compileBuiltin compiles a built-in motif (gpu's internal test helper).
var compileBuiltin = gpu.CompileBuiltin

// TestCollegeMsgGPUEqualsCPU: every Everest motif at three deltas, count
// mode on both engines; enumerate mode compared match for match at 600 s.
func TestCollegeMsgGPUEqualsCPU(t *testing.T) {
	all := testEngines(t)
	w := loadCollegeMsg(t)
	exact := cpu.New(0)
	// Time partitions of 8000 roots on two logical devices, instead of 4.
	parts, err := gpu.New(gpu.Options{Devices: []int{0, 0}, PartitionEdges: 8000})
	if err != nil {
		t.Fatal(err)
	}
	defer parts.Close()
	engs := map[string]*gpu.Engine{"1dev": all["1dev"], "2part-tinybuf-subtract": all["2part-tinybuf-subtract"], "timeparts": parts}
	for _, delta := range []int64{600, 3600, 86400} {
		for _, name := range builtins() {
			p := compileBuiltin(t, w, name, delta)
			req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
			want := count(t, exact, w, p, req)
			for en, e := range engs {
				got := count(t, e, w, p, req)
				if got.Matches != want.Matches || got.Open != want.Open {
					t.Errorf("%s delta %d %s: GPU %d (open %d), CPU %d (open %d)", name, delta, en, got.Matches, got.Open, want.Matches, want.Open)
				}
			}
			if delta == 600 {
				wantKeys, _ := enumerate(t, exact, w, p, req)
				gotKeys, _ := enumerate(t, engs["1dev"], w, p, req)
				if !slices.Equal(gotKeys, wantKeys) {
					t.Errorf("%s delta %d: enumerate differs: GPU %d matches, CPU %d", name, delta, len(gotKeys), len(wantKeys))
				}
			}
			t.Logf("%s delta %d: %d matches", name, delta, want.Matches)
		}
	}
}

// TestStreamingGPUEqualsCPU replays CollegeMsg into a live window in
// batches with eviction (span = delta) and mines each batch's new edges
// on both engines; the device mirror is maintained incrementally.
func TestStreamingGPUEqualsCPU(t *testing.T) {
	all := testEngines(t)
	engs := map[string]*gpu.Engine{"1dev": all["1dev"], "2part-tinybuf-subtract": all["2part-tinybuf-subtract"]}
	src := loadCollegeMsg(t)
	w, err := window.New(*src.Schema())
	if err != nil {
		t.Fatal(err)
	}
	const delta = 3600
	const batch = 2000
	exact := cpu.New(0)
	names := []string{"M1", "M4", "M4-A", "M10"}
	plans := map[string]*motif.Plan{}
	for _, n := range names {
		plans[n] = compileBuiltin(t, w, n, delta)
	}
	totals := map[string]int64{}
	for p := src.First(); p < src.End(); {
		lo := w.End()
		end := min(p+batch, src.End())
		for ; p < end; p++ {
			u, _ := w.IDs().Intern(src.IDs().Name(src.Src(p)))
			v, _ := w.IDs().Intern(src.IDs().Name(src.Dst(p)))
			if _, err := w.Append(window.Edge{Src: u, Dst: v, T: src.T(p)}); err != nil {
				t.Fatal(err)
			}
		}
		horizon := w.LastT()
		for _, n := range names {
			req := motif.Request{Range: motif.Range{Lo: lo, Hi: w.End()}, Horizon: horizon}
			want := count(t, exact, w, plans[n], req)
			for en, e := range engs {
				got := count(t, e, w, plans[n], req)
				if got.Matches != want.Matches || got.Open != want.Open {
					t.Fatalf("%s batch ending %d (%s): GPU %d/%d open, CPU %d/%d open", n, p, en, got.Matches, got.Open, want.Matches, want.Open)
				}
			}
			totals[n] += want.Matches
		}
		w.EvictBefore(w.LastT() - 2*delta)
	}
	t.Logf("streamed totals: %v", totals)
}

// TestSkewSplits: a hub makes one root's subtree dominate; idle warps must
// receive split subtrees, and the count must not change.
func TestSkewSplits(t *testing.T) {
	engs := testEngines(t)
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hub, _ := w.IDs().Intern("hub")
	rng := rand.New(rand.NewPCG(3, 3))
	node := func() uint32 { v, _ := w.IDs().Intern(fmt.Sprint("n", rng.IntN(5000))); return v }
	for i := 0; i < 120000; i++ {
		// Two thirds of the edges touch the hub, in and out; the rest join
		// random nodes, so paths through the hub are plenty.
		e := window.Edge{Src: node(), Dst: hub, T: int64(i)}
		switch i % 3 {
		case 1:
			e.Src, e.Dst = hub, node()
		case 2:
			e.Dst = node()
		}
		if e.Src == e.Dst {
			continue
		}
		if _, err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"M1", "M4", "M9"} {
		p := compileBuiltin(t, w, name, 1000)
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		want := count(t, cpu.New(0), w, p, req)
		got := count(t, engs["1dev"], w, p, req)
		if got.Matches != want.Matches || want.Matches == 0 {
			t.Fatalf("%s on a hub: GPU %d, CPU %d", name, got.Matches, want.Matches)
		}
		t.Logf("%s on a hub: %d matches, %d splits", name, got.Matches, got.Splits)
	}
}

// BenchmarkStreaming replays a graph ($MOTIFWATCH_STREAM_GRAPH, else
// CollegeMsg) into a live window in batches of -stream.batch edges with
// ten registered queries (M1…M10, delta 1h), mining each batch's new
// edges: the daemon's per-batch work. It reports sustained edges/s and
// where the device time went per batch.
func BenchmarkStreaming(b *testing.B) {
	for _, batch := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) { benchStreaming(b, batch) })
	}
}

func benchStreaming(b *testing.B, batch int) {
	path := os.Getenv("MOTIFWATCH_STREAM_GRAPH")
	if path == "" {
		path = dataDir() + "/temporal/CollegeMsg.txt"
	}
	src, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Skipf("%s: %v", path, err)
	}
	e, err := gpu.New(gpu.Options{Devices: []int{0}})
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer e.Close()
	const delta = 3600
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10"}
	b.ResetTimer()
	var edges int64
	var matches int64
	for range b.N {
		w, err := window.New(*src.Schema())
		if err != nil {
			b.Fatal(err)
		}
		var plans []*motif.Plan
		for _, n := range names {
			plans = append(plans, compileBuiltin(b, w, n, delta))
		}
		for p := src.First(); p < src.End(); {
			lo := w.End()
			end := min(p+int64(batch), src.End())
			for ; p < end; p++ {
				u, _ := w.IDs().Intern(src.IDs().Name(src.Src(p)))
				v, _ := w.IDs().Intern(src.IDs().Name(src.Dst(p)))
				if _, err := w.Append(window.Edge{Src: u, Dst: v, T: src.T(p)}); err != nil {
					b.Fatal(err)
				}
			}
			w.EvictBefore(w.LastT() - delta)
			for _, pl := range plans {
				r, err := e.Mine(context.Background(), w, pl, motif.Request{Range: motif.Range{Lo: lo, Hi: w.End()}, Horizon: w.LastT()})
				if err != nil {
					b.Fatal(err)
				}
				matches += r.Matches
			}
		}
		edges += int64(src.Len())
	}
	b.StopTimer()
	st := e.Stats()[0]
	batches := float64(edges) / float64(batch)
	b.ReportMetric(float64(edges)/b.Elapsed().Seconds(), "edges/s")
	b.ReportMetric(st.Sync.Seconds()*1e3/batches, "sync-ms/batch")
	b.ReportMetric(st.Mine.Seconds()*1e3/batches, "kernel-ms/batch")
	b.ReportMetric(float64(matches)/float64(b.N), "matches")
	b.ReportMetric(float64(st.WindowBytes)/float64(max(st.WindowEdges, 1)), "device-B/edge")
}

// TestDiffGPUIntervalEnds: issue 12 item 7's cases on every GPU engine
// (interval ends at the edges of int64), against fixed counts and the CPU.
func TestDiffGPUIntervalEnds(t *testing.T) {
	engs := testEngines(t)
	const maxDelta = "9223372036854775807"
	for _, c := range []struct {
		edges        [][3]any
		query        string
		horizon      int64
		final, opens int64
	}{
		{[][3]any{{"a", "b", 1}, {"b", "c", 2}, {"b", "a", 3}}, "delta: " + maxDelta + ", edges: [A -> B, B -> C], not: [B -> A]", motif.Batch, 0, 0},
		{[][3]any{{"a", "b", -5}, {"b", "c", -4}}, "delta: " + maxDelta + ", edges: [A -> B, B -> C]", motif.Batch, 1, 0},
		{[][3]any{{"a", "b", int64(-1 << 63)}, {"b", "c", int64(1<<63 - 2)}}, "delta: " + maxDelta + ", edges: [A -> B, B -> C]", motif.Batch, 0, 0},
		{[][3]any{{"a", "b", int64(1<<63 - 7)}, {"b", "c", int64(1<<63 - 6)}, {"a", "d", int64(1<<63 - 5)}},
			"delta: " + maxDelta + ", edges: [A -> B, {from: B, to: C, within: " + maxDelta + "}, A -> D]", motif.Batch, 1, 0},
		{[][3]any{{"a", "b", int64(-1<<63 + 7)}, {"b", "c", int64(-1<<63 + 8)}, {"c", "d", int64(-1<<63 + 9)}},
			"delta: " + maxDelta + ", edges: [A -> B, {from: B, to: C, within: " + maxDelta + "}, C -> D]", motif.Batch, 1, 0},
		{[][3]any{{"a", "b", 1}, {"b", "c", 2}}, "delta: " + maxDelta + ", edges: [A -> B, B -> C], not: [B -> A]", 2, 0, 1},
	} {
		w, err := window.New(window.Schema{TimeUnit: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.edges {
			u, _ := w.IDs().Intern(e[0].(string))
			v, _ := w.IDs().Intern(e[1].(string))
			var tm int64
			switch x := e[2].(type) {
			case int:
				tm = int64(x)
			case int64:
				tm = x
			}
			if _, err := w.Append(window.Edge{Src: u, Dst: v, T: tm}); err != nil {
				t.Fatal(err)
			}
		}
		qs, err := motif.ParseQueries([]byte("queries: [{name: q, "+c.query+"}]\n"), "test.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p, err := motif.Compile(qs[0], w)
		if err != nil {
			t.Fatal(err)
		}
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: c.horizon}
		want, _ := enumerate(t, cpu.New(1), w, p, req)
		for name, e := range engs {
			res := count(t, e, w, p, req)
			got, _ := enumerate(t, e, w, p, req)
			if res.Matches != c.final || res.Open != c.opens || !slices.Equal(got, want) {
				t.Errorf("%s on %v (%s): count %d final %d open, want %d/%d; enumerate %v, CPU %v",
					c.query, c.edges, name, res.Matches, res.Open, c.final, c.opens, got, want)
			}
		}
	}
}

// TestDiffGPUBudget: issue 12 item 5 on the GPU. The mining bomb (30k
// edges into a hub, 30k out, 2k more) stops soon after a step budget or a
// passed deadline and reports Truncated; enumerating on a hub graph under
// a budget reports a subset of the CPU's matches, and under a budget
// never reached all of them.
func TestDiffGPUBudget(t *testing.T) {
	engs := testEngines(t)
	w, p, err := oracle.Bomb(30000, 2000)
	if err != nil {
		t.Fatal(err)
	}
	const budget = 1_000_000
	// Not the time partitions of 4 roots: 15,000 launches, each syncing
	// the whole delta of history before it.
	for _, name := range []string{"1dev", "2part-tinybuf-subtract"} {
		e := engs[name]
		res := count(t, e, w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Budget: budget})
		// Every resident warp may run up to two flushes (2 x 288 steps)
		// past the budget before it sees the flag; 20M is far below the
		// bomb's ~1e9.
		if !res.Truncated || res.Steps <= budget || res.Steps > 20*budget {
			t.Errorf("bomb, %s, budget %d: %+v; want Truncated soon after the budget", name, budget, res)
		}
		late := count(t, e, w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Deadline: time.Now().Add(-time.Second)})
		if !late.Truncated || late.Matches != 0 {
			t.Errorf("bomb, %s, deadline passed: %+v; want Truncated", name, late)
		}
		t.Logf("bomb, %s: truncated after %d steps (budget %d); after %d steps with the deadline passed", name, res.Steps, budget, late.Steps)
	}

	// Enumerate mode on a hub graph: M1 has plenty of matches.
	hw, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hw.IDs().Intern("hub")
	rng := rand.New(rand.NewPCG(5, 5))
	node := func() uint32 { v, _ := hw.IDs().Intern(fmt.Sprint("n", rng.IntN(2000))); return v }
	for i := 0; i < 30000; i++ {
		e := window.Edge{Src: node(), Dst: h, T: int64(i)}
		switch i % 3 {
		case 1:
			e.Src, e.Dst = h, node()
		case 2:
			e.Dst = node()
		}
		if e.Src == e.Dst {
			continue
		}
		if _, err := hw.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	hp := compileBuiltin(t, hw, "M1", 300)
	req := motif.Request{Range: motif.WholeWindow(hw), Horizon: motif.Batch}
	want, full := enumerate(t, cpu.New(0), hw, hp, req)
	inCPU := make(map[string]bool, len(want))
	for _, k := range want {
		inCPU[k] = true
	}
	if len(want) == 0 {
		t.Fatal("hub M1: no matches; the graph does not test enumeration")
	}
	// One device only: the tiny output buffer and time partitions of the
	// other engines would take thousands of launches here.
	for name, e := range map[string]*gpu.Engine{"1dev": engs["1dev"]} {
		req.Budget = 1 << 40
		got, res := enumerate(t, e, hw, hp, req)
		if res.Truncated || !slices.Equal(got, want) {
			t.Errorf("hub M1, %s, budget never reached: %d matches (truncated %v), CPU %d", name, len(got), res.Truncated, len(want))
		}
		req.Budget = res.Steps / 10
		got, res = enumerate(t, e, hw, hp, req)
		if !res.Truncated || len(got) >= len(want) {
			t.Errorf("hub M1, %s, budget %d: %d matches (truncated %v) of %d", name, req.Budget, len(got), res.Truncated, len(want))
		}
		for _, k := range got {
			if !inCPU[k] {
				t.Fatalf("hub M1, %s, budget %d: match %s is not the CPU's", name, req.Budget, k)
			}
		}
		t.Logf("hub M1, %s: %d of %d matches under budget %d (CPU %d steps)", name, len(got), len(want), req.Budget, full.Steps)
	}
}
