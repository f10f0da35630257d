package count3

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// pairEdge is one temporal edge in a node pair's list (position order),
// 16 bytes so that the heavy side's searches touch few cache lines and find
// its prefix count in the entry they stop on. Each list ends with a
// sentinel (T and pf at their maximum, in over the whole list), so
// searches stop on it and counts after the last edge need no branch.
// Edges may also lie at the largest time: the sentinel's pf still follows
// theirs, and the search for the edges after a time (after) returns it
// for the largest.
type pairEdge struct {
	T int64
	// pf packs the edge's position, relative to the window's first, above
	// its fIn and fCounted bits (seen from the pair's own end, its first
	// node in degree order): comparing pf compares positions.
	pf uint32
	// in: earlier edges of the list into the own end.
	in uint32
}

// pfFlags masks pf's flag bits; positions take the rest (maxRel).
const (
	pfFlags = uint32(fIn | fCounted)
	maxRel  = math.MaxUint32 >> 2
)

var sentinel = pairEdge{T: math.MaxInt64, pf: math.MaxUint32}

// pairList is a pair's edges with their sentinel and, when the scope does
// not count every edge, the counted edges before each (all and into the
// own end); when it does, they are the index and in. A list of at least
// indexMin entries also has its block index top (see seek).
type pairList struct {
	e         []pairEdge
	cAll, cIn []uint32
	top       []int64
}

// The block index of a long pair list: top[k] = e[blockLen·k].T, one
// int64 per blockLen entries, so a search that has to go far (the first
// into a heavy side, or a jump between bursts of light-side activity
// months apart) binary-searches an array 32 times smaller than the list,
// which stays in cache while the list's triangles are counted, and then
// reads one block (256 bytes, four adjacent lines) of the list instead of
// missing the cache at each of ~2·log₂(distance) galloping probes.
const (
	blockLen = 16
	indexMin = 4 * blockLen
)

// topLen is the block index length of a list of n entries (sentinel
// included).
func topLen(n int64) int64 {
	if n < indexMin {
		return 0
	}
	return n / blockLen
}

// seek returns the first index at or after from whose time is at least
// t (the sentinel stops it): a few galloping steps for a short move, then
// the block index if the list has one, else galloping on.
func (l *pairList) seek(from int, t int64) int {
	ts := l.e
	if ts[from].T >= t {
		return from
	}
	// Galloping steps of 1, 2, 4 and 8: their probes are read at once
	// and counted, not branched on (the sentinel stops a probe past the
	// list, and the probes that fall short are a prefix), where the
	// loop's exit mispredicted on moves spread from 1 to 15 entries.
	lo, end := from, len(ts)-1 // ts[lo].T < t
	k := earlier(ts[min(lo+1, end)].T, t) + earlier(ts[min(lo+3, end)].T, t) +
		earlier(ts[min(lo+7, end)].T, t) + earlier(ts[min(lo+15, end)].T, t)
	if k < 4 {
		return search(ts, lo+1<<k-1, min(lo+2<<k-1, end), t)
	}
	lo += blockLen - 1
	if l.top == nil {
		return gallop(ts, lo, t)
	}
	// Blocks after lo's: the first whose first time is at least t ends
	// the range, the one before it (or lo) starts it.
	top := l.top
	k0, k1 := lo/blockLen+1, len(top) // top[k0-1] < t as ts[lo].T < t
	for k0 < k1 {
		m := int(uint(k0+k1) >> 1)
		if top[m] < t {
			k0 = m + 1
		} else {
			k1 = m
		}
	}
	hi := len(ts) - 1
	if k0 < len(top) {
		hi = k0 * blockLen
	}
	return search(ts, max(lo, (k0-1)*blockLen), hi, t)
}

// earlier is 1 if a < b, else 0: a flag, not a branch.
func earlier(a, b int64) int {
	x := 0
	if a < b {
		x = 1
	}
	return x
}

// after returns the first index at or after from whose time is after t.
// No edge is after 2^63 − 1 (and seek(t+1) would wrap): then it is the
// sentinel's.
func (l *pairList) after(from int, t int64) int {
	if t == math.MaxInt64 {
		return len(l.e) - 1
	}
	return l.seek(from, t+1)
}

// counted returns the counted edges before index i, out of and into the
// own end: two scalars, where an array's two stores were read back as one
// wider load when countTriangle queued them (a stalled store forward).
func (l *pairList) counted(i int) (out, in int64) {
	if l.cAll == nil {
		return int64(i) - int64(l.e[i].in), int64(l.e[i].in)
	}
	return int64(l.cAll[i]) - int64(l.cIn[i]), int64(l.cIn[i])
}

// queued is an edge of a triangle's two light sides in the triangle
// pass's δ window, with the heavy side's counts it added to the sums, so
// that it takes them back when it leaves.
type queued struct {
	t        int64
	hi0, hi1 int64
	pa0, pa1 uint32
	label    int32
}

// countTriangle adds the triples of one static triangle whose last edge is
// counted. a is the heavy side x–y (its own end is x; fIn = y→x), b the
// light side x–w, c the light side y–w; fb and fc (0 or 1) flip their fIn
// so that it reads "w → x" and "w → y" (label dir 1) even where the pair's
// own end is w. q is scratch.
//
// Only the light sides' edges are walked, merged in position order; the
// heavy side is read through its prefix counts at three monotone search
// points, so a triangle costs O(|b| + |c|) whatever the size of a, and the
// heaviest side of each triangle is chosen as a. A triple holds one edge
// of each side. For every light pair (p, k) — p before k, on opposite
// sides, within δ: k is the current edge, p in the window — the a-edges
// that complete it are, by direction d, with PA(e) the a-edges before e
// and H(e) the counted a-edges no later than t(e) + δ:
//   - a first (position 0): PA(p) − #{a: t < t(k) − δ} (every such a lies
//     before p, as t(p) ≥ t(k) − δ);
//   - a between (position 1): PA(k) − PA(p);
//   - a last (position 2, the a-edge ends the triple so it must be
//     counted): H(p) − PAcounted(k) (every counted a before k is no later
//     than t(k) ≤ t(p) + δ).
//
// Summed over the window with per-label sums of PA(p) and H(p), each
// light edge adds its pairs in O(1). Light edges with no edge of the other
// light side within δ can be in no triple and are skipped by galloping.
//
// at is where b's and c's walk starts (nextActive's stop: every edge
// before it is isolated). Times may lie anywhere in the int64 range: the
// window tests are apart's exact differences, and the bounds searched for
// (t − δ, t + δ) are saturated, which selects the edges the true bounds
// do.
func countTriangle(a, b, c *pairList, fb, fc uint8, at [2]int, delta int64, qs *[]queued, raw *Raw) {
	ae := a.e
	var cnt [4]int64
	var s1, s2 [4][2]int64 // [label][d]: Σ PA_d(p), Σ H_d(p) over the window
	q := (*qs)[:0]
	head := 0
	lists := [2]*pairList{b, c}
	flips := [2]uint8{fb, fc}
	ip, il, ih := 0, 0, 0 // a-edges: first after the current edge, first at t−δ, first after t+δ
	for {
		side, ok := nextActive(b, c, &at, delta)
		if !ok {
			break
		}
		e := &lists[side].e[at[side]]
		at[side]++
		t := e.T
		for head < len(q) && apart(q[head].t, t, delta) {
			o := &q[head]
			head++
			l := o.label
			cnt[l]--
			s1[l][0] -= int64(o.pa0)
			s1[l][1] -= int64(o.pa1)
			s2[l][0] -= o.hi0
			s2[l][1] -= o.hi1
		}
		flags := uint8(e.pf & pfFlags)
		lk := int32(2*side) + int32((flags&fIn)^flips[side])
		// il ≤ ip ≤ ih: the a-edges before t−δ precede e, and those before
		// e are no later than t. t never decreases along the merge, so
		// every search starts where the last stopped, even after an
		// emptied window: galloping costs the log of the distance moved,
		// and a fresh binary search over a long heavy side missed the
		// cache at each step.
		// Most light edges move no cursor, or one a step: the tests
		// before each seek are inlined, seek is a call.
		if ae[il].T < t && apart(ae[il].T, t, delta) { // apart needs the order (ae[il] may lie after t)
			il = a.seek(il, motif.SubTicks(t, delta))
		}
		if ip = max(ip, il); ae[ip].T < t {
			ip = a.seek(ip, t)
		}
		for ae[ip].T == t && ae[ip].pf < e.pf {
			ip++
		}
		if ih = max(ih, ip); !apart(t, ae[ih].T, delta) { // ae[ih] is no earlier than ae[ip], so than t
			ih = a.after(ih, motif.AddTicks(t, delta))
		}
		in := ae[ip].in
		pa0, pa1 := uint32(ip)-in, in // scalars, as counted's
		ob := 2 * (side ^ 1)
		if flags&fCounted != 0 {
			lo1 := int64(ae[il].in)
			lo0 := int64(il) - lo1
			for lp := ob; lp < ob+2; lp++ {
				n := cnt[lp]
				if n == 0 {
					continue
				}
				raw[rawTri+4*lp+int(lk)] += s1[lp][0] - n*lo0
				raw[rawTri+16+4*lp+int(lk)] += s1[lp][1] - n*lo1
				raw[rawTri+32+4*lp+int(lk)] += n*int64(pa0) - s1[lp][0]
				raw[rawTri+32+16+4*lp+int(lk)] += n*int64(pa1) - s1[lp][1]
			}
		}
		pac0, pac1 := a.counted(ip)
		for lp := ob; lp < ob+2; lp++ {
			if n := cnt[lp]; n != 0 {
				raw[rawTri+64+4*lp+int(lk)] += s2[lp][0] - n*pac0
				raw[rawTri+64+16+4*lp+int(lk)] += s2[lp][1] - n*pac1
			}
		}
		hi0, hi1 := a.counted(ih)
		cnt[lk]++
		s1[lk][0] += int64(pa0)
		s1[lk][1] += int64(pa1)
		s2[lk][0] += hi0
		s2[lk][1] += hi1
		if len(q) == cap(q) && head >= len(q)/2 {
			// The window is q[head:]: slide it down instead of growing q
			// by every light edge of the triangle (a heavy triangle's
			// were megabytes, written once; growing them was a fifth of
			// the pass on tgraphgen's 10M-edge graph at δ = 86400).
			q = q[:copy(q, q[head:])]
			head = 0
		}
		// Field by field into its slot: a composite literal was built on
		// the stack and copied in 16-byte loads that spanned its 8-byte
		// stores (three stalled store forwards per light edge).
		n := len(q)
		if n == cap(q) {
			q = slices.Grow(q, 1)
		}
		q = q[:n+1]
		o := &q[n]
		o.t, o.hi0, o.hi1, o.pa0, o.pa1, o.label = t, hi0, hi1, pa0, pa1, lk
	}
	*qs = q
}

// scatter writes centre u's edges with the marked neighbours (F(u), each
// marked with its pair's index in cur) into their pair lists in pe, in
// position order, directions seen from u: cur holds each list's next free
// entry. Unlike build it makes no event and no slot for the other
// neighbours, whose edges are most of a hub's (hubs come last in degree
// order).
func (b *centreBuilder) scatter(u uint32, cur []int64, pe []pairEdge) {
	first := b.w.First()
	out, in := b.w.Out(u), b.w.In(u)
	i, j := b.firstAt(out, first), b.firstAt(in, first)
	for {
		var a window.Adj
		var fl uint32
		switch {
		case i < len(out) && (j >= len(in) || out[i].Rel < in[j].Rel): // one base: Rel orders as positions
			a = out[i]
			i++
		case j < len(in):
			a = in[j]
			j++
			fl = uint32(fIn)
		default:
			return
		}
		pos := b.w.Pos(a)
		if pos >= b.sc.hi {
			return // both lists are in position order
		}
		k, ok := b.marked(a.Other) // never u itself: self-loops stay out
		if !ok {
			continue
		}
		if b.sc.counted(pos) {
			fl |= uint32(fCounted)
		}
		pe[cur[k]] = pairEdge{T: a.T, pf: uint32(pos-first)<<2 | fl}
		cur[k]++
	}
}

// nextActive moves at (the next edge of b and of c) past the light edges
// with no edge of the other light side within δ, which can be in no
// triple, and returns the side of the first edge, by position, that has
// one; false once both lists are over.
func nextActive(b, c *pairList, at *[2]int, delta int64) (int, bool) {
	lists := [2]*pairList{b, c}
	for {
		side := 0
		if c.e[at[1]].pf < b.e[at[0]].pf {
			side = 1
		}
		ol := lists[side]
		own, other := ol.e, lists[side^1].e
		e := &own[at[side]]
		if e.pf == math.MaxUint32 {
			return 0, false // both at their sentinels
		}
		k := at[side^1] // other[k-1] is before e, other[k] after it
		last := len(other) - 1
		if (k == 0 || apart(other[k-1].T, e.T, delta)) && (k == last || apart(e.T, other[k].T, delta)) {
			if k == last {
				at[side] = len(own) - 1 // the other side is over: nothing more on this one
			} else {
				at[side] = ol.seek(at[side]+1, motif.SubTicks(other[k].T, delta))
			}
			continue
		}
		return side, true
	}
}

// gallop returns the first index at or after from whose time is at
// least t (a list's sentinel stops it): exponential steps, then a binary
// search, so a short skip costs O(1) and a long one O(log).
func gallop(ts []pairEdge, from int, t int64) int {
	if ts[from].T >= t {
		return from
	}
	lo, step := from, 1 // ts[lo].T < t
	for lo+step < len(ts) && ts[lo+step].T < t {
		lo += step
		step *= 2
	}
	return search(ts, lo, min(lo+step, len(ts)-1), t)
}

// search returns the first index in (lo, hi] whose time is at least t,
// given ts[hi].T >= t (lo = -1: the whole list).
func search(ts []pairEdge, lo, hi int, t int64) int {
	// lo moves by a flag, not a branch: which half holds the answer is a
	// coin toss, and the branch on it mispredicted at every other step.
	for n := hi - lo; n > 1; {
		half := n >> 1
		lo += half * earlier(ts[lo+half].T, t)
		n -= half
	}
	return lo + 1
}

// timeSpan is a pair's first and last edge times and the δ-wide time
// slots its edges fall in, folded into 64 bits: slot k = ⌊(t − t0)/δ⌋
// sets bit k mod 64. Two edges within δ of each other lie in the same or
// adjacent slots, so two pairs whose bits do not touch, even shifted by
// one, have no edges within δ (see near; slotGrid).
type timeSpan struct {
	first, last int64
	slots       uint64
}

// slotGrid is the δ-wide time slots of a window: slot k is [t0 + k·width,
// t0 + (k+1)·width), t0 the window's first time, width max(δ, 1). Offsets
// t − t0 are taken unsigned, exact for every time of the window where the
// signed difference would wrap past 2^63 − 1; the slots below last end at
// or before 2^63 − 1, the others past every time.
type slotGrid struct {
	t0          int64
	width, last uint64
}

func newSlotGrid(t0, delta int64) slotGrid {
	g := slotGrid{t0: t0, width: uint64(max(delta, 1))}
	g.last = (uint64(math.MaxInt64) - uint64(t0)) / g.width // 2^63 − 1 − t0, exact unsigned
	return g
}

// slot returns the slot of time t and the slot's end (the first time
// past it; math.MaxInt64 for the last slot, which ends past every time).
// Callers walking times in order call it once per slot entered, not per
// time (a division).
func (g slotGrid) slot(t int64) (k uint64, end int64) {
	k = uint64(t-g.t0) / g.width
	end = math.MaxInt64
	if k < g.last {
		end = g.t0 + int64((k+1)*g.width) // at most 2^63 − 1: exact
	}
	return k, end
}

// slots returns the timeSpan.slots of a list (sentinel excluded) in time
// order: one division per slot entered, not per edge. Not inlined: inlined
// in the pair-list pass, its loop lost its registers (8% more instructions
// in that pass's closure on CollegeMsg).
//
//go:noinline
func (g slotGrid) slots(l []pairEdge) uint64 {
	var set uint64
	end := int64(math.MinInt64) // the current slot's end (none yet)
	for i := range l {
		if t := l[i].T; t >= end {
			var k uint64
			k, end = g.slot(t)
			set |= 1 << (k & 63)
		}
	}
	return set
}

// near reports whether two pairs' slots leave room for one edge of each
// within δ. A necessary condition only (slots 64·δ apart share a bit), but
// it reads no edge list: on tgraphgen's 10M-edge graph at δ = 86400, of
// the 11.3 M static triangles that pass meets, 9.4 M have no light-side
// pair within δ, and near rejects 4.4 M of them, each of which
// nextActive found out with cache misses in two lists.
func (s timeSpan) near(s2 timeSpan) bool {
	x := s2.slots
	return s.slots&(x|bits.RotateLeft64(x, 1)|bits.RotateLeft64(x, -1)) != 0
}

// meets reports whether three pairs' spans leave room for a triple within
// δ: one edge of each, the last no more than δ after the first. Most
// static triangles of a long graph fail it (sides active months apart),
// and it reads no edge list.
func (s timeSpan) meets(s2, s3 timeSpan, delta int64) bool {
	first, last := max(s.first, s2.first, s3.first), min(s.last, s2.last, s3.last)
	return first <= last || !apart(last, first, delta)
}

// triangles lists the static triangles in degree order and counts each
// as it is found (countTriangle), its heaviest side as a.
func (c *counter) triangles(ctx context.Context) error {
	n := c.nodes
	before := func(u, v uint32) bool { // degree order, then id
		return c.deg[u] < c.deg[v] || c.deg[u] == c.deg[v] && u < v
	}
	// Forward adjacency F(u): neighbours after u in degree order. Pair id
	// = index into fnbr; its own end is u (the lower end). Built per node
	// in parallel (sizes, offsets, contents) so that no serial walk over
	// every adjacency stays behind when the cores grow.
	foff := make([]int64, n+1) // F(u) = fnbr[foff[u]:foff[u+1]]
	eoff := make([]int64, n+1) // u's pair lists, sentinels included, from pe[eoff[u]]
	koff := make([]int64, n+1) // u's pairs' block indexes, from top[koff[u]]
	forward := func(u int, fn func(v uint32, m int32)) {
		for i := c.off[u]; i < c.off[u]+int64(c.deg[u]); i++ {
			if v := c.nbr[i]; before(uint32(u), v) {
				fn(v, c.mult[i])
			}
		}
	}
	err := c.parallel(ctx, n, 1024, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			forward(u, func(_ uint32, m int32) {
				foff[u+1]++
				eoff[u+1] += int64(m) + 1
				koff[u+1] += topLen(int64(m) + 1)
			})
		}
	})
	if err != nil {
		return err
	}
	for u := range n {
		foff[u+1] += foff[u]
		eoff[u+1] += eoff[u]
		koff[u+1] += koff[u]
	}
	c.ph.mark("forward-sizes")
	pairs := foff[n]
	if pairs > math.MaxUint32 {
		return fmt.Errorf("count3: %d node pairs exceed the triangle listing's 32-bit pair ids", pairs)
	}
	fnbr := make([]uint32, pairs)
	fmult := make([]int32, pairs)
	loff := make([]int64, pairs+1) // pair j's list with its sentinel: pe[loff[j]:loff[j+1]]
	loff[pairs] = eoff[n]
	if koff[n] > math.MaxUint32 {
		return fmt.Errorf("count3: %d block index entries exceed the triangle pass's 32-bit offsets", koff[n])
	}
	toff := make([]uint32, pairs+1) // pair j's block index: top[toff[j]:toff[j+1]]
	toff[pairs] = uint32(koff[n])
	err = c.parallel(ctx, n, 1024, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			j, at, k := foff[u], eoff[u], koff[u]
			forward(u, func(v uint32, m int32) {
				fnbr[j], fmult[j], loff[j], toff[j] = v, m, at, uint32(k)
				at += int64(m) + 1
				k += topLen(int64(m) + 1)
				j++
			})
		}
	})
	if err != nil {
		return err
	}
	c.ph.mark("forward-fill")
	// Each pair's edges in position order, directions seen from its own
	// end, then the prefix counts and the sentinel.
	first := c.w.First()
	if c.sc.hi-first > maxRel {
		return fmt.Errorf("count3: a window of %d edges exceeds the triangle pass's %d (its positions are packed in 30 bits)", c.sc.hi-first, maxRel)
	}
	if loff[pairs] > math.MaxUint32 {
		return fmt.Errorf("count3: %d pair list entries exceed the triangle pass's 32-bit indexes", loff[pairs])
	}
	pe := make([]pairEdge, loff[pairs])
	top := make([]int64, toff[pairs])
	var cAll, cIn []uint32
	if c.sc.lo > first || c.sc.mask != nil {
		cAll, cIn = make([]uint32, loff[pairs]), make([]uint32, loff[pairs])
	}
	span := make([]timeSpan, pairs)
	grid := newSlotGrid(c.w.T(first), c.delta)
	cursors := make([][]int64, c.workers)
	err = c.heavyFirst(ctx, n, 16, 2*int64(c.w.Len()), c.degree, func(wk, u int) { // chunks of 16: as in centres
		if foff[u] == foff[u+1] {
			return
		}
		b := c.builder(wk) // its node arrays mark F(u) with the pairs' indexes in cur
		b.markSet()
		cur := resize(cursors[wk], int(foff[u+1]-foff[u])) // next free entry of each pair's list
		cursors[wk] = cur
		for j := foff[u]; j < foff[u+1]; j++ {
			b.mark(fnbr[j], uint32(j-foff[u]))
			cur[j-foff[u]] = loff[j]
		}
		b.scatter(uint32(u), cur, pe)
		for j := foff[u]; j < foff[u+1]; j++ {
			var in, ca, ci uint32
			l := pe[loff[j]:loff[j+1]]
			for i := range l[:len(l)-1] {
				e := &l[i]
				e.in = in
				d := e.pf & uint32(fIn)
				in += d
				if cAll != nil {
					cAll[loff[j]+int64(i)], cIn[loff[j]+int64(i)] = ca, ci
					if e.pf&uint32(fCounted) != 0 {
						ca++
						ci += d
					}
				}
			}
			s := sentinel
			s.in = in
			l[len(l)-1] = s
			if cAll != nil {
				cAll[loff[j+1]-1], cIn[loff[j+1]-1] = ca, ci
			}
			span[j] = timeSpan{l[0].T, l[len(l)-2].T, grid.slots(l[:len(l)-1])}
			for k, i := toff[j], 0; k < toff[j+1]; k, i = k+1, i+blockLen {
				top[k] = l[i].T
			}
		}
	})
	if err != nil {
		return err
	}
	c.ph.mark("pair-lists")
	list := func(j uint32) pairList {
		l := pairList{e: pe[loff[j]:loff[j+1]]}
		if toff[j] < toff[j+1] {
			l.top = top[toff[j]:toff[j+1]]
		}
		if cAll != nil {
			l.cAll, l.cIn = cAll[loff[j]:loff[j+1]], cIn[loff[j]:loff[j+1]]
		}
		return l
	}
	// Scheduling. A node's triangle work is its triangles' light-side edges
	// near each other, which nothing cheap predicts: listing work (forward
	// pairs' forward degrees) misses it entirely, as the hubs come last in
	// degree order and have few forward pairs, yet their pairs hold most
	// edges. On tgraphgen's 10M-edge graph the costliest nodes are low ids
	// (Zipf hubs) and chunks of 64 gave one worker 3.2× the mean, so the
	// nodes go in chunks of 4 (one atomic add each, against ~100 µs of
	// work), heavy first by incident edges, so that a hub whose triangles
	// are costly does not start late whatever its id.
	work := make([]int64, n)
	err = c.parallel(ctx, n, 1024, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			if foff[u+1]-foff[u] >= 2 {
				work[u] = c.degree(u)
			}
		}
	})
	if err != nil {
		return err
	}
	var total int64
	for _, k := range work {
		total += k
	}
	c.ph.mark("work")
	queues := make([][]queued, c.workers)
	bufs := make([][]triangle, c.workers)
	scratch := make([][]triangle, c.workers)
	countOne := func(wk int, r *triangle) {
		la := list(r.a)
		lb, lc := pairList{e: pe[r.b : r.b+r.nb]}, pairList{e: pe[r.c : r.c+r.nc]}
		countTriangle(&la, &lb, &lc, r.flips&1, r.flips>>1, [2]int{}, c.delta, &queues[wk], &c.raws[wk].Raw)
	}
	count := func(wk int, ts []triangle) {
		for i := range ts {
			countOne(wk, &ts[i])
		}
	}
	err = c.heavyFirst(ctx, n, 4, total, func(u int) int64 { return work[u] }, func(wk, u int) {
		if foff[u+1]-foff[u] < 2 {
			return
		}
		b := c.builder(wk) // its node arrays mark F(u) with pair ids
		b.markSet()
		for j := foff[u]; j < foff[u+1]; j++ {
			b.mark(fnbr[j], uint32(j))
		}
		buf := bufs[wk]
		for j := foff[u]; j < foff[u+1]; j++ {
			v := fnbr[j]
			for j2 := foff[v]; j2 < foff[v+1]; j2++ {
				uz, ok := b.marked(fnbr[j2])
				if !ok {
					continue
				}
				// Pairs (own end first): uv (u, v), uz (u, z), vz (v, z).
				uv, vz := uint32(j), uint32(j2)
				if !span[uv].meets(span[uz], span[vz], c.delta) {
					continue
				}
				var r triangle
				switch m1, m2, m3 := fmult[uv], fmult[uz], fmult[vz]; {
				case m1 >= m2 && m1 >= m3: // x–y = u–v, w = z
					r = triangle{a: uv, b: uz, c: vz}
				case m2 >= m3: // x–y = u–z, w = v: v–z's own end is v
					r = triangle{a: uz, b: uv, c: vz, flips: 2}
				default: // x–y = v–z, w = u: both light sides' own end is u
					r = triangle{a: vz, b: uv, c: uz, flips: 3}
				}
				if !span[r.b].near(span[r.c]) {
					continue
				}
				// Unindexed, as countTriangle reads them: reading their
				// block index offsets (a cache miss per light side) cost
				// the listing more than galloping without the index
				// costs its skips (listing cpu 0.93× in turn on
				// tgraphgen 1M, δ 86400).
				lb, lc := pairList{e: pe[loff[r.b]:loff[r.b+1]]}, pairList{e: pe[loff[r.c]:loff[r.c+1]]}
				var at [2]int
				if _, ok := nextActive(&lb, &lc, &at, c.delta); !ok {
					continue
				}
				// The light sides from where the walk starts to their
				// sentinels, so that counting reads neither their offsets
				// nor their block indexes: cache misses per triangle, in
				// the counting and in the passes that weigh the batches.
				r.b, r.nb = uint32(loff[r.b]+int64(at[0])), uint32(len(lb.e)-at[0])
				r.c, r.nc = uint32(loff[r.c]+int64(at[1])), uint32(len(lc.e)-at[1])
				if buf = append(buf, r); len(buf) == triangleBatch {
					sortTriangles(buf, &scratch[wk])
					count(wk, buf)
					buf = buf[:0]
				}
			}
		}
		bufs[wk] = buf
	})
	if err != nil {
		return err
	}
	c.ph.mark("listing")
	// The workers' last batches: sorted each by one worker, then counted
	// by all. A triangle's cost is its light sides' edges, which spans
	// orders of magnitude: the few above 1/(256·workers) of the total are
	// counted first, one at a time, heaviest first, so that none starts
	// late; the rest in chunks of 64, read where they lie in the workers'
	// batches (copying them into one list is a serial step, about a tenth
	// of the pass at 16 workers).
	cost := func(r *triangle) int64 { return int64(r.nb) + int64(r.nc) }
	costs := make([]int64, len(bufs))
	err = c.parallel(ctx, len(bufs), 1, func(wk, lo, hi int) {
		for b := lo; b < hi; b++ {
			if len(bufs[b]) > 0 {
				sortTriangles(bufs[b], &scratch[wk])
			}
			for i := range bufs[b] {
				costs[b] += cost(&bufs[b][i])
			}
		}
	})
	if err != nil {
		return err
	}
	c.ph.mark("sort")
	var totalCost int64
	starts := make([]int, len(bufs)+1) // bufs[b] holds the triangles [starts[b], starts[b+1])
	for b, buf := range bufs {
		totalCost += costs[b]
		starts[b+1] = starts[b] + len(buf)
	}
	heavyMin := max(totalCost/int64(256*c.workers), 1)
	type ref struct {
		cost int64
		r    *triangle
	}
	heavyOf := make([][]ref, len(bufs))
	err = c.parallel(ctx, len(bufs), 1, func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			for i := range bufs[b] {
				if r := &bufs[b][i]; cost(r) >= heavyMin {
					heavyOf[b] = append(heavyOf[b], ref{cost(r), r})
				}
			}
		}
	})
	if err != nil {
		return err
	}
	c.ph.mark("heavy-scan")
	heavy := slices.Concat(heavyOf...)
	slices.SortFunc(heavy, func(x, y ref) int { return cmp.Compare(y.cost, x.cost) })
	// One pool, no barrier: the heavy triangles are the first items, one
	// each, the chunks after them, so a worker done with its heavy
	// triangle goes on with chunks while the heaviest is still counted
	// (a single heavy triangle can cost as much as the rest of a worker's
	// share: with a barrier the others would idle behind it).
	const chunk = 64
	listed := starts[len(bufs)]
	chunks := (listed + chunk - 1) / chunk
	err = c.parallel(ctx, len(heavy)+chunks, 1, func(wk, item, _ int) {
		if item < len(heavy) {
			countOne(wk, heavy[item].r)
			return
		}
		lo := (item - len(heavy)) * chunk
		hi := min(lo+chunk, listed)
		b, _ := slices.BinarySearch(starts, lo+1) // first b with starts[b] > lo: lo lies in bufs[b-1]
		for b--; lo < hi; b++ {
			buf := bufs[b]
			for i := lo - starts[b]; i < len(buf) && lo < hi; i, lo = i+1, lo+1 {
				if r := &buf[i]; cost(r) < heavyMin {
					countOne(wk, r)
				}
			}
		}
	})
	c.ph.mark("count")
	return err
}

// triangle is a static triangle with a light-side pair within δ, to be
// counted: its heavy side's pair id a, its light sides b and c (while it
// is listed, their pair ids; once listed, their lists' entries
// pe[b:b+nb] and pe[c:c+nc] from where nextActive stopped to the
// sentinels, unindexed: light sides are searched by galloping), with
// countTriangle's flips (fb | fc<<1).
type triangle struct {
	a, b, c uint32
	nb, nc  uint32
	flips   uint8
}

// triangleBatch is how many triangles a worker gathers before counting them
// (24 bytes each: 12 MB per worker at most).
var triangleBatch = 1 << 19

// sortTriangles orders a batch by heavy side, so that the triangles
// sharing one are counted one after another while its list and block
// index stay in cache. On tgraphgen's 10M-edge graph the 1.97 M
// triangles with a light pair within δ (δ = 86400) share 91,834 heavy
// sides, most in groups of 2^7–2^12; counted in listing order, each
// triangle's first search into its heavy side, and each jump between
// bursts months apart, missed the cache. A stable radix sort on the pair
// id (11 bits a pass, as many passes as the largest id needs) through
// scratch: a comparison sort of the batch cost half of what grouping
// saved.
func sortTriangles(ts []triangle, scratch *[]triangle) {
	var top uint32
	for i := range ts {
		top = max(top, ts[i].a)
	}
	const bits = 11
	if cap(*scratch) < len(ts) {
		*scratch = make([]triangle, len(ts))
	}
	src, dst := ts, (*scratch)[:len(ts)]
	for shift := 0; shift < 32 && top>>shift != 0; shift += bits {
		var at [1 << bits]int
		for i := range src {
			at[src[i].a>>shift&(1<<bits-1)]++
		}
		sum := 0
		for d, n := range at {
			at[d], sum = sum, sum+n
		}
		for i := range src {
			d := src[i].a >> shift & (1<<bits - 1)
			dst[at[d]] = src[i]
			at[d]++
		}
		src, dst = dst, src
	}
	if len(ts) > 0 && &src[0] != &ts[0] {
		copy(ts, src)
	}
}
