package gpm

import (
	"math"
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/internal/textfile"
)

// fromPairs builds the CSR of n vertices from undirected pairs packed as
// u<<32|v (u != v, either orientation, repeats allowed), given as lists
// that it takes over (they are released as it goes), on up to workers
// goroutines.
//
// It is a counting sort, linear in the pairs, in two steps. Grouping puts
// both directions of every pair into per-vertex lists, repeats included:
// when the vertices are few beside the pairs, each worker counts its
// share's entries per vertex and writes them straight to their places in
// one array (groupDirect, 4 bytes per entry); else each worker scatters
// its share into buckets by ranges of vertices and each range groups its
// buckets on its own (groupBuckets, 8 bytes per entry in the buckets, but
// no per-vertex counts per worker). Then each range of vertices
// deduplicates its lists (uniqueLists), and the lists are copied
// together.
func fromPairs(n int, lists [][]uint64, names []string, workers int) *Graph {
	workers = max(1, workers)
	segs := segments(lists, workers)
	for i := range lists {
		lists[i] = nil // the segments hold them now
	}
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
	ranges := max(1, (n+(1<<shift)-1)>>shift)
	rangeOf := func(r int) (lo, hi int) { return r << shift, min(n, (r+1)<<shift) }

	// One mark array per worker when the vertices are few beside the
	// entries (see uniqueLists).
	var marks chan []uint32
	if n*workers <= entries {
		marks = make(chan []uint32, workers)
		for range workers {
			marks <- nil
		}
	}
	deg := make([]int64, n+1) // deg[v+1]: v's distinct neighbours
	adjOf := make([][]uint32, ranges)
	unique := func(r int, nb []uint32, start []int) {
		var mark []uint32
		if marks != nil {
			if mark = <-marks; mark == nil {
				mark = make([]uint32, n)
			}
			defer func() { marks <- mark }()
		}
		lo, _ := rangeOf(r)
		adjOf[r] = uniqueLists(nb, start, lo, n, deg[lo+1:], mark)
	}
	if 2*len(segs)*n <= entries && entries <= math.MaxUint32 {
		groupDirect(n, segs, ranges, rangeOf, workers, unique)
	} else {
		groupBuckets(segs, shift, ranges, rangeOf, workers, unique)
	}

	g := &Graph{off: deg, names: names}
	for v := range n {
		g.maxDeg = max(g.maxDeg, int(deg[v+1]))
		g.off[v+1] += g.off[v]
	}
	g.adj = make([]uint32, g.off[n])
	textfile.ForEach(ranges, workers, func(r int) {
		lo, _ := rangeOf(r)
		copy(g.adj[g.off[lo]:], adjOf[r])
		adjOf[r] = nil
	})
	return g
}

// groupDirect groups the segments' entries by vertex in one array: each
// segment counts its entries per vertex, the counts become each
// segment's write positions per vertex, and each segment writes its
// entries there. Then it calls unique on every range of vertices, with
// its part of the array and the lists' starts within it.
func groupDirect(n int, segs [][]uint64, ranges int, rangeOf func(int) (int, int), workers int,
	unique func(r int, nb []uint32, start []int)) {
	// at[s][v]: entries of vertex v in segment s, then where segment s
	// writes its next entry of v, relative to v's list.
	at := make([][]uint32, len(segs))
	textfile.ForEach(len(segs), workers, func(s int) {
		c := make([]uint32, n)
		for _, p := range segs[s] {
			c[uint32(p>>32)]++
			c[uint32(p)]++
		}
		at[s] = c
	})
	start := make([]int, n+1) // start[v+1]: v's entries, then v's list's start
	textfile.ForEach(ranges, workers, func(r int) {
		lo, hi := rangeOf(r)
		for v := lo; v < hi; v++ {
			t := uint32(0)
			for _, c := range at {
				c[v], t = t, t+c[v]
			}
			start[v+1] = int(t)
		}
	})
	for v := range n {
		start[v+1] += start[v]
	}
	nb := make([]uint32, start[n])
	textfile.ForEach(len(segs), workers, func(s int) {
		c := at[s]
		for _, p := range segs[s] {
			u, v := uint32(p>>32), uint32(p)
			nb[start[u]+int(c[u])] = v
			c[u]++
			nb[start[v]+int(c[v])] = u
			c[v]++
		}
		segs[s], at[s] = nil, nil
	})
	textfile.ForEach(ranges, workers, func(r int) {
		lo, hi := rangeOf(r)
		rel := make([]int, hi-lo+1)
		for v := lo; v <= hi; v++ {
			rel[v-lo] = start[v] - start[lo]
		}
		unique(r, nb[start[lo]:start[hi]], rel)
	})
}

// groupBuckets groups the segments' entries by vertex through buckets:
// each segment scatters both directions of its pairs into a bucket per
// range of vertices, then each range gathers its buckets into one array
// grouped by vertex and calls unique on it.
func groupBuckets(segs [][]uint64, shift, ranges int, rangeOf func(int) (int, int), workers int,
	unique func(r int, nb []uint32, start []int)) {
	// bucket[s][r]: entries x<<32|y (y a neighbour of x) of segment s whose
	// x is in range r.
	bucket := make([][][]uint64, len(segs))
	textfile.ForEach(len(segs), workers, func(s int) {
		count := make([]int, ranges)
		for _, p := range segs[s] {
			count[uint32(p>>32)>>shift]++
			count[uint32(p)>>shift]++
		}
		b := make([][]uint64, ranges)
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
	textfile.ForEach(ranges, workers, func(r int) {
		lo, hi := rangeOf(r)
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
		unique(r, nb, start)
	})
}

// uniqueLists deduplicates and sorts the lists of the vertices lo,
// lo+1, … (nb[start[x]:start[x+1]] is lo+x's list, repeats included; n
// vertices in all), packs them at the front of nb, which it returns cut
// to them, and sets deg[x] to lo+x's distinct neighbours.
//
// A long list is marked in a bitmap over the vertices and read back in
// order (a hub holding a third of a graph's edges costs one pass over its
// list); a short one, with a mark array (mark[y] == v+1 once y was seen in
// v's list: v+1 differs for every list, so the array is never cleared),
// drops its repeats and sorts what is left; without one it sorts and
// compacts.
func uniqueLists(nb []uint32, start []int, lo, n int, deg []int64, mark []uint32) []uint32 {
	var seen []uint64 // the bitmap, for long lists
	w := 0
	for x := range len(start) - 1 {
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
		deg[x] = int64(k)
		w += k
	}
	return nb[:w]
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
