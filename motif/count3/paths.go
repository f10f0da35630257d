package count3

import (
	"context"
	"slices"

	"github.com/motifwatch/motifwatch/window"
)

// pathEvent is an edge at one end of a path's middle edge: its position,
// time and direction (1 = into that end), and whether it may end a triple.
type pathEvent struct {
	pos, t  int64
	in      int8
	counted bool
}

// pathBuf is a worker's four side lists of the current middle edge s→t:
// the edges at s (not to t) and at t (not to s) before and after it within
// δ of it, each in position order.
type pathBuf struct {
	sb, sa, tb, ta []pathEvent
}

// paths runs the path pass: every edge s→t before the scope's end is the
// middle edge M of the paths a–s–t–d whose left edge L joins s to a ≠ t
// and right edge R joins t to d ≠ s. Its four side lists (pathBuf) hold
// every candidate L and R within δ of M, and each of the four temporal
// orders of L, M and R that make a motif (M is not last: a motif's second
// edge touches its first) is a merge of two of them:
//   - L and R both after M (M first): the two lists merged by position,
//     each edge pairing with the other side's edges before it; all lie
//     within δ of M, so every pair is in the window;
//   - L before M before R (or R, M, L): for each later edge, the earlier
//     side's edges no more than δ before it, a pointer that only moves
//     forward as the later edge's time grows.
//
// A pair is counted when its last edge is counted, so Range and RootMask
// hold as in the other passes. The pass does not ask whether a = d: those
// triples are triangles, which Count takes off afterwards from the
// triangle pass's counters (triPaths). Its cost is, per middle edge, the
// edges of its ends within δ of it: the window's wedges, not its paths.
func (c *counter) paths(ctx context.Context) error {
	lo := c.w.First()
	n := int(c.sc.hi - lo)
	bufs := make([]pathBuf, c.workers)
	return c.parallel(ctx, n, 64, func(wk, i0, i1 int) {
		for i := i0; i < i1; i++ {
			c.pathsThrough(lo+int64(i), &bufs[wk], &c.raws[wk].Raw)
		}
	})
}

// pathsThrough adds the paths whose middle edge is the one at position p.
func (c *counter) pathsThrough(p int64, b *pathBuf, raw *Raw) {
	w := c.w
	s, t := w.Src(p), w.Dst(p)
	if s == t {
		return
	}
	tm := w.T(p)
	b.sb, b.sa = c.side(s, t, p, tm, b.sb[:0], b.sa[:0])
	b.tb, b.ta = c.side(t, s, p, tm, b.tb[:0], b.ta[:0])
	r := (*[RawLen - rawPath]int64)(raw[rawPath:])
	mergeSides(b.sa, b.ta, r, 2, 3) // M first: M L R, M R L
	c.across(b.sb, b.ta, r, 0, 0)   // L M R
	c.across(b.tb, b.sa, r, 1, 1)   // R M L
}

// side gathers v's edges other than those to (or from) other and its
// self-loops, within δ of time tm, before position p (into before) and
// after it but before the scope's end (into after), both in position
// order.
func (c *counter) side(v, other uint32, p, tm int64, before, after []pathEvent) ([]pathEvent, []pathEvent) {
	w := c.w
	lists := [2][]window.Adj{w.Out(v), w.In(v)}
	var at [2]int
	for d, l := range lists {
		at[d], _ = slices.BinarySearchFunc(l, p, func(a window.Adj, p int64) int {
			return cmpInt(w.Pos(a), p)
		})
	}
	// Before p, newest first, then reversed.
	i, j := at[0]-1, at[1]-1
	for i >= 0 || j >= 0 {
		var a window.Adj
		var in int8
		if j < 0 || (i >= 0 && lists[0][i].Rel > lists[1][j].Rel) {
			a = lists[0][i]
			i--
		} else {
			a, in = lists[1][j], 1
			j--
		}
		if apart(a.T, tm, c.delta) {
			break // older edges of both lists are further still
		}
		if a.Other != other && a.Other != v {
			pos := w.Pos(a)
			before = append(before, pathEvent{pos: pos, t: a.T, in: in, counted: c.sc.counted(pos)})
		}
	}
	slices.Reverse(before)
	i, j = at[0], at[1]
	for {
		var a window.Adj
		var in int8
		switch {
		case i < len(lists[0]) && (j >= len(lists[1]) || lists[0][i].Rel < lists[1][j].Rel):
			a = lists[0][i]
			i++
		case j < len(lists[1]):
			a, in = lists[1][j], 1
			j++
		default:
			return before, after
		}
		pos := w.Pos(a)
		if pos >= c.sc.hi || apart(tm, a.T, c.delta) {
			return before, after
		}
		if pos != p && a.Other != other && a.Other != v {
			after = append(after, pathEvent{pos: pos, t: a.T, in: in, counted: c.sc.counted(pos)})
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mergeSides adds the pairs of an s-side edge x and a t-side edge y (both
// after M) with x first to order xy, y first to order yx. The later edge
// of each pair ends the triple, so it adds only when that edge is
// counted.
func mergeSides(xs, ys []pathEvent, r *[RawLen - rawPath]int64, xy, yx int) {
	var cx, cy [2]int64
	i, j := 0, 0
	for i < len(xs) || j < len(ys) {
		if j >= len(ys) || (i < len(xs) && xs[i].pos < ys[j].pos) {
			dl := xs[i].in
			if xs[i].counted {
				r[4*yx+2*int(dl)] += cy[0]
				r[4*yx+2*int(dl)+1] += cy[1]
			}
			cx[dl]++
			i++
			continue
		}
		dr := ys[j].in
		if ys[j].counted {
			r[4*xy+int(dr)] += cx[0]
			r[4*xy+2+int(dr)] += cx[1]
		}
		cy[dr]++
		j++
	}
}

// across adds the pairs of an earlier edge e (before M) and a later edge
// l (after M, counted) no more than δ apart, to order o. lateIsS is 1
// when the later edges are the s side (L, direction dl) and the earlier
// the t side (R, dr), 0 the other way round.
func (c *counter) across(early, late []pathEvent, r *[RawLen - rawPath]int64, o, lateIsS int) {
	var total, gone [2]int64
	for _, e := range early {
		total[e.in]++
	}
	k := 0
	for _, l := range late {
		for k < len(early) && apart(early[k].t, l.t, c.delta) {
			gone[early[k].in]++
			k++
		}
		if !l.counted {
			continue
		}
		for d := range 2 {
			n := total[d] - gone[d]
			if lateIsS == 1 { // late is L (dl), early is R (dr)
				r[4*o+2*int(l.in)+d] += n
			} else {
				r[4*o+2*d+int(l.in)] += n
			}
		}
	}
}
