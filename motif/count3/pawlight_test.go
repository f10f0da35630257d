package count3

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// pawLightCells are the paw cells every raw counter of which the light
// walk counts (pawLightRaw).
func pawLightCells(t *testing.T) []int {
	t.Helper()
	var cells []int
	for i := range len(pawNames) {
		n, ok := 0, true
		for r := range rawCycle - rawPaw {
			if rawCell[rawPaw+r] == Paw+Cell(i) {
				n++
				ok = ok && pawLightRaw(r)
			}
		}
		if n > 0 && ok {
			cells = append(cells, i)
		}
	}
	if len(cells) == 0 || cells[0] != 0 {
		t.Fatalf("light-walk cells %v: want paw-1234-ffff (M3) among them", cells)
	}
	return cells
}

// pawLightForAll walks every triangle on its light sides (each pair laid
// out, no ratio) until the test ends, and counts the triangles walked.
func pawLightForAll(t *testing.T) {
	oldMin, oldRatio := pawLightMinHeavy, pawLightRatio
	pawLightMinHeavy, pawLightRatio = 0, 0
	t.Cleanup(func() { pawLightMinHeavy, pawLightRatio = oldMin, oldRatio })
}

// randomLightMask returns one to four light-walk cells, mostly M3's.
func randomLightMask(rng *rand.Rand, cells []int) PawMask {
	var m PawMask
	if rng.IntN(3) == 0 {
		m.Set(0)
	}
	for n := 1 + rng.IntN(4); m.Len() < n; {
		m.Set(cells[rng.IntN(len(cells))])
	}
	return m
}

// checkLight is checkPawsAgainst for a light-walk mask, which must take
// the light walk.
func checkLight(t *testing.T, iter int, w *window.Window, delta int64, req motif.Request, mask PawMask, want [Cells]int64) int64 {
	t.Helper()
	if tab := pawTablesOf(mask); tab == nil || pawLightTablesOf(tab.raws) == nil {
		t.Fatalf("mask %v: no light walk", mask)
	}
	return checkPawsAgainst(t, iter, w, delta, req, mask, true, want)
}

// The light walk (a triangle's light sides walked, the heavy side read
// through prefix counts and sums) equals the brute-force oracle on its
// cells, every triangle walked so, on random windows with ties,
// self-loops and evicted prefixes, random ranges and root masks, 1 and 3
// workers; every light-walk cell is checked on a window with matches
// (under the race detector, a fifth of the windows: oracleTrials).
func TestPawLightMatchesOracle(t *testing.T) {
	pawLightForAll(t)
	cells := pawLightCells(t)
	rng := rand.New(rand.NewPCG(28, 60))
	seen := map[int]int64{}
	for iter := range oracleTrials(600) {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(3), MaxEdges: 10 + rng.IntN(40), MaxTime: 4 + rng.Int64N(30), SelfLoop: 0.05, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := rng.Int64N(12)
		req := randomRequest(rng, w)
		mask := randomLightMask(rng, cells)
		want := bruteWhere(t, w, delta, req.Range, req.RootMask, func(c Cell) bool { return c >= Paw && mask.Has(int(c-Paw)) })
		if checkLight(t, iter, w, delta, req, mask, want) > 0 {
			for _, i := range cells {
				if mask.Has(i) {
					seen[i]++
				}
			}
		}
	}
	for _, i := range cells {
		if seen[i] == 0 && !underRace { // a fifth of the windows under the race detector
			t.Errorf("no window with a match checked %v: the test does not check it", Paw+Cell(i))
		}
	}
	if len(seen) == 0 {
		t.Error("no window with a match: the test checks nothing")
	}
}

// The same at the ends of the int64 range, and, against the general
// engine, for dense windows whose triangles hold many edges within δ,
// long tail sequences and heavy sides far heavier than the others, both
// with every triangle walked on its light sides and with the default
// rule (which walks some of them so and the others over all three sides).
func TestPawLightMatchesOracleExtremeAndDense(t *testing.T) {
	cells := pawLightCells(t)
	rng := rand.New(rand.NewPCG(28, 61))
	var seen, dense int64
	t.Run("extreme", func(t *testing.T) {
		pawLightForAll(t)
		cfg := oracle.ExtremeWindowConfig()
		cfg.MaxEdges = 24
		for iter := range oracleTrials(80) {
			w := oracle.RandomWindow(rng, cfg)
			delta, req, mask := extremeDelta(rng), randomRequest(rng, w), randomLightMask(rng, cells)
			want := bruteWhere(t, w, delta, req.Range, req.RootMask, func(c Cell) bool { return c >= Paw && mask.Has(int(c-Paw)) })
			seen += checkLight(t, iter, w, delta, req, mask, want)
		}
	})
	for _, all := range []bool{true, false} {
		t.Run(map[bool]string{true: "dense/all-light", false: "dense/rule"}[all], func(t *testing.T) {
			if all {
				pawLightForAll(t)
			} else {
				old := pawLightMinHeavy
				pawLightMinHeavy = 8
				t.Cleanup(func() { pawLightMinHeavy = old })
			}
			walked := pawLightWalked.Load()
			defer func() {
				if pawLightWalked.Load() == walked {
					t.Error("no triangle walked on its light sides")
				}
			}()
			for iter := range 6 {
				w := heavySideWindow(t, rng)
				mask := randomLightMask(rng, cells)
				delta, req := 6+rng.Int64N(10), randomRequest(rng, w)
				want := engineCells(t, w, delta, req)
				for c := range want {
					if c < int(Paw) || !mask.Has(c-int(Paw)) {
						want[c] = 0
					}
				}
				dense += checkLight(t, iter, w, delta, req, mask, want)
			}
		})
	}
	if seen == 0 || dense < 1000 {
		t.Errorf("%d extreme, %d dense matches: the test checks too little", seen, dense)
	}
}

// heavySideWindow is a random window on five nodes whose pair 0–1 holds
// about half the edges (a triangle's heavy side) and the rest spread.
func heavySideWindow(t *testing.T, rng *rand.Rand) *window.Window {
	w := nodesWindow(t, 5)
	n := 100 + rng.IntN(60)
	tm := int64(0)
	for range n {
		if rng.IntN(3) == 0 {
			tm++ // else a tie
		}
		var u, v uint32
		if rng.IntN(2) == 0 {
			u, v = 0, 1
		} else {
			u, v = uint32(rng.IntN(5)), uint32(rng.IntN(5)) // self-loops too
		}
		if rng.IntN(2) == 0 {
			u, v = v, u
		}
		appendEdge(t, w, u, v, tm)
	}
	w.EvictTo(w.First() + int64(rng.IntN(n/4)))
	return w
}

// nodesWindow is an empty window on nodes n0 … n(k−1).
func nodesWindow(t *testing.T, k int) *window.Window {
	t.Helper()
	w, err := window.New(oracle.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for i := range k {
		w.IDs().Intern(fmt.Sprintf("n%d", i))
	}
	return w
}

func appendEdge(t *testing.T, w *window.Window, u, v uint32, tm int64) {
	t.Helper()
	if _, err := w.Append(window.Edge{Src: u, Dst: v, T: tm, Attrs: []float64{1, 0}}); err != nil {
		t.Fatal(err)
	}
}

// Count's default rule walks a paw triangle on its light sides only where
// its heavy side is laid out and heavier than both others together: on a
// window whose triangle has a heavy side of 100 edges and light sides of
// 10, it does, and on one whose sides are even, it does not; both count
// what the oracle does.
func TestPawLightRule(t *testing.T) {
	var m PawMask
	m.Set(0)
	for _, heavy := range []bool{true, false} {
		w := nodesWindow(t, 4)
		for tm := range int64(120) {
			switch {
			case heavy && tm%10 == 3 || !heavy && tm%3 == 1:
				appendEdge(t, w, 1, 2, tm)
			case heavy && tm%10 == 7 || !heavy && tm%3 == 2:
				appendEdge(t, w, 2, 0, tm)
			default:
				appendEdge(t, w, 0, 1, tm)
			}
			if tm%8 == 0 {
				appendEdge(t, w, 3, 0, tm)
			}
		}
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		walked := pawLightWalked.Load()
		raw, err := Count(context.Background(), w, 10, req, Paws, Options{Workers: 1, PawCells: m})
		if err != nil {
			t.Fatal(err)
		}
		got := pawLightWalked.Load() - walked
		if want := map[bool]int64{true: 1, false: 0}[heavy]; got != want {
			t.Errorf("heavy side %v: %d triangles walked on their light sides, want %d", heavy, got, want)
		}
		want := bruteWhere(t, w, 10, req.Range, nil, func(c Cell) bool { return c == Paw })
		if raw.Cells()[Paw] != want[Paw] || want[Paw] == 0 {
			t.Errorf("heavy side %v: %d paw-1234-ffff, oracle %d", heavy, raw.Cells()[Paw], want[Paw])
		}
	}
}
