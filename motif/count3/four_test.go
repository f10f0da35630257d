package count3

import (
	"context"
	"math/rand/v2"
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
	var g [Cells]int64
	qs := cellQueries(delta)
	for c := Cycle4; c < Cells; c++ {
		ms, err := oracle.Mine(w, qs[c], r, motif.Batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if last := m.Edges[len(m.Edges)-1]; mask == nil || mask[last-r.Lo] {
				g[c]++
			}
		}
	}
	return g
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
	for iter := range 200 {
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
