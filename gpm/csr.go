package gpm

import (
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/internal/textfile"
)

// fromPairs builds the CSR of n vertices from undirected pairs packed as
// u<<32|v (u != v, either orientation, repeats allowed), given as lists
// that it takes over (they are released as it goes), on up to workers
// goroutines.
//
// It is a two-level counting sort, linear in the pairs: each worker
// scatters its share of both directions of every pair into buckets by
// ranges of vertices; then each range, on its own, groups its entries by
// vertex and deduplicates every vertex's list. A long list is marked in a
// bitmap over the vertices and read back in order (a hub holding a third
// of a graph's edges costs one pass over its list); a short one drops its
// repeats against a mark array (when the vertices are few enough for one
// such array per worker) and sorts what is left, or else sorts and
// compacts. The lists come out sorted and repeat-free, as the CSR wants.
func fromPairs(n int, lists [][]uint64, names []string, workers int) *Graph {
	workers = max(1, workers)
	segs := segments(lists, workers)
	entries := 0 // both directions of every pair
	for _, seg := range segs {
		entries += 2 * len(seg)
	}
	// Ranges of 2^shift vertices, ~16 per worker, so that dynamic
	// scheduling evens out ranges of unequal weight.
	shift := 0
	for want := max(1, 16*workers); n>>shift > 0 && (n+(1<<shift)-1)>>shift > want; {
		shift++
	}
	nr := max(1, (n+(1<<shift)-1)>>shift)
	// bucket[s][r]: entries x<<32|y (y a neighbour of x) of segment s whose
	// x is in range r.
	bucket := make([][][]uint64, len(segs))
	textfile.ForEach(len(segs), workers, func(s int) {
		count := make([]int, nr)
		for _, p := range segs[s] {
			count[uint32(p>>32)>>shift]++
			count[uint32(p)>>shift]++
		}
		b := make([][]uint64, nr)
		for r, c := range count {
			b[r] = make([]uint64, 0, c)
		}
		for _, p := range segs[s] {
			u, v := uint32(p>>32), uint32(p)
			b[u>>shift] = append(b[u>>shift], p)
			b[v>>shift] = append(b[v>>shift], uint64(v)<<32|uint64(u))
		}
		segs[s] = nil
		bucket[s] = b
	})
	for i := range lists {
		lists[i] = nil
	}
	deg := make([]int64, n+1) // deg[v+1]: v's distinct neighbours
	adjOf := make([][]uint32, nr)
	// marks holds one array per worker: marks[y] == v+1 once y was seen in
	// v's list (v+1 differs for every list, so arrays are never cleared).
	var marks chan []uint32
	if n*workers <= entries {
		marks = make(chan []uint32, workers)
		for range workers {
			marks <- nil
		}
	}
	textfile.ForEach(nr, workers, func(r int) {
		lo := r << shift
		hi := min(n, lo+1<<shift)
		start := make([]int, hi-lo+1)
		total := 0
		for s := range bucket {
			for _, e := range bucket[s][r] {
				start[uint32(e>>32)-uint32(lo)+1]++
			}
			total += len(bucket[s][r])
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		nb := make([]uint32, total)
		fill := slices.Clone(start)
		for s := range bucket {
			for _, e := range bucket[s][r] {
				x := uint32(e>>32) - uint32(lo)
				nb[fill[x]] = uint32(e)
				fill[x]++
			}
			bucket[s][r] = nil
		}
		var seen []uint64 // bitmap over the vertices, for long lists
		var mark []uint32
		if marks != nil {
			mark = <-marks
			if mark == nil {
				mark = make([]uint32, n)
			}
			defer func() { marks <- mark }()
		}
		w := 0
		for x := range hi - lo {
			list := nb[start[x]:start[x+1]]
			var k int
			switch {
			case len(list)*8 >= n && len(list) > 64:
				if seen == nil {
					seen = make([]uint64, (n+63)/64)
				}
				k = uniqueByBitmap(list, nb[w:], seen)
			case mark != nil:
				// In place: the k-th kept entry goes to w+k <= start[x]+i,
				// never past the entry being read.
				stamp := uint32(lo + x + 1)
				for _, y := range list {
					if mark[y] != stamp {
						mark[y] = stamp
						nb[w+k] = y
						k++
					}
				}
				slices.Sort(nb[w : w+k])
			default:
				slices.Sort(list)
				k = len(slices.Compact(list))
				copy(nb[w:], list[:k])
			}
			deg[lo+x+1] = int64(k)
			w += k
		}
		adjOf[r] = nb[:w]
	})
	g := &Graph{off: deg, names: names}
	for v := range n {
		g.maxDeg = max(g.maxDeg, int(deg[v+1]))
		g.off[v+1] += g.off[v]
	}
	g.adj = make([]uint32, g.off[n])
	textfile.ForEach(nr, workers, func(r int) {
		copy(g.adj[g.off[r<<shift]:], adjOf[r])
		adjOf[r] = nil
	})
	return g
}

// uniqueByBitmap writes the distinct values of list, ascending, to out
// and returns how many. seen is all zeros on entry and on return. out may
// start at or before list in the same array: list is read in full first.
func uniqueByBitmap(list, out []uint32, seen []uint64) int {
	for _, y := range list {
		seen[y/64] |= 1 << (y % 64)
	}
	k := 0
	for i, word := range seen {
		for word != 0 {
			out[k] = uint32(i*64 + bits.TrailingZeros64(word))
			k++
			word &= word - 1
		}
		seen[i] = 0
	}
	return k
}

// segments cuts lists into up to n pieces of about equal length.
func segments(lists [][]uint64, n int) [][]uint64 {
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	size := max(1, (total+n-1)/n)
	var segs [][]uint64
	for _, l := range lists {
		for len(l) > 0 {
			k := min(len(l), size)
			segs = append(segs, l[:k])
			l = l[k:]
		}
	}
	return segs
}
