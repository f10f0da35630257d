package count3

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/window"
)

// seqKey is an edge in a node's sequence (its incident edges, self-loops
// left out, in position order, before the scope's end): its position
// relative to the window's first, and the node's edges before it by
// direction: in1 into the node of all of them (index − in1 out of it), c0
// and c1 of the counted ones. Counts fit in uint32: a window holds fewer
// than 2^32 edges (window.Adj.Rel). The path pass searches these 16-byte
// entries and reads the counts where a search stops, on the same cache
// line; each sequence ends with a sentinel (pos at its maximum, the
// sequence's totals) so that a search stops and a count after the last
// edge needs no branch.
type seqKey struct {
	pos, in1, c0, c1 uint32
}

// seqEntry is the rest of a sequence's edge, read where the pass visits
// it: its other end, its δ window's ends (pathSeqs), and its position
// above its flags (fIn, fCounted; pfFlags), as in the triangle pass's
// pair lists (positions fit in 30 bits: maxRel): a visit to a near
// node's edge reads one line of one array. The sentinel's pf is all ones.
type seqEntry struct {
	other, from, after, pf uint32
}

func (e *seqEntry) pos() uint32  { return e.pf >> 2 }
func (e *seqEntry) flags() uint8 { return uint8(e.pf & pfFlags) }

// pathSeqs are every node's sequences: node v's n[v] edges at
// key[off[v]:] and ent[off[v]:], its sentinel after them. bound[r] are,
// for the edge at relative position r, the first position more than δ
// after its time and the first no more than δ before it (deltaBound), so
// window tests become position comparisons. A node's sequence of at
// least bucketMin edges has a bucket table at tbl[toff[v]:]: entry b is
// the index of its first edge at or after position b<<shift[v], at most
// one edge a bucket on average, so that a search (a heavy node's
// sequence, searched at each of a light node's edges near the pair and δ
// before and after each) finds its answer at its bucket's first edge or
// the next, mostly, and decides which without a branch. A dense one
// (rankDense) has rank lines at lines[loff[v]:] instead, which answer a
// search without a table. The same edges grouped by neighbour are the
// pair runs (groupSeq).
type pathSeqs struct {
	off   []int64
	n     []int32
	key   []seqKey
	ent   []seqEntry
	bound []deltaBound
	toff  []int64
	shift []uint8
	tbl   []uint32
	loff  []int64
	lines []rankLine
	// Pair runs: node v's edges grouped by neighbour in c.nbr's order,
	// each group in position order, at off[v] + runAt[c.off[v]+i] for its
	// i-th neighbour (c.mult edges): as the pass reads a pair's edges,
	// class and flags (rPair: at v), positions and δ windows, side by side.
	runAt []int32
	rPair []pathPairEdge
	rPos  []uint32
	rBd   []deltaBound
}

const bucketMin = 64

// rankDense: a sequence of n ≥ bucketMin edges over a scope of s
// positions has rank lines if s ≤ rankDense·n, where they take no more
// memory than its keys (tgraphgen 1M, δ 86400: its 4 largest hubs, which
// a third of the pass's searches go to). A variable for tests.
var rankDense = int64(16)

// rankLine is 32 positions [32·i, 32·i+32) of a dense node's sequence:
// bitmaps of the positions that hold its edges (all), its edges into it
// (in) and its counted edges out of and into it (c0, c1), and the counts
// of each before the line. Its search (rankAt) is one line's read and
// four population counts, with no branch on what it reads: in a hub's
// sequence, a bucket table's search missed the cache at its table and
// again at its keys, and mispredicted its scan's exit.
type rankLine struct {
	all, in, c0, c1     uint32
	nAll, nIn, nC0, nC1 uint32
}

// rankAt returns the index in a sequence with rank lines l of its first
// edge at or after position p, and its edges before it: into the node,
// counted out of it and counted into it.
func rankAt(l []rankLine, p uint32) (j int, in1, c0, c1 uint32) {
	r := &l[p>>5]
	m := uint32(1)<<(p&31) - 1
	return int(r.nAll) + bits.OnesCount32(r.all&m), r.nIn + uint32(bits.OnesCount32(r.in&m)),
		r.nC0 + uint32(bits.OnesCount32(r.c0&m)), r.nC1 + uint32(bits.OnesCount32(r.c1&m))
}

// of returns node v's sequence, its sentinels included.
func (s *pathSeqs) of(v uint32) ([]seqEntry, []seqKey) {
	lo, hi := s.off[v], s.off[v]+int64(s.n[v])
	return s.ent[lo : hi+1], s.key[lo : hi+1]
}

// seeker finds positions in one node's sequence: by its rank lines if it
// has them, else by searching it.
type seeker struct {
	q     []seqKey
	tbl   []uint32
	shift uint8
	lines []rankLine
}

func (s *pathSeqs) seeker(v uint32, q []seqKey) seeker {
	return seeker{q: q, tbl: s.tbl[s.toff[v]:s.toff[v+1]], shift: s.shift[v], lines: s.lines[s.loff[v]:s.loff[v+1]]}
}

// seek returns the first index i ≥ from of the sequence whose position is
// at least p (its sentinel's if none).
func (s *seeker) seek(from int, p uint32) int {
	q := s.q
	if len(s.lines) > 0 {
		j, _, _, _ := rankAt(s.lines, p)
		return j
	}
	if len(s.tbl) > 0 {
		// p's bucket holds one edge or none, mostly: two steps that
		// branch on nothing find the answer, where a scan's exit was a
		// mispredicted branch at each search.
		j := int(s.tbl[p>>s.shift])
		j += below(q[j].pos, p)
		j += below(q[j].pos, p)
		if q[j].pos >= p {
			return j
		}
		return gallopSeq(q, j, p)
	}
	for range 4 { // the sentinel stops it
		if q[from].pos >= p {
			return from
		}
		from++
	}
	return gallopSeq(q, from, p)
}

// below is 1 if a < b, else 0, computed without a branch.
func below(a, b uint32) int {
	return int((uint64(a) - uint64(b)) >> 63)
}

// bucketShift is the shift that gives a sequence of n edges 1/2 to 1 edge
// a bucket over positions [0, span].
func bucketShift(span uint32, n int) uint8 {
	want := max(2*uint64(n), 1)
	s := 0
	for uint64(span)>>s >= want {
		s++
	}
	return uint8(s)
}

// pathPairEdge is an edge of the pair being counted (its middle edges):
// class (0: from the near node x to the far node y, 1: the other way) and
// flags at the far node (fIn: into y; fCounted). Its position and δ
// window are beside it in the pair runs (pathSeqs.rPos, rBd).
type pathPairEdge struct {
	cls, flags uint8
}

// clsSums are prefix sums over a pair's edges of one class (pairSums):
// the edges (n), and for each edge m, by direction at the far node (0:
// out of it, 1: into it), the far node's edges to fourth nodes that are
// counted and up to δ after m (endC), counted and up to m (upToC), and
// all before m (bef; up to m is the same: m is the pair's) (pathsOfPair). Scalars, not arrays:
// the pass's values stay in registers, and it stores none of them in
// halves that a wider load then reads back (a stalled store forwarding).
type clsSums struct {
	n                            int64
	endC0, endC1, upToC0, upToC1 int64
	bef0, bef1                   int64
}

// pairSums are the prefix sums of a pair's two classes.
type pairSums [2]clsSums

// deltaBound are an edge's δ window's ends as positions: the first no
// more than δ before it and the first more than δ after it.
type deltaBound struct{ from, after uint32 }

// pathBuf is a worker's scratch for one pair.
type pathBuf struct {
	far  [][4]int64 // the pair's edges before each and in all, at the far node: out, in, counted out, counted in
	sums []pairSums
}

// cursor is an index j into the far node's sequence, its edges before j
// into it (in1), counted out of it (c0) and counted into it (c1), and the
// pair's edges before j (k): j and k only move forward.
type cursor struct {
	j, k        int
	in1, c0, c1 uint32
}

// to moves c to the far node's first edge at or after position p, k of
// the pair's edges being before p.
func (c *cursor) to(y *seeker, p uint32, k int) {
	switch {
	case len(y.lines) > 0:
		c.j, c.in1, c.c0, c.c1 = rankAt(y.lines, p)
	case y.q[c.j].pos < p:
		// Else c is already there, its counts with it: the entry was
		// read when c last moved (the zero cursor is the first entry's,
		// whose counts are zero). 45% of the visits' moves in bucketed
		// sequences on tgraphgen 1M at δ 86400, each a table read and
		// one or two entries' saved.
		c.j = y.seek(c.j, p)
		e := &y.q[c.j]
		c.in1, c.c0, c.c1 = e.in1, e.c0, e.c1
	}
	c.k = k // the pair's edges are the far node's: none lies in [p, pos[j])
}

// gallopKey returns the first index i ≥ from with keys[i] ≥ p (len(keys) if
// none), keys ascending: steps that double from from, then a binary
// search of the last step, so that a search that moves forward a little
// costs little (the pass's cursors move forward with the near node's
// edges).
func gallopKey(keys []uint32, from int, p uint32) int {
	n := len(keys)
	if from >= n || keys[from] >= p {
		return from
	}
	lo, hi, step := from, n, 1 // keys[lo] < p; hi == n or keys[hi] ≥ p
	for {
		next := lo + step
		if next >= n {
			break
		}
		if keys[next] >= p {
			hi = next
			break
		}
		lo, step = next, 2*step
	}
	for lo+1 < hi {
		if h := int(uint(lo+hi) >> 1); keys[h] < p {
			lo = h
		} else {
			hi = h
		}
	}
	return hi
}

// gallopSeq is gallopKey over a sequence, whose sentinel stops it.
func gallopSeq(q []seqKey, from int, p uint32) int {
	if q[from].pos >= p {
		return from
	}
	lo, hi, step := from, len(q)-1, 1 // q[lo].pos < p ≤ q[hi].pos
	for {
		next := lo + step
		if next >= hi {
			break
		}
		if q[next].pos >= p {
			hi = next
			break
		}
		lo, step = next, 2*step
	}
	for lo+1 < hi {
		if h := int(uint(lo+hi) >> 1); q[h].pos < p {
			lo = h
		} else {
			hi = h
		}
	}
	return hi
}

// deltaBounds fills s.bound over the positions below the scope's end, two
// pointers over the window's times.
func (c *counter) deltaBounds(s *pathSeqs) {
	first := c.w.First()
	_, _, ts := c.w.Columns(first, c.sc.hi)
	n := len(ts)
	s.bound = make([]deltaBound, n)
	a, f := 0, 0
	for r, t := range ts {
		a = max(a, r)
		for a < n && !apart(t, ts[a], c.delta) {
			a++
		}
		for apart(ts[f], t, c.delta) {
			f++
		}
		s.bound[r] = deltaBound{from: uint32(f), after: uint32(a)}
	}
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
	sq := &pathSeqs{off: make([]int64, c.nodes+1), n: make([]int32, c.nodes),
		toff: make([]int64, c.nodes+1), shift: make([]uint8, c.nodes), loff: make([]int64, c.nodes+1)}
	if c.sc.hi-c.w.First() > maxRel { // Count's triangle pass, first, says the same
		return fmt.Errorf("count3: a window of %d edges exceeds the path pass's %d (its positions are packed in 30 bits)", c.sc.hi-c.w.First(), maxRel)
	}
	span := uint32(c.sc.hi - c.w.First())
	for v := range c.nodes {
		d := len(c.w.Out(uint32(v))) + len(c.w.In(uint32(v)))
		sq.off[v+1] = sq.off[v] + int64(d) + 1 // and the sentinel
		var nb, nl int64
		switch {
		case d >= bucketMin && int64(span) <= rankDense*int64(d):
			nl = int64(span>>5) + 1 // searches stop at positions up to span
		case d >= bucketMin:
			sq.shift[v] = bucketShift(span, d)
			nb = int64(span>>sq.shift[v]) + 1
		}
		sq.toff[v+1] = sq.toff[v] + nb
		sq.loff[v+1] = sq.loff[v] + nl
	}
	sq.key = make([]seqKey, sq.off[c.nodes])
	sq.ent = make([]seqEntry, sq.off[c.nodes])
	sq.tbl = make([]uint32, sq.toff[c.nodes])
	sq.lines = make([]rankLine, sq.loff[c.nodes])
	sq.runAt = make([]int32, c.off[c.nodes])
	sq.rPair = make([]pathPairEdge, sq.off[c.nodes])
	sq.rPos = make([]uint32, sq.off[c.nodes])
	sq.rBd = make([]deltaBound, sq.off[c.nodes])
	c.deltaBounds(sq) // before the sequences, which copy it
	slots, curs := make([][]int32, c.workers), make([][]int32, c.workers)
	err := c.parallel(ctx, c.nodes, 64, func(wk, lo, hi int) {
		if slots[wk] == nil {
			slots[wk] = make([]int32, c.nodes)
		}
		for v := lo; v < hi; v++ {
			sq.n[v] = int32(c.fillSeq(uint32(v), sq))
			curs[wk] = c.groupSeq(uint32(v), sq, slots[wk], curs[wk])
		}
	})
	c.ph.mark("path-sequences")
	if err != nil {
		return err
	}
	sq.bound = nil // the sequences and pair runs hold the δ windows now
	bufs := make([]pathBuf, c.workers)
	// Each pair is counted by its heavier end y, from its lighter end x
	// (pathsOfPair), y taking its pairs in turn: their searches in y's
	// sequence, at each of x's edges near the pair and δ before and after
	// it, then find it in cache, where pairs taken by their lower ends met
	// a new far sequence each. y's weight is its pairs' x edges; a hub's
	// pairs run as parts, split by x.
	weight := make([]int64, c.nodes)
	var total int64
	for y := range c.nodes {
		for _, x := range c.nbr[c.off[y] : c.off[y]+int64(c.deg[y])] {
			if sq.lighter(x, uint32(y)) {
				weight[y] += int64(sq.n[x])
			}
		}
		total += weight[y]
	}
	return c.heavySplit(ctx, c.nodes, 16, total, func(y int) int64 { return weight[y] }, int64(4*c.workers), func(wk, y, part, parts int) {
		r := (*[RawLen - rawPath]int64)(c.raws[wk].Raw[rawPath:])
		for i, x := range c.nbr[c.off[y] : c.off[y]+int64(c.deg[y])] {
			if sq.lighter(x, uint32(y)) && inPart(x, part, parts) {
				s := c.off[y] + int64(i)
				g := sq.off[y] + int64(sq.runAt[s])
				c.pathsOfPair(sq, x, uint32(y), g, g+int64(c.mult[s]), &bufs[wk], r)
			}
		}
	})
}

// groupSeq writes node v's pair runs from its sequence: a counting sort
// by neighbour, its groups' sizes the static graph's edge counts (mult).
// A pair's edges are then a run of its heavier end's, read in turn,
// where the window's pair lists took a hash lookup each, a merge of two
// directions and a cache miss at each edge for its δ window. slot is a
// node-sized scratch; cur, its neighbours' next free entries, is
// returned for the next node.
func (c *counter) groupSeq(v uint32, sq *pathSeqs, slot, cur []int32) []int32 {
	nb := c.nbr[c.off[v] : c.off[v]+int64(c.deg[v])]
	cur = resize(cur, len(nb))
	at := int32(0)
	for i, u := range nb {
		slot[u] = int32(i)
		sq.runAt[c.off[v]+int64(i)] = at
		cur[i] = at
		at += c.mult[c.off[v]+int64(i)]
	}
	base := sq.off[v]
	key, ent := sq.key[base:base+int64(sq.n[v])], sq.ent[base:base+int64(sq.n[v])]
	for k := range ent {
		e := &ent[k]
		i := slot[e.other]
		g := base + int64(cur[i])
		cur[i]++
		fl := e.flags()
		sq.rPair[g] = pathPairEdge{cls: 1 - fl&fIn, flags: fl} // x→y is into y
		sq.rPos[g] = key[k].pos
		sq.rBd[g] = deltaBound{from: e.from, after: e.after}
	}
	return cur
}

// lighter reports whether node x's sequence is shorter than y's, or as
// long and x's id lower: the end of a pair that the path pass walks.
func (s *pathSeqs) lighter(x, y uint32) bool {
	return s.n[x] < s.n[y] || s.n[x] == s.n[y] && x < y
}

// fillSeq writes node v's sequence, its sentinel and its bucket table,
// and returns its length.
func (c *counter) fillSeq(v uint32, sq *pathSeqs) int {
	first := c.w.First()
	key, ent := sq.key[sq.off[v]:sq.off[v+1]], sq.ent[sq.off[v]:sq.off[v+1]]
	out, in := c.w.Out(v), c.w.In(v)
	i, j, n := 0, 0, 0
	var in1, c0, c1 uint32
	for i < len(out) || j < len(in) {
		var a window.Adj
		var fl uint8
		if j >= len(in) || (i < len(out) && out[i].Rel < in[j].Rel) {
			a = out[i]
			i++
		} else {
			a, fl = in[j], fIn
			j++
		}
		pos := c.w.Pos(a)
		if pos >= c.sc.hi {
			break // both lists are in position order
		}
		if a.Other == v {
			continue
		}
		counted := c.sc.counted(pos)
		if counted {
			fl |= fCounted
		}
		rel := uint32(pos - first)
		key[n] = seqKey{pos: rel, in1: in1, c0: c0, c1: c1}
		ent[n] = seqEntry{other: a.Other, pf: rel<<2 | uint32(fl)}
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
	key[n] = seqKey{pos: math.MaxUint32, in1: in1, c0: c0, c1: c1}
	ent[n] = seqEntry{pf: math.MaxUint32}
	// The δ windows in a loop of their own: each read misses the cache
	// (the node's edges lie all over the window), and loads that no
	// mispredicted branch (the merge's) cancels overlap.
	for k := range ent[:n] {
		bd := sq.bound[key[k].pos]
		ent[k].from, ent[k].after = bd.from, bd.after
	}
	if tbl := sq.tbl[sq.toff[v]:sq.toff[v+1]]; len(tbl) > 0 {
		sh, k := sq.shift[v], 0
		for b := range tbl {
			for k < n && key[k].pos < uint32(b)<<sh {
				k++
			}
			tbl[b] = uint32(k)
		}
	}
	if lines := sq.lines[sq.loff[v]:sq.loff[v+1]]; len(lines) > 0 {
		for i, e := range ent[:n] {
			l, bit := &lines[key[i].pos>>5], uint32(1)<<(key[i].pos&31)
			l.all |= bit
			switch {
			case e.flags()&fIn == 0:
				if e.flags()&fCounted != 0 {
					l.c0 |= bit
				}
			case e.flags()&fCounted != 0:
				l.in |= bit
				l.c1 |= bit
			default:
				l.in |= bit
			}
		}
		var na, ni, n0, n1 uint32
		for i := range lines {
			l := &lines[i]
			l.nAll, l.nIn, l.nC0, l.nC1 = na, ni, n0, n1
			na += uint32(bits.OnesCount32(l.all))
			ni += uint32(bits.OnesCount32(l.in))
			n0 += uint32(bits.OnesCount32(l.c0))
			n1 += uint32(bits.OnesCount32(l.c1))
		}
	}
	return n
}

// pathsOfPair adds the paths whose middle edge joins xn, the pair's
// lighter end, and yn, whose edges are yn's pair run [g0, g1).
func (c *counter) pathsOfPair(sq *pathSeqs, xn, yn uint32, g0, g1 int64, b *pathBuf, r *[RawLen - rawPath]int64) {
	X, xq := sq.of(xn)
	_, yq := sq.of(yn)
	ys, xs := sq.seeker(yn, yq), sq.seeker(xn, xq)
	pair, pk, bd := sq.rPair[g0:g1], sq.rPos[g0:g1], sq.rBd[g0:g1]
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
	farRun := append(b.far, run)
	b.far = farRun
	// far returns y's edges to a fourth node before c, all and counted,
	// by direction at y (out, in).
	far := func(c *cursor) (all0, all1, cnt0, cnt1 int64) {
		pb := &farRun[c.k]
		in1 := int64(c.in1)
		return int64(c.j) - in1 - pb[0], in1 - pb[1], int64(c.c0) - pb[2], int64(c.c1) - pb[3]
	}
	// Prefix sums over the pair's edges of the counts at each edge's ends.
	b.sums = slices.Grow(b.sums[:0], len(pair)+1)[:len(pair)+1]
	sums := b.sums
	sums[0] = pairSums{}
	var at, end cursor
	for k, m := range pair {
		at.to(&ys, pk[k], k) // at m: Y[at.j] is m
		end.to(&ys, bd[k].after, gallopKey(pk, end.k, bd[k].after))
		_, _, endC0, endC1 := far(&end)
		// Up to m is before m: m is the pair's, whose edges far leaves out.
		bef0, bef1, upToC0, upToC1 := far(&at)
		sums[k+1] = sums[k]
		t := &sums[k+1][m.cls&1]
		t.n++
		t.endC0 += endC0
		t.endC1 += endC1
		t.upToC0 += upToC0
		t.upToC1 += upToC1
		t.bef0 += bef0
		t.bef1 += bef1
	}
	// The pair's counts by class, e's direction at x, order slot and f's
	// direction at y, indexed directly and added to the raw counters once
	// the pair is done (pathRawIdx): per visit, a table read and a bounds
	// check fewer at each of its up to 12 updates.
	var acc [2][2][4][2]int64
	// x's edges near the pair's edges: the union of their δ windows
	// [from, after), in position order. The pair ranges [aLo, aHi) (before
	// e, within δ) and [aHi, bHi) (after e, within δ) only move forward.
	aLo, aHi, bHi := 0, 0, 0
	var ix, ja, jb cursor // on Y: the first edge after e, more than δ after e, no more than δ before e
	i := 0
	for k := 0; k < len(pair); {
		lo, hi := bd[k].from, bd[k].after
		for k++; k < len(pair) && bd[k].from <= hi; k++ {
			hi = bd[k].after // after grows with the position
		}
		if X[i].pos() < lo { // else the last group's stop is this one's start: no search (a quarter of the groups)
			i = xs.seek(i, lo)
		}
		for ; X[i].pos() < hi; i++ { // X's sentinel stops it
			e, ep := &X[i], X[i].pos()
			if e.other == yn {
				continue
			}
			for aHi < len(pair) && pk[aHi] < ep {
				aHi++
			}
			for aLo < aHi && pk[aLo] < e.from {
				aLo++
			}
			bHi = max(bHi, aHi)
			for bHi < len(pair) && pk[bHi] < e.after {
				bHi++
			}
			if aLo == bHi {
				continue
			}
			fl := e.flags()
			dx := fl & fIn
			sa, sh, sb := &sums[aLo], &sums[aHi], &sums[bHi]
			if aLo < aHi { // M before e
				ix.to(&ys, ep, aHi) // only here: a quarter of the visits have no M before e
				all0, all1, cnt0, cnt1 := far(&ix)
				counted := fl&fCounted != 0
				var jb0, jb1 int64
				if counted {
					jb.to(&ys, e.from, aLo)
					jb0, jb1, _, _ = far(&jb)
				}
				for cls := range 2 {
					hi, lo := &sh[cls], &sa[cls]
					n := hi.n - lo.n
					if n == 0 {
						continue
					}
					a := &acc[cls][dx]
					a[1][0] += hi.endC0 - lo.endC0 - n*cnt0 // M e f
					a[1][1] += hi.endC1 - lo.endC1 - n*cnt1
					if counted {
						a[2][0] += n*all0 - (hi.bef0 - lo.bef0) // M f e
						a[2][1] += n*all1 - (hi.bef1 - lo.bef1)
						a[3][0] += hi.bef0 - lo.bef0 - n*jb0 // f M e
						a[3][1] += hi.bef1 - lo.bef1 - n*jb1
					}
				}
			}
			if aHi < bHi { // M after e
				ja.to(&ys, e.after, bHi)
				_, _, ja0, ja1 := far(&ja)
				for cls := range 2 {
					hi, lo := &sb[cls], &sh[cls]
					n := hi.n - lo.n
					if n == 0 {
						continue
					}
					a := &acc[cls][dx]
					a[0][0] += n*ja0 - (hi.upToC0 - lo.upToC0) // e M f
					a[0][1] += n*ja1 - (hi.upToC1 - lo.upToC1)
				}
			}
		}
	}
	for cls := range 2 {
		for dx := range 2 {
			for slot := range 4 {
				for d := range 2 {
					r[pathRawIdx[cls][dx][slot][d]] += acc[cls][dx][slot][d]
				}
			}
		}
	}
}

// pathRawIdx are the path counters (relative to rawPath) that a pair's
// sums add to, by class (0: the middle edge from x to y), the direction
// at x of x's edge e (1: into x), order slot (with y's edge f: e M f,
// M e f, M f e, f M e) and f's direction at y (1: into y). With class 0,
// e is the path's left edge L; with class 1, its right edge R.
var pathRawIdx = func() (t [2][2][4][2]int) {
	orders := [2][4]int{{0, 2, 3, 1}, {1, 3, 2, 0}} // raw o by class and slot
	for cls := range 2 {
		for dx := range 2 {
			for slot, o := range orders[cls] {
				for d := range 2 {
					if cls == 0 {
						t[cls][dx][slot][d] = 4*o + 2*dx + d
					} else {
						t[cls][dx][slot][d] = 4*o + 2*d + dx
					}
				}
			}
		}
	}
	return t
}()
