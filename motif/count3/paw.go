package count3

import (
	"context"
	"math"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// pawEntry is an edge of a triangle's three sides in the paw pass's
// buffer (position order): its symbol 2·side + direction (0: from n_side
// to n_side+1), whether it is counted, and the buffer's counted edges
// before it by symbol.
type pawEntry struct {
	pos, t  int64
	ends    [2]int32 // its index in the tail sequences of side's n_s and n_s+1
	idx     int32    // its index in its side's list
	sym     uint8
	counted bool
	preC    [6]uint32
}

// pawBuf is a worker's scratch for the paw pass.
type pawBuf struct {
	ent    []pawEntry
	starts [][16]int64 // per entry, by the other two symbols (pawPair): all, then counted last edge
	q      []int32     // forward window: entry indexes
	qEnd   []int32     // each queued entry's first buffer index after its time + δ
	cand   []int32     // the sides' candidate edges (candidates)
	curs   [4]nearCursor
	sst    []int64 // sparse: per entry, its symbol's start coefficients (pawTables.nStart)
	sw     []int64 // sparse: the window's pair counters (pawTables.nPair)
}

// pawPair indexes an ordered pair of symbols on the two sides other than
// side s: o (0: the lower side first) · 4 + 2·d_first + d_second.
func pawPair(s, o, df, ds int) (int, int) {
	a, b := (s+1)%3, (s+2)%3
	if a > b {
		a, b = b, a
	}
	if o == 1 {
		a, b = b, a
	}
	return 2*a + df, 2*b + ds
}

// pawPerm[s1][s2][s3] is the index in perms3 of the side order.
var pawPerm = func() (m [3][3][3]int) {
	for i, p := range perms3 {
		m[p[0]][p[1]][p[2]] = i
	}
	return
}()

// paws counts the temporal paws: every static triangle n0, n1, n2 whose
// sides' time spans meet within δ is counted with its tail at each corner.
// The triangle's three edges (one per side, within δ, in one of 48
// patterns of side order and directions) are counted through three
// sliding windows over the sides' edges near each other, merged in
// position order: per edge, the triples of each pattern that it starts
// (all of them, and those whose last edge is counted), that it is the
// middle of (last edge counted), and that it ends. A tail is an edge of
// the corner to a fourth node, so the tails in any position range are
// the corner's sequence less the two sides at the corner (prefix counts
// of both); and because δ bounds only the first and last edge, each tail
// rank is a sum over single edges of a triple count times a tail count:
// tail last Σ_e1 starts·Qc(t1+δ) − Σ_e3 ends·Qc(e3); tail first (e3
// counted) Σ_e1 startsC·Q(e1) − Σ_e3 ends·Q(t3−δ); tail between e1 and
// e2 Σ_e2 midsC·Q(e2) − Σ_e1 startsC·Q(e1); between e2 and e3 Σ_e3
// ends·Q(e3) − Σ_e2 midsC·Q(e2). The Q counts at the two corners on an
// edge's own side are read where the edge sits in their sequences (laid
// out once per edge: tailSeqs), so only the opposite corner is searched.
// A triangle costs its sides' edges in the span where all three meet,
// times one search per edge.
func (c *counter) paws(ctx context.Context, sp *staticPairs, sq *tailSeqs) error {
	bufs := make([]pawBuf, c.workers)
	return c.triangles4(ctx, sp, func(wk int, tri [3]uint32, pid [3]uint32) {
		c.pawTriangle(sp, sq, tri, pid, &bufs[wk], (*[rawCycle - rawPaw]int64)(c.raws[wk].Raw[rawPaw:rawCycle]))
	})
}

// triangles4 lists the static triangles (n0, n1, n2 with pair ids of the
// sides n0–n1, n1–n2, n2–n0) whose sides' spans meet within δ.
func (c *counter) triangles4(ctx context.Context, sp *staticPairs, fn func(wk int, tri [3]uint32, pid [3]uint32)) error {
	return c.heavyFirst(ctx, c.nodes, 16, sp.foff[c.nodes], func(u int) int64 { return sp.foff[u+1] - sp.foff[u] }, func(wk, u int) {
		if sp.foff[u+1]-sp.foff[u] < 2 {
			return
		}
		b := c.builder(wk)
		b.markSet()
		for j := sp.foff[u]; j < sp.foff[u+1]; j++ {
			b.mark(sp.fwd[j], sp.fpid[j])
		}
		for j := sp.foff[u]; j < sp.foff[u+1]; j++ {
			v, uv := sp.fwd[j], sp.fpid[j]
			for j2 := sp.foff[v]; j2 < sp.foff[v+1]; j2++ {
				z := sp.fwd[j2]
				uz, ok := b.marked(z)
				if !ok {
					continue
				}
				vz := sp.fpid[j2]
				if sp.slots[uv].and(sp.slots[vz]).and(sp.slots[uz]).empty() {
					continue
				}
				first := max(sp.first[uv], sp.first[vz], sp.first[uz])
				last := min(sp.last[uv], sp.last[vz], sp.last[uz])
				if !spansMeet(first, last, c.delta) {
					continue
				}
				fn(wk, [3]uint32{uint32(u), v, z}, [3]uint32{uv, vz, uz})
			}
		}
	})
}

// pawSides are a static triangle's sides as the paw pass reads them:
// side s's edge list and whether n_s is its lower id.
type pawSides struct {
	lists [3][]p4Edge
	lower [3]bool
}

// pawTriangle adds the paws around one static triangle.
func (c *counter) pawTriangle(sp *staticPairs, sq *tailSeqs, n [3]uint32, pid [3]uint32, b *pawBuf, raw *[rawCycle - rawPaw]int64) {
	var ps pawSides
	pre, ok := c.pawEntries(sp, sq, n, pid, b, &ps)
	if !ok {
		return
	}
	if c.pawTab != nil {
		c.pawSparse(sq, n, b, &ps, pre, raw)
		return
	}
	c.pawDense(sq, n, b, &ps, pre, raw)
}

// pawEntries fills b.ent with the triangle's sides' edges that have an
// edge of both other sides within δ, in position order, and returns the
// counted ones by symbol; false if there are fewer than three.
func (c *counter) pawEntries(sp *staticPairs, sq *tailSeqs, n [3]uint32, pid [3]uint32, b *pawBuf, ps *pawSides) (pre [6]uint32, ok bool) {
	delta := c.delta
	lists, lower := &ps.lists, &ps.lower
	first, last := int64(-1<<63), int64(1<<63-1)
	for s := range 3 {
		lists[s] = sp.list(pid[s])
		lower[s] = n[s] < n[(s+1)%3]
		first = max(first, sp.first[pid[s]])
		last = min(last, sp.last[pid[s]])
	}
	// The sides' edges in [first − δ, last + δ]: every triple lies there
	// (its last edge is no earlier than any side's first, its first no
	// later than any side's last).
	lo, hi := motif.SubTicks(first, delta), motif.AddTicks(last, delta)
	// Of those, the edges with an edge of both other sides within δ.
	var at, end, from, to, size [3]int
	for s := range 3 {
		from[s], to[s] = timeRange(lists[s], lo, hi)
		if from[s] == to[s] {
			return pre, false
		}
		size[s] = to[s] - from[s]
	}
	order := []int{0, 1, 2}
	lightFirst(order, size[:])
	var cand [3][]int32 // the lightest side's first: most triangles end there
	b.cand = b.cand[:0]
	for _, s := range order {
		at0 := len(b.cand)
		b.cand = candidates(b.cand, lists[:], s, from[s], to[s], delta, b.curs[:3], order)
		if len(b.cand) == at0 {
			return pre, false
		}
		cand[s] = b.cand[at0:len(b.cand):len(b.cand)]
	}
	for s := range 3 {
		at[s], end[s] = 0, len(cand[s])
	}
	b.ent = b.ent[:0]
	for {
		s := -1
		for k := range 3 {
			if at[k] < end[k] && (s < 0 || lists[k][cand[k][at[k]]].pos < lists[s][cand[s][at[s]]].pos) {
				s = k
			}
		}
		if s < 0 {
			break
		}
		e := &lists[s][cand[s][at[s]]]
		d := uint8(0) // out of n_s
		if (e.flags&fIn != 0) == lower[s] {
			d = 1
		}
		sym := uint8(2*s) + d
		cnt := e.flags&fCounted != 0
		ix := sp.loff[pid[s]] + int64(cand[s][at[s]])
		ends := [2]int32{sq.atLo[ix], sq.atHi[ix]} // of the lower id, the higher
		if !lower[s] {
			ends[0], ends[1] = ends[1], ends[0]
		}
		b.ent = append(b.ent, pawEntry{pos: e.pos, t: e.t, ends: ends, idx: cand[s][at[s]], sym: sym, counted: cnt, preC: pre})
		if cnt {
			pre[sym]++
		}
		at[s]++
	}
	return pre, len(b.ent) >= 3
}

// pawDense counts the triangle's entries (pawEntries; pre their counted
// ones by symbol) into every paw pattern's counters.
func (c *counter) pawDense(sq *tailSeqs, n [3]uint32, b *pawBuf, ps *pawSides, pre [6]uint32, raw *[rawCycle - rawPaw]int64) {
	delta := c.delta
	lists, lower := ps.lists, ps.lower
	ent := b.ent
	// Backward: the triples each entry starts, by the other two symbols.
	if cap(b.starts) < len(ent) {
		b.starts = make([][16]int64, len(ent))
	}
	starts := b.starts[:len(ent)]
	var b1, b1c [6]int64
	var b2, b2c [6][6]int64
	tail := len(ent) - 1 // the window is ent[i+1 : tail+1]
	for i := len(ent) - 1; i >= 0; i-- {
		e := &ent[i]
		for ; tail > i && apart(e.t, ent[tail].t, delta); tail-- {
			l := &ent[tail]
			s := l.sym
			b1[s]--
			for x := range 6 {
				b2[x][s] -= b1[x]
			}
			if l.counted {
				b1c[s]--
				for x := range 6 {
					b2c[x][s] -= b1[x]
				}
			}
		}
		side := int(e.sym / 2)
		st := &starts[i]
		for k := range 8 {
			x, y := pawPair(side, k>>2, k>>1&1, k&1)
			st[k], st[8+k] = b2[x][y], b2c[x][y]
		}
		s := e.sym
		for x := range 6 {
			b2[s][x] += b1[x]
			b2c[s][x] += b1c[x]
		}
		b1[s]++
		if e.counted {
			b1c[s]++
		}
	}
	// Forward: ends, mids and the tails.
	var f1 [6]int64
	var f2, sm [6][6]int64
	b.q, b.qEnd = b.q[:0], b.qEnd[:0]
	head, endPtr := 0, 0
	preAfter := func(j int) *[6]uint32 { // counted entries before index j (j may be len)
		if j < len(ent) {
			return &ent[j].preC
		}
		return &pre
	}
	// Cursors on the corners' sequences and the sides' lists, for the
	// bounds pos, t + δ (after) and t − δ (from): they only move forward.
	var cq [3][3]int
	var sc [3][3]int
	var seqs [3][]tailEntry
	var bounds [3][]tailBounds
	for k := range 3 {
		seqs[k], bounds[k] = sq.of(n[k]), sq.boundsOf(n[k])
	}
	for i := range ent {
		e := &ent[i]
		for head < len(b.q) && apart(ent[b.q[head]].t, e.t, delta) {
			o := &ent[b.q[head]]
			s := o.sym
			f1[s]--
			for x := range 6 {
				f2[s][x] -= f1[x]
			}
			pa := preAfter(int(b.qEnd[head]))
			for x := range 6 {
				sm[s][x] -= int64(pa[x])
			}
			head++
		}
		side := int(e.sym / 2)
		var ends, mids [8]int64
		any := false
		for k := range 8 {
			x, y := pawPair(side, k>>2, k>>1&1, k&1)
			ends[k] = f2[x][y]
			mids[k] = sm[x][y] - f1[x]*int64(e.preC[y])
			any = any || ends[k] != 0 || mids[k] != 0 || starts[i][k] != 0 || starts[i][8+k] != 0
		}
		if any {
			c.pawTails(e, side, &starts[i], &ends, &mids, lists, lower, seqs, &bounds, &cq, &sc, raw)
		}
		// e joins the window.
		s := e.sym
		for x := range 6 {
			f2[x][s] += f1[x]
		}
		f1[s]++
		endPtr = max(endPtr, i+1)
		for endPtr < len(ent) && !apart(e.t, ent[endPtr].t, delta) {
			endPtr++
		}
		pa := preAfter(endPtr)
		for x := range 6 {
			sm[s][x] += int64(pa[x])
		}
		b.q = append(b.q, int32(i))
		b.qEnd = append(b.qEnd, int32(endPtr))
	}
}

// pawTails adds entry e's terms to the paw counters (paws).
func (c *counter) pawTails(e *pawEntry, side int, st *[16]int64, ends, mids *[8]int64,
	lists [3][]p4Edge, lower [3]bool, seqs [3][]tailEntry, bounds *[3][]tailBounds, cq, sc *[3][3]int, raw *[rawCycle - rawPaw]int64) {
	delta := c.delta
	tHi, tLo := motif.AddTicks(e.t, delta), motif.SubTicks(e.t, delta)
	// Side counts at the three bounds, from each side's lower id.
	var sideAt [3][3]sideCounts // [side][bound]: 0 pos, 1 after t+δ, 2 from t−δ
	for s := range 3 {
		l := lists[s]
		p := &sc[s]
		p[0] = gallopPos4(l, p[0], e.pos)
		p[1] = gallopAfter4(l, p[1], tHi)
		p[2] = gallop4(l, p[2], tLo)
		for bd := range 3 {
			sideAt[s][bd] = countsAt(l, p[bd], true)
		}
	}
	// Tail counts per corner and bound, by direction at the corner.
	var qa, qc, qcEnd, qaFrom [3][2]int64
	for k := range 3 {
		q := seqs[k]
		p := &cq[k]
		if end := (k - side + 3) % 3; end < 2 {
			// n_k is an end of e's side: e is in its sequence, and the
			// sequence's δ bounds around each edge are laid out.
			at := e.ends[end]
			bd := &bounds[k][at]
			p[0], p[1], p[2] = int(at), int(bd.after), int(bd.from)
		} else {
			p[0] = gallopTail(q, p[0], tailPos, e.pos)
			p[1] = gallopTail(q, p[1], tailAfter, tHi)
			p[2] = gallopTail(q, p[2], tailFrom, tLo)
		}
		a0, c0 := tailBefore(q, p[0])
		_, c1 := tailBefore(q, p[1])
		a2, _ := tailBefore(q, p[2])
		qa[k], qc[k], qcEnd[k], qaFrom[k] = a0, c0, c1, a2
		// Less the corner's two sides: side k (n_k its first node) and
		// side k+2 (n_k its second).
		for _, s := range [2]int{k, (k + 2) % 3} {
			own := (s == k) == lower[s] // n_k is the side's lower id
			for d := range 2 {
				dd := d
				if !own {
					dd = 1 - d
				}
				qa[k][d] -= sideAt[s][0].all[dd]
				qc[k][d] -= sideAt[s][0].cnt[dd]
				qcEnd[k][d] -= sideAt[s][1].cnt[dd]
				qaFrom[k][d] -= sideAt[s][2].all[dd]
			}
		}
	}
	d := int(e.sym & 1)
	for k := range 8 {
		o, df, ds := k>>2, k>>1&1, k&1
		x, y := pawPair(side, o, df, ds)
		sx, sy := x/2, y/2
		// e first: pattern (side, sx, sy), dirs d df ds.
		if sA, sC := st[k], st[8+k]; sA != 0 || sC != 0 {
			base := (pawPerm[side][sx][sy]*8 + 4*d + 2*df + ds) * 24
			for cn := range 3 {
				for dt := range 2 {
					r := raw[base+cn*8+dt*4:]
					r[3] += sA * qcEnd[cn][dt]
					r[0] += sC * qa[cn][dt]
					r[1] -= sC * qa[cn][dt]
				}
			}
		}
		// e middle: pattern (sx, side, sy).
		if m := mids[k]; m != 0 {
			base := (pawPerm[sx][side][sy]*8 + 4*df + 2*d + ds) * 24
			for cn := range 3 {
				for dt := range 2 {
					r := raw[base+cn*8+dt*4:]
					r[1] += m * qa[cn][dt]
					r[2] -= m * qa[cn][dt]
				}
			}
		}
		// e last: pattern (sx, sy, side).
		if en := ends[k]; en != 0 {
			base := (pawPerm[sx][sy][side]*8 + 4*df + 2*ds + d) * 24
			for cn := range 3 {
				for dt := range 2 {
					r := raw[base+cn*8+dt*4:]
					r[3] -= en * qc[cn][dt]
					if e.counted {
						r[0] -= en * qaFrom[cn][dt]
						r[2] += en * qa[cn][dt]
					}
				}
			}
		}
	}
}

// tailEntry is an edge in a node's tail sequence (its incident edges,
// self-loops left out, in position order, before the scope's end), with
// the node's edges before it: in into the node, c0 and c1 the counted
// ones out of and into it. Each sequence ends with a sentinel (pos and t
// at their maximum) holding the totals.
type tailEntry struct {
	pos, t     int64
	in, c0, c1 uint32
}

// tailSeqs are every node's tail sequences: node v's at
// ent[off[v]:off[v]+n[v]+1], its sentinel last.
type tailSeqs struct {
	off    []int64
	n      []int32
	ent    []tailEntry
	bounds []tailBounds // beside ent (the sentinels' left unset)
	// atLo[j], atHi[j]: static pair entry j's index (sp.ent) in the tail
	// sequence of its pair's lower id and of its higher id.
	atLo, atHi []int32
}

// tailBounds are, for an edge of a tail sequence at time t, the index of
// the sequence's first edge after t + δ (its sentinel's if none) and of
// its first edge at or after t − δ: a paw edge's bounds at the two
// corners on its own side are read, not searched.
type tailBounds struct{ after, from int32 }

func (s *tailSeqs) of(v uint32) []tailEntry { return s.ent[s.off[v] : s.off[v]+int64(s.n[v])+1] }

func (s *tailSeqs) boundsOf(v uint32) []tailBounds {
	return s.bounds[s.off[v] : s.off[v]+int64(s.n[v])+1]
}

// tailSeqs builds every node's tail sequence, its δ bounds, and the
// static pairs' edges' places in them.
func (c *counter) tailSeqs(ctx context.Context, sp *staticPairs) (*tailSeqs, error) {
	sq := &tailSeqs{off: make([]int64, c.nodes+1), n: make([]int32, c.nodes)}
	for v := range c.nodes {
		sq.off[v+1] = sq.off[v] + c.degree(v) + 1
	}
	sq.ent = make([]tailEntry, sq.off[c.nodes])
	sq.bounds = make([]tailBounds, sq.off[c.nodes])
	err := c.parallel(ctx, c.nodes, 64, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			dst := sq.ent[sq.off[v]:sq.off[v+1]]
			out, in := c.w.Out(uint32(v)), c.w.In(uint32(v))
			i, j, n := 0, 0, 0
			var nIn, c0, c1 uint32
			for {
				var a window.Adj
				into := false
				if i < len(out) && (j >= len(in) || out[i].Rel < in[j].Rel) {
					a = out[i]
					i++
				} else if j < len(in) {
					a, into = in[j], true
					j++
				} else {
					break
				}
				pos := c.w.Pos(a)
				if pos >= c.sc.hi {
					break // both lists are in position order
				}
				if a.Other == uint32(v) {
					continue
				}
				dst[n] = tailEntry{pos: pos, t: a.T, in: nIn, c0: c0, c1: c1}
				n++
				counted := c.sc.counted(pos)
				switch {
				case into:
					nIn++
					if counted {
						c1++
					}
				case counted:
					c0++
				}
			}
			dst[n] = tailEntry{pos: math.MaxInt64, t: math.MaxInt64, in: nIn, c0: c0, c1: c1}
			sq.n[v] = int32(n)
			bd := sq.bounds[sq.off[v]:sq.off[v+1]]
			hi, lo := 0, 0
			for i := range n {
				t := dst[i].t
				hi = max(hi, i) // apart needs dst[hi].t ≥ t
				for hi < n && !apart(t, dst[hi].t, c.delta) {
					hi++ // dst[hi].t ≥ t: past t + δ once apart
				}
				for apart(dst[lo].t, t, c.delta) {
					lo++ // dst[lo].t ≤ t: before t − δ while apart
				}
				bd[i] = tailBounds{after: int32(hi), from: int32(lo)}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	// Each pair's lower id places its edges in both ends' sequences
	// (position order in all three, so the cursors only move forward).
	sq.atLo, sq.atHi = make([]int32, len(sp.ent)), make([]int32, len(sp.ent))
	err = c.parallel(ctx, c.nodes, 64, func(_, lo, hi int) {
		for u := lo; u < hi; u++ {
			qu := sq.of(uint32(u))
			for i := sp.off[u]; i < sp.off[u+1]; i++ {
				v := sp.nb[i]
				if v <= uint32(u) {
					continue
				}
				qv := sq.of(v)
				j := sp.pid[i]
				a, b := 0, 0
				for k := sp.loff[j]; k < sp.loff[j+1]-1; k++ {
					pos := sp.ent[k].pos
					a = gallopTail(qu, a, tailPos, pos)
					b = gallopTail(qv, b, tailPos, pos)
					sq.atLo[k], sq.atHi[k] = int32(a), int32(b)
				}
			}
		}
	})
	return sq, err
}

// tailBefore returns the edges of q before index i by direction at the
// node (out, in): all of them and the counted ones.
func tailBefore(q []tailEntry, i int) (all, cnt [2]int64) {
	e := &q[i]
	return [2]int64{int64(i) - int64(e.in), int64(e.in)}, [2]int64{int64(e.c0), int64(e.c1)}
}

// The bounds gallopTail finds: the first entry at or after a position
// (tailPos), after a time (tailAfter), at or after a time (tailFrom).
const (
	tailPos uint8 = iota
	tailAfter
	tailFrom
)

// tailBelow reports whether x lies before bound kind at key.
func tailBelow(x *tailEntry, kind uint8, key int64) bool {
	switch kind {
	case tailPos:
		return x.pos < key
	case tailAfter:
		return x.t <= key && x.pos != math.MaxInt64
	}
	return x.t < key
}

// gallopTail returns the first index at or after from that is not below
// bound kind at key (tailBelow is true then false along q and false at
// the sentinel): exponential steps from from, then a binary search, so
// the short moves of a cursor that follows a triangle's edges cost O(1).
// A bound kind rather than a predicate function: the searches are most
// of the paw pass, and an indirect call per probe was a third of them.
func gallopTail(q []tailEntry, from int, kind uint8, key int64) int {
	if !tailBelow(&q[from], kind, key) {
		return from
	}
	lo, step := from, 1 // below q[lo]
	for lo+step < len(q) && tailBelow(&q[lo+step], kind, key) {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(q)-1) // q[hi] is not below (the sentinel is not)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if tailBelow(&q[m], kind, key) {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
