package count3

import (
	"context"
	"github.com/motifwatch/motifwatch/motif"
	"sort"

	"github.com/motifwatch/motifwatch/window"
)

// seqEntry is an edge in a node's sequence (its incident edges, self-loops
// left out, in position order, before the scope's end), with the node's
// edges before it by direction: in1 into the node of all of them
// (index − in1 out of it), c0 and c1 of the counted ones. Counts fit in
// uint32: a window holds fewer than 2^32 edges (window.Adj.Rel).
type seqEntry struct {
	pos, t      int64
	other       uint32
	in1, c0, c1 uint32
	flags       uint8 // fIn, fCounted
}

// pathSeqs are every node's sequences: node v's at ent[off[v]:off[v]+n[v]].
type pathSeqs struct {
	off []int64
	n   []int32
	ent []seqEntry
}

func (s *pathSeqs) of(v uint32) []seqEntry { return s.ent[s.off[v] : s.off[v]+int64(s.n[v])] }

// pathPairEdge is an edge of the pair being counted (its middle edges), in
// position order: position, time, class (0: from the near node x to the
// far node y, 1: the other way) and flags at the far node (fIn: into y;
// fCounted).
type pathPairEdge struct {
	pos, t int64
	cls    uint8
	flags  uint8
}

// pairSums are prefix sums over a pair's edges, by class: the edges (n),
// and for each edge m, by direction at the far node, the far node's edges
// to fourth nodes that are counted and up to δ after m (endC), counted and
// up to m (upToC), all up to m (upTo) and all before m (before)
// (pathsOfPair).
type pairSums struct {
	n                         [2]int64
	endC, upToC, upTo, before [2][2]int64
}

// pathBuf is a worker's scratch for one pair.
type pathBuf struct {
	pair []pathPairEdge
	far  [][4]int64 // the pair's edges before each, at the far node: out, in, counted out, counted in
	sums []pairSums
}

// paths runs the path pass: every edge s→t before the scope's end is the
// middle edge M of the paths a–s–t–d whose left edge L joins s to a ≠ t
// and right edge R joins t to d ≠ s. The four temporal orders of L, M and
// R that make a motif (M is never last: a motif's second edge touches its
// first, and L and R share no node) are counted per node pair {x, y}, all
// its edges as M at once, from its node x of lower degree: for each of
// x's edges e not to y and near one of the pair's edges, the pair's edges
// that e completes a path with are two ranges of the pair's list (before
// e and no more than δ before it; after e and within δ), and for each such
// M the far edges f are a range of y's position-ordered sequence whose
// ends depend on e alone (y's first edge after e, δ after e, δ before e)
// or on M alone (M's place in y's sequence, δ after M). So a range of M
// adds a count at e's ends times the range's size plus prefix sums over
// the pair's list of the counts at M's ends (pairSums), each count read
// through the sequence's prefix counts less the pair's own edges. A pair
// costs its edges and x's edges near them, times a search: the window's
// wedges at their lighter ends, not its paths, and a pair's repeated
// edges share the work.
//
// A path is counted when its last edge is counted, so Range and RootMask
// hold as in the other passes. The pass does not ask whether a = d: those
// triples are triangles, which Count takes off afterwards from the
// triangle pass's counters (triPaths).
func (c *counter) paths(ctx context.Context) error {
	sq := &pathSeqs{off: make([]int64, c.nodes+1), n: make([]int32, c.nodes)}
	for v := range c.nodes {
		sq.off[v+1] = sq.off[v] + int64(len(c.w.Out(uint32(v)))+len(c.w.In(uint32(v))))
	}
	sq.ent = make([]seqEntry, sq.off[c.nodes])
	err := c.parallel(ctx, c.nodes, 64, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			sq.n[v] = int32(c.fillSeq(uint32(v), sq.ent[sq.off[v]:sq.off[v+1]]))
		}
	})
	c.w.IndexPairs() // before the workers, which read Between
	c.ph.mark("path-sequences")
	if err != nil {
		return err
	}
	bufs := make([]pathBuf, c.workers)
	// Each node counts its pairs with higher ids; a node's weight is its
	// sequence (its pairs read their lighter ends, but a hub has many).
	return c.heavyFirst(ctx, c.nodes, 16, sq.off[c.nodes], func(u int) int64 { return int64(sq.n[u]) }, func(wk, u int) {
		r := (*[RawLen - rawPath]int64)(c.raws[wk].Raw[rawPath:])
		for _, v := range c.nbr[c.off[u] : c.off[u]+int64(c.deg[u])] {
			if v > uint32(u) {
				c.pathsOfPair(sq, uint32(u), v, &bufs[wk], r)
			}
		}
	})
}

// fillSeq writes node v's sequence into dst and returns its length.
func (c *counter) fillSeq(v uint32, dst []seqEntry) int {
	out, in := c.w.Out(v), c.w.In(v)
	i, j, n := 0, 0, 0
	var in1, c0, c1 uint32
	for {
		var a window.Adj
		var fl uint8
		switch {
		case i < len(out) && (j >= len(in) || out[i].Rel < in[j].Rel):
			a = out[i]
			i++
		case j < len(in):
			a, fl = in[j], fIn
			j++
		default:
			return n
		}
		pos := c.w.Pos(a)
		if pos >= c.sc.hi {
			return n // both lists are in position order
		}
		if a.Other == v {
			continue
		}
		counted := c.sc.counted(pos)
		if counted {
			fl |= fCounted
		}
		dst[n] = seqEntry{pos: pos, t: a.T, other: a.Other, in1: in1, c0: c0, c1: c1, flags: fl}
		n++
		switch {
		case fl&fIn != 0:
			in1++
			if counted {
				c1++
			}
		case counted:
			c0++
		}
	}
}

// before returns the edges of q before index i by direction: all of them
// and the counted ones.
func before(q []seqEntry, i int) (all, cnt [2]int64) {
	if i < len(q) {
		e := &q[i]
		return [2]int64{int64(i) - int64(e.in1), int64(e.in1)}, [2]int64{int64(e.c0), int64(e.c1)}
	}
	if i == 0 {
		return
	}
	e := &q[i-1]
	d := int64(e.flags & fIn)
	all = [2]int64{int64(i-1) - int64(e.in1) + 1 - d, int64(e.in1) + d}
	cnt = [2]int64{int64(e.c0), int64(e.c1)}
	if e.flags&fCounted != 0 {
		cnt[d]++
	}
	return all, cnt
}

// seek returns the first index i in [from, n) with ok(i), for ok false
// then true along the indices (n if none), like triangle.go's gallop: steps that double from
// from, then a binary search of the last step, so that a search that
// moves forward a little costs little (the path pass's range ends move
// forward with the near node's edges).
func seek(n, from int, ok func(i int) bool) int {
	lo, step := from, 1
	for lo < n && !ok(lo) {
		next := lo + step
		if next >= n || ok(next) {
			hi := min(next, n)
			return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return ok(lo + 1 + k) })
		}
		lo, step = next, 2*step
	}
	return lo
}

// at returns the index of q's first edge at or after position p.
func at(q []seqEntry, lo, hi int, p int64) int {
	return lo + sort.Search(hi-lo, func(i int) bool { return q[lo+i].pos >= p })
}

// pathsOfPair adds the paths whose middle edge joins u and v.
func (c *counter) pathsOfPair(sq *pathSeqs, u, v uint32, b *pathBuf, r *[RawLen - rawPath]int64) {
	w, delta := c.w, c.delta
	xn, yn := u, v
	if sq.n[v] < sq.n[u] {
		xn, yn = v, u
	}
	X, Y := sq.of(xn), sq.of(yn)
	// The pair's edges, merged from its two directions.
	b.pair = b.pair[:0]
	xy, yx := w.Between(xn, yn), w.Between(yn, xn)
	for i, j := 0, 0; i < len(xy) || j < len(yx); {
		var a window.Adj
		var cls uint8
		if j >= len(yx) || (i < len(xy) && xy[i].Rel < yx[j].Rel) {
			a = xy[i]
			i++
		} else {
			a, cls = yx[j], 1
			j++
		}
		pos := w.Pos(a)
		if pos >= c.sc.hi {
			break // both lists are in position order
		}
		fl := fIn * (1 - cls) // x→y is into y
		if c.sc.counted(pos) {
			fl |= fCounted
		}
		b.pair = append(b.pair, pathPairEdge{pos: pos, t: a.T, cls: cls, flags: fl})
	}
	pair := b.pair
	if len(pair) == 0 {
		return
	}
	b.far = b.far[:0]
	var run [4]int64
	for _, m := range pair {
		b.far = append(b.far, run)
		d := int(m.flags & fIn)
		run[d]++
		if m.flags&fCounted != 0 {
			run[2+d]++
		}
	}
	farRun := b.far
	// far returns y's edges to a fourth node before index i of Y, all and
	// counted, by direction at y.
	far := func(i int) (all, cnt [2]int64) {
		all, cnt = before(Y, i)
		pb := run
		if i < len(Y) {
			bound := Y[i].pos
			lo, hi := 0, len(pair)
			for lo < hi {
				if h := int(uint(lo+hi) >> 1); pair[h].pos < bound {
					lo = h + 1
				} else {
					hi = h
				}
			}
			if lo < len(pair) {
				pb = farRun[lo]
			}
		}
		return [2]int64{all[0] - pb[0], all[1] - pb[1]}, [2]int64{cnt[0] - pb[2], cnt[1] - pb[3]}
	}
	// Prefix sums over the pair's edges of the counts at each edge's ends.
	b.sums = append(b.sums[:0], pairSums{})
	iy, end := 0, 0
	for k, m := range pair {
		iy = seek(len(Y), iy, func(j int) bool { return Y[j].pos >= m.pos })
		end = seek(len(Y), max(end, iy+1), func(j int) bool { return apart(m.t, Y[j].t, delta) })
		_, endC := far(end)
		upTo, upToC := far(iy + 1)
		bef, _ := far(iy)
		s := b.sums[k]
		s.n[m.cls]++
		for d := range 2 {
			s.endC[m.cls][d] += endC[d]
			s.upToC[m.cls][d] += upToC[d]
			s.upTo[m.cls][d] += upTo[d]
			s.before[m.cls][d] += bef[d]
		}
		b.sums = append(b.sums, s)
	}
	sums := b.sums
	add := func(cls, o int, dx uint8, n [2]int64) {
		if cls == 0 { // x is the middle edge's source: x's edge is L
			r[4*o+2*int(dx)] += n[0]
			r[4*o+2*int(dx)+1] += n[1]
		} else {
			r[4*o+int(dx)] += n[0]
			r[4*o+2+int(dx)] += n[1]
		}
	}
	// Orders (raw o) by class: e M f, M e f, M f e, f M e, where e is x's
	// edge and f y's.
	orders := [2][4]int{{0, 2, 3, 1}, {1, 3, 2, 0}}
	// x's edges near the pair's edges: the union of their δ windows, in
	// position order. The pair ranges [aLo, aHi) (before e, within δ) and
	// [aHi, bHi) (after e, within δ) only move forward.
	aLo, aHi, bHi := 0, 0, 0
	ix, ja, jb := 0, 0, 0 // on Y: the first edge after e, more than δ after e, no more than δ before e
	for k := 0; k < len(pair); {
		lo, hi := motif.SubTicks(pair[k].t, delta), motif.AddTicks(pair[k].t, delta)
		for k++; k < len(pair) && motif.SubTicks(pair[k].t, delta) <= hi; k++ {
			hi = max(hi, motif.AddTicks(pair[k].t, delta))
		}
		for i := sort.Search(len(X), func(i int) bool { return X[i].t >= lo }); i < len(X) && X[i].t <= hi; i++ {
			e := &X[i]
			if e.other == yn {
				continue
			}
			for aHi < len(pair) && pair[aHi].pos < e.pos {
				aHi++
			}
			for aLo < aHi && apart(pair[aLo].t, e.t, delta) {
				aLo++
			}
			bHi = max(bHi, aHi)
			for bHi < len(pair) && !apart(e.t, pair[bHi].t, delta) {
				bHi++
			}
			if aLo == bHi {
				continue
			}
			dx := e.flags & fIn
			ix = seek(len(Y), ix, func(j int) bool { return Y[j].pos >= e.pos })
			sa, sh, sb := &sums[aLo], &sums[aHi], &sums[bHi]
			if aLo < aHi { // M before e
				all, cnt := far(ix)
				counted := e.flags&fCounted != 0
				var jbAll [2]int64
				if counted {
					jb = seek(ix, jb, func(j int) bool { return !apart(Y[j].t, e.t, delta) })
					jbAll, _ = far(jb)
				}
				for cls := range 2 {
					n := sh.n[cls] - sa.n[cls]
					if n == 0 {
						continue
					}
					var mef, mfe, fme [2]int64
					for d := range 2 {
						mef[d] = sh.endC[cls][d] - sa.endC[cls][d] - n*cnt[d]
						mfe[d] = n*all[d] - (sh.upTo[cls][d] - sa.upTo[cls][d])
						fme[d] = sh.before[cls][d] - sa.before[cls][d] - n*jbAll[d]
					}
					add(cls, orders[cls][1], dx, mef)
					if counted {
						add(cls, orders[cls][2], dx, mfe)
						add(cls, orders[cls][3], dx, fme)
					}
				}
			}
			if aHi < bHi { // M after e
				ja = seek(len(Y), max(ja, ix), func(j int) bool { return apart(e.t, Y[j].t, delta) })
				_, jaC := far(ja)
				for cls := range 2 {
					n := sb.n[cls] - sh.n[cls]
					if n == 0 {
						continue
					}
					var emf [2]int64
					for d := range 2 {
						emf[d] = n*jaC[d] - (sb.upToC[cls][d] - sh.upToC[cls][d])
					}
					add(cls, orders[cls][0], dx, emf)
				}
			}
		}
	}
}
