package count3

import (
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// The path pass searches a sequence of bucketMin edges or more by its
// bucket table or, if it is dense, by its rank lines: with tables alone
// (rankDense 0), lines alone (rankDense larger than any window) and the
// default, every path cell equals the general engine, for random ranges
// and root masks and 1 or 3 workers, on a hub pair whose thirds are light
// (a light node's pairs with hubs, with ties) and on random windows of up
// to 700 edges.
func TestPathSearchesMatchEngine(t *testing.T) {
	defer func(d int64) { rankDense = d }(rankDense)
	rng := rand.New(rand.NewPCG(28, 5))
	check := func(name string, w *window.Window, delta int64, req motif.Request) {
		t.Helper()
		want := engineFamily(t, w, delta, req, Paths)
		for _, dense := range []int64{0, 16, 1 << 40} {
			rankDense = dense
			for _, workers := range []int{1, 3} {
				if got := countFams(t, w, delta, req, workers, Paths); got != want {
					t.Fatalf("%s, %d edges, delta %d, range %v, rankDense %d, %d workers: got %v, want %v",
						name, w.Len(), delta, req.Range, dense, workers, got, want)
				}
			}
		}
	}
	hub := heavyPairWindow(t, rng, 400, 30, func(t int64) int64 { return t / 2 })
	for _, delta := range []int64{3, 20} {
		check("hub pair", hub, delta, motif.Request{Range: motif.WholeWindow(hub), Horizon: motif.Batch})
		check("hub pair", hub, delta, randomRequest(rng, hub))
	}
	// The same at the int64 ends, ties included (t/2), δ up to 2^63 − 1:
	// the pair runs' δ-after indexes and the cursors that stay put.
	for _, at := range []func(t int64) int64{
		func(t int64) int64 { return maxT - 199 + t/2 },
		func(t int64) int64 { return minT + t/2 },
	} {
		w := heavyPairWindow(t, rng, 400, 30, at)
		for _, delta := range []int64{3, 20, maxT} {
			check("hub pair at an int64 end", w, delta, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
			check("hub pair at an int64 end", w, delta, randomRequest(rng, w))
		}
	}
	for range 12 {
		cfg := oracle.WindowConfig{MinNodes: 5, MaxNodes: 9, MaxEdges: 700, MaxTime: 100 + rng.Int64N(3000), SelfLoop: 0.02, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		check("random", w, 1+rng.Int64N(60), randomRequest(rng, w))
	}
}
