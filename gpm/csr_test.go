package gpm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFromPairs: the parallel CSR build equals sorting and deduplicating
// each vertex's neighbours, for lists split any way, with a hub whose
// list takes the bitmap path.
func TestFromPairs(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 2 + r.IntN(3000)
		want := make([][]uint32, n)
		var lists [][]uint64
		for range 1 + r.IntN(5) {
			var l []uint64
			for range r.IntN(4000) {
				u, v := uint32(r.IntN(n)), uint32(r.IntN(n))
				if r.IntN(3) == 0 {
					u = 0 // the hub
				}
				if u == v {
					continue
				}
				l = append(l, uint64(u)<<32|uint64(v))
				want[u] = append(want[u], v)
				want[v] = append(want[v], u)
			}
			lists = append(lists, l)
		}
		m, maxDeg := 0, 0
		for v := range want {
			slices.Sort(want[v])
			want[v] = slices.Compact(want[v])
			m += len(want[v])
			maxDeg = max(maxDeg, len(want[v]))
		}
		workers := 1 + r.IntN(8)
		g := fromPairs(n, lists, nil, workers)
		if g.N() != n || g.M() != int64(m/2) || g.MaxDegree() != maxDeg {
			t.Fatalf("seed %d: N %d M %d max degree %d; want %d %d %d", seed, g.N(), g.M(), g.MaxDegree(), n, m/2, maxDeg)
		}
		for v := range want {
			if got := g.Neighbors(uint32(v)); !slices.Equal(got, want[v]) {
				t.Fatalf("seed %d, %d workers: neighbours of %d = %v; want %v", seed, workers, v, got, want[v])
			}
		}
	}
}
