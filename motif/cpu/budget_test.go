package cpu_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// bomb is oracle.Bomb(n, m), failing t on an error.
func bomb(t testing.TB, n, m int) (*window.Window, *motif.Plan) {
	w, p, err := oracle.Bomb(n, m)
	if err != nil {
		t.Fatal(err)
	}
	return w, p
}

// TestBudgetStopsBomb: with a step budget the bomb (issue 12 item 5:
// 30k x -> hub, 30k hub -> y, 2k closing edges) stops a bounded number of
// steps past the budget and reports Truncated; a deadline already passed
// stops it at the first check.
func TestBudgetStopsBomb(t *testing.T) {
	w, p := bomb(t, 30000, 2000)
	const budget = 1_000_000
	for _, workers := range []int{1, 2, 4} {
		e := cpu.New(workers)
		for _, enumerate := range []bool{false, true} {
			req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Budget: budget}
			if enumerate {
				req.Sink = motif.SinkFunc(func(*motif.Match) error { return nil })
			}
			res, err := e.Mine(context.Background(), w, p, req)
			// Each worker may do up to two check intervals past the
			// budget (one before it looks, one to unwind).
			if slack := int64(2 * workers * 1024); err != nil || !res.Truncated || res.Steps <= budget || res.Steps > budget+slack {
				t.Errorf("%d workers, enumerate %v: %+v, %v; want Truncated after (%d, %d] steps", workers, enumerate, res, err, budget, budget+slack)
			}
		}
		res, err := e.Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Deadline: time.Now().Add(-time.Second)})
		if err != nil || !res.Truncated || res.Steps > int64(2*workers*1024) {
			t.Errorf("%d workers, past deadline: %+v, %v; want Truncated within the first check", workers, res, err)
		}
	}
}

// TestBudgetSteps: the step count of a whole call is the same for every
// worker count and mode (it depends on the data only), a budget equal to
// it never truncates, and mining under a budget that truncates reports a
// subset of the oracle's matches; a call not truncated reports exactly
// the oracle's.
func TestBudgetSteps(t *testing.T) {
	seed := diffSeedValue(t)
	wcfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 6, MaxEdges: 40, MaxTime: 30, SelfLoop: 0.05, Missing: 0.05, Evict: 0.2}
	qcfg := oracle.QueryConfig{MaxEdges: 3, MaxNodes: 4, MaxDelta: 20, Within: 0.3, Anti: 0.3, Pred: 0.3}
	lo, hi := diffCaseRange()
	if *diffCase < 0 {
		hi = lo + (hi-lo)/30
	}
	// Large windows, where the budget is looked at many times, against one
	// worker without a budget (TestDiffCPU checks it against the oracle).
	large := oracle.WindowConfig{MinNodes: 4, MaxNodes: 8, MaxEdges: 200, MaxTime: 400, SelfLoop: 0.05, Missing: 0.05, Evict: 0.2}
	largeQ := oracle.QueryConfig{MaxEdges: 3, MaxNodes: 4, MaxDelta: 60, Within: 0.2, Anti: 0.3, Pred: 0.2}
	truncated := 0
	for i := lo; i < hi; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)|1<<42))
		var w *window.Window
		var q *motif.Query
		if i%2 == 0 {
			w, q = oracle.RandomWindow(rng, wcfg), oracle.RandomQuery(rng, qcfg)
		} else {
			w, q = oracle.RandomWindow(rng, large), oracle.RandomQuery(rng, largeQ)
		}
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		req := request{motif.WholeWindow(w), motif.Batch}
		ref, full, err := collect(cpu.New(1), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		wantKeys := keys(ref)
		if i%2 == 0 {
			wantKeys = keys(mineOracle(t, w, q, req))
		}
		for _, n := range []int{1, 2, 4} {
			e := cpu.New(n)
			res, err := e.Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon})
			if err != nil || res.Truncated {
				t.Fatalf("case %d: %+v, %v", i, res, err)
			}
			got, eres, err := mineBudget(e, w, p, req, full.Steps)
			if err != nil || eres.Steps != full.Steps || eres.Truncated || !slices.Equal(keys(got), wantKeys) {
				t.Fatalf("case %d, %d workers, budget = the %d steps of the whole call: %+v, %v; %d matches, oracle %d\n%s%s",
					i, n, full.Steps, eres, err, len(got), len(wantKeys), oracle.FormatWindow(w), oracle.FormatQuery(q))
			}
			if n == 1 {
				if res.Steps > full.Steps {
					t.Fatalf("case %d: count mode takes %d steps, enumerate %d (count mode never visits more)", i, res.Steps, full.Steps)
				}
			}
			// A tiny budget: a subset of the matches, truncated unless the
			// call finished before its first look at the budget.
			got, eres, err = mineBudget(e, w, p, req, 1+rng.Int64N(max(full.Steps/2, 1)))
			if err != nil {
				t.Fatal(err)
			}
			want := make(map[string]bool, len(wantKeys))
			for _, k := range wantKeys {
				want[k] = true
			}
			for _, k := range keys(got) {
				if !want[k] {
					t.Fatalf("case %d: truncated mining reported %s, not an oracle match", i, k)
				}
			}
			if eres.Truncated {
				truncated++
			} else if !slices.Equal(keys(got), wantKeys) {
				t.Fatalf("case %d: not truncated, but %d matches of the oracle's %d", i, len(got), len(wantKeys))
			}
		}
	}
	t.Logf("%d budgeted calls truncated", truncated)
	if hi-lo >= 100 && truncated == 0 {
		t.Errorf("coverage: no budgeted call was truncated")
	}
}

func mineBudget(e motif.Engine, w *window.Window, p *motif.Plan, req request, budget int64) ([]motif.Match, motif.Result, error) {
	var got []motif.Match
	sink := motif.SinkFunc(func(m *motif.Match) error {
		got = append(got, motif.Match{Edges: slices.Clone(m.Edges), Nodes: slices.Clone(m.Nodes), Open: m.Open, OpenUntil: m.OpenUntil})
		return nil
	})
	res, err := e.Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon, Sink: sink, Budget: budget})
	return got, res, err
}

// BenchmarkBomb mines the whole bomb of TestBudgetStopsBomb without a
// budget and reports its steps and the engine's steps per second (the
// rate that turns window.max_mine_steps into time).
func BenchmarkBomb(b *testing.B) {
	w, p := bomb(b, 30000, 2000)
	e := cpu.New(0)
	var steps int64
	for range b.N {
		res, err := e.Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
		if err != nil {
			b.Fatal(err)
		}
		steps = res.Steps
	}
	b.ReportMetric(float64(steps), "steps")
	b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
