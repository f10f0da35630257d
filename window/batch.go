package window

import (
	"fmt"
	"slices"

	"github.com/motifwatch/motifwatch/internal/fanout"
)

// A streaming window takes a batch of edges at a time (AppendBatch) and
// evicts as many (EvictBefore, EvictTo). Per edge, both touch two
// adjacency lists at random (a cache miss each, and a growth now and
// then): with SetWorkers(n > 1), a batch of parallelMin edges or more is
// appended and evicted by n goroutines (owned and waited for here), each
// owning the nodes v with v/4 % n equal to its index (four consecutive
// list headers share two cache lines: one owner writes them). Each
// scans the whole batch and does its nodes' pushes and pops, in position
// order: the lists end exactly as one goroutine would leave them.

// parallelMin is the batch from which AppendBatch and eviction use the
// window's workers.
const parallelMin = 4096

// SetWorkers sets how many goroutines AppendBatch and eviction use for a
// large batch (rounded down to a power of two; 1 or less: the caller's
// alone).
func (w *Window) SetWorkers(n int) {
	k := 1
	for k*2 <= n {
		k *= 2
	}
	w.workers = k
}

// Workers returns what SetWorkers set (1 by default).
func (w *Window) Workers() int { return max(w.workers, 1) }

// owner is the worker (of a power of two) that owns node v's lists.
func owner(v uint32, of int) int { return int(v>>2) & (of - 1) }

// AppendBatch appends a run of edges given as columns (c's slices are
// copied, not kept), exactly as appending them one by one with Append
// would; it returns the position of the first. It checks the whole run
// first: on an error nothing is appended.
func (w *Window) AppendBatch(c Columns) (int64, error) {
	n := len(c.T)
	maxID, err := w.checkColumns(c)
	if err != nil {
		return 0, err
	}
	first := w.End()
	if n == 0 {
		return first, nil
	}
	if err := w.makeRelRoom(n); err != nil {
		return 0, err
	}
	w.src = append(w.src, c.Src...)
	w.dst = append(w.dst, c.Dst...)
	w.t = append(w.t, c.T...)
	for i, col := range c.Attrs {
		w.attrs[i] = append(w.attrs[i], col...)
		if w.schema.EdgeAttrs[i].Kind == String {
			for _, v := range col {
				w.strings.hold(uint32(v))
			}
		}
	}
	lo := len(w.t) - n
	w.grow(maxID)
	rel := uint32(first - w.adjBase)
	fanout.Each(w.batchWorkers(n), func(k int) { w.pushAdj(lo, rel, k, w.batchWorkers(n)) })
	if w.pairsOn.Load() {
		for i := lo; i < len(w.t); i++ {
			w.addPair(w.src[i], w.dst[i], w.t[i], rel+uint32(i-lo))
		}
	}
	return first, nil
}

// batchWorkers is the number of workers for a batch of n edges.
func (w *Window) batchWorkers(n int) int {
	if n < parallelMin {
		return 1
	}
	return w.Workers()
}

// checkColumns checks c as AppendColumns does and returns its largest
// node id.
func (w *Window) checkColumns(c Columns) (uint32, error) {
	if err := w.checkLengths(c); err != nil {
		return 0, err
	}
	prev := w.LastT()
	idCap := uint32(w.ids.Cap())
	var maxID uint32
	for i, t := range c.T {
		if t < prev {
			return 0, fmt.Errorf("append t=%d after t=%d: %w", t, prev, ErrOutOfOrder)
		}
		prev = t
		s, d := c.Src[i], c.Dst[i]
		if s >= idCap || d >= idCap {
			return 0, fmt.Errorf("append: node id %d/%d was not interned", s, d)
		}
		maxID = max(maxID, s, d)
	}
	return maxID, nil
}

// pushAdj pushes the adjacency entries of the edges from column index lo
// on (the first at relative position first) onto the lists of the nodes
// worker part of of owns, in position order.
func (w *Window) pushAdj(lo int, first uint32, part, of int) {
	src, dst, ts := w.src[lo:], w.dst[lo:], w.t[lo:]
	for i, s := range src {
		d := dst[i]
		if owner(s, of) == part {
			w.out[s].push(Adj{T: ts[i], Rel: first + uint32(i), Other: d})
		}
		if owner(d, of) == part {
			w.in[d].push(Adj{T: ts[i], Rel: first + uint32(i), Other: s})
		}
	}
}

// evict removes the n oldest edges, as n evictOne calls and a compact
// would; with workers, the lists' pops in parallel, then the ids of the
// nodes whose last edge left released in the order evictOne would.
func (w *Window) evict(n int) int {
	workers := w.batchWorkers(n)
	if workers == 1 {
		for range n {
			w.evictOne()
		}
		w.compact()
		return n
	}
	lo, hi := w.head, w.head+n
	for i, a := range w.schema.EdgeAttrs {
		if a.Kind == String {
			for _, v := range w.attrs[i][lo:hi] {
				w.strings.drop(uint32(v))
			}
		}
	}
	if len(w.evictMark) < len(w.out) {
		w.evictMark = append(w.evictMark, make([]uint32, len(w.out)-len(w.evictMark))...)
	}
	if w.evictGen++; w.evictGen == 0 {
		clear(w.evictMark)
		w.evictGen = 1
	}
	// Per worker, the ids to release: keys i<<1 (the source of the edge
	// at column i) or i<<1|1 (its destination) of each node's last edge,
	// the order evictOne releases them in.
	if cap(w.evictKeys) < workers {
		w.evictKeys = make([][]uint64, workers)
	}
	keys := w.evictKeys[:workers]
	fanout.Each(workers, func(k int) { keys[k] = w.popAdj(lo, hi, k, workers, keys[k][:0]) })
	if w.pairsOn.Load() {
		for i := lo; i < hi; i++ {
			w.popPair(w.src[i], w.dst[i])
		}
	}
	w.head = hi
	all := w.evictAll[:0]
	for _, ks := range keys {
		all = append(all, ks...)
	}
	slices.Sort(all)
	for _, key := range all {
		i := int(key >> 1)
		if key&1 == 0 {
			w.releaseIfIdle(w.src[i])
		} else {
			w.releaseIfIdle(w.dst[i])
		}
	}
	w.evictAll = all[:0]
	w.compact()
	return n
}

// popAdj pops the entries of the edges at column indices [lo, hi) from
// the lists of the nodes worker part of of owns, then appends to keys
// those of its nodes left without a live edge, keyed by their last edge
// (see evict).
func (w *Window) popAdj(lo, hi, part, of int, keys []uint64) []uint64 {
	for i := lo; i < hi; i++ {
		if s := w.src[i]; owner(s, of) == part {
			popFront(&w.out[s])
		}
		if d := w.dst[i]; owner(d, of) == part {
			popFront(&w.in[d])
		}
	}
	gen := w.evictGen
	for i := hi - 1; i >= lo; i-- {
		for side, v := range [2]uint32{w.dst[i], w.src[i]} {
			if owner(v, of) != part || w.evictMark[v] == gen {
				continue
			}
			w.evictMark[v] = gen
			if len(w.out[v].live()) == 0 && len(w.in[v].live()) == 0 {
				keys = append(keys, uint64(i)<<1|uint64(1-side))
			}
		}
	}
	return keys
}
