package count3

import (
	"context"
	"math"
	"slices"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// p4Edge is an edge in a static pair's list (position order), with the
// list's edges before it: in into the pair's lower id, c0 and c1 the
// counted ones out of and into it. Each list ends with a sentinel (pos
// and t at their maximum) holding the totals.
type p4Edge struct {
	pos, t     int64
	in, c0, c1 uint32
	flags      uint8 // fIn: into the lower id; fCounted
}

// staticPairs is the static graph of the window's edges before the
// scope's end, for the four-edge passes: node u's distinct neighbours in
// id order at nb[off[u]:off[u+1]] with their pair ids, those after u in
// degree order at fwd[foff[u]:foff[u+1]] (fpid their pair ids), and pair
// j's edge list at ent[loff[j]:loff[j+1]] with its time span.
type staticPairs struct {
	off      []int64
	nb, pid  []uint32
	foff     []int64
	fwd      []uint32
	fpid     []uint32
	loff     []int64
	ent      []p4Edge
	first    []int64 // pair j's first and last times
	last     []int64
	slots    []slots256 // pair j's δ-wide time slots, each with the next (near)
	fold     []uint64   // pair j's slots folded (slots256.fold)
	grid     slotGrid   // the time slots' grid (the slots above are cut on it)
	nodeDeg  []int32
	pairsLen int
}

// list returns pair j's edges, sentinel included.
func (sp *staticPairs) list(j uint32) []p4Edge { return sp.ent[sp.loff[j]:sp.loff[j+1]] }

// before reports whether u comes before v in degree order (ties by id).
// A method, not a closure: the cycle listing's inner loop calls it per
// wedge, and a closure called from the worker's closure is not inlined.
func (sp *staticPairs) before(u, v uint32) bool {
	du, dv := sp.nodeDeg[u], sp.nodeDeg[v]
	return du < dv || du == dv && u < v
}

// pairID returns the pair id of u–v, or false.
func (sp *staticPairs) pairID(u, v uint32) (uint32, bool) {
	nb := sp.nb[sp.off[u]:sp.off[u+1]]
	i, ok := slices.BinarySearch(nb, v)
	if !ok {
		return 0, false
	}
	return sp.pid[sp.off[u]+int64(i)], true
}

// staticPairs builds the static pairs from the centre pass's neighbour
// lists (c.nbr, c.mult).
func (c *counter) staticPairs(ctx context.Context) (*staticPairs, error) {
	n := c.nodes
	sp := &staticPairs{off: make([]int64, n+1), foff: make([]int64, n+1), nodeDeg: make([]int32, n)}
	for u := range n {
		sp.off[u+1] = sp.off[u] + int64(c.deg[u])
		sp.nodeDeg[u] = c.deg[u]
	}
	sp.nb = make([]uint32, sp.off[n])
	sp.pid = make([]uint32, sp.off[n])
	mult := make([]int32, sp.off[n])
	higher := make([]int64, n+1) // neighbours with higher ids: pairs owned by u
	err := c.parallel(ctx, n, 256, func(_, lo, hi int) {
		type nm struct {
			v uint32
			m int32
		}
		var tmp []nm
		for u := lo; u < hi; u++ {
			tmp = tmp[:0]
			for i := c.off[u]; i < c.off[u]+int64(c.deg[u]); i++ {
				tmp = append(tmp, nm{c.nbr[i], c.mult[i]})
			}
			slices.SortFunc(tmp, func(a, b nm) int { return int(int64(a.v) - int64(b.v)) })
			for i, x := range tmp {
				sp.nb[sp.off[u]+int64(i)], mult[sp.off[u]+int64(i)] = x.v, x.m
				if x.v > uint32(u) {
					higher[u+1]++
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for u := range n {
		higher[u+1] += higher[u]
	}
	pairs := higher[n]
	sp.pairsLen = int(pairs)
	sp.loff = make([]int64, pairs+1)
	// Pair ids: u's pairs with higher ids are higher[u] + their index
	// among them; the list sizes are their multiplicities plus a sentinel.
	for u := range n {
		j := higher[u]
		for i := sp.off[u]; i < sp.off[u+1]; i++ {
			if sp.nb[i] > uint32(u) {
				sp.pid[i] = uint32(j)
				sp.loff[j+1] = int64(mult[i]) + 1
				j++
			}
		}
	}
	for j := range pairs {
		sp.loff[j+1] += sp.loff[j]
	}
	err = c.parallel(ctx, n, 256, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			for i := sp.off[u]; i < sp.off[u+1]; i++ {
				if v := sp.nb[i]; v < uint32(u) {
					id, _ := sp.pairID(v, uint32(u))
					sp.pid[i] = id
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	before := func(u, v uint32) bool { return c.deg[u] < c.deg[v] || c.deg[u] == c.deg[v] && u < v }
	for u := range n {
		for i := sp.off[u]; i < sp.off[u+1]; i++ {
			if before(uint32(u), sp.nb[i]) {
				sp.foff[u+1]++
			}
		}
		sp.foff[u+1] += sp.foff[u]
	}
	sp.fwd = make([]uint32, sp.foff[n])
	sp.fpid = make([]uint32, sp.foff[n])
	for u := range n {
		k := sp.foff[u]
		for i := sp.off[u]; i < sp.off[u+1]; i++ {
			if before(uint32(u), sp.nb[i]) {
				sp.fwd[k], sp.fpid[k] = sp.nb[i], sp.pid[i]
				k++
			}
		}
	}
	sp.ent = make([]p4Edge, sp.loff[pairs])
	sp.first = make([]int64, pairs)
	sp.last = make([]int64, pairs)
	sp.slots = make([]slots256, pairs)
	sp.fold = make([]uint64, pairs)
	grid := newSlotGrid(c.w.T(c.w.First()), c.delta)
	sp.grid = grid
	err = c.parallel(ctx, n, 64, func(_, lo, hi int) {
		var cur []int64
		for u := lo; u < hi; u++ {
			nb := sp.nb[sp.off[u]:sp.off[u+1]]
			cur = cur[:0]
			for i := range nb {
				cur = append(cur, sp.loff[sp.pid[sp.off[u]+int64(i)]])
			}
			out, in := c.w.Out(uint32(u)), c.w.In(uint32(u))
			oi, ii := 0, 0
			for {
				var a window.Adj
				var fl uint8
				switch {
				case oi < len(out) && (ii >= len(in) || out[oi].Rel < in[ii].Rel):
					a = out[oi]
					oi++
				case ii < len(in):
					a, fl = in[ii], fIn
					ii++
				default:
					oi = -1
				}
				if oi < 0 {
					break
				}
				pos := c.w.Pos(a)
				if pos >= c.sc.hi {
					break
				}
				if a.Other <= uint32(u) { // the pair's lower end writes it; self-loops stay out
					continue
				}
				if c.sc.counted(pos) {
					fl |= fCounted
				}
				i, _ := slices.BinarySearch(nb, a.Other)
				sp.ent[cur[i]] = p4Edge{pos: pos, t: a.T, flags: fl} // fl's fIn: into u, the lower id
				cur[i]++
			}
			for i, v := range nb {
				if v < uint32(u) {
					continue
				}
				j := sp.pid[sp.off[u]+int64(i)]
				l := sp.ent[sp.loff[j]:sp.loff[j+1]]
				var in, c0, c1 uint32
				for k := range l[:len(l)-1] {
					e := &l[k]
					e.in, e.c0, e.c1 = in, c0, c1
					d := uint32(e.flags & fIn)
					in += d
					if e.flags&fCounted != 0 {
						c0 += 1 - d
						c1 += d
					}
				}
				l[len(l)-1] = p4Edge{pos: math.MaxInt64, t: math.MaxInt64, in: in, c0: c0, c1: c1}
				sp.first[j], sp.last[j] = l[0].t, l[len(l)-2].t
				sp.slots[j] = grid.slots256(l[:len(l)-1]).near()
				sp.fold[j] = sp.slots[j].fold()
			}
		}
	})
	return sp, err
}

// firstTime returns the index of l's first edge at or after time t (the
// sentinel's if none).
func firstTime(l []p4Edge, t int64) int {
	lo, hi := 0, len(l)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m].t < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// afterTime returns the index of l's first edge after time t.
func afterTime(l []p4Edge, t int64) int {
	if t == math.MaxInt64 {
		return len(l) - 1
	}
	return firstTime(l, t+1)
}

// sideCounts are a pair's edges before some point, seen from one of its
// ends: [out of it, into it], all and counted.
type sideCounts struct{ all, cnt [2]int64 }

// countsAt returns the counts of l's edges before index i seen from the
// lower id (lower) or the higher.
func countsAt(l []p4Edge, i int, lower bool) sideCounts {
	e := &l[i]
	in, out := int64(e.in), int64(i)-int64(e.in)
	s := sideCounts{all: [2]int64{out, in}, cnt: [2]int64{int64(e.c0), int64(e.c1)}}
	if !lower {
		s.all[0], s.all[1] = s.all[1], s.all[0]
		s.cnt[0], s.cnt[1] = s.cnt[1], s.cnt[0]
	}
	return s
}

// spansMeet reports whether pairs with these first and last times leave
// room for one edge of each within δ.
func spansMeet(first, last, delta int64) bool {
	return first <= last || !apart(last, first, delta)
}

// timeRange returns the index range of l's edges with times in [lo, hi]
// (saturated bounds).
func timeRange(l []p4Edge, lo, hi int64) (int, int) {
	return firstTime(l, lo), afterTime(l, hi)
}

var _ = motif.AddTicks

// nearCursor finds, for times that only grow, whether a list has an edge
// within δ of each.
type nearCursor struct {
	l []p4Edge // sentinel included
	i int      // first edge at or after the last time − δ
}

// near reports whether the list has an edge in [t − δ, t + δ]; if not,
// next is the time of its first edge after t + δ, and none says there is
// no such edge (an edge may lie at 2^63 − 1 itself).
func (n *nearCursor) near(t, delta int64) (ok bool, next int64, none bool) {
	lo := motif.SubTicks(t, delta)
	if n.l[n.i].t < lo {
		n.i = gallop4(n.l, n.i, lo)
	}
	e := &n.l[n.i]
	if e.pos == math.MaxInt64 {
		return false, 0, true
	}
	if !apart(t, e.t, delta) || e.t <= t {
		return true, 0, false
	}
	return false, e.t, false
}

// gallop4 returns the first index at or after from whose time is at
// least t (the sentinel stops it).
func gallop4(l []p4Edge, from int, t int64) int {
	if l[from].t >= t {
		return from
	}
	lo, step := from, 1 // l[lo].t < t
	for lo+step < len(l) && l[lo+step].t < t {
		lo += step
		step *= 2
	}
	return bisect4(l, lo, min(lo+step, len(l)-1), t)
}

// bisect4 returns the first index in (lo, hi] whose time is at least t,
// where l[lo].t < t ≤ l[hi].t (or hi is the sentinel's).
func bisect4(l []p4Edge, lo, hi int, t int64) int {
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if l[m].t < t {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// slots256 marks δ-wide time slots (slotGrid) modulo 256, one bit each.
// Edges within δ of each other lie in the same or adjacent slots, so a
// sequence within δ has every edge in slots k and k+1 for some k: the
// sides of a shape can hold one only if the AND of their near() sets
// (bit k: slot k or k+1 is marked) is not empty. A necessary condition
// that reads no edge list: most static four-cycles of a long graph fail
// it (a hub's sides are active everywhere, a light side on a few days).
type slots256 [4]uint64

// slots256 returns the slots of a list (sentinel excluded) in time order.
func (g slotGrid) slots256(l []p4Edge) slots256 {
	var set slots256
	end := int64(math.MinInt64)
	for i := range l {
		if t := l[i].t; t >= end {
			var k uint64
			k, end = g.slot(t)
			set[k>>6&3] |= 1 << (k & 63)
		}
	}
	return set
}

// near returns the set whose bit k is set where slot k or k+1 is.
func (s slots256) near() slots256 {
	var n slots256
	for w := range 4 {
		next := s[(w+1)&3]
		n[w] = s[w] | s[w]>>1 | next<<63
	}
	return n
}

// and returns the slots in both sets.
func (s slots256) and(o slots256) slots256 {
	return slots256{s[0] & o[0], s[1] & o[1], s[2] & o[2], s[3] & o[3]}
}

func (s slots256) empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// or returns the slots in either set.
func (s slots256) or(o slots256) slots256 {
	return slots256{s[0] | o[0], s[1] | o[1], s[2] | o[2], s[3] | o[3]}
}

// up returns the set whose bit k is set where slot k or k−1 is (modulo
// 256, as near's k+1): of an edge in slot k, the near bits of the two
// pairs of slots it may share with edges within δ.
func (s slots256) up() slots256 {
	var n slots256
	for w := range 4 {
		prev := s[(w+3)&3]
		n[w] = s[w] | s[w]<<1 | prev>>63
	}
	return n
}

// has reports whether slot k (modulo 256) is in the set.
func (s slots256) has(k uint64) bool { return s[k>>6&3]>>(k&63)&1 != 0 }

// fold returns the set's four words ORed: slot k's bit at k mod 64. Two
// sets whose folds do not intersect do not either, so a pair's fold
// rules out most disjoint sets (the cycle listing's) reading 8 bytes,
// in a quarter of the cache that the sets take.
func (s slots256) fold() uint64 { return s[0] | s[1] | s[2] | s[3] }

// gallopPos4 returns the first index at or after from whose position is
// at least p (the sentinel stops it).
func gallopPos4(l []p4Edge, from int, p int64) int {
	if l[from].pos >= p {
		return from
	}
	lo, step := from, 1
	for lo+step < len(l) && l[lo+step].pos < p {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(l)-1)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if l[m].pos < p {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// seek4 is gallop4 from a guess g (from ≤ g < len(l)): the first index
// at or after from whose time is at least t, galloping from g forward or
// back. A good guess reads a line or two of l where galloping from from
// reads one a doubling.
func seek4(l []p4Edge, from, g int, t int64) int {
	if l[g].t < t {
		return gallop4(l, g, t)
	}
	hi, step := g, 1 // l[hi].t ≥ t
	for hi-step > from && l[hi-step].t >= t {
		hi -= step
		step *= 2
	}
	lo := max(hi-step, from)
	if l[lo].t >= t {
		return lo // from itself
	}
	return bisect4(l, lo, hi, t)
}

// gallopAfter4 returns the first index at or after from whose time is
// after t (the sentinel's if none).
func gallopAfter4(l []p4Edge, from int, t int64) int {
	if t == math.MaxInt64 {
		return len(l) - 1
	}
	return gallop4(l, from, t+1)
}

// candidates appends to dst the indexes of list s's edges in [from, to)
// that have an edge of every other list within δ (an edge without one is
// in no sequence with one edge of each list within δ), skipping by
// galloping past the stretches where another list has none. order lists
// the other lists, shortest first: the first that has no edge near ends
// the test. The edges the other lists' found edges are near all take a
// run at once: a heavy list's edges come in long runs near a light
// list's few.
func candidates(dst []int32, lists [][]p4Edge, s, from, to int, delta int64, curs []nearCursor, order []int) []int32 {
	l := lists[s]
	for k := range lists {
		curs[k] = nearCursor{l: lists[k]}
	}
	i := from
	for i < to {
		t := l[i].t
		ok := true
		var next int64
		until := int64(math.MaxInt64) // the times every found edge is near from t on
		for _, k := range order {
			if k == s {
				continue
			}
			near, nx, none := curs[k].near(t, delta)
			if none {
				return dst // another list has no edge left within reach
			}
			if !near {
				ok, next = false, nx
				break
			}
			// Its edge (at or after t − δ, at most t + δ) is near every
			// time from t to its time + δ.
			until = min(until, motif.AddTicks(curs[k].l[curs[k].i].t, delta))
		}
		if ok {
			end := min(to, gallopAfter4(l, i, until))
			for ; i < end; i++ {
				dst = append(dst, int32(i))
			}
			continue
		}
		i = max(i+1, gallop4(l, i, motif.SubTicks(next, delta)))
	}
	return dst
}

// lightFirst orders sides by their edges in [from, to), fewest first.
func lightFirst(order []int, n []int) {
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && n[order[j]] < n[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}
