package count3

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
)

// seek, with and without a block index, returns the first index at or
// after from whose time is at least t, as a linear scan does: lists around
// indexMin and block lengths, ties, targets before, inside and after.
func TestSeek(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	for _, n := range []int{1, 2, 15, 16, 17, indexMin - 1, indexMin, indexMin + 1, 200, 1000, 4099} {
		for range 20 {
			e := make([]pairEdge, n+1)
			var tt int64
			for i := range n {
				tt += rng.Int64N(4) // ties where it draws 0
				e[i] = pairEdge{T: tt}
			}
			e[n] = sentinel
			l := pairList{e: e}
			if k := topLen(int64(len(e))); k > 0 {
				for i := range k {
					l.top = append(l.top, e[i*blockLen].T)
				}
			}
			for range 200 {
				from := rng.IntN(len(e))
				target := rng.Int64N(tt+3) - 1
				want := from
				for e[want].T < target {
					want++
				}
				if got := l.seek(from, target); got != want {
					t.Fatalf("%d edges, index %v: seek(%d, %d) = %d, want %d", n, l.top != nil, from, target, got, want)
				}
			}
		}
	}
}

// sortTriangles orders by heavy side, stably (listing order within one),
// with ids needing one to three radix passes.
func TestSortTriangles(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	var scratch []triangle
	for _, top := range []uint32{1, 1 << 11, 1 << 22, 1<<32 - 1} {
		for _, n := range []int{0, 1, 7, 5000} {
			ts := make([]triangle, n)
			for i := range ts {
				ts[i] = triangle{a: uint32(rng.Uint64N(uint64(top) + 1)), b: uint32(i)}
			}
			want := slices.Clone(ts)
			slices.SortStableFunc(want, func(x, y triangle) int { return cmp.Compare(x.a, y.a) })
			sortTriangles(ts, &scratch)
			if !slices.Equal(ts, want) {
				t.Fatalf("ids up to %d, %d triangles: not sorted stably by heavy side", top, n)
			}
		}
	}
}

// Batches that fill mid-listing (counted by the worker that gathered
// them) count as the last ones do: the engine comparison with batches of
// a few triangles.
func TestCountSmallBatches(t *testing.T) {
	defer func(n int) { triangleBatch = n }(triangleBatch)
	triangleBatch = 3
	TestCountMatchesOracle(t)
	TestCountMatchesEngine(t)
	TestCountDenseMatchesEngine(t)
	TestCountHeavyPair(t)
	TestCountDenseMatchesEngineExtreme(t)
}

// near is a necessary condition: two lists with an edge of each within δ
// always pass it, whatever the slots' wrap-around (times over hundreds of
// slots, negative times, δ 0).
func TestNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for range 20000 {
		delta := rng.Int64N(20)
		t0 := rng.Int64N(200) - 100
		var ls [2][]pairEdge
		for i := range ls {
			tt := t0
			for range 1 + rng.IntN(6) {
				tt += rng.Int64N(1 + 3*delta + rng.Int64N(2)*500)
				ls[i] = append(ls[i], pairEdge{T: tt})
			}
		}
		within := false
		for _, x := range ls[0] {
			for _, y := range ls[1] {
				within = within || max(x.T-y.T, y.T-x.T) <= delta
			}
		}
		g := newSlotGrid(t0, delta)
		a := timeSpan{slots: g.slots(ls[0])}
		b := timeSpan{slots: g.slots(ls[1])}
		if within && (!a.near(b) || !b.near(a)) {
			t.Fatalf("delta %d, t0 %d, lists %v and %v: an edge of each within delta, but not near", delta, t0, ls[0], ls[1])
		}
	}
}

// TestNear at the ends of the int64 range: windows from near −2^63, around
// 0 or near 2^63 − 1 to as late as 2^63 − 1 (spans past 2^63 − 1, slots
// ending past the largest time), δ from 0 to 2^63 − 1; within δ is decided
// exactly (math/big).
func TestNearExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 13))
	deltas := []func() int64{
		func() int64 { return rng.Int64N(20) },
		func() int64 { return math.MaxInt64/2 + rng.Int64N(3) },
		func() int64 { return math.MaxInt64 - rng.Int64N(3) },
		func() int64 { return rng.Int64N(math.MaxInt64) },
	}
	starts := []func() int64{
		func() int64 { return math.MinInt64 + rng.Int64N(50) },
		func() int64 { return rng.Int64N(200) - 100 },
		func() int64 { return math.MaxInt64 - rng.Int64N(50) },
	}
	var checked int
	for range 20000 {
		delta := deltas[rng.IntN(len(deltas))]()
		t0 := starts[rng.IntN(len(starts))]()
		var ls [2][]pairEdge
		for i := range ls {
			tt := t0
			for range 1 + rng.IntN(6) {
				// A step: a few ticks, about δ, or a jump to the last
				// ticks of the range.
				switch rng.IntN(3) {
				case 0:
					tt = motif.AddTicks(tt, rng.Int64N(4))
				case 1:
					tt = motif.AddTicks(tt, max(delta-rng.Int64N(3), 0))
				default:
					tt = max(tt, math.MaxInt64-rng.Int64N(40))
				}
				ls[i] = append(ls[i], pairEdge{T: tt})
			}
		}
		within := false
		for _, x := range ls[0] {
			for _, y := range ls[1] {
				d := new(big.Int).Sub(big.NewInt(x.T), big.NewInt(y.T))
				within = within || d.Abs(d).Cmp(big.NewInt(delta)) <= 0
			}
		}
		g := newSlotGrid(t0, delta)
		a := timeSpan{slots: g.slots(ls[0])}
		b := timeSpan{slots: g.slots(ls[1])}
		if within {
			checked++
			if !a.near(b) || !b.near(a) {
				t.Fatalf("delta %d, t0 %d, lists %v and %v: an edge of each within delta, but not near", delta, t0, ls[0], ls[1])
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d cases had an edge of each list within delta", checked)
	}
}
