package count3

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// mineBoth mines p with e and with the engine it is checked against.
func mineBoth(t *testing.T, e, against motif.Engine, w *window.Window, p *motif.Plan, req motif.Request) (got, want motif.Result) {
	t.Helper()
	got, err := e.Mine(context.Background(), w, p, req)
	if err != nil {
		t.Fatal(err)
	}
	want, err = against.Mine(context.Background(), w, p, req)
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// spyEngine records whether it was asked.
type spyEngine struct {
	motif.Engine
	calls int
}

func (s *spyEngine) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	s.calls++
	return s.Engine.Mine(ctx, w, p, req)
}

// Count-mode queries of the counted shapes (SNAP's 36, two-edge, two-node
// four-edge, four-node paths — asked after a triangle, so that the paths
// are counted in a run of their own over a cached triangle count; always
// counted, the choice left out), written with other node names and
// in YAML, are counted (the wrapped engine is never asked) and equal the
// general engine; a query with a predicate, and an enumerating request,
// go to the wrapped engine.
func TestEngineCountsShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 5, MaxNodes: 9, MaxEdges: 250, MaxTime: 80, SelfLoop: 0.02, Evict: 1})
	cpu := cpu.New(2)
	spy := &spyEngine{Engine: cpu}
	e := NewEngine(spy, Options{Workers: 2, AlwaysCount: true}) // the paths too, whatever enumerating them costs
	qs, err := motif.ParseQueries([]byte(`queries:
  - name: cycle
    delta: 9
    edges: [A -> B, B -> C, C -> A]
  - name: out-star
    delta: 9
    edges: [hub -> a, hub -> b, hub -> a]
  - name: ping-pong
    delta: 9
    edges: [a -> b, b -> a, a -> b]
  - name: hop-equals-delta
    delta: 9
    edges: [A -> B, {from: B, to: C, within: 9}, C -> A]
  - name: reply
    delta: 9
    edges: [a -> b, b -> a]
  - name: fan-in
    delta: 9
    edges: [x -> hub, y -> hub]
  - name: relay
    delta: 9
    edges: [x -> hub, hub -> y]
  - name: round-trip-twice
    delta: 9
    edges: [a -> b, b -> a, a -> b, b -> a]
  - name: chain
    delta: 9
    edges: [A -> B, B -> C, C -> D]
  - name: bridge-first
    delta: 9
    edges: [b -> c, a -> b, d -> c]
  - name: zigzag
    delta: 9
    edges: [x -> y, z -> y, z -> w]
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Found: new(atomic.Int64)}
	var found int64
	for _, q := range qs {
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := cpu.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Matches != want.Matches || got.Roots != want.Roots {
			t.Errorf("%s: counted %d matches (%d roots), engine %d (%d roots)", q.Name, got.Matches, got.Roots, want.Matches, want.Roots)
		}
		found += got.Matches
		if f := req.Found.Load(); f != 2*found {
			t.Errorf("%s: Found %d after both engines, want %d", q.Name, f, 2*found)
		}
	}
	req.Found = nil
	if spy.calls != 0 {
		t.Errorf("wrapped engine asked %d times for count-mode SNAP shapes; want 0", spy.calls)
	}
	qs, err = motif.ParseQueries([]byte(`queries:
  - name: filtered
    delta: 9
    edges: [A -> B, B -> C, C -> A]
    where: [amount > 1]
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := motif.Compile(qs[0], w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mine(context.Background(), w, p, req); err != nil {
		t.Fatal(err)
	}
	enum := req
	enum.Sink = motif.SinkFunc(func(*motif.Match) error { return nil })
	q := motif.SNAPGrid()[0][0]
	q.Delta = motif.TicksSpan(9)
	p, err = motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mine(context.Background(), w, p, enum); err != nil {
		t.Fatal(err)
	}
	if spy.calls != 2 {
		t.Errorf("wrapped engine asked %d times for a predicate query and an enumeration; want 2", spy.calls)
	}
}

// Streaming batches: a range of at least 1/MinShare of the window, with a
// root mask, is counted and equals the general engine; a smaller one goes
// to the wrapped engine. Successive calls with another range or mask are
// not served from the cache.
func TestEngineBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 5, MaxNodes: 9, MaxEdges: 400, MaxTime: 100, SelfLoop: 0.02, Evict: 1})
	cpu := cpu.New(2)
	spy := &spyEngine{Engine: cpu}
	e := NewEngine(spy, Options{Workers: 2})
	grid := motif.SNAPGrid()
	n := int64(w.Len())
	for iter := range 12 {
		lo := w.First() + rng.Int64N(n/2)
		size := (n + MinShare - 1) / MinShare // the smallest counted range
		if iter%4 == 3 {
			size--
		}
		req := motif.Request{Range: motif.Range{Lo: lo, Hi: lo + size}, Horizon: 0}
		if iter%2 == 0 {
			req.RootMask = make([]bool, size)
			for i := range req.RootMask {
				req.RootMask[i] = rng.IntN(2) == 0
			}
		}
		q := grid[rng.IntN(6)][rng.IntN(6)]
		q.Delta = motif.TicksSpan(1 + rng.Int64N(15))
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		before := spy.calls
		got, err := e.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := cpu.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Matches != want.Matches || got.Roots != want.Roots {
			t.Errorf("%s range %v mask %v: %d matches (%d roots), engine %d (%d roots)", q.Name, req.Range, req.RootMask != nil, got.Matches, got.Roots, want.Matches, want.Roots)
		}
		if counted := spy.calls == before; counted != (iter%4 != 3) {
			t.Errorf("range of %d edges in a window of %d: counted = %v", size, n, counted)
		}
	}
}

// Plans announced with Expect are counted in one run (stars, pairs and
// triangles together) and get the same counts as plans counted family by
// family; a plan of another δ is not counted in that run.
func TestExpectCountsFamiliesInOneRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 5, MaxNodes: 9, MaxEdges: 300, MaxTime: 80, SelfLoop: 0.02, Evict: 1})
	qs, err := motif.ParseQueries([]byte(`queries:
  - name: out-star
    delta: 9
    edges: [hub -> a, hub -> b, hub -> a]
  - name: ping-pong
    delta: 9
    edges: [a -> b, b -> a, a -> b]
  - name: cycle
    delta: 9
    edges: [A -> B, B -> C, C -> A]
  - name: cycle-wide
    delta: 20
    edges: [A -> B, B -> C, C -> A]
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	plainE := NewEngine(cpu.New(1), Options{Workers: 2})
	expectE := NewEngine(cpu.New(1), Options{Workers: 2})
	plans := make([]*motif.Plan, len(qs))
	for i, q := range qs {
		if plans[i], err = motif.Compile(q, w); err != nil {
			t.Fatal(err)
		}
	}
	expectE.Expect(plans...)
	for i, p := range plans {
		want, err := plainE.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := expectE.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: %+v with Expect, %+v without", qs[i].Name, got, want)
		}
	}
	// Without: stars and pairs at δ 9, then triangles at 9, then at 20.
	// With: all of δ 9 at once, then δ 20.
	if plainE.Runs() != 3 || expectE.Runs() != 2 {
		t.Fatalf("counting runs: %d family by family (want 3), %d announced (want 2)", plainE.Runs(), expectE.Runs())
	}
}

// A two-edge query's hop limit is its whole span: such queries are
// counted with the tighter window and equal the brute-force oracle.
func TestEngineCountsTwoEdgeHopLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cfg := oracle.DefaultWindowConfig()
	cfg.MaxEdges = 40
	testTwoEdgeHopLimits(t, rng, cfg, 300, func() (int64, int64) {
		delta := 2 + rng.Int64N(12)
		return delta, rng.Int64N(delta + 1)
	})
}

// testTwoEdgeHopLimits counts every two-edge cell with a hop limit on
// windows of cfg, with δ and the hop limit from limits, through Engine,
// against the oracle.
func testTwoEdgeHopLimits(t *testing.T, rng *rand.Rand, cfg oracle.WindowConfig, iters int, limits func() (delta, hop int64)) {
	t.Helper()
	spy := &spyEngine{Engine: cpu.New(1)}
	e := NewEngine(spy, Options{Workers: 2})
	var matched int64
	for iter := range iters {
		w := oracle.RandomWindow(rng, cfg)
		delta, hop := limits()
		for c := Pair2; c < Pair4; c++ {
			q := cellQueries(delta)[c]
			within := motif.TicksSpan(hop)
			q.Edges[1].Within = &within
			p, err := motif.Compile(q, w)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := Shape(p); !ok || got != c || Delta(p) != hop {
				t.Fatalf("Shape(%s within %d) = %v, %v, Delta %d; want %v, counted with %d", c, hop, got, ok, Delta(p), c, hop)
			}
			req := randomRequest(rng, w)
			got, err := e.Mine(context.Background(), w, p, req)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := oracle.Mine(w, q, req.Range, motif.Batch)
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, m := range ms {
				if last := m.Edges[1]; req.RootMask == nil || req.RootMask[last-req.Range.Lo] {
					want++
				}
			}
			if got.Matches != want {
				t.Fatalf("iteration %d, %v, delta %d, hop %d: counted %d, oracle %d\n%s", iter, c, delta, hop, got.Matches, want, oracle.FormatWindow(w))
			}
			matched += want
		}
	}
	// Requests over less than 1/MinShare of the window go to the wrapped
	// engine by design; the rest are counted.
	if e.Runs() < iters || matched == 0 {
		t.Errorf("%d counting runs (want one or more a window), the wrapped engine asked %d times; %d matches in all (want some)", e.Runs(), spy.calls, matched)
	}
}

// The choice between counting and enumerating (choose.go), for four-node
// paths: on a sparse window the sampled enumeration projects less than the
// counting run and the request is enumerated (the sample and the rest: two
// calls of the wrapped engine, no counting run); on a dense one the sample
// runs past its budget and the request is counted (one call, one run),
// and a second path query is read from that run. Every answer equals the
// general engine's, over the whole window and over a masked range; the
// explanation names the choice and its figures; with two path queries
// announced each gets half the counting cost as its budget; SNAP's shapes
// are counted without a sample.
func TestEngineChoosesCountingOrEnumerating(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	sparse := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 30, MaxNodes: 30, MaxEdges: 600, MaxTime: 5000, Evict: 1})
	dense := sizedWindow(rng, oracle.WindowConfig{MinNodes: 6, MaxNodes: 6, MaxEdges: 3000, MaxTime: 300, Evict: 1})
	masked := func(w *window.Window) motif.Request {
		lo := w.First() + int64(w.Len())/4
		req := motif.Request{Range: motif.Range{Lo: lo, Hi: w.End()}, Horizon: motif.Batch}
		req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
		for i := range req.RootMask {
			req.RootMask[i] = rng.IntN(3) > 0
		}
		return req
	}
	cpu := cpu.New(2)
	for _, c := range []struct {
		name    string
		w       *window.Window
		delta   int64
		counted bool
		why     string
	}{
		{"sparse", sparse, 20, false, "enumerated, shape path4-123-fff: 1/32 of the roots took"},
		// The sample runs past its budget (or stops just after it: the
		// engine checks the budget at intervals) and projects more than
		// counting.
		{"dense", dense, 200, true, "counted (motif/count3), shape path4-123-fff: "},
	} {
		for _, req := range []motif.Request{{Range: motif.WholeWindow(c.w), Horizon: motif.Batch}, masked(c.w)} {
			spy := &spyEngine{Engine: cpu}
			e := NewEngine(spy, Options{Workers: 2})
			var explain strings.Builder
			e.Explain(&explain)
			p := builtinPlan(t, c.w, "path4-123-fff", c.delta)
			got, want := mineBoth(t, e, cpu, c.w, p, req)
			if got.Matches != want.Matches || got.Roots != want.Roots {
				t.Errorf("%s, mask %v: %d matches (%d roots), engine %d (%d roots)", c.name, req.RootMask != nil, got.Matches, got.Roots, want.Matches, want.Roots)
			}
			calls, runs := 2, 0 // the sample and the rest
			if c.counted {
				calls, runs = 1, 1 // the sample, then counting
			}
			if spy.calls != calls || e.Runs() != runs {
				t.Errorf("%s, mask %v: %d calls of the wrapped engine and %d counting runs; want %d and %d", c.name, req.RootMask != nil, spy.calls, e.Runs(), calls, runs)
			}
			if !strings.HasPrefix(explain.String(), "  "+c.why) || !strings.Contains(explain.String(), "counting projected at") {
				t.Errorf("%s, mask %v: explained %q; want it to start %q", c.name, req.RootMask != nil, explain.String(), c.why)
			}
			if !c.counted {
				continue
			}
			// M2 after M1: the same counting run.
			explain.Reset()
			p2 := builtinPlan(t, c.w, "path4-213-bff", c.delta)
			got, want = mineBoth(t, e, cpu, c.w, p2, req)
			if got.Matches != want.Matches || spy.calls != 1 || e.Runs() != 1 {
				t.Errorf("%s: M2 %d matches, engine %d; %d calls, %d runs; want the cached run", c.name, got.Matches, want.Matches, spy.calls, e.Runs())
			}
			if w := "  counted (motif/count3), shape path4-213-bff: already counted for this window state\n"; explain.String() != w {
				t.Errorf("%s: M2 explained %q; want %q", c.name, explain.String(), w)
			}
		}
	}
	// Two announced path queries share the counting cost.
	e := NewEngine(cpu, Options{Workers: 2})
	var explain strings.Builder
	e.Explain(&explain)
	p1, p2 := builtinPlan(t, sparse, "path4-123-fff", 20), builtinPlan(t, sparse, "path4-213-bff", 20)
	e.Expect(p1, p2)
	if _, err := e.Mine(context.Background(), sparse, p1, motif.Request{Range: motif.WholeWindow(sparse), Horizon: motif.Batch}); err != nil {
		t.Fatal(err)
	}
	cost := countCost[Paths] * int64(sparse.Len())
	if w := fmt.Sprintf("shared by 2 queries: %d each)", cost/2); !strings.Contains(explain.String(), w) {
		t.Errorf("two path queries announced: explained %q; want %q", explain.String(), w)
	}
	// SNAP's shapes: no sample.
	explain.Reset()
	spy := &spyEngine{Engine: cpu}
	e = NewEngine(spy, Options{Workers: 2})
	e.Explain(&explain)
	q := motif.SNAPGrid()[2][3]
	q.Delta = motif.TicksSpan(20)
	p, err := motif.Compile(q, sparse)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Mine(context.Background(), sparse, p, motif.Request{Range: motif.WholeWindow(sparse), Horizon: motif.Batch}); err != nil {
		t.Fatal(err)
	}
	if spy.calls != 0 || !strings.Contains(explain.String(), "counted (motif/count3)") || !strings.Contains(explain.String(), "no cost model") {
		t.Errorf("a SNAP shape: %d calls of the wrapped engine, explained %q; want it counted without a sample", spy.calls, explain.String())
	}
}

// TestEngineChoosesForFourEdgeShapes: the four-cycles and paws follow the
// same rule as the paths (countCost): a sparse window's cheap enumeration
// is kept, a dense one is counted, and the count is the engine's either
// way.
func TestEngineChoosesForFourEdgeShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	sparse := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 30, MaxNodes: 30, MaxEdges: 600, MaxTime: 5000, Evict: 1})
	dense := sizedWindow(rng, oracle.WindowConfig{MinNodes: 7, MaxNodes: 7, MaxEdges: 1500, MaxTime: 300, Evict: 1})
	cpu := cpu.New(2)
	for _, name := range []string{"M4", "M7", "M3", "M9"} {
		for _, c := range []struct {
			name    string
			w       *window.Window
			delta   int64
			counted bool
		}{{"sparse", sparse, 20, false}, {"dense", dense, 300, true}} {
			p := builtinPlan(t, c.w, name, c.delta)
			spy := &spyEngine{Engine: cpu}
			e := NewEngine(spy, Options{Workers: 2})
			var explain strings.Builder
			e.Explain(&explain)
			req := motif.Request{Range: motif.WholeWindow(c.w), Horizon: motif.Batch}
			got, want := mineBoth(t, e, cpu, c.w, p, req)
			if got.Matches != want.Matches {
				t.Errorf("%s, %s: %d matches, engine %d", name, c.name, got.Matches, want.Matches)
			}
			if counted := e.Runs() == 1; counted != c.counted || !strings.Contains(explain.String(), "counting projected at") {
				t.Errorf("%s, %s: %d counting runs, explained %q; want counted %v", name, c.name, e.Runs(), explain.String(), c.counted)
			}
		}
	}
}

// builtinPlan compiles the library's motif name at δ delta (ticks of a
// second) over w.
func builtinPlan(tb testing.TB, w *window.Window, name string, delta int64) *motif.Plan {
	tb.Helper()
	q, err := motif.Builtin(name)
	if err != nil {
		tb.Fatal(err)
	}
	q.Delta = motif.TicksSpan(delta)
	p, err := motif.Compile(q, w)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}
