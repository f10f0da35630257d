package count3

import (
	"context"
	"math/bits"
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

// midPairEdge is an edge of the middle edge's own pair within δ of it, at the
// far node of the pass (see pathsFrom): its position and prefix counts of
// the pair's edges before it, like seqEntry's.
type midPairEdge struct {
	pos    int64
	before [4]int64 // all out, all in, counted out, counted in (at the far node)
}

// pathBuf is a worker's scratch: the middle pair's edges near the middle edge.
type pathBuf struct {
	pair []midPairEdge
}

// paths runs the path pass: every edge s→t before the scope's end is the
// middle edge M of the paths a–s–t–d whose left edge L joins s to a ≠ t
// and right edge R joins t to d ≠ s. The four temporal orders of L, M and
// R that make a motif (M is never last: a motif's second edge touches its
// first, and L and R share no node) are counted from the side of M with
// fewer edges within δ of it: for each of that side's edges x, the other
// side's edges y that complete a path with x are a range of the other
// node's sequence (by position, and for the orders with M between them by
// time: y within δ of x), counted through the sequence's prefix counts at
// two searched points, less the pair s–t's own edges in the range (they
// join y's node to x's, not to a fourth node), which come from x's side.
// So a middle edge costs its lighter end's edges near it times a binary
// search, not the pairs it makes: a hub's edges each cost their other
// end's.
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
	c.ph.mark("path-sequences")
	if err != nil {
		return err
	}
	lo := c.w.First()
	bufs := make([]pathBuf, c.workers)
	return c.parallel(ctx, int(c.sc.hi-lo), 256, func(wk, i0, i1 int) {
		r := (*[RawLen - rawPath]int64)(c.raws[wk].Raw[rawPath:])
		for i := i0; i < i1; i++ {
			c.pathsThrough(sq, lo+int64(i), &bufs[wk], r)
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

// at returns the index of q's first edge at or after position p.
func at(q []seqEntry, lo, hi int, p int64) int {
	return lo + sort.Search(hi-lo, func(i int) bool { return q[lo+i].pos >= p })
}

// span returns q's edges within δ of the one at index i (time tm): the
// index range [lo, hi).
func (c *counter) span(q []seqEntry, i int, tm int64) (int, int) {
	lo := sort.Search(i, func(k int) bool { return !apart(q[k].t, tm, c.delta) })
	hi := i + 1 + sort.Search(len(q)-i-1, func(k int) bool { return apart(tm, q[i+1+k].t, c.delta) })
	return lo, hi
}

// pathsThrough adds the paths whose middle edge is the one at position p.
func (c *counter) pathsThrough(sq *pathSeqs, p int64, b *pathBuf, r *[RawLen - rawPath]int64) {
	w := c.w
	s, t := w.Src(p), w.Dst(p)
	if s == t {
		return
	}
	tm := w.T(p)
	S, T := sq.of(s), sq.of(t)
	iS, iT := at(S, 0, len(S), p), at(T, 0, len(T), p)
	sLo, sHi := c.span(S, iS, tm)
	tLo, tHi := c.span(T, iT, tm)
	if sHi-sLo <= tHi-tLo {
		c.pathsFrom(S[:sHi], sLo, T[:tHi], tLo, iT, t, true, p, b, r)
	} else {
		c.pathsFrom(T[:tHi], tLo, S[:sHi], sLo, iS, s, false, p, b, r)
	}
}

// pathWalk, when set, makes pathsFrom walk (true) or search (false) for
// every middle edge: tests check both ways against the oracle.
var pathWalk *bool

// pathsFrom counts the paths through the middle edge at position p (at
// index iX of the near side's sequence X and iY of the far side's Y, both
// cut at the end of the middle edge's δ window, which starts at xLo and
// yLo) from the near side: each of X's edges x, not to the far node y,
// against ranges of Y's edges. xIsS says whether the near side is the
// middle edge's source (x is L, y R) or its target.
//
// The ranges' ends move forward with x (by position and by time): where
// Y's window is short against X's times a search, they are walked like a
// merge, else searched for each x.
func (c *counter) pathsFrom(X []seqEntry, xLo int, Y []seqEntry, yLo, iY int, y uint32, xIsS bool, p int64, b *pathBuf, r *[RawLen - rawPath]int64) {
	// The pair's edges near the middle one (itself among them), from X:
	// Y's counts less theirs are the edges to a fourth node.
	b.pair = b.pair[:0]
	var run [4]int64
	for i := xLo; i < len(X); i++ {
		if e := &X[i]; e.other == y {
			b.pair = append(b.pair, midPairEdge{pos: e.pos, before: run})
			d := 1 - int(e.flags&fIn) // the direction at y
			run[d]++
			if e.flags&fCounted != 0 {
				run[2+d]++
			}
		}
	}
	pair := b.pair
	// far returns Y's edges to a fourth node before index i, all and
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
				pb = pair[lo].before
			}
		}
		return [2]int64{all[0] - pb[0], all[1] - pb[1]}, [2]int64{cnt[0] - pb[2], cnt[1] - pb[3]}
	}
	// Orders (raw o): x first then M then y, M x y, M y x, y M x.
	oXMY, oMXY, oMYX, oYMX := 0, 2, 3, 1
	if !xIsS {
		oXMY, oMXY, oMYX, oYMX = 1, 3, 2, 0
	}
	add := func(o int, dx uint8, n [2]int64) {
		if xIsS {
			r[4*o+2*int(dx)] += n[0]
			r[4*o+2*int(dx)+1] += n[1]
		} else {
			r[4*o+int(dx)] += n[0]
			r[4*o+2+int(dx)] += n[1]
		}
	}
	sub := func(a, b [2]int64) [2]int64 { return [2]int64{a[0] - b[0], a[1] - b[1]} }
	mAll, _ := far(iY)                // y before M
	afterAll, afterCnt := far(iY + 1) // y before M or M itself (a pair edge)
	_, endCnt := far(len(Y))          // y up to δ after M
	walk := len(Y)-yLo < (len(X)-xLo)*bits.Len(uint(len(Y)-yLo))
	if pathWalk != nil {
		walk = *pathWalk
	}
	// The ranges' ends: ix, Y's first edge after x; ja, Y's first edge
	// after M more than δ after x; jb, Y's first edge no more than δ
	// before x.
	ix, ja, jb := iY+1, iY+1, yLo
	for i := xLo; i < len(X); i++ {
		x := &X[i]
		if x.other == y {
			continue
		}
		dx := x.flags & fIn
		if x.pos < p {
			// x M y: y after M, no more than δ after x, counted.
			if walk {
				for ja < len(Y) && !apart(x.t, Y[ja].t, c.delta) {
					ja++
				}
			} else {
				ja = iY + 1 + sort.Search(len(Y)-iY-1, func(k int) bool { return apart(x.t, Y[iY+1+k].t, c.delta) })
			}
			_, cnt := far(ja)
			add(oXMY, dx, sub(cnt, afterCnt))
			continue
		}
		if walk {
			for ix < len(Y) && Y[ix].pos < x.pos {
				ix++
			}
		} else {
			ix = at(Y, iY+1, len(Y), x.pos)
		}
		all, cnt := far(ix)
		add(oMXY, dx, sub(endCnt, cnt)) // M x y: y after x, counted
		if x.flags&fCounted == 0 {
			continue
		}
		add(oMYX, dx, sub(all, afterAll)) // M y x
		// y M x: y before M, no more than δ before x.
		if walk {
			for jb < iY && apart(Y[jb].t, x.t, c.delta) {
				jb++
			}
		} else {
			jb = yLo + sort.Search(iY-yLo, func(k int) bool { return !apart(Y[yLo+k].t, x.t, c.delta) })
		}
		jAll, _ := far(jb)
		add(oYMX, dx, sub(mAll, jAll))
	}
}
