package count3

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// bruteCycles counts the cycle4 cells in mask (bit i: Cycle4 + i) with
// the brute-force oracle; the other cells stay zero.
func bruteCycles(t *testing.T, w *window.Window, delta int64, r motif.Range, rootMask []bool, mask uint32) [Cells]int64 {
	t.Helper()
	return bruteWhere(t, w, delta, r, rootMask, func(c Cell) bool { return c >= Cycle4 && c < Paw && mask>>(c-Cycle4)&1 != 0 })
}

// randomCycleMask returns a set of one to 32 cycle cells, mostly few.
func randomCycleMask(rng *rand.Rand) uint32 {
	var m uint32
	for n := 1 + rng.IntN(1+rng.IntN(32)); bits.OnesCount32(m) < n; {
		m |= 1 << rng.IntN(32)
	}
	return m
}

// sparseForAll sends every cycle-cell mask through the sparse window
// until the test ends.
func sparseForAll(t *testing.T) {
	old := sparseMaxCells
	sparseMaxCells = 32
	t.Cleanup(func() { sparseMaxCells = old })
}

func checkSparse(t *testing.T, iter int, w *window.Window, delta int64, req motif.Request, mask uint32) int64 {
	t.Helper()
	if cycleTables(mask) == nil {
		t.Fatalf("mask %#x: no sparse tables", mask)
	}
	return checkSparseOrFull(t, iter, w, delta, req, mask)
}

func checkSparseOrFull(t *testing.T, iter int, w *window.Window, delta int64, req motif.Request, mask uint32) int64 {
	t.Helper()
	want := bruteCycles(t, w, delta, req.Range, req.RootMask, mask)
	cyclePaths(t, func(path string) {
		for _, workers := range []int{1, 3} {
			raw, err := Count(context.Background(), w, delta, req, Cycles4, Options{Workers: workers, CycleCells: mask})
			if err != nil {
				t.Fatal(err)
			}
			if got := raw.Cells(); got != want {
				t.Fatalf("iteration %d, delta %d, range %v, mask %v, cells %#x, %d workers, %s:\n%s\ncells that differ: %s", iter, delta, req.Range, req.RootMask != nil, mask, workers, path, oracle.FormatWindow(w), cellDiff(got, want))
			}
		}
	})
	var n int64
	for _, v := range want {
		n += v
	}
	return n
}

// The cycle pass restricted to a few cells (Options.CycleCells, the
// sparse window) equals the brute-force oracle on those cells and counts
// no other, on random windows with ties, self-loops and evicted prefixes,
// for random ranges and root masks and 1 or 3 workers; every mask goes
// through the sparse window, as many cells as it has.
func TestFourSparseMatchesOracle(t *testing.T) {
	sparseForAll(t)
	rng := rand.New(rand.NewPCG(28, 40))
	var seen [32]int64
	for iter := range 200 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(4), MaxEdges: 10 + rng.IntN(30), MaxTime: 4 + rng.Int64N(30), SelfLoop: 0.05, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := rng.Int64N(12)
		req := randomRequest(rng, w)
		mask := randomCycleMask(rng)
		if checkSparse(t, iter, w, delta, req, mask) > 0 {
			for i := range 32 {
				if mask>>i&1 == 1 {
					seen[i]++
				}
			}
		}
	}
	for i, n := range seen {
		if n == 0 {
			t.Errorf("no window with a match checked %v: the test does not check it", Cycle4+Cell(i))
		}
	}
}

// The same at the ends of the int64 range and for dense windows whose
// cycles hold many entries within δ (windows that slide, not just fill).
func TestFourSparseMatchesOracleExtremeAndDense(t *testing.T) {
	sparseForAll(t)
	rng := rand.New(rand.NewPCG(28, 41))
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 24
	var seen, dense int64
	for iter := range 80 {
		w := oracle.RandomWindow(rng, cfg)
		seen += checkSparse(t, iter, w, extremeDelta(rng), randomRequest(rng, w), randomCycleMask(rng))
	}
	for iter := range 6 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 4, MaxEdges: 100, MaxTime: 30, SelfLoop: 0.03, Evict: 0.3})
		dense += checkSparse(t, iter, w, 6+rng.Int64N(10), randomRequest(rng, w), 1|randomCycleMask(rng))
	}
	if seen == 0 || dense < 1000 {
		t.Errorf("%d extreme, %d dense matches: the test checks too little", seen, dense)
	}
}

// An Engine caches the four-cycles by cell: M4, then M7 (a second run,
// of M7's patterns alone), then M4 again and a paw (cached, and a run of
// the paws) all equal the oracle; with both announced (Expect) one run
// counts them.
func TestEngineCachesCycleCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 42))
	w := sizedWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 120, MaxTime: 40, SelfLoop: 0.02, Evict: 0.3})
	const delta = 12
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	names := []string{"M4", "M7", "M4", "M3"}
	plans := make([]*motif.Plan, len(names))
	oracleN := make([]int64, len(names))
	for i, n := range names {
		plans[i] = builtinPlan(t, w, n, delta)
		ms, err := oracle.Mine(w, plans[i].Query, req.Range, motif.Batch)
		if err != nil {
			t.Fatal(err)
		}
		oracleN[i] = int64(len(ms))
	}
	var all []*motif.Plan
	for c := Cycle4; c < Paw; c++ {
		all = append(all, builtinPlan(t, w, c.String(), delta))
	}
	want := bruteCycles(t, w, delta, req.Range, nil, allCycleCells)
	cyclePaths(t, func(path string) {
		for _, expect := range []bool{false, true} {
			e := NewEngine(cpu.New(1), Options{Workers: 2, AlwaysCount: true})
			if expect {
				e.Expect(plans[:2]...)
			}
			var found int64
			for i, p := range plans {
				got, err := e.Mine(context.Background(), w, p, req)
				if err != nil {
					t.Fatal(err)
				}
				if got.Matches != oracleN[i] {
					t.Fatalf("%s: expect %v, %s (query %d): %d matches, oracle %d", path, expect, names[i], i, got.Matches, oracleN[i])
				}
				found += got.Matches
			}
			if found == 0 {
				t.Fatal("no match: the test checks nothing")
			}
			if want := map[bool]int{false: 3, true: 2}[expect]; e.Runs() != want {
				t.Errorf("%s: expect %v: %d counting runs, want %d", path, expect, e.Runs(), want)
			}
		}
		// M4 counted alone, then all 32 cycle cells announced: one more run
		// counts the 31 others (the full window, its M4 counters dropped).
		e := NewEngine(cpu.New(1), Options{Workers: 2, AlwaysCount: true})
		if _, err := e.Mine(context.Background(), w, plans[0], req); err != nil {
			t.Fatal(err)
		}
		e.Expect(all...)
		// Every cell twice: M4 (cell 0) was cached before the run of the others.
		for k := range 2 * len(all) {
			i := k % len(all)
			got, err := e.Mine(context.Background(), w, all[i], req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Matches != want[Cycle4+Cell(i)] {
				t.Fatalf("%s: %v after M4 alone: %d matches, oracle %d", path, Cycle4+Cell(i), got.Matches, want[Cycle4+Cell(i)])
			}
		}
		if e.Runs() != 2 {
			t.Errorf("%s: M4, then all cycle cells: %d counting runs, want 2", path, e.Runs())
		}
	})
}

// Count with CycleCells over sparseMaxCells cells runs the full window
// and keeps only the asked cells.
func TestCountCycleCellsFullWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 43))
	for iter := range 40 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 40, MaxTime: 20, SelfLoop: 0.05, Evict: 0.3})
		mask := randomCycleMask(rng) | 7 // over sparseMaxCells
		if cycleTables(mask) != nil {
			t.Fatalf("mask %#x: sparse tables", mask)
		}
		checkSparseOrFull(t, iter, w, 1+rng.Int64N(10), randomRequest(rng, w), mask)
	}
}

// Cells whose wedges all pair edges of one relation of directions (M4's:
// every wedge a directed path t → m → o or o → m → t; four cells so, four
// the other way) need wedges of two of the four direction pairs only, so
// the wedge sweeps keep only those wedges' edges (middleDirs): every set
// of cells of one relation equals the oracle, through the listing, the
// sweeps and both, on random and dense windows with ties and evicted
// prefixes, for random ranges and root masks.
func TestFourOneWayCellsMatchOracle(t *testing.T) {
	classes := map[[2][2][2]bool][]int{}
	for i := range 32 {
		if tab := newWedgeTables(1 << i); !tab.allDirs {
			classes[tab.dirs] = append(classes[tab.dirs], i)
		}
	}
	var oneWay [][]int
	for _, c := range classes {
		oneWay = append(oneWay, c)
	}
	if len(oneWay) != 2 || len(oneWay[0]) != 4 || len(oneWay[1]) != 4 {
		t.Fatalf("cells needing some direction pairs only, by pairs: %v; want two sets of four", oneWay)
	}
	rng := rand.New(rand.NewPCG(28, 46))
	var seen int64
	for iter := range 120 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(3), MaxEdges: 20 + rng.IntN(60), MaxTime: 8 + rng.Int64N(40), SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		var mask uint32
		for mask == 0 {
			for _, i := range oneWay[iter%2] {
				if rng.IntN(3) == 0 {
					mask |= 1 << i
				}
			}
		}
		if newWedgeTables(mask).allDirs {
			t.Fatalf("mask %#x: every direction pair needed", mask)
		}
		seen += checkSparseOrFull(t, iter, w, 2+rng.Int64N(12), randomRequest(rng, w), mask)
	}
	if seen < 1000 {
		t.Errorf("%d matches in all: the test checks too little", seen)
	}
}

// The cells whose wedges each pair with partners of one direction, in a
// tree of one word (M4's cycle4-1234-ffff and cycle4-1234-bbbb: tab.one),
// go through sweepOne: alone and together they equal the oracle through
// the listing, the sweeps and both, with 1 and 3 workers, on random and
// dense windows with ties and evicted prefixes and at the ends of the
// int64 range.
func TestFourOneDirectionCellsMatchOracle(t *testing.T) {
	var masks []uint32
	for i := range 32 {
		if newWedgeTables(1 << i).one {
			masks = append(masks, 1<<i)
		}
	}
	if len(masks) != 2 || masks[0] != 1 || masks[1] != 1<<15 {
		t.Fatalf("cells with one partner direction: %#x; want cycle4-1234-ffff and cycle4-1234-bbbb", masks)
	}
	masks = append(masks, masks[0]|masks[1]) // whichever sweep takes them
	rng := rand.New(rand.NewPCG(28, 47))
	var seen, dense, extreme int64
	for iter := range 90 {
		mask := masks[iter%len(masks)]
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(3), MaxEdges: 20 + rng.IntN(60), MaxTime: 8 + rng.Int64N(40), SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		seen += checkSparseOrFull(t, iter, w, 2+rng.Int64N(12), randomRequest(rng, w), mask)
	}
	for iter := range 6 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 4, MaxEdges: 100, MaxTime: 30, SelfLoop: 0.03, Evict: 0.3})
		dense += checkSparseOrFull(t, iter, w, 6+rng.Int64N(10), randomRequest(rng, w), masks[iter%len(masks)])
	}
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 24
	for iter := range 60 {
		w := oracle.RandomWindow(rng, cfg)
		extreme += checkSparseOrFull(t, iter, w, extremeDelta(rng), randomRequest(rng, w), masks[iter%len(masks)])
	}
	if seen < 200 || dense < 200 || extreme == 0 {
		t.Errorf("%d random, %d dense, %d extreme matches: the test checks too little", seen, dense, extreme)
	}
}
