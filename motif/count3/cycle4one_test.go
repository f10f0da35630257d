package count3

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
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

// lightWindows finds the light edges in the slots that it is given with
// a heavy partner within δ of a direction that ok takes, each with all
// its partners, and
// middleDirs keeps the light edges with a wedge of an asked direction
// pair and the heavy edges in one, in position order, and counts those
// wedges: against pairs tried one by one, on random lists with ties,
// uncounted edges and times at the ends of the int64 range, every ok
// table, δ small and up to 2^63 − 1.
func TestMiddleDirsMatchesPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 48))
	var b wedgeBuf
	list := func(n int, t0 int64, pos []int64) []p4Edge {
		l := make([]p4Edge, n+1)
		var in uint32
		for i := range n {
			var f uint8
			if rng.IntN(2) == 0 {
				f |= fIn
			}
			if rng.IntN(5) > 0 {
				f |= fCounted
			}
			l[i] = p4Edge{pos: pos[i], t: t0, in: in, flags: f}
			if f&fIn != 0 {
				in++
			}
			t0 += rng.Int64N([]int64{2, 6, 40}[rng.IntN(3)])
		}
		l[n] = p4Edge{pos: math.MaxInt64, t: math.MaxInt64, in: in}
		return l
	}
	var kept int64
	for iter := range 3000 {
		nl, nh := 1+rng.IntN(12), 1+rng.IntN(80)
		perm := rng.Perm(nl + nh)
		pl, ph := make([]int64, nl), make([]int64, nh)
		for i := range pl {
			pl[i] = int64(perm[i])
		}
		for i := range ph {
			ph[i] = int64(perm[nl+i])
		}
		slices.Sort(pl)
		slices.Sort(ph)
		t0 := []int64{-rng.Int64N(50), math.MinInt64, math.MaxInt64 - 4000}[rng.IntN(3)]
		light, heavy := list(nl, t0+rng.Int64N(30), pl), list(nh, t0, ph)
		// positions stand for time order in the pass; here only the sets
		// and their orders are compared, so any distinct positions do.
		var ok [2][2]bool
		for k := range 4 {
			ok[k>>1][k&1] = rng.IntN(2) == 0
		}
		lowL, lowH := rng.IntN(2) == 0, rng.IntN(2) == 0
		delta := extremeDelta(rng)
		ls := 2 * rng.Int32N(3)
		li := uint8(rng.IntN(2))
		slots := lightSlots{newSlotGrid(t0, delta), slots256{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()}}
		if rng.IntN(4) == 0 {
			slots.reach = slots256{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint64}
		}
		wins, partners := lightWindows(nil, light, heavy, 5, li, lowL, lowH, delta, ok, slots)
		got := b.middleDirs(heavy, ls, lowH, ok, wins)
		var want, wantPartners int64
		var wantL, wantH []gEdge
		var wantWins []lightEdge
		useH := make([]bool, nh)
		for i := range nl {
			e := &light[i]
			if !slots.reach.has(uint64(e.t-t0) / slots.grid.width) {
				continue // in no cycle, by its slot
			}
			var dl uint8
			if (e.flags&fIn != 0) == lowL {
				dl = 1
			}
			any := false
			w0, w1 := -1, -1
			for k := range nh {
				if near := motif.SubTicks(e.t, delta) <= heavy[k].t && heavy[k].t <= motif.AddTicks(e.t, delta); near {
					if w0 < 0 {
						w0 = k
					}
					w1 = k + 1
				}
			}
			for k := range nh {
				h := &heavy[k]
				var dh uint8
				if (h.flags&fIn != 0) == lowH {
					dh = 1
				}
				near := motif.SubTicks(e.t, delta) <= h.t && h.t <= motif.AddTicks(e.t, delta)
				if near && ok[dl][dh] {
					want++
					any = true
					useH[k] = true
				}
			}
			if any { // a partner of a direction that ok takes
				wantL = append(wantL, b.gEdge(e, ls, lowL))
				wantPartners += int64(w1 - w0)
				wantWins = append(wantWins, lightEdge{t: e.t, pos: e.pos, mid: 5, w0: int32(w0), w1: int32(w1), ctx: li<<1 | dl, counted: e.flags&fCounted != 0})
			}
		}
		for k := range nh {
			if useH[k] {
				wantH = append(wantH, b.gEdge(&heavy[k], ls^1, lowH))
			}
		}
		if partners != wantPartners || !slices.Equal(wins, wantWins) {
			t.Fatalf("iteration %d, delta %d, ok %v: lightWindows gives %d edges, %d partners; want %d, %d", iter, delta, ok, len(wins), partners, len(wantWins), wantPartners)
		}
		if got != want || !slices.Equal(b.lt, wantL) || !slices.Equal(b.hv, wantH) {
			t.Fatalf("iteration %d, delta %d, ok %v: %d wedges, %d light, %d heavy; want %d, %d, %d", iter, delta, ok, got, len(b.lt), len(b.hv), want, len(wantL), len(wantH))
		}
		kept += int64(len(wantH))
	}
	if kept < 1e4 {
		t.Errorf("%d heavy edges kept: the test checks too little", kept)
	}
}
