package count3

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// The light pairs (every group forced through them) equal the oracle for
// cells of some direction pairs only (M4's, cycle4-1234-bbbb and random
// sets that leave some direction pair out), with 1 and 3 workers, on
// random and dense windows with ties, uncounted edges and evicted
// prefixes, and at the ends of the int64 range with δ up to 2^63 − 1.
func TestLightPairsMatchOracle(t *testing.T) {
	old := cycleWedges
	defer func() { cycleWedges = old }()
	rng := rand.New(rand.NewPCG(28, 49))
	mask := func(iter int) uint32 {
		switch iter % 4 {
		case 0:
			return 1 // M4
		case 1:
			return 1 << 15 // cycle4-1234-bbbb
		}
		for {
			if m := randomCycleMask(rng); !newWedgeTables(m).allDirs {
				return m
			}
		}
	}
	check := func(iter int, w *window.Window, delta int64, m uint32) int64 {
		req := randomRequest(rng, w)
		want := bruteCycles(t, w, delta, req.Range, req.RootMask, m)
		cycleWedges = 3
		for _, workers := range []int{1, 3} {
			raw, err := Count(context.Background(), w, delta, req, Cycles4, Options{Workers: workers, CycleCells: m})
			if err != nil {
				t.Fatal(err)
			}
			if got := raw.Cells(); got != want {
				t.Fatalf("iteration %d, delta %d, mask %#x, %d workers:\n%s\ncells that differ: %s", iter, delta, m, workers, oracle.FormatWindow(w), cellDiff(got, want))
			}
		}
		var n int64
		for _, v := range want {
			n += v
		}
		return n
	}
	var seen, dense, extreme int64
	for iter := range 120 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(3), MaxEdges: 20 + rng.IntN(60), MaxTime: 8 + rng.Int64N(40), SelfLoop: 0.03, Evict: 0.3}
		seen += check(iter, oracle.RandomWindow(rng, cfg), 2+rng.Int64N(12), mask(iter))
	}
	for iter := range 12 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 4, MaxEdges: 100, MaxTime: 30, SelfLoop: 0.03, Evict: 0.3})
		dense += check(iter, w, 6+rng.Int64N(10), mask(iter))
	}
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 24
	for iter := range 80 {
		extreme += check(iter, oracle.RandomWindow(rng, cfg), extremeDelta(rng), mask(iter))
	}
	if seen < 300 || dense < 300 || extreme == 0 {
		t.Errorf("%d random, %d dense, %d extreme matches: the test checks too little", seen, dense, extreme)
	}
}
