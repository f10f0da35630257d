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
	idx     int32  // its index in its side's list
	ix      uint32 // its index in the static pairs' entries (sp.ent)
	sym     uint8
	counted bool
	preC    [6]uint32
}

// pawBuf is a worker's scratch for the paw pass.
type pawBuf struct {
	ent      []pawEntry
	snaps    [][16]int64 // the backward window's triples by the other two symbols (pawPair): all, then counted last edge
	startsAt []int32     // per entry, its snapshot in snaps
	runs     [6]pawRun   // dense: per symbol, the run it is in
	q        []int32     // forward window: entry indexes
	qEnd     []int32     // each queued entry's first buffer index after its time + δ
	cand     []int32     // the sides' candidate edges (candidates)
	curs     [4]nearCursor
	sst      []int64 // sparse: per entry, its symbol's start coefficients (pawTables.nStart)
	sw       []int64 // sparse: the window's pair counters (pawTables.nPair)
	acc      pawAcc  // dense: the sums before they are folded (pawAcc)
	light    pawLightBuf
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

// pawPairs[s][k] is pawPair(s, k>>2, k>>1&1, k&1): read per edge and
// pattern, a table rather than the arithmetic.
var pawPairs = func() (m [3][8][2]uint8) {
	for s := range 3 {
		for k := range 8 {
			x, y := pawPair(s, k>>2, k>>1&1, k&1)
			m[s][k] = [2]uint8{uint8(x), uint8(y)}
		}
	}
	return
}()

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
	if c.pawLight != nil {
		h, err := c.pawHeavy(ctx, sp, sq, c.pawLight)
		if err != nil {
			return err
		}
		c.pawHeavyOf = h
	}
	err := c.triangles4(ctx, sp, func(wk int, tri [3]uint32, pid [3]uint32) {
		c.pawTriangle(sp, sq, tri, pid, &bufs[wk], (*[rawCycle - rawPaw]int64)(c.raws[wk].Raw[rawPaw:rawCycle]))
	})
	for wk := range bufs {
		pawLightWalked.Add(bufs[wk].light.walked)
		bufs[wk].acc.fold((*[rawCycle - rawPaw]int64)(c.raws[wk].Raw[rawPaw:rawCycle]))
	}
	return err
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
	if c.pawLight != nil && c.pawLightWalk(sp, sq, n, pid, b, raw) {
		return
	}
	var ps pawSides
	pre, ok := c.pawEntries(sp, sq, n, pid, b, &ps)
	if !ok {
		return
	}
	if c.pawTab != nil {
		c.pawSparse(sq, n, b, &ps, pre, raw)
		return
	}
	c.pawDense(sq, n, b, &ps, pre)
}

// sidesSpan lays out a triangle's side lists (and whether each side's
// first node has the lower id) and returns the time span its triples lie
// in: [first − δ, last + δ] of the latest first and earliest last edge of
// the sides (a triple's last edge is no earlier than any side's first,
// its first no later than any side's last).
func (c *counter) sidesSpan(sp *staticPairs, n, pid [3]uint32, lists *[3][]p4Edge, lower *[3]bool) (lo, hi int64) {
	first, last := int64(-1<<63), int64(1<<63-1)
	for s := range 3 {
		lists[s] = sp.list(pid[s])
		lower[s] = n[s] < n[(s+1)%3]
		first = max(first, sp.first[pid[s]])
		last = min(last, sp.last[pid[s]])
	}
	return motif.SubTicks(first, c.delta), motif.AddTicks(last, c.delta)
}

// pawEntries fills b.ent with the triangle's sides' edges that have an
// edge of both other sides within δ, in position order, and returns the
// counted ones by symbol; false if there are fewer than three.
func (c *counter) pawEntries(sp *staticPairs, sq *tailSeqs, n [3]uint32, pid [3]uint32, b *pawBuf, ps *pawSides) (pre [6]uint32, ok bool) {
	delta := c.delta
	lists, lower := &ps.lists, &ps.lower
	lo, hi := c.sidesSpan(sp, n, pid, lists, lower)
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
	next := func(k int) int64 { // side k's next candidate's position; none: math.MaxInt64
		if at[k] < end[k] {
			return lists[k][cand[k][at[k]]].pos
		}
		return math.MaxInt64
	}
	for {
		// The side whose next candidate comes first takes all its own
		// before the two others' next: mostly a run of the heavy side's.
		p := [3]int64{next(0), next(1), next(2)}
		s := 0
		if p[1] < p[s] {
			s = 1
		}
		if p[2] < p[s] {
			s = 2
		}
		if p[s] == math.MaxInt64 {
			break
		}
		bound := min(p[(s+1)%3], p[(s+2)%3])
		base := sp.loff[pid[s]]
		for ; at[s] < end[s]; at[s]++ {
			j := cand[s][at[s]]
			e := &lists[s][j]
			if e.pos > bound {
				break
			}
			d := uint8(0) // out of n_s
			if (e.flags&fIn != 0) == lower[s] {
				d = 1
			}
			sym := uint8(2*s) + d
			cnt := e.flags&fCounted != 0
			b.ent = append(b.ent, pawEntry{pos: e.pos, t: e.t, idx: j, ix: uint32(base + int64(j)), sym: sym, counted: cnt, preC: pre})
			if cnt {
				pre[sym]++
			}
		}
	}
	return pre, len(b.ent) >= 3
}

// pawDense counts the triangle's entries (pawEntries; pre their counted
// ones by symbol) into every paw pattern's sums (b.acc).
func (c *counter) pawDense(sq *tailSeqs, n [3]uint32, b *pawBuf, ps *pawSides, pre [6]uint32) {
	delta := c.delta
	ent := b.ent
	// Backward: the triples each entry starts, by the other two symbols.
	// An entry reads only pairs of the other two sides, which change
	// when an entry of those sides joins or leaves the window (gen): the
	// entries of a side between two such changes share one snapshot.
	b.snaps = b.snaps[:0]
	b.startsAt = resize(b.startsAt, len(ent))
	var b1, b1c [6]int64
	var b2, b2c [6][6]int64
	// Every entry counted (a whole window's count, the usual one): the
	// triples with a counted last edge are all of them, b2c is b2 and is
	// not kept apart.
	counted := 0
	for _, n := range pre {
		counted += int(n)
	}
	keepC, b2cOf := counted < len(ent), &b2c
	if !keepC {
		b2cOf = &b2
	}
	var gen, snapGen [3]uint32
	snapAt := [3]int32{-1, -1, -1}
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
			if l.counted && keepC {
				b1c[s]--
				for x := range 6 {
					b2c[x][s] -= b1[x]
				}
			}
			bumpOthers(&gen, s/2)
		}
		side := e.sym / 2
		if snapAt[side] < 0 || snapGen[side] != gen[side] {
			var st [16]int64
			for k, xy := range &pawPairs[side] {
				st[k], st[8+k] = b2[xy[0]][xy[1]], b2cOf[xy[0]][xy[1]]
			}
			b.snaps = append(b.snaps, st)
			snapAt[side], snapGen[side] = int32(len(b.snaps)-1), gen[side]
		}
		b.startsAt[i] = snapAt[side]
		s := e.sym
		for x := range 6 {
			b2[s][x] += b1[x]
		}
		b1[s]++
		if keepC {
			for x := range 6 {
				b2c[s][x] += b1c[x]
			}
			if e.counted {
				b1c[s]++
			}
		}
		bumpOthers(&gen, side)
	}
	// Forward: ends, mids and the tails, per run of a symbol's entries
	// with the same triple counts (pawRun).
	var f1 [6]int64
	var f2, sm [6][6]int64
	gen = [3]uint32{}
	b.q, b.qEnd = b.q[:0], b.qEnd[:0]
	head, endPtr := 0, 0
	preAfter := func(j int) *[6]uint32 { // counted entries before index j (j may be len)
		if j < len(ent) {
			return &ent[j].preC
		}
		return &pre
	}
	tc := pawTailCursors{lists: &ps.lists, lower: ps.lower, own: sq.own}
	for k := range 3 {
		tc.seqs[k], tc.bounds[k] = sq.of(n[k]), sq.boundsOf(n[k])
	}
	runs := &b.runs
	for sym := range runs {
		runs[sym] = pawRun{starts: -1}
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
			bumpOthers(&gen, s/2)
			head++
		}
		side := e.sym / 2
		r := &runs[e.sym]
		if r.starts != b.startsAt[i] || r.gen != gen[side] || r.counted != e.counted {
			pawTails(e.sym, r, &b.acc)
			r.starts, r.gen, r.counted, r.n = b.startsAt[i], gen[side], e.counted, 0
			r.st = b.snaps[r.starts]
			any := false
			for k, xy := range &pawPairs[side] {
				x, y := xy[0], xy[1]
				r.ends[k] = f2[x][y]
				r.mids[k] = sm[x][y] - f1[x]*int64(e.preC[y])
				any = any || r.ends[k] != 0 || r.mids[k] != 0 || r.st[k] != 0 || r.st[8+k] != 0
			}
			r.zero = !any
		}
		if !r.zero {
			tc.entry(e, delta)
			tc.all(e, &r.q)
			r.n++
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
		bumpOthers(&gen, side)
		b.q = append(b.q, int32(i))
		b.qEnd = append(b.qEnd, int32(endPtr))
	}
	for sym := range runs {
		pawTails(uint8(sym), &runs[sym], &b.acc)
	}
}

// bumpOthers marks a change of the window's edges on side s: the two
// other sides' entries read it.
func bumpOthers(gen *[3]uint32, s uint8) {
	gen[0]++
	gen[1]++
	gen[2]++
	gen[s]--
}

// pawRun is a run of entries of one symbol that start, end and are the
// middle of as many triples of each pattern: those counts read only the
// windows' entries of the two other sides, and 85% of the entries lie on
// their triangle's heaviest side among few of the light sides' (tgraphgen
// 1M: 64% of the entries count as the one of their symbol before). The
// terms are products of a count and a tail count, so the run's tail
// counts are summed and multiplied once (pawTails).
type pawRun struct {
	starts     int32  // the backward window's snapshot (pawBuf.snaps); −1 none
	gen        uint32 // the forward window's generation for the side
	counted    bool
	zero       bool // no triple: the tails are not read
	n          int  // entries summed
	st         [16]int64
	ends, mids [8]int64
	q          pawTailSums
}

// pawTailSums are tail counts per corner · 2 + direction at the corner,
// by bound: qa before the entry, qc counted before it, qcEnd counted
// before the first after t + δ, qaFrom before the first at or after t − δ.
type pawTailSums struct {
	qa, qc, qcEnd, qaFrom [6]int64
}

// pawAcc are a worker's paw sums before they are folded into the raw
// counters (fold), each indexed by pattern · 6 + corner · 2 + tail
// direction: r3 the tail-last rank's, s Σ startsCnt·Qa (rank 0 +, rank 1
// −), m Σ mids·Qa (rank 1 +, rank 2 −), e0 Σ ends·QaFrom (rank 0 −), e2
// Σ ends·Qa (rank 2 +). Rank 0 and 1 share s, 1 and 2 share m: an edge
// adds each product once.
type pawAcc struct {
	r3, s, m, e0, e2 [48 * 6]int64
}

// fold adds the sums to the paw region of raw and clears them.
func (a *pawAcc) fold(raw *[rawCycle - rawPaw]int64) {
	for p := range 48 {
		for j := range 6 {
			i, r := p*6+j, raw[p*24+j*4:p*24+j*4+4]
			r[0] += a.s[i] - a.e0[i]
			r[1] += a.m[i] - a.s[i]
			r[2] += a.e2[i] - a.m[i]
			r[3] += a.r3[i]
		}
	}
	*a = pawAcc{}
}

// pawTailOffs[sym][k] are the pawAcc offsets of the patterns an entry of
// symbol sym and the other two symbols pawPairs[sym/2][k] form with it
// first, middle and last: looked up, not computed, per entry.
var pawTailOffs = func() (m [6][8][3]int32) {
	for sym := range 6 {
		side, d := sym/2, sym&1
		for k, xy := range &pawPairs[side] {
			df, ds := k>>1&1, k&1
			sx, sy := int(xy[0]/2), int(xy[1]/2)
			m[sym][k] = [3]int32{
				int32((pawPerm[side][sx][sy]*8 + 4*d + 2*df + ds) * 6),
				int32((pawPerm[sx][side][sy]*8 + 4*df + 2*d + ds) * 6),
				int32((pawPerm[sx][sy][side]*8 + 4*df + 2*ds + d) * 6),
			}
		}
	}
	return
}()

// pawTails adds a run's terms (pawRun; its entries of symbol sym) to the
// paw sums (pawDense) and empties the run.
func pawTails(sym uint8, r *pawRun, acc *pawAcc) {
	if r.n == 0 {
		return
	}
	r.n = 0
	q := &r.q
	qa, qc, qcEnd, qaFrom := &q.qa, &q.qc, &q.qcEnd, &q.qaFrom
	st, mids, ends := &r.st, &r.mids, &r.ends
	offs := &pawTailOffs[sym]
	for k := range 8 {
		o := &offs[k]
		// e first.
		if sA, sC := st[k], st[8+k]; sA != 0 || sC != 0 {
			b := o[0]
			r3, s := acc.r3[b:b+6:b+6], acc.s[b:b+6:b+6]
			for j := range 6 {
				r3[j] += sA * qcEnd[j]
				s[j] += sC * qa[j]
			}
		}
		// e middle.
		if m := mids[k]; m != 0 {
			b := o[1]
			am := acc.m[b : b+6 : b+6]
			for j := range 6 {
				am[j] += m * qa[j]
			}
		}
		// e last.
		if en := ends[k]; en != 0 {
			b := o[2]
			r3 := acc.r3[b : b+6 : b+6]
			for j := range 6 {
				r3[j] -= en * qc[j]
			}
			if r.counted {
				e0, e2 := acc.e0[b:b+6:b+6], acc.e2[b:b+6:b+6]
				for j := range 6 {
					e0[j] += en * qaFrom[j]
					e2[j] += en * qa[j]
				}
			}
		}
	}
	*q = pawTailSums{}
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
	// own[j]: at each end of static pair entry j (its pair's lower id,
	// then the higher), that end's tail counts at the edge's bounds less
	// the edge's own pair's edges: what a paw corner on the edge's side
	// reads, less only the corner's other side (triangle's own).
	own [][2]tailOwn
}

// tailOwn are a node's edges before an edge's bounds, by kind (qAll,
// qCnt: before the edge, all and counted; qCntEnd: counted, before the
// first after t + δ; qAllFrom: all, before the first at or after t − δ)
// and direction at the node (0: out of it), its edges with the other end
// of the edge's pair left out. Each edge sits in ~20 triangles on
// tgraphgen 1M: laid out once, read in order along a pair's list instead
// of at random places in a hub's sequence per triangle.
type tailOwn [4][2]uint32

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
// static pairs' edges' counts in them (own).
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
	sq.own = make([][2]tailOwn, len(sp.ent))
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
				l := sp.list(j)
				la, lf := 0, 0 // l's first after t + δ, first at or after t − δ
				bu, bv := sq.boundsOf(uint32(u)), sq.boundsOf(v)
				for k := sp.loff[j]; k < sp.loff[j+1]-1; k++ {
					e := &sp.ent[k]
					a = gallopTail(qu, a, tailPos, e.pos)
					b = gallopTail(qv, b, tailPos, e.pos)
					la = gallopAfter4(l, la, motif.AddTicks(e.t, c.delta))
					lf = gallop4(l, lf, motif.SubTicks(e.t, c.delta))
					at := int(k - sp.loff[j])
					sides := [3]sideCounts{countsAt(l, at, true), countsAt(l, la, true), countsAt(l, lf, true)}
					sq.own[k][0] = ownCounts(qu, a, bu[a], sides, false)
					sq.own[k][1] = ownCounts(qv, b, bv[b], sides, true)
				}
			}
		}
	})
	return sq, err
}

// ownCounts is tailOwn of the edge at index i of a node's tail sequence
// q, with its δ bounds bd, less its pair's edges before the same bounds
// (sides: at the edge, after t + δ, from t − δ, seen from the pair's
// lower id; flip: the node is the higher id).
func ownCounts(q []tailEntry, i int, bd tailBounds, sides [3]sideCounts, flip bool) tailOwn {
	a0, c0 := tailBefore(q, i)
	_, c1 := tailBefore(q, int(bd.after))
	a2, _ := tailBefore(q, int(bd.from))
	var o tailOwn
	for d := range 2 {
		dd := d
		if flip {
			dd = 1 - d
		}
		o[qAll][d] = uint32(a0[d] - sides[0].all[dd])
		o[qCnt][d] = uint32(c0[d] - sides[0].cnt[dd])
		o[qCntEnd][d] = uint32(c1[d] - sides[1].cnt[dd])
		o[qAllFrom][d] = uint32(a2[d] - sides[2].all[dd])
	}
	return o
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

// gallopTailPos is gallopTail(q, from, tailPos, p), its binary search
// without branches: the third corner's searches jump far in a hub's
// sequence, and a mispredicted probe cost more than the probe.
func gallopTailPos(q []tailEntry, from int, p int64) int {
	if q[from].pos >= p {
		return from
	}
	lo, step := from, 1 // below q[lo]
	for lo+step < len(q) && q[lo+step].pos < p {
		lo += step
		step *= 2
	}
	// q[lo] is below, q[lo+n] (n ≤ step) is not: the sentinel is not.
	n := min(step, len(q)-1-lo)
	for n > 1 {
		half := n >> 1
		if q[lo+half].pos < p {
			lo += half
		}
		n -= half
	}
	return lo + 1
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
