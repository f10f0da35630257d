package count3

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
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

// sortLight orders a group's light edges by position in place and
// unsortLight puts them back in middle order, each middle's edges in
// their own order: random groups of up to 40 middles, by packed keys
// and (positions spanning more than the keys hold) by comparing, and of
// up to 400 middles, by radix passes over one to three digits.
func TestSortLightRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 50))
	var b wedgeBuf
	for iter := range 2000 {
		mids := 1 + rng.IntN(40)
		span := int64(1 + rng.IntN(5000))
		switch {
		case iter%5 == 0:
			span = 1 << 62 // past the keys' 40 bits of position
		case iter%5 == 1 && iter < 200:
			// Past radixMinKeys: radix passes of one, two and three
			// digits.
			mids = 150 + rng.IntN(250)
			span = []int64{2000, 5000, 1 << 22, 1 << 33}[rng.IntN(4)]
		}
		b.lx, b.loff = b.lx[:0], append(b.loff[:0], 0)
		seen := map[int64]bool{}
		for m := range mids {
			var pos []int64
			for range rng.IntN(12) {
				if p := rng.Int64N(span); !seen[p] {
					seen[p] = true
					pos = append(pos, p)
				}
			}
			slices.Sort(pos)
			for k, p := range pos {
				b.lx = append(b.lx, lightEdge{t: p / 3, pos: p, mid: int32(m), w0: int32(k), w1: int32(k + rng.IntN(4)), ctx: uint8(rng.IntN(4)), counted: rng.IntN(2) == 0})
			}
			b.loff = append(b.loff, int32(len(b.lx)))
		}
		want := slices.Clone(b.lx)
		b.sortLight()
		byPos := slices.Clone(want)
		slices.SortFunc(byPos, func(x, y lightEdge) int { return cmp.Compare(x.pos, y.pos) })
		if !slices.Equal(b.lx, byPos) {
			t.Fatalf("iteration %d: sortLight gives %v; want %v", iter, b.lx, byPos)
		}
		b.unsortLight()
		if !slices.Equal(b.lx, want) {
			t.Fatalf("iteration %d: unsortLight gives %v; want %v", iter, b.lx, want)
		}
	}
}

// The groups that sortLight orders and lightPairsCheaper then sends to
// the sweeps (lightPairsRatio 0: the light pairs never cheaper), put
// back in middle order by unsortLight, count as the listing does (the
// oracle's match in TestLightPairsMatchOracle's windows, too small for
// such groups): M4 on dense windows whose groups have more middles than
// minSweepMiddles.
func TestLightFallbackMatchesListing(t *testing.T) {
	oldW, oldR := cycleWedges, lightPairsRatio
	defer func() { cycleWedges, lightPairsRatio = oldW, oldR }()
	lightPairsRatio = 0
	rng := rand.New(rand.NewPCG(28, 51))
	var seen int64
	for iter := range 40 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 14, MaxNodes: 18, MaxEdges: 600, MaxTime: 80, SelfLoop: 0.03, Evict: 0.2})
		delta := 4 + rng.Int64N(12)
		req := randomRequest(rng, w)
		var want [Cells]int64
		for _, m := range []int{-1, 0} {
			cycleWedges = m
			for _, workers := range []int{1, 3} {
				raw, err := Count(context.Background(), w, delta, req, Cycles4, Options{Workers: workers, CycleCells: 1})
				if err != nil {
					t.Fatal(err)
				}
				if m < 0 && workers == 1 {
					want = raw.Cells()
				} else if got := raw.Cells(); got != want {
					t.Fatalf("iteration %d, delta %d, %d workers:\n%s\ncells that differ: %s", iter, delta, workers, oracle.FormatWindow(w), cellDiff(got, want))
				}
			}
		}
		for _, v := range want {
			seen += v
		}
	}
	if seen < 10000 {
		t.Errorf("%d matches: the test checks too little", seen)
	}
}
