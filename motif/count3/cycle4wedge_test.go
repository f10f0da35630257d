package count3

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// cyclePaths runs f once per method of the cycle pass, each forced for
// every group: the listing (cycle by cycle), the wedge sweeps, and the
// two mixed in one run (cycleWedges).
func cyclePaths(t testing.TB, f func(path string)) {
	old := cycleWedges
	defer func() { cycleWedges = old }()
	for _, p := range []struct {
		name string
		v    int
	}{{"listing", -1}, {"wedges", 1}, {"mixed", 2}, {"light pairs", 3}} {
		cycleWedges = p.v
		f(p.name)
	}
}

// wedgePairRaw labels each pair of wedge types and interleaving with the
// raw counter whose shape (cycleShape) has the pair's four edges in that
// order: built here edge by edge on t = 0, W1's middle 1, o = 2, W2's
// middle 3.
func TestWedgePairRaw(t *testing.T) {
	wedge := func(m int, ty uint8) (first, second [2]int) {
		a, b := [2]int{0, m}, [2]int{m, 2}
		if ty&2 != 0 {
			a = [2]int{m, 0}
		}
		if ty&1 != 0 {
			b = [2]int{2, m}
		}
		if ty&4 != 0 {
			return b, a
		}
		return a, b
	}
	seen := map[int]bool{}
	for kind, name := range []string{"sequential", "crossing", "nested"} {
		for t1 := range uint8(8) {
			for t2 := range uint8(8) {
				f1, s1 := wedge(1, t1)
				f2, s2 := wedge(3, t2)
				want := map[int][4][2]int{kindSeq: {f1, s1, f2, s2}, kindCross: {f1, f2, s1, s2}, kindNest: {f1, f2, s2, s1}}[kind]
				r := wedgePairRaw(kind, t1, t2)
				if got := cycleShape(r); got != want {
					t.Errorf("wedgePairRaw(%s, %d, %d) = %d, shape %v; want %v", name, t1, t2, r, got, want)
				}
				seen[r] = true
			}
		}
	}
	// Every labelled pattern whose top is n0 and opposite n2 comes from one
	// pair: 3 interleavings × 64 types = 192 of the 384.
	if len(seen) != 192 {
		t.Errorf("%d distinct raw counters, want 192", len(seen))
	}
}

// A middle's own wedge pairs, counted without a tree by sameMiddle's
// window of sequences, equal the group's sweep run over that middle
// alone (where every pair is a same-middle one, those that share an
// edge included), raw counter by raw counter: random runs of a middle's
// two sides with ties, uncounted edges and times at the ends of the
// int64 range, for δ small and up to 2^63 − 1, all cells and random
// masks; both sweeps (by direction lists, sweep, and by sides,
// sweepSides).
func TestSameMiddleMatchesSweep(t *testing.T) {
	for _, sw := range []struct {
		name string
		f    func(b *wedgeBuf, ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables)
	}{{"sweep", (*wedgeBuf).sweep}, {"sweepSides", (*wedgeBuf).sweepSides}} {
		t.Run(sw.name, func(t *testing.T) { testSameMiddle(t, sw.f) })
	}
}

func testSameMiddle(t *testing.T, sweep func(b *wedgeBuf, ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables)) {
	rng := rand.New(rand.NewPCG(28, 44))
	var b wedgeBuf
	var seen, shared int64
	for iter := range 600 {
		mask := uint32(0)
		if iter%2 == 1 {
			mask = randomCycleMask(rng)
		}
		tab := newWedgeTables(mask)
		delta := extremeDelta(rng)
		t0 := []int64{-rng.Int64N(20), math.MinInt64, math.MaxInt64 - 120}[rng.IntN(3)]
		base := 2 * rng.Int32N(4)
		run := make([]gEdge, 2+rng.IntN(40))
		for i := range run {
			run[i] = gEdge{pos: int64(3*i + rng.IntN(2)), t: t0, side: base + rng.Int32N(2), d: uint8(rng.IntN(2)), counted: rng.IntN(5) > 0}
			t0 += rng.Int64N(4)
		}
		var raw [RawLen - rawCycle]int64
		sweep(&b, run, base, 2, delta, tab)
		b.flush(tab, &raw)
		for _, n := range raw {
			seen += n
		}
		b.sameMiddle(run, delta, &tab.win)
		for _, n := range b.same3 {
			shared += n
		}
		b.flush(tab, &raw)
		for r, n := range raw {
			if n != 0 {
				t.Fatalf("iteration %d, delta %d, mask %#x: raw counter %d: the sweep counts %d more than the window", iter, delta, mask, rawCycle+r, n)
			}
		}
	}
	if seen < 1e5 || shared < 1e4 {
		t.Errorf("%d pairs, %d sharing an edge: the test checks too little", seen, shared)
	}
	// One dense middle: 4000 edges within δ, whose pairs' counts by type
	// pass 2^32 (the sweep's packed sums must be unpacked in time).
	run := make([]gEdge, 4000)
	for i := range run {
		run[i] = gEdge{pos: int64(i), t: int64(i / 7), side: int32(rng.IntN(2)), d: uint8(rng.IntN(2)), counted: i%5 > 0}
	}
	for _, mask := range []uint32{0, 1} {
		tab := newWedgeTables(mask)
		var raw [RawLen - rawCycle]int64
		sweep(&b, run, 0, 2, maxT, tab)
		b.flush(tab, &raw)
		big := slices.Max(raw[:])
		b.sameMiddle(run, maxT, &tab.win)
		b.flush(tab, &raw)
		for r, n := range raw {
			if n != 0 {
				t.Fatalf("dense, mask %#x: raw counter %d: the sweep counts %d more than the window", mask, rawCycle+r, n)
			}
		}
		if big < 1<<33 {
			t.Fatalf("mask %#x: the largest raw counter is %d: the test checks no large sum", mask, big)
		}
	}
}

// sortPos orders a group's edges, given as sorted runs (one a middle), by
// position, both ways: merging the runs pairwise, and ranking them in a
// bitmap of their positions (many runs, dense positions).
func TestSortPos(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 45))
	var b wedgeBuf
	var ways [2]int
	for iter := range 400 {
		runs := 2 + rng.IntN(1+rng.IntN(40))
		spread := 1 + rng.Int64N([]int64{4, 200, 1e4}[rng.IntN(3)])
		base := rng.Int64N(1 << 40)
		var all []int64
		b.ge, b.runs = b.ge[:0], append(b.runs[:0], 0)
		for range runs {
			var pos []int64
			for range 1 + rng.IntN(20) {
				p := base + rng.Int64N(spread*int64(runs))
				if !slices.Contains(all, p) {
					pos = append(pos, p)
					all = append(all, p)
				}
			}
			if len(pos) == 0 {
				continue
			}
			slices.Sort(pos)
			for _, p := range pos {
				b.ge = append(b.ge, gEdge{pos: p, t: p / 3, side: int32(len(b.runs))})
			}
			b.runs = append(b.runs, int32(len(b.ge)))
		}
		if len(b.runs) < 3 {
			continue
		}
		want := slices.Clone(b.ge)
		slices.SortFunc(want, func(x, y gEdge) int { return cmp.Compare(x.pos, y.pos) })
		ranked := b.sortPos()
		if !slices.Equal(b.ge, want) {
			t.Fatalf("iteration %d, %d runs, ranked %v: %v, want %v", iter, len(b.runs)-1, ranked, b.ge, want)
		}
		if ranked {
			ways[1]++
		} else {
			ways[0]++
		}
	}
	if ways[0] < 50 || ways[1] < 50 {
		t.Errorf("%d merged, %d ranked: the test checks too little of one", ways[0], ways[1])
	}
}

// With the sweeps' cost of all 32 cells, a group of minSweepMiddles
// middles or fewer goes to the listing by the cost comparison alone
// (group skips building its wedges): it says no for every count of
// edges in wedges (at least four) and the fewest wedges they can make
// (half as many: each wedge has two edges, the sweeps' cost only grows
// with more); one more middle can pass.
func TestMinSweepMiddles(t *testing.T) {
	cost := newWedgeTables(0).sweepCost
	for k := 2; k <= minSweepMiddles+1; k++ {
		passes := false
		for e := int64(4); e < 1<<40; e = e*9/8 + 1 {
			depth := int64(bits.Len64(uint64(e)) + 1)
			if cost*((e+1)/2)*depth < int64(k-1)*e {
				passes = true
				if k <= minSweepMiddles {
					t.Fatalf("k %d, %d edges, %d wedges: a group of %d middles can take the sweeps", k, e, (e+1)/2, k)
				}
			}
		}
		if k == minSweepMiddles+1 && !passes {
			t.Errorf("no group of %d middles takes the sweeps: minSweepMiddles could be larger", k)
		}
	}
}
