package count3

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// Times and windows at the ends of the int64 range (issue 24 item 8): no
// time computation of the passes may wrap. The oracle computes gaps and
// interval ends exactly (math/big), and the general engine saturates, so
// both are references here.

const (
	maxT = math.MaxInt64
	minT = math.MinInt64
)

// lineWindow builds a window of oracle.Schema from "src dst t" lines.
func lineWindow(t testing.TB, lines ...string) *window.Window {
	t.Helper()
	w, err := oracle.LineWindow(lines...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// checkCells compares every cell's count of oracleFams, with 1 and 3
// workers, against the oracle and the general CPU engine; it returns the
// oracle's cells.
func checkCells(t *testing.T, name string, w *window.Window, delta int64, req motif.Request) [Cells]int64 {
	t.Helper()
	want := bruteCells(t, w, delta, req.Range, req.RootMask)
	eng := engineCells(t, w, delta, req)
	clear(eng[Cycle4:])
	if eng != want {
		t.Fatalf("%s, delta %d: the general engine %v, the oracle %v\n%s", name, delta, eng, want, oracle.FormatWindow(w))
	}
	for _, workers := range []int{1, 3} {
		if got := countFams(t, w, delta, req, workers, oracleFams); got != want {
			t.Fatalf("%s, delta %d, range %v, mask %v, %d workers:\n%s\ngot  %v\nwant %v\ncells that differ: %s",
				name, delta, req.Range, req.RootMask != nil, workers, oracle.FormatWindow(w), got, want, cellDiff(got, want))
		}
	}
	return want
}

func cellDiff(got, want [Cells]int64) string {
	var d []string
	for c := range got {
		if got[c] != want[c] {
			d = append(d, fmt.Sprintf("%v %d (want %d)", Cell(c), got[c], want[c]))
		}
	}
	return strings.Join(d, ", ")
}

// The cases of issue 24 item 8, each with the others of its kind: edges
// near −2^63 (where t − δ wrapped and a pass read past its sequence),
// near 2^63 − 1 (t + δ wrapped), around 0 with δ = 2^63 − 1 (both), and
// at both ends (differences that do not fit in an int64).
func TestCountReportedExtremes(t *testing.T) {
	for _, c := range []struct {
		name   string
		deltas []int64
		edges  []string
	}{
		{"near -2^63", []int64{1, 3, 10, maxT}, []string{
			fmt.Sprintf("a b %d", minT), fmt.Sprintf("b c %d", minT+1), fmt.Sprintf("c a %d", minT+2),
			fmt.Sprintf("a b %d", minT+2), fmt.Sprintf("b a %d", minT+4), fmt.Sprintf("a c %d", minT+5),
			fmt.Sprintf("c b %d", minT+5), fmt.Sprintf("b a %d", minT+9)}},
		{"near 2^63-1", []int64{1, 3, 10, maxT}, []string{
			fmt.Sprintf("a b %d", maxT-9), fmt.Sprintf("b c %d", maxT-5), fmt.Sprintf("c a %d", maxT-5),
			fmt.Sprintf("a b %d", maxT-4), fmt.Sprintf("b a %d", maxT-2), fmt.Sprintf("a c %d", maxT-2),
			fmt.Sprintf("c b %d", maxT), fmt.Sprintf("b a %d", maxT)}},
		// The two-edge case: a b -5, b c -4, [A -> B, B -> C].
		{"a b -5 / b c -4", []int64{1, maxT - 1, maxT}, []string{"a b -5", "b c -4"}},
		{"around 0", []int64{1, 4, maxT - 2, maxT}, []string{
			"a b -5", "b c -4", "c a -1", "a b 0", "b a 0", "c b 2", "a c 3", "b c 7"}},
		{"both ends", []int64{1, maxT / 2, maxT - 1, maxT}, []string{
			fmt.Sprintf("a b %d", minT), fmt.Sprintf("b c %d", minT+1), fmt.Sprintf("c a %d", -1),
			"a b 0", "b a 1", fmt.Sprintf("c b %d", maxT-1), fmt.Sprintf("a c %d", maxT), fmt.Sprintf("c a %d", maxT)}},
		// Four-node paths (and a triangle the path pass must take off)
		// with their middle edge at one end of the range and their others
		// at the other end, or all near one end.
		{"paths at both ends", []int64{1, maxT / 2, maxT - 1, maxT}, []string{
			fmt.Sprintf("a b %d", minT), fmt.Sprintf("d c %d", minT), fmt.Sprintf("b c %d", minT+1), fmt.Sprintf("c a %d", -1),
			"d b 0", fmt.Sprintf("c d %d", maxT-1), fmt.Sprintf("b a %d", maxT), fmt.Sprintf("a d %d", maxT)}},
		{"paths near 2^63-1", []int64{1, 2, 5, maxT}, []string{
			fmt.Sprintf("a b %d", maxT-4), fmt.Sprintf("b c %d", maxT-3), fmt.Sprintf("c d %d", maxT-3),
			fmt.Sprintf("d a %d", maxT-1), fmt.Sprintf("b c %d", maxT), fmt.Sprintf("e b %d", maxT)}},
	} {
		w := lineWindow(t, c.edges...)
		for _, delta := range c.deltas {
			checkCells(t, c.name, w, delta, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
		}
	}
	// The figure for the two-edge case, through the engine a
	// query reaches: one wedge, b's in-out.
	w := lineWindow(t, "a b -5", "b c -4")
	qs, err := motif.ParseQueries([]byte(fmt.Sprintf("queries:\n  - name: relay\n    delta: %d\n    edges: [A -> B, B -> C]\n", int64(maxT))), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := motif.Compile(qs[0], w)
	if err != nil {
		t.Fatal(err)
	}
	spy := &spyEngine{Engine: cpu.New(1)}
	res, err := NewEngine(spy, Options{Workers: 2}).Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
	if err != nil || res.Matches != 1 || spy.calls != 0 {
		t.Errorf("[A -> B, B -> C] at delta 2^63-1 over a b -5, b c -4: %d matches (%v), wrapped engine asked %d times; want 1 counted", res.Matches, err, spy.calls)
	}
}

// extremeDelta is a δ for windows at the int64 ends: small (t ± δ wraps
// at an end), half the range, or within a few ticks of 2^63 − 1 (every
// sum and most differences wrap).
func extremeDelta(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0, 1:
		return 1 + rng.Int64N(14)
	case 2:
		return maxT/2 + rng.Int64N(3)
	}
	return maxT - rng.Int64N(3)
}

// Every cell (SNAP's 36, the four-node stars and the Small family) equals
// the oracle and the general engine on random windows whose times lie at
// an end of the int64 range, at both, or around 0, full of ties, for δ up
// to 2^63 − 1, random ranges and root masks, and 1 or 3 workers (3 cuts
// every centre into pieces).
func TestCountMatchesOracleExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 16
	var seen, seenWide [Cells]int64
	iters := 700
	if testing.Short() {
		iters = 300
	}
	for iter := range oracleTrials(iters) {
		w := oracle.RandomWindow(rng, cfg)
		delta := extremeDelta(rng)
		req := randomRequest(rng, w)
		want := checkCells(t, fmt.Sprintf("iteration %d", iter), w, delta, req)
		for c := range want {
			seen[c] += want[c]
			if delta > maxT/2 {
				seenWide[c] += want[c]
			}
		}
	}
	for c := range seen[:Cycle4] {
		if seen[c] == 0 || seenWide[c] == 0 {
			t.Errorf("%v: %d matches in all, %d at δ > 2^62: the test does not check it at the extremes", Cell(c), seen[c], seenWide[c])
		}
	}
}

// Larger windows at the int64 ends (long pair lists with block indexes,
// long δ windows, many triangles per pair) against the general engine,
// every cell.
func TestCountDenseMatchesEngineExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	for iter := range 40 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 200, MaxTime: 60 + rng.Int64N(400), SelfLoop: 0.02, Evict: 0.3, Extreme: 1}
		w := oracle.RandomWindow(rng, cfg)
		delta := extremeDelta(rng)
		req := randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		if got := countCells(t, w, delta, req, 1+iter%3); got != want {
			t.Fatalf("iteration %d, %d edges, delta %d, range %v: got %v, want %v\ncells that differ: %s",
				iter, w.Len(), delta, req.Range, got, want, cellDiff(got, want))
		}
	}
}

// A heavy pair (long enough for a block index) in thousands of triangles,
// its times at an int64 end, both ends or around 0: the triangle cells
// equal the general engine's for δ up to 2^63 − 1.
func TestCountHeavyPairExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	for _, at := range []struct {
		name string
		time func(t int64) int64 // t in [0, 300)
	}{
		{"near -2^63", func(t int64) int64 { return minT + t }},
		{"near 2^63-1", func(t int64) int64 { return maxT - 299 + t }},
		{"around 0", func(t int64) int64 { return t - 150 }},
		{"both ends", func(t int64) int64 {
			if t < 150 {
				return minT + t
			}
			return maxT - 299 + t
		}},
	} {
		w := heavyPairWindow(t, rng, 300, 100, at.time)
		for _, delta := range []int64{4, 40, maxT / 2, maxT} {
			for _, req := range []motif.Request{{Range: motif.WholeWindow(w), Horizon: motif.Batch}, randomRequest(rng, w)} {
				checkTriangles(t, at.name, w, delta, req)
			}
		}
	}
}

// Two-edge queries with hop limits (their span) up to 2^63 − 1 over
// windows at the int64 ends, through Engine: counted, and equal to the
// oracle.
func TestEngineCountsTwoEdgeHopLimitsExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 40
	testTwoEdgeHopLimits(t, rng, cfg, 300, func() (int64, int64) {
		delta := extremeDelta(rng)
		hop := delta - rng.Int64N(min(delta, 4)+1) // at or just below δ
		if rng.IntN(3) == 0 {
			hop = rng.Int64N(min(delta, 12) + 1)
		}
		return delta, hop
	})
}

// The device's input (Sequences) at the int64 ends gives the same
// counters as the fused passes.
func TestCountSequencesExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 12))
	for iter := range 60 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 10, MaxEdges: 200, MaxTime: 60, SelfLoop: 0.03, Evict: 0.3, Extreme: 1}
		w := oracle.RandomWindow(rng, cfg)
		delta := extremeDelta(rng)
		req := randomRequest(rng, w)
		want, err := Count(context.Background(), w, delta, req, All, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Count(context.Background(), w, delta, req, All, Options{Workers: 2, Device: cpuDevice{}})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("iteration %d, delta %d: sequences %v, fused %v", iter, delta, got, want)
		}
	}
}

// No triple lies within a negative δ: Count and CountSequences return
// zero counters for it (queries cannot ask for one, but the functions
// are exported and must not read past a sequence).
func TestCountNegativeDelta(t *testing.T) {
	w := lineWindow(t, "a b 1", "b c 2", "c a 3", "a b 3", "b a 4")
	for _, delta := range []int64{-1, minT} {
		for _, dev := range []Device{nil, cpuDevice{}} {
			raw, err := Count(context.Background(), w, delta, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}, All, Options{Workers: 2, Device: dev})
			if err != nil || raw != (Raw{}) {
				t.Errorf("Count(delta %d, device %v) = %v, %v; want zero counters", delta, dev != nil, raw.Cells(), err)
			}
		}
	}
}
