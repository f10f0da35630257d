package count3

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// fourFamily reports whether c is a four-edge, four-node cell.
func fourFamily(c Cell) bool { return c >= Cycle4 }

// bruteFour counts the cycle4 and paw cells with the brute-force oracle.
func bruteFour(t *testing.T, w *window.Window, delta int64, r motif.Range, mask []bool) [Cells]int64 {
	t.Helper()
	return bruteWhere(t, w, delta, r, mask, fourFamily)
}

func countFour(t *testing.T, w *window.Window, delta int64, req motif.Request, workers int) [Cells]int64 {
	t.Helper()
	raw, err := Count(context.Background(), w, delta, req, Cycles4|Paws, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return raw.Cells()
}

// Every cycle4 and paw cell equals the brute-force oracle on random
// windows with ties, self-loops and evicted prefixes, for random ranges
// and root masks and 1 or 3 workers; no other cell is counted.
func TestFourMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	var seen [Cells]int64
	for iter := range oracleTrials(200) {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(4), MaxEdges: 10 + rng.IntN(30), MaxTime: 4 + rng.Int64N(30), SelfLoop: 0.05, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := rng.Int64N(12)
		req := randomRequest(rng, w)
		want := bruteFour(t, w, delta, req.Range, req.RootMask)
		for c := range want {
			seen[c] += want[c]
		}
		for _, workers := range []int{1, 3} {
			if got := countFour(t, w, delta, req, workers); got != want {
				for c := range got {
					if got[c] != want[c] {
						t.Errorf("%v: got %d, want %d", Cell(c), got[c], want[c])
					}
				}
				t.Fatalf("iteration %d, delta %d, range %v, mask %v, %d workers:\n%s", iter, delta, req.Range, req.RootMask != nil, workers, oracle.FormatWindow(w))
			}
		}
	}
	for c := Cycle4; c < Cells; c++ {
		if seen[c] == 0 {
			t.Errorf("no window had a match of %v: the test does not check it", c)
		}
	}
}

// The cycle4 and paw cells equal the oracle on windows whose times lie at
// an end of the int64 range, at both, or around 0, for δ up to 2^63 − 1.
func TestFourMatchesOracleExtreme(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 8))
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 24
	var seen, seenWide int64
	for iter := range oracleTrials(120) {
		w := oracle.RandomWindow(rng, cfg)
		delta := extremeDelta(rng)
		req := randomRequest(rng, w)
		want := bruteFour(t, w, delta, req.Range, req.RootMask)
		for c := range want {
			seen += want[c]
			if delta > maxT/2 {
				seenWide += want[c]
			}
		}
		for _, workers := range []int{1, 3} {
			if got := countFour(t, w, delta, req, workers); got != want {
				t.Fatalf("iteration %d, delta %d, range %v, %d workers:\n%s\ncells that differ: %s", iter, delta, req.Range, workers, oracle.FormatWindow(w), cellDiff(got, want))
			}
		}
	}
	if seen == 0 || seenWide == 0 {
		t.Errorf("%d matches in all, %d at δ > 2^62: the test does not check the extremes", seen, seenWide)
	}
}

// Windows whose times span many more δ-wide slots than the 256 the
// static pairs' slot sets hold (slots alias modulo 256) against the
// general engine, every four-edge cell.
func TestFourManySlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 9))
	var seen int64
	for iter := range 12 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 7, MaxEdges: 800, MaxTime: 4000, SelfLoop: 0.02, Evict: 0.2}
		w := oracle.RandomWindow(rng, cfg)
		delta := 3 + rng.Int64N(12)
		req := randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		clear(want[:Cycle4])
		for _, n := range want {
			seen += n
		}
		if got := countFour(t, w, delta, req, 1+iter%3); got != want {
			t.Fatalf("iteration %d, delta %d: cells that differ: %s", iter, delta, cellDiff(got, want))
		}
	}
	if seen == 0 {
		t.Error("no four-edge match: the test checks nothing")
	}
}

// Two slot sets whose folds are disjoint are disjoint: the cycle
// listing drops a wedge on its sides' folds alone. Random sparse sets
// with their slots in any of the four words, and sets that meet in one
// slot of each word.
func TestSlotsFoldRulesOutOnlyDisjoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 11))
	random := func() slots256 {
		var s slots256
		for range 1 + rng.IntN(3) {
			k := rng.IntN(256)
			s[k>>6] |= 1 << (k & 63)
		}
		return s
	}
	meet, ruled := 0, 0
	for iter := range 20000 {
		a, b := random(), random()
		if iter%2 == 0 {
			k := rng.IntN(256) // one slot in both
			a[k>>6] |= 1 << (k & 63)
			b[k>>6] |= 1 << (k & 63)
		}
		if !a.and(b).empty() {
			meet++
			if a.fold()&b.fold() == 0 {
				t.Fatalf("slots %x and %x meet, their folds %x and %x do not", a, b, a.fold(), b.fold())
			}
		} else if a.fold()&b.fold() == 0 {
			ruled++
		}
	}
	if meet == 0 || ruled == 0 {
		t.Errorf("%d sets met, %d ruled out by folds: the test checks neither", meet, ruled)
	}
}

// seek4 finds what gallop4 does from any guess at or after from, before
// and after the answer, on random lists with ties and a sentinel.
func TestSeek4MatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 12))
	for iter := range 5000 {
		n := rng.IntN(60)
		l := make([]p4Edge, n+1)
		var at int64
		for i := range n {
			at += rng.Int64N(4) // ties
			l[i].t = at
		}
		l[n] = p4Edge{pos: math.MaxInt64, t: math.MaxInt64}
		from := rng.IntN(n + 1)
		g := from + rng.IntN(n+1-from)
		tt := rng.Int64N(at + 3)
		want := from
		for want < n && l[want].t < tt {
			want++
		}
		if got := seek4(l, from, g, tt); got != want {
			t.Fatalf("iteration %d: seek4(from %d, guess %d, time %d) = %d; want %d (times %v)", iter, from, g, tt, got, want, l)
		}
	}
}

// Dense windows (few nodes, many edges, δ spanning most of the window)
// against the general engine: a static four-cycle's sides hold dozens of
// edges within δ, so the cycle pass's window still holds many entries
// when a cycle ends (it is cleared whole, not entry by entry) before the
// next cycle of the same worker, and a paw's corners have long tail
// sequences whose δ bounds are read, not searched; ties and self-loops
// included, with random ranges and root masks, 1 and 3 workers.
func TestFourDenseCycles(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 10))
	var seen int64
	for iter := range 16 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 60 + rng.IntN(80), MaxTime: 10 + rng.Int64N(30), SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 4 + rng.Int64N(30)
		req := randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		clear(want[:Cycle4])
		for c := Cycle4; c < Paw; c++ {
			seen += want[c]
		}
		cyclePaths(t, func(path string) {
			for _, workers := range []int{1, 3} {
				if got := countFour(t, w, delta, req, workers); got != want {
					t.Fatalf("iteration %d, delta %d, %d workers, %s: cells that differ: %s", iter, delta, workers, path, cellDiff(got, want))
				}
			}
		})
	}
	if seen < 1e4 {
		t.Errorf("%d four-cycle matches in all: the windows are not dense", seen)
	}
}

// heavySplit runs every light item once whole and every heavy item as
// each of its parts once (a hub of most of the weight as 4·workers
// parts), and inPart puts every node in exactly one part.
func TestHeavySplitCoversEveryPart(t *testing.T) {
	c := &counter{workers: 3}
	weight := func(i int) int64 {
		switch {
		case i == 7:
			return 10000 // the hub
		case i%10 == 0:
			return 300
		}
		return 1
	}
	const n = 100
	var total int64
	for i := range n {
		total += weight(i)
	}
	var mu sync.Mutex
	calls := map[[3]int]int{}
	err := c.heavySplit(context.Background(), n, 16, total, weight, 12, func(_, i, part, parts int) {
		mu.Lock()
		calls[[3]int{i, part, parts}]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	limit := total / 48
	want := 0
	for i := range n {
		parts := 1
		if w := weight(i); w >= limit {
			parts = int(min((w+limit-1)/limit, 12))
		}
		for p := range parts {
			if calls[[3]int{i, p, parts}] != 1 {
				t.Errorf("item %d part %d of %d: %d calls, want 1", i, p, parts, calls[[3]int{i, p, parts}])
			}
		}
		want += parts
	}
	if len(calls) != want {
		t.Errorf("%d distinct calls, want %d", len(calls), want)
	}
	if got := len(calls) - n; got < 11 {
		t.Errorf("the hub and the heavy items ran as %d extra parts: no item was cut", got)
	}
	for _, parts := range []int{1, 2, 5, 12, 64} {
		for v := range uint32(1000) {
			in := 0
			for p := range parts {
				if inPart(v, p, parts) {
					in++
				}
			}
			if in != 1 {
				t.Fatalf("node %d is in %d of %d parts", v, in, parts)
			}
		}
	}
}
