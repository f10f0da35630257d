package estimate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// The coverage test's size and seed; more cases than the suite's 100
// measure the coverage more finely (BENCHMARKS.md quotes such a run).
var (
	coverageCases = flag.Int("estimate.cases", 100, "sampled cases of TestCoverage")
	coverageSeed  = flag.Uint64("estimate.seed", 1, "seed of TestCoverage's cases")
)

// testCase is a graph, a motif and its exact count.
type testCase struct {
	name  string
	w     *window.Window
	p     *motif.Plan
	truth int64
}

// randomMotif builds a motif of 2–5 edges over up to 5 nodes, each edge
// after the first touching a node already used: the shapes a YAML query
// may describe, beyond the built-in ones.
func randomMotif(rng *rand.Rand) *motif.Query {
	q := &motif.Query{Name: "random"}
	k, nodes := 2+rng.IntN(4), 2
	q.Edges = append(q.Edges, motif.Edge{From: 0, To: 1})
	for i := 1; i < k; i++ {
		a := rng.IntN(nodes)
		b := (a + 1 + rng.IntN(nodes-1)) % nodes
		if nodes < 5 && rng.IntN(2) == 0 {
			b = nodes
			nodes++
		}
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		q.Edges = append(q.Edges, motif.Edge{From: a, To: b})
	}
	for i := range nodes {
		q.Nodes = append(q.Nodes, motif.Node{Name: string(rune('A' + i))})
	}
	return q
}

var builtins = []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M4-A", "snap-1-1", "snap-2-5", "snap-5-5", "snap-6-1", "path4-123-fff"}

// newCase builds case i of seed: a CollegeMsg-like graph (skewed node
// activity, bursts) of 3k–10k edges, a built-in or random motif, a δ of
// ten minutes to half a day, and the CPU engine's exact count.
func newCase(t testing.TB, seed uint64, i int) testCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	cfg := synth.Default(3000+rng.IntN(7000), rng.Uint64())
	cfg.Zipf = 0.6 + rng.Float64()
	w, err := synth.Window(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var q *motif.Query
	if rng.IntN(3) == 0 {
		q = randomMotif(rng)
	} else if q, err = motif.Builtin(builtins[rng.IntN(len(builtins))]); err != nil {
		t.Fatal(err)
	}
	deltas := []time.Duration{10 * time.Minute, time.Hour, 4 * time.Hour, 12 * time.Hour}
	q.Delta = motif.DurationSpan(deltas[rng.IntN(len(deltas))])
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cpu.New(2).Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
	if err != nil {
		t.Fatal(err)
	}
	return testCase{name: fmt.Sprintf("case %d: %d edges, %s δ %v", i, w.Len(), q.Name, q.Delta), w: w, p: p, truth: res.Matches}
}

// TestCoverage: over 100 random graphs and motifs whose estimate is a
// sample (not every root), the exact count lies inside the reported 95%
// interval at least 93 times.
func TestCoverage(t *testing.T) {
	cases, seed := *coverageCases, *coverageSeed
	want := cases * 93 / 100
	eng := cpu.New(2)
	covered, sampled, tried := 0, 0, 0
	for i := 0; sampled < cases; i++ {
		tried++
		if i > 3*cases {
			t.Fatalf("only %d of %d cases were sampled (not exact, count > 0)", sampled, i)
		}
		c := newCase(t, seed, i)
		if c.truth == 0 {
			continue
		}
		eps := []float64{0.05, 0.1, 0.2}[i%3]
		est, err := Count(context.Background(), eng, c.w, c.p, motif.Request{Range: motif.WholeWindow(c.w), Horizon: motif.Batch},
			Options{Epsilon: eps, Seed: uint64(i), FirstSample: 200})
		if err != nil {
			t.Fatal(err)
		}
		if est.Exact {
			if est.Value != float64(c.truth) || est.Lo != est.Hi {
				t.Errorf("%s: exact estimate %v [%v, %v]; want %d", c.name, est.Value, est.Lo, est.Hi, c.truth)
			}
			continue
		}
		sampled++
		if in := est.Lo <= float64(c.truth) && float64(c.truth) <= est.Hi; in {
			covered++
		} else {
			t.Logf("%s: count %d outside [%.0f, %.0f] (value %.0f, ε %v, %d of %d roots)", c.name, c.truth, est.Lo, est.Hi, est.Value, eps, est.Sampled, est.Roots)
		}
		if rel := est.RelHalfWidth(); rel > eps {
			t.Errorf("%s: relative half-width %v above ε %v", c.name, rel, eps)
		}
	}
	t.Logf("covered %d of %d sampled cases (%d cases tried)", covered, sampled, tried)
	if covered < want {
		t.Errorf("the 95%% interval covered the exact count %d times of %d; want at least %d", covered, cases, want)
	}
}

// TestUnbiased: at a fixed scale, the mean of the estimates over many
// seeds is within four standard errors of the exact count; so is the
// mean of Count's adaptive estimates, give or take the bias of stopping.
func TestUnbiased(t *testing.T) {
	const eps = 0.2
	eng := cpu.New(2)
	ctx := context.Background()
	for _, i := range []int{0, 1, 5} {
		c := newCase(t, 7, i)
		if c.truth == 0 {
			continue
		}
		req := motif.Request{Range: motif.WholeWindow(c.w), Horizon: motif.Batch}
		const seeds = 120
		var fixed, adaptive []float64
		s0, err := newSampler(ctx, eng, c.w, c.p, req, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(seeds) {
			s := *s0
			s.seed = seed
			if err := s.grow(ctx, 100/s.sumW); err != nil {
				t.Fatal(err)
			}
			v, _, _ := s.stats()
			fixed = append(fixed, v)
			est, err := Count(ctx, eng, c.w, c.p, req, Options{Epsilon: eps, Seed: seed, FirstSample: 100})
			if err != nil {
				t.Fatal(err)
			}
			adaptive = append(adaptive, est.Value)
		}
		// Stopping at the first sample that meets ε biases the adaptive
		// estimate by about its relative variance, (ε/z)², of the count.
		for _, run := range []struct {
			name string
			vals []float64
			bias float64
		}{{"fixed scale", fixed, 0}, {"adaptive", adaptive, eps * eps / (Z(0.95) * Z(0.95)) * float64(c.truth)}} {
			mean, se := meanSE(run.vals)
			t.Logf("%s, %s: mean %.1f ± %.1f, count %d", c.name, run.name, mean, se, c.truth)
			if math.Abs(mean-float64(c.truth)) > 4*se+run.bias+1e-9 {
				t.Errorf("%s, %s: mean estimate %.1f (standard error %.1f) over %d seeds; exact count %d", c.name, run.name, mean, se, seeds, c.truth)
			}
		}
	}
}

func meanSE(xs []float64) (mean, se float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// TestExactWhenAllRoots: when the sample must reach every root (an ε no
// sample meets, or a first sample as large as the graph), the estimate is
// the exact count, with a zero-width interval; with a root mask, of the
// unmasked roots only.
func TestExactWhenAllRoots(t *testing.T) {
	eng := cpu.New(2)
	ctx := context.Background()
	for i := range 4 {
		c := newCase(t, 3, i)
		whole := motif.Request{Range: motif.WholeWindow(c.w), Horizon: motif.Batch}
		for _, o := range []Options{{Epsilon: 1e-9}, {Epsilon: 0.5, FirstSample: 1 << 30}} {
			est, err := Count(ctx, eng, c.w, c.p, whole, o)
			if err != nil {
				t.Fatal(err)
			}
			if !est.Exact || est.Value != float64(c.truth) || est.Lo != est.Hi || est.Variance != 0 || est.Sampled != est.Roots {
				t.Errorf("%s, %+v: %+v; want exact %d", c.name, o, est, c.truth)
			}
		}
		// A mask over part of the window: the exact count of its roots.
		lo := c.w.First() + int64(c.w.Len())/3
		req := motif.Request{Range: motif.Range{Lo: lo, Hi: c.w.End()}, Horizon: motif.Batch, RootMask: make([]bool, c.w.End()-lo)}
		for j := range req.RootMask {
			req.RootMask[j] = j%3 != 0
		}
		want, err := eng.Mine(ctx, c.w, c.p, req)
		if err != nil {
			t.Fatal(err)
		}
		est, err := Count(ctx, eng, c.w, c.p, req, Options{Epsilon: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		if !est.Exact || est.Value != float64(want.Matches) {
			t.Errorf("%s, masked: %+v; want exact %d", c.name, est, want.Matches)
		}
	}
}

// TestOptionsRejected: options out of range and a request with a sink
// are errors that name the value.
func TestOptionsRejected(t *testing.T) {
	c := newCase(t, 3, 0)
	req := motif.Request{Range: motif.WholeWindow(c.w), Horizon: motif.Batch}
	for _, o := range []Options{{Epsilon: 0}, {Epsilon: 1}, {Epsilon: math.NaN()}, {Epsilon: 0.1, Confidence: 1.5}, {Epsilon: 0.1, FirstSample: -1}} {
		if _, err := Count(context.Background(), cpu.New(1), c.w, c.p, req, o); err == nil {
			t.Errorf("Count(%+v) = nil error; want one", o)
		}
	}
	req.Sink = motif.SinkFunc(func(*motif.Match) error { return nil })
	if _, err := Count(context.Background(), cpu.New(1), c.w, c.p, req, Options{Epsilon: 0.1}); !errors.Is(err, ErrSink) {
		t.Errorf("Count with a sink: %v; want ErrSink", err)
	}
}
