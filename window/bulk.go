package window

import (
	"fmt"

	"github.com/motifwatch/motifwatch/internal/fanout"
)

// Columns is a run of edges in (t, seq) order, column by column: Src, Dst
// and T have one entry per edge, Attrs one column per schema edge
// attribute, each as long as T.
type Columns struct {
	Src, Dst []uint32
	T        []int64
	Attrs    [][]float64
}

// bulkParallelMin is the run length from which AppendColumns fills the
// adjacency lists with several goroutines.
const bulkParallelMin = 1 << 16

// AppendColumns appends a run of edges, the same as appending them one
// by one with Append, but without regrowing a slice per edge: it counts
// each node's new out- and in-edges, gives every adjacency list its final
// size at once (one allocation per direction for a window that was empty)
// and fills the lists with up to workers goroutines (owned and waited for
// here), each owning the nodes v with v % workers == its index.
//
// When the window holds no edge yet (Len() == 0 and nothing evicted), it
// takes c's slices as its columns instead of copying them: the caller must
// not use them afterwards. It returns the position of the first edge.
func (w *Window) AppendColumns(c Columns, workers int) (int64, error) {
	n := len(c.T)
	if err := w.checkLengths(c); err != nil {
		return 0, err
	}
	first := w.End()
	if n == 0 {
		return first, nil
	}
	idCap := uint32(w.ids.Cap())
	workers = max(1, min(workers, n/bulkParallelMin+1))
	if err := w.checkRun(c, idCap, workers); err != nil {
		return 0, err
	}
	if err := w.makeRelRoom(n); err != nil {
		return 0, err
	}
	fresh := len(w.t) == 0 && w.off == 0
	if fresh {
		w.src, w.dst, w.t = c.Src, c.Dst, c.T
		copy(w.attrs, c.Attrs)
	} else {
		w.src = append(w.src, c.Src...)
		w.dst = append(w.dst, c.Dst...)
		w.t = append(w.t, c.T...)
		for i, col := range c.Attrs {
			w.attrs[i] = append(w.attrs[i], col...)
		}
	}
	for i, a := range w.schema.EdgeAttrs {
		if a.Kind == String {
			for _, v := range c.Attrs[i] {
				w.strings.hold(uint32(v))
			}
		}
	}
	lo := len(w.t) - n // column index of the first new edge
	w.grow(idCap - 1)
	if fresh {
		// One exact allocation per direction, each node's list a slice of
		// it, filled by a cache-friendly two-pass partition.
		rel := uint32(first - w.adjBase)
		outBack, outAt := w.shareRoom(w.out, w.src, workers)
		fillPartitioned(w.src, w.dst, w.t, rel, outBack, outAt, workers)
		inBack, inAt := w.shareRoom(w.in, w.dst, workers)
		fillPartitioned(w.dst, w.src, w.t, rel, inBack, inAt, workers)
	} else {
		outCur := w.makeRoom(w.out, w.src[lo:])
		inCur := w.makeRoom(w.in, w.dst[lo:])
		fanout.Each(workers, func(k int) {
			w.fillAdj(lo, uint32(first-w.adjBase), uint32(k), uint32(workers), outCur, inCur)
		})
	}
	if w.pairsOn.Load() {
		for i := lo; i < len(w.t); i++ {
			w.addPair(w.src[i], w.dst[i], w.t[i], uint32(w.off+int64(i)-w.adjBase))
		}
	}
	return first, nil
}

// checkRun checks that c's times are non-decreasing from the
// window's last and that its node ids are below idCap, in workers ranges
// at once; on a failure it finds the first offending edge again in order,
// so the error is the one a check edge by edge gives.
func (w *Window) checkRun(c Columns, idCap uint32, workers int) error {
	n := len(c.T)
	bad := make([]bool, workers)
	fanout.Ranges(n, workers, func(k, lo, hi int) {
		prev := w.LastT()
		if lo > 0 {
			prev = c.T[lo-1]
		}
		for i := lo; i < hi; i++ {
			t := c.T[i]
			if t < prev || c.Src[i] >= idCap || c.Dst[i] >= idCap {
				bad[k] = true
				return
			}
			prev = t
		}
	})
	for _, b := range bad {
		if !b {
			continue
		}
		prev := w.LastT()
		for i, t := range c.T {
			if t < prev {
				return fmt.Errorf("append t=%d after t=%d: %w", t, prev, ErrOutOfOrder)
			}
			prev = t
			if c.Src[i] >= idCap || c.Dst[i] >= idCap {
				return fmt.Errorf("append: node id %d/%d was not interned", c.Src[i], c.Dst[i])
			}
		}
	}
	return nil
}

// shareRoom points every list of lists (all empty) at its exact share
// of one new allocation, by its node's count in ends, and returns the
// allocation and each node's offset in it. The counting runs on up to
// workers goroutines (each counts a range of ends into its own array, and
// the arrays are summed by node ranges) when there are at least as many
// ends per worker as nodes.
func (w *Window) shareRoom(lists []adjList, ends []uint32, workers int) ([]Adj, []int) {
	cur := make([]int, len(lists))
	countEnds(cur, ends, min(workers, len(ends)/max(1, len(lists))))
	back := make([]Adj, len(ends))
	off := 0
	for v, k := range cur {
		lists[v].ents, lists[v].head = back[off:off+k:off+k], 0
		cur[v] = off
		off += k
	}
	return back, cur
}

// bucketEntries is about how many entries fillPartitioned puts in one
// bucket: 32Ki entries of 16 bytes, a region that stays in a core's L2
// cache while it is scattered.
const bucketEntries = 1 << 15

// directFill is the most entries fillPartitioned writes without the
// partition (1 MiB of lists; a variable for tests).
var directFill = 1 << 16

// fillPartitioned writes the adjacency entries of edges 0..len(ends)-1
// (relative positions from first) into back, node v's from at[v] on, in
// position order. Writing them straight to their lists would touch a
// random cache line (and page) per entry; instead a first pass, parallel
// over edge ranges, moves each entry into the region of its bucket (a
// range of nodes whose lists fill about bucketEntries entries, so only
// a few hundred write streams), keeping position order, and a second
// pass, parallel over buckets, scatters each region to its nodes' lists
// within L2. at is used as the nodes' cursors.
//
// Up to directFill entries (a run of a small file: the lists fit in L2)
// are written straight to their lists in one pass, which is cheaper than
// the partition's two.
func fillPartitioned(ends, others []uint32, ts []int64, first uint32, back []Adj, at []int, workers int) {
	n := len(ends)
	if n <= directFill {
		for i, v := range ends {
			back[at[v]] = Adj{T: ts[i], Rel: first + uint32(i), Other: others[i]}
			at[v]++
		}
		return
	}
	// Buckets: node ranges [cuts[b], cuts[b+1]) of about bucketEntries.
	cuts := []uint32{0}
	bucketOf := make([]uint32, len(at))
	for v := range at {
		if at[v]-at[cuts[len(cuts)-1]] >= bucketEntries {
			cuts = append(cuts, uint32(v))
		}
		bucketOf[v] = uint32(len(cuts) - 1)
	}
	cuts = append(cuts, uint32(len(at)))
	nb := len(cuts) - 1
	region := make([]int, nb+1) // bucket b's entries are back[region[b]:region[b+1]]
	for b := range nb {
		region[b] = at[cuts[b]]
	}
	region[nb] = n
	// Pass 1: per worker's edge range, count per bucket, then move.
	counts := make([][]int, workers)
	fanout.Ranges(n, workers, func(k, lo, hi int) {
		c := make([]int, nb)
		for _, v := range ends[lo:hi] {
			c[bucketOf[v]]++
		}
		counts[k] = c
	})
	for b := range nb {
		off := region[b]
		for k := range workers {
			c := counts[k][b]
			counts[k][b] = off
			off += c
		}
	}
	node := make([]uint32, n) // the node of the entry at the same index of back
	fanout.Ranges(n, workers, func(k, lo, hi int) {
		cur := counts[k]
		for i := lo; i < hi; i++ {
			v := ends[i]
			j := cur[bucketOf[v]]
			cur[bucketOf[v]]++
			back[j] = Adj{T: ts[i], Rel: first + uint32(i), Other: others[i]}
			node[j] = v
		}
	})
	// Pass 2: each bucket's region to its nodes' lists, buckets shared out
	// round-robin.
	fanout.Each(workers, func(k int) {
		var scratch []Adj
		for b := k; b < nb; b += workers {
			lo, hi := region[b], region[b+1]
			scratch = append(scratch[:0], back[lo:hi]...)
			for i, a := range scratch {
				v := node[lo+i]
				back[at[v]] = a
				at[v]++
			}
		}
	})
}

// makeRoom lengthens every list of lists by its node's count in ends,
// regrowing (at least doubling, as append would) a list short of
// capacity, and returns, per node, the index where its first new entry
// goes.
func (w *Window) makeRoom(lists []adjList, ends []uint32) []int32 {
	deg := make([]int32, len(lists))
	for _, v := range ends {
		deg[v]++
	}
	for v, k := range deg {
		if k == 0 {
			continue
		}
		l := &lists[v]
		l.room(int(k))
		n := len(l.ents)
		if need := n + int(k); need > cap(l.ents) {
			grown := make([]Adj, n, max(need, 2*cap(l.ents)))
			copy(grown, l.ents)
			l.ents = grown
		}
		l.ents = l.ents[:n+int(k)]
		deg[v] = int32(n)
	}
	return deg
}

// fillAdj writes the adjacency entries of the new edges (column indices
// lo and up, the first at position first) for the nodes v with
// v % of == part, in position order.
func (w *Window) fillAdj(lo int, first uint32, part, of uint32, outCur, inCur []int32) {
	src, dst, ts := w.src[lo:], w.dst[lo:], w.t[lo:]
	for i, s := range src {
		d := dst[i]
		if s%of == part {
			w.out[s].ents[outCur[s]] = Adj{T: ts[i], Rel: first + uint32(i), Other: d}
			outCur[s]++
		}
		if d%of == part {
			w.in[d].ents[inCur[d]] = Adj{T: ts[i], Rel: first + uint32(i), Other: s}
			inCur[d]++
		}
	}
}

// checkLengths checks that c's columns have one entry per edge and that
// it has one attribute column per attribute of the window's schema.
func (w *Window) checkLengths(c Columns) error {
	n := len(c.T)
	if len(c.Src) != n || len(c.Dst) != n {
		return fmt.Errorf("append columns: %d sources, %d destinations, %d times", len(c.Src), len(c.Dst), n)
	}
	if len(c.Attrs) != len(w.attrs) {
		return fmt.Errorf("append columns: %d attribute columns for %d", len(c.Attrs), len(w.attrs))
	}
	for i, col := range c.Attrs {
		if len(col) != n {
			return fmt.Errorf("append columns: attribute column %d has %d values for %d edges", i, len(col), n)
		}
	}
	return nil
}

// countEnds adds to deg[v] the number of times v occurs in ends, on up to
// workers goroutines.
func countEnds(deg []int, ends []uint32, workers int) {
	if workers <= 1 {
		for _, v := range ends {
			deg[v]++
		}
		return
	}
	n, nv := len(ends), len(deg)
	counts := make([][]int32, workers)
	fanout.Ranges(n, workers, func(k, lo, hi int) {
		c := make([]int32, nv)
		for _, v := range ends[lo:hi] {
			c[v]++
		}
		counts[k] = c
	})
	fanout.Ranges(nv, workers, func(k, lo, hi int) {
		for _, c := range counts {
			for v, x := range c[lo:hi] {
				deg[lo+v] += int(x)
			}
		}
	})
}
