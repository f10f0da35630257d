package count3

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sweepOne (one partner list each way, the ending edge's queries and
// insertions fused) counts what sweep counts, raw counter by raw counter,
// for every single cycle cell and random masks that make the tables
// one word (tab.one): random groups of several middles with ties,
// uncounted edges and times at the ends of the int64 range, δ small and
// up to 2^63 − 1; and one dense group whose counts pass 2^32.
func TestSweepOneMatchesSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 46))
	var b wedgeBuf
	var masks []uint32
	for c := range 32 {
		masks = append(masks, 1<<c)
	}
	for len(masks) < 32+64 {
		if m := randomCycleMask(rng); newWedgeTables(m).one {
			masks = append(masks, m)
		}
	}
	check := func(name string, ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables) int64 {
		var want, got [RawLen - rawCycle]int64
		b.sweep(ge, base, sides, delta, tab)
		b.flush(tab, &want)
		b.sweepOne(ge, base, sides, delta, tab)
		b.flush(tab, &got)
		var seen int64
		for r := range want {
			if got[r] != want[r] {
				t.Fatalf("%s: raw counter %d: sweepOne %d, sweep %d", name, rawCycle+r, got[r], want[r])
			}
			seen += want[r]
		}
		return seen
	}
	var seen int64
	for iter := range 1500 {
		mask := masks[iter%len(masks)]
		tab := newWedgeTables(mask)
		if !tab.one {
			continue
		}
		delta := extremeDelta(rng)
		t0 := []int64{-rng.Int64N(20), math.MinInt64, math.MaxInt64 - 300}[rng.IntN(3)]
		base := 2 * rng.Int32N(4)
		sides := 2 * (1 + rng.IntN(5))
		ge := make([]gEdge, 2+rng.IntN(80))
		for i := range ge {
			ge[i] = gEdge{pos: int64(3*i + rng.IntN(2)), t: t0, side: base + rng.Int32N(int32(sides)), d: uint8(rng.IntN(2)), counted: rng.IntN(5) > 0}
			t0 += rng.Int64N(4)
		}
		seen += check("random", ge, base, sides, delta, tab)
	}
	if seen < 1e5 {
		t.Errorf("%d pairs: the test checks too little", seen)
	}
	ge := make([]gEdge, 4000)
	for i := range ge {
		ge[i] = gEdge{pos: int64(i), t: int64(i / 7), side: int32(rng.IntN(4)), d: uint8(rng.IntN(2)), counted: i%5 > 0}
	}
	for _, mask := range []uint32{1, 1 << 15} {
		if s := check("dense", ge, 0, 4, maxT, newWedgeTables(mask)); s < 1<<33 {
			t.Fatalf("mask %#x: %d pairs: the test checks no large sum", mask, s)
		}
	}
}

// sameMiddle1 (index lists of one entry) counts what sameMiddle's loops
// over the lists count, for every mask whose lists are so.
func TestSameMiddleOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 47))
	var b wedgeBuf
	n := 0
	for iter := range 2000 {
		mask := uint32(1) << (iter % 32)
		if iter%2 == 1 {
			mask = randomCycleMask(rng)
		}
		tab := newWedgeTables(mask)
		if !tab.win.single {
			continue
		}
		n++
		delta := extremeDelta(rng)
		t0 := []int64{-rng.Int64N(20), math.MinInt64, math.MaxInt64 - 120}[rng.IntN(3)]
		run := make([]gEdge, 2+rng.IntN(40))
		for i := range run {
			run[i] = gEdge{pos: int64(3*i + rng.IntN(2)), t: t0, side: rng.Int32N(2), d: uint8(rng.IntN(2)), counted: rng.IntN(5) > 0}
			t0 += rng.Int64N(4)
		}
		b.same4, b.same3 = [256]int64{}, [64]int64{}
		b.sameMiddle1(run, delta, &tab.win)
		got4, got3 := b.same4, b.same3
		l := tab.win
		l.single = false
		b.same4, b.same3 = [256]int64{}, [64]int64{}
		b.sameMiddle(run, delta, &l)
		if got4 != b.same4 || got3 != b.same3 {
			t.Fatalf("iteration %d, mask %#x: sameMiddle1 differs from sameMiddle", iter, mask)
		}
	}
	if n < 100 {
		t.Errorf("%d masks with single lists: the test checks too little", n)
	}
}
