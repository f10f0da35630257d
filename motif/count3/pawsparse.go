package count3

import (
	"math/bits"

	"github.com/motifwatch/motifwatch/motif"
)

// PawMask is a set of paw cells: bit i (word i/64, bit i%64) is Paw + i.
type PawMask [3]uint64

// Has reports whether the set holds paw cell Paw + i.
func (m PawMask) Has(i int) bool { return m[i/64]>>(i%64)&1 != 0 }

// Set adds paw cell Paw + i.
func (m *PawMask) Set(i int) { m[i/64] |= 1 << (i % 64) }

// Len is the number of cells in the set.
func (m PawMask) Len() int {
	return bits.OnesCount64(m[0]) + bits.OnesCount64(m[1]) + bits.OnesCount64(m[2])
}

// AndNot returns the cells of m not in o.
func (m PawMask) AndNot(o PawMask) PawMask { return PawMask{m[0] &^ o[0], m[1] &^ o[1], m[2] &^ o[2]} }

// Or returns the cells of m or o.
func (m PawMask) Or(o PawMask) PawMask { return PawMask{m[0] | o[0], m[1] | o[1], m[2] | o[2]} }

// allPawCells is the set of all 160 paws.
var allPawCells = func() (m PawMask) {
	for i := range len(pawNames) {
		m.Set(i)
	}
	return
}()

// pawTables are a paw-cell set's terms (a query's cells, Options.PawCells):
// the paw pass then keeps, of its windows' counters of symbol pairs, only
// those the cells' patterns read, and per edge computes only the tail
// counts and raw counters of those patterns. The pair counters are one
// array; the update lists, by the symbol of the edge that moves, are
// those of the dense windows (pawDense) restricted to these pairs:
//
//   - backward, starts: pair (x, y) counts the x-then-y sequences after
//     an edge within δ, all (bInA, bOutA) or with y counted (bInC, bOutC):
//     an x-edge entering adds the y-edges (b1 or b1c), a y-edge leaving
//     takes off the x-edges;
//   - forward, ends: pair (x, y) counts the x-then-y sequences before an
//     edge within δ (fIn, fOut);
//   - forward, mids: pair (x, y) sums over the window's x-edges the
//     counted y-edges before each one's δ bound (mIn, mOut); an edge's
//     mids are that less its window's x-edges times the counted y-edges
//     before it.
type pawTables struct {
	nPair, nStart            int
	bInA, bInC, bOutA, bOutC [6][]sparseUpd
	fIn, fOut, mIn, mOut     [6][]sparseUpd
	coefs                    [6][]pawCoef
	terms                    [6][]pawTerm
	raws                     []int // the paw raw counters counted
}

// Coefficient kinds: a sequence count an edge of a symbol reads.
const (
	coefStartAll uint8 = iota // the x-then-y sequences after it (it starts them)
	coefStartCnt              // the same, y counted
	coefMid                   // x before it and y counted after it, within δ
	coefEnd                   // the x-then-y sequences before it (it ends them)
)

// pawCoef is a coefficient of a symbol: kind, its pair counter, the
// pair's symbols (mids read f1[x] and the counted y before the edge) and,
// for starts, its slot among the symbol's stored starts.
type pawCoef struct {
	kind  uint8
	x, y  uint8
	pair  int16
	start int16
}

// Tail-count kinds at a corner (the corner's tail edges by direction):
// before the edge (all, counted), counted before the first after t + δ,
// all before the first at or after t − δ.
const (
	qAll uint8 = iota
	qCnt
	qCntEnd
	qAllFrom
)

// pawTerm adds sign · coefs[coef] · Q[corner][kind][dt] to raw counter
// raw (an index into the paw region), for a counted edge only if cnt.
type pawTerm struct {
	coef           int16
	raw            int16
	corner, kind   uint8
	dt             uint8
	neg, onlyCount bool
}

// newPawTables builds the tables of the paw raw counters in raws (indexes
// into the paw region, pawShape's i). The terms are pawTails' (paw.go),
// per raw counter of pattern x1 x2 x3, corner, tail direction and rank:
// rank 3 (tail last) + startsAll(x2,x3)·QcEnd at x1, − ends(x1,x2)·Qc at
// x3; rank 0 + startsCnt(x2,x3)·Qa at x1, − ends(x1,x2)·QaFrom at a
// counted x3; rank 1 − startsCnt·Qa at x1, + mids(x1,x3)·Qa at x2; rank 2
// − mids·Qa at x2, + ends·Qa at a counted x3.
func newPawTables(raws []int) *pawTables {
	t := &pawTables{}
	pairs := map[[3]uint8]int16{}
	pair := func(kind, x, y uint8) int16 {
		k := [3]uint8{kind, x, y}
		if p, ok := pairs[k]; ok {
			return p
		}
		p := int16(len(pairs))
		pairs[k] = p
		switch kind {
		case coefStartAll:
			t.bInA[x] = append(t.bInA[x], sparseUpd{p, int16(y)})
			t.bOutA[y] = append(t.bOutA[y], sparseUpd{p, int16(x)})
		case coefStartCnt:
			t.bInC[x] = append(t.bInC[x], sparseUpd{p, int16(y)})
			t.bOutC[y] = append(t.bOutC[y], sparseUpd{p, int16(x)})
		case coefEnd:
			t.fIn[y] = append(t.fIn[y], sparseUpd{p, int16(x)})
			t.fOut[x] = append(t.fOut[x], sparseUpd{p, int16(y)})
		case coefMid:
			t.mIn[x] = append(t.mIn[x], sparseUpd{p, int16(y)})
			t.mOut[x] = append(t.mOut[x], sparseUpd{p, int16(y)})
		}
		return p
	}
	coef := func(s, kind, x, y uint8) int16 {
		p := pair(kind, x, y)
		for i, c := range t.coefs[s] {
			if c.pair == p {
				return int16(i)
			}
		}
		c := pawCoef{kind: kind, x: x, y: y, pair: p, start: -1}
		if kind == coefStartAll || kind == coefStartCnt {
			n := int16(0)
			for _, o := range t.coefs[s] {
				if o.start >= 0 {
					n++
				}
			}
			c.start = n
			t.nStart = max(t.nStart, int(n)+1)
		}
		t.coefs[s] = append(t.coefs[s], c)
		return int16(len(t.coefs[s]) - 1)
	}
	term := func(s uint8, kind uint8, x, y uint8, raw int, corner, qk, dt uint8, neg, onlyCount bool) {
		t.terms[s] = append(t.terms[s], pawTerm{coef: coef(s, kind, x, y), raw: int16(raw), corner: corner, kind: qk, dt: dt, neg: neg, onlyCount: onlyCount})
	}
	for _, i := range raws {
		r, dt, cn, pat := i&3, uint8(i>>2&1), uint8(i>>3%3), i/24
		var x [3]uint8
		for j, s := range perms3[pat/8] {
			x[j] = uint8(2*s + pat>>(2-j)&1)
		}
		switch r {
		case 3:
			term(x[0], coefStartAll, x[1], x[2], i, cn, qCntEnd, dt, false, false)
			term(x[2], coefEnd, x[0], x[1], i, cn, qCnt, dt, true, false)
		case 0:
			term(x[0], coefStartCnt, x[1], x[2], i, cn, qAll, dt, false, false)
			term(x[2], coefEnd, x[0], x[1], i, cn, qAllFrom, dt, true, true)
		case 1:
			term(x[0], coefStartCnt, x[1], x[2], i, cn, qAll, dt, true, false)
			term(x[1], coefMid, x[0], x[2], i, cn, qAll, dt, false, false)
		case 2:
			term(x[1], coefMid, x[0], x[2], i, cn, qAll, dt, true, false)
			term(x[2], coefEnd, x[0], x[1], i, cn, qAll, dt, false, true)
		}
	}
	t.nPair = len(pairs)
	return t
}

// pawSparseMaxCells is the most paw cells a paw pass counts through
// pawTables; more go through the dense windows (pawDense). The tables'
// per-edge lists cost one indirection more than the dense flat loops, so
// their run grows with the cells (BenchmarkPawCells: eight cells about
// two thirds of all 160's). A variable so that tests can send every set
// through the tables.
var pawSparseMaxCells = 8

// pawTablesOf returns the tables of the paw cells in m, nil for the dense
// pass: m empty (every cell) or over pawSparseMaxCells cells.
func pawTablesOf(m PawMask) *pawTables {
	if n := m.Len(); n == 0 || n > pawSparseMaxCells {
		return nil
	}
	var raws []int
	for r := range rawCycle - rawPaw {
		if c := rawCell[rawPaw+r]; c >= Paw && c < Paw+Cell(len(pawNames)) && m.Has(int(c-Paw)) {
			raws = append(raws, r)
		}
	}
	t := newPawTables(raws)
	t.raws = raws
	return t
}

// pawSparse counts the triangle's entries (pawEntries; pre their counted
// ones by symbol) into the raw counters of c.pawTab's patterns: the
// windows of pawDense over the tables' pair counters, and per edge only
// the tail counts its terms read.
func (c *counter) pawSparse(sq *tailSeqs, n [3]uint32, b *pawBuf, ps *pawSides, pre [6]uint32, raw *[rawCycle - rawPaw]int64) {
	t := c.pawTab
	delta := c.delta
	ent := b.ent
	ns := t.nStart
	b.sst = resize(b.sst, len(ent)*ns)
	b.sw = resize(b.sw, t.nPair)
	w := b.sw
	// Backward: the starts each entry reads.
	var b1, b1c [6]int64
	tail := len(ent) - 1 // the window is ent[i+1 : tail+1]
	for i := len(ent) - 1; i >= 0; i-- {
		e := &ent[i]
		for ; tail > i && apart(e.t, ent[tail].t, delta); tail-- {
			l := &ent[tail]
			s := l.sym
			b1[s]--
			for _, u := range t.bOutA[s] {
				w[u.a] -= b1[u.b]
			}
			if l.counted {
				b1c[s]--
				for _, u := range t.bOutC[s] {
					w[u.a] -= b1[u.b]
				}
			}
		}
		s := e.sym
		st := b.sst[i*ns : i*ns+ns]
		for _, co := range t.coefs[s] {
			if co.start >= 0 {
				st[co.start] = w[co.pair]
			}
		}
		for _, u := range t.bInA[s] {
			w[u.a] += b1[u.b]
		}
		for _, u := range t.bInC[s] {
			w[u.a] += b1c[u.b]
		}
		b1[s]++
		if e.counted {
			b1c[s]++
		}
	}
	clear(w)
	// Forward: ends, mids and the tails.
	var f1 [6]int64
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
	var vals [32]int64
	for i := range ent {
		e := &ent[i]
		for head < len(b.q) && apart(ent[b.q[head]].t, e.t, delta) {
			o := &ent[b.q[head]]
			s := o.sym
			f1[s]--
			for _, u := range t.fOut[s] {
				w[u.a] -= f1[u.b]
			}
			pa := preAfter(int(b.qEnd[head]))
			for _, u := range t.mOut[s] {
				w[u.a] -= int64(pa[u.b])
			}
			head++
		}
		s := e.sym
		if terms := t.terms[s]; len(terms) > 0 {
			any := false
			st := b.sst[i*ns : i*ns+ns]
			for k, co := range t.coefs[s] {
				var v int64
				switch co.kind {
				case coefStartAll, coefStartCnt:
					v = st[co.start]
				case coefEnd:
					v = w[co.pair]
				case coefMid:
					v = w[co.pair] - f1[co.x]*int64(e.preC[co.y])
				}
				vals[k] = v
				any = any || v != 0
			}
			if any {
				tc.entry(e, delta)
				for _, tm := range terms {
					v := vals[tm.coef]
					if v == 0 || tm.onlyCount && !e.counted {
						continue
					}
					v *= tc.q(e, int(tm.corner), tm.kind)[tm.dt]
					if tm.neg {
						v = -v
					}
					raw[tm.raw] += v
				}
			}
		}
		// e joins the window.
		for _, u := range t.fIn[s] {
			w[u.a] += f1[u.b]
		}
		f1[s]++
		endPtr = max(endPtr, i+1)
		for endPtr < len(ent) && !apart(e.t, ent[endPtr].t, delta) {
			endPtr++
		}
		if len(t.mIn[s]) > 0 {
			pa := preAfter(endPtr)
			for _, u := range t.mIn[s] {
				w[u.a] += int64(pa[u.b])
			}
		}
		b.q = append(b.q, int32(i))
		b.qEnd = append(b.qEnd, int32(endPtr))
	}
}

// pawTailCursors compute a paw entry's tail counts on demand, per corner
// and bound (0: the entry's position, 1: after t + δ, 2: from t − δ): at
// a corner on the entry's side, its laid-out counts (tailSeqs.own) less
// the corner's other side; at the third corner, the corner's tail
// sequence searched from the last place less both sides. Every bound
// only grows along the entries, so the searches are cursors.
type pawTailCursors struct {
	lists     *[3][]p4Edge
	lower     [3]bool
	own       [][2]tailOwn
	seqs      [3][]tailEntry
	bounds    [3][]tailBounds // seqs' δ bounds (tailSeqs.bounds)
	cq        [3][3]int       // corner sequences' cursors
	sc        [3][3]int       // sides' cursors
	tHi       int64
	tLo       int64
	have      uint16 // (corner, bound) computed for this entry: bit 3·corner + bound; the third corner's cursors moved: bit 9 + corner
	qv        [3][4][2]int64
	moves     [3]uint32       // all: each side's cursors' moves
	sidesLess [3]pawSidesLess // all: per side of an entry, what its corners' counts take off
}

func (tc *pawTailCursors) entry(e *pawEntry, delta int64) {
	tc.tHi, tc.tLo = motif.AddTicks(e.t, delta), motif.SubTicks(e.t, delta)
	tc.have = 0
}

// sideAt returns side s's edges before bound bd of entry e, seen from
// the side's lower id.
func (tc *pawTailCursors) sideAt(e *pawEntry, s, bd int) sideCounts {
	l := tc.lists[s]
	p := &tc.sc[s][bd]
	switch {
	case bd == 0 && s == int(e.sym/2):
		*p = int(e.idx)
	case bd == 0:
		if l[*p].pos < e.pos {
			*p = gallopPos4(l, *p, e.pos)
		}
	case bd == 1:
		if *p < len(l)-1 && l[*p].t <= tc.tHi {
			*p = gallopAfter4(l, *p, tc.tHi)
		}
	default:
		if l[*p].t < tc.tLo {
			*p = gallop4(l, *p, tc.tLo)
		}
	}
	return countsAt(l, *p, true)
}

// less takes side s's counts at bound bd of e off corner k's counts v
// (by direction at n_k) of that bound's kinds.
func (tc *pawTailCursors) less(v *[4][2]int64, e *pawEntry, k, s, bd int) {
	sc := tc.sideAt(e, s, bd)
	own := (s == k) == tc.lower[s] // n_k is the side's lower id
	for d := range 2 {
		dd := d
		if !own {
			dd = 1 - d
		}
		switch bd {
		case 0:
			v[qAll][d] -= sc.all[dd]
			v[qCnt][d] -= sc.cnt[dd]
		case 1:
			v[qCntEnd][d] -= sc.cnt[dd]
		default:
			v[qAllFrom][d] -= sc.all[dd]
		}
	}
}

// ownAt returns corner k's tail counts for entry e less e's own side, laid
// out once per pair edge (tailOwn), where n_k is an end of e's side; nil
// where it is not (the third corner, whose counts are searched).
func (tc *pawTailCursors) ownAt(e *pawEntry, k int) *tailOwn {
	side := int(e.sym / 2)
	end := (k - side + 3) % 3
	if end >= 2 {
		return nil
	}
	if !tc.lower[side] {
		end = 1 - end
	}
	return &tc.own[e.ix][end]
}

// q returns the tail counts of kind at corner k for entry e, by
// direction at the corner (0: out of it).
func (tc *pawTailCursors) q(e *pawEntry, k int, kind uint8) *[2]int64 {
	bd := 0
	switch kind {
	case qCntEnd:
		bd = 1
	case qAllFrom:
		bd = 2
	}
	v := &tc.qv[k]
	bit := uint16(1) << (3*k + bd)
	if tc.have&bit != 0 {
		return &v[kind]
	}
	tc.have |= bit
	side := int(e.sym / 2)
	// Corner n_k's sides: side k (n_k its first node) and side k+2 (n_k
	// its second).
	if o := tc.ownAt(e, k); o != nil {
		// Less the corner's other side here (e's own is laid out).
		for d := range 2 {
			switch bd {
			case 0:
				v[qAll][d], v[qCnt][d] = int64(o[qAll][d]), int64(o[qCnt][d])
			case 1:
				v[qCntEnd][d] = int64(o[qCntEnd][d])
			default:
				v[qAllFrom][d] = int64(o[qAllFrom][d])
			}
		}
		other := (k + 2) % 3
		if other == side {
			other = k
		}
		tc.less(v, e, k, other, bd)
		return &v[kind]
	}
	// The third corner's cursors move together, once per entry.
	q, p := tc.seqs[k], &tc.cq[k]
	if moved := uint16(1) << (9 + k); tc.have&moved == 0 {
		tc.have |= moved
		p = tc.third(e, k)
	}
	a, cnt := tailBefore(q, p[bd])
	for d := range 2 {
		switch bd {
		case 0:
			v[qAll][d], v[qCnt][d] = a[d], cnt[d]
		case 1:
			v[qCntEnd][d] = cnt[d]
		default:
			v[qAllFrom][d] = a[d]
		}
	}
	tc.less(v, e, k, k, bd)
	tc.less(v, e, k, (k+2)%3, bd)
	return &v[kind]
}

// third moves the cursors of corner k's sequence to entry e's bounds (k
// not an end of e's side) and returns them: e's place in the sequence,
// then its δ bounds, which lie between those of the sequence's edges
// around that place (times grow with positions) and are mostly one of
// them.
func (tc *pawTailCursors) third(e *pawEntry, k int) *[3]int {
	q := tc.seqs[k]
	p := &tc.cq[k]
	if q[p[0]].pos < e.pos {
		p[0] = gallopTailPos(q, p[0], e.pos)
	}
	i := p[0]
	bd := tc.bounds[k]
	ah, fh := len(q)-1, len(q)-1 // bounds at q[i] (the sentinel's: none)
	if i < len(q)-1 {
		ah, fh = int(bd[i].after), int(bd[i].from)
	}
	al, fl := p[1], p[2] // at q[i−1], or the cursors
	if i > 0 {
		al, fl = max(al, int(bd[i-1].after)), max(fl, int(bd[i-1].from))
	}
	if al < ah {
		al = gallopTail(q[:ah+1], al, tailAfter, tc.tHi)
	}
	if fl < fh {
		fl = gallopTail(q[:fh+1], fl, tailFrom, tc.tLo)
	}
	p[1], p[2] = al, fl
	return p
}

// all adds every corner's tail counts for entry e to sums (pawDense):
// q's. What each corner's counts take off, the two other sides' (e's own
// side is laid out with the counts at its corners and lies on none at the
// third), is kept per side of e (sidesLess) until a cursor of those sides
// moves: an entry of a heavy side mostly moves none of its light sides'.
// Most moves are none, so each cursor is tested before it gallops.
func (tc *pawTailCursors) all(e *pawEntry, sums *pawTailSums) {
	side := int(e.sym / 2)
	tHi, tLo := tc.tHi, tc.tLo
	others := [2]int{(side + 1) % 3, (side + 2) % 3}
	for _, s := range others {
		l := tc.lists[s]
		p := &tc.sc[s]
		if l[p[0]].pos < e.pos {
			p[0] = gallopPos4(l, p[0], e.pos)
			tc.moves[s]++
		}
		if p[1] < len(l)-1 && l[p[1]].t <= tHi {
			p[1] = gallopAfter4(l, p[1], tHi)
			tc.moves[s]++
		}
		if l[p[2]].t < tLo {
			p[2] = gallop4(l, p[2], tLo)
			tc.moves[s]++
		}
	}
	ls := &tc.sidesLess[side]
	if moves := [2]uint32{tc.moves[others[0]], tc.moves[others[1]]}; !ls.valid || ls.moves != moves {
		tc.lessOthers(side, ls)
		ls.valid, ls.moves = true, moves
	}
	for k := range 3 {
		var a, c, ce, af [2]int64
		if o := tc.ownAt(e, k); o != nil {
			for d := range 2 {
				a[d], c[d], ce[d], af[d] = int64(o[qAll][d]), int64(o[qCnt][d]), int64(o[qCntEnd][d]), int64(o[qAllFrom][d])
			}
		} else {
			q, p := tc.seqs[k], tc.third(e, k)
			a, c = tailBefore(q, p[0])
			_, ce = tailBefore(q, p[1])
			af, _ = tailBefore(q, p[2])
		}
		for d := range 2 {
			j := 2*k + d
			sums.qa[j] += a[d] - ls.q.qa[j]
			sums.qc[j] += c[d] - ls.q.qc[j]
			sums.qcEnd[j] += ce[d] - ls.q.qcEnd[j]
			sums.qaFrom[j] += af[d] - ls.q.qaFrom[j]
		}
	}
}

// pawSidesLess are the counts all takes off each corner's for an entry
// of one side: the two other sides' at their cursors, by corner · 2 +
// direction at the corner, and the cursors' moves (pawTailCursors.moves)
// they were read at.
type pawSidesLess struct {
	q     pawTailSums
	moves [2]uint32
	valid bool
}

// lessOthers reads, for an entry of side, the two other sides' counts at
// their cursors into ls, seen from each corner they meet.
func (tc *pawTailCursors) lessOthers(side int, ls *pawSidesLess) {
	ls.q = pawTailSums{}
	for _, s := range [2]int{(side + 1) % 3, (side + 2) % 3} {
		l, p := tc.lists[s], &tc.sc[s]
		at, after, from := countsAt(l, p[0], true), countsAt(l, p[1], true), countsAt(l, p[2], true)
		// Side s meets corners s and s+1; seen from n_k, the counts (by
		// direction at the side's lower id) swap where n_k is its higher id.
		for _, k := range [2]int{s, (s + 1) % 3} {
			for d := range 2 {
				dd := d
				if (s == k) != tc.lower[s] {
					dd = 1 - d
				}
				j := 2*k + d
				ls.q.qa[j] += at.all[dd]
				ls.q.qc[j] += at.cnt[dd]
				ls.q.qcEnd[j] += after.cnt[dd]
				ls.q.qaFrom[j] += from.all[dd]
			}
		}
	}
}
