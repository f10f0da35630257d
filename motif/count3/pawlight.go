package count3

import (
	"context"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/motif"
)

// The light-side walk of the paw pass (the triangle pass's method, one
// level deeper): for paw cells whose tail comes first and hangs at the
// corner where the first and last triangle edges' sides meet (M3 and its
// kin: pawLightRaw), a triangle's two light sides' edges are walked,
// merged in position order, and its heaviest side is read only through
// prefix counts and prefix sums at searched points. Such a cell's count
// is Σ over triples (e3 counted) of Qa_c(e1) − QaFrom_c(e3): the corner's
// tails before e1 less those before t3 − δ. For a light pair p < k within
// δ, the heavy edges h completing it are a range of the heavy side's
// list, by where h falls (first: t ≥ t_k − δ and before p; middle:
// between p and k; last: after k, counted, t ≤ t_p + δ), so a term read
// at a light edge is that edge's value times the range's size, and a term
// read at h is a difference of the heavy side's prefix sums of its
// edges' laid-out corner counts (pawHeavy: tailSeqs.own summed along the
// pair). Those counts are less the heavy pair only; the corner's other
// side — a light side — is taken off by a sum over its edges l: the
// heavy edges after l (or more than δ after it) in the range, which is
// the range's size for an l more than δ before k, and otherwise a
// weighted count of light pairs (l before p, both within δ before k) that
// a window over the walked edges keeps (pawLightWalk's w, w2). The
// heavy side's corner never being the opposite corner of a term's edge is
// what makes this exact with per-pair sums; the other cells, whose terms
// read a heavy edge at the corner opposite it, keep the walk over all
// three sides (pawSparse, pawDense).

// pawLightRaw reports whether paw raw counter r (pawShape's i) is one the
// light walk counts: tail first (rank 0) at the corner of the first and
// last triangle edges' sides.
func pawLightRaw(r int) bool {
	rank, cn, pat := r&3, r>>3%3, r/24
	x2 := perms3[pat/8][1]
	return rank == 0 && cn == (x2+2)%3
}

// pawLightTerm is a raw counter of the light walk: its triangle edges'
// symbols in temporal order, its tail direction at the corner, and that
// direction's slot in the heavy prefix sums.
type pawLightTerm struct {
	raw  int16
	x    [3]uint8
	dt   uint8
	slot uint8
}

// pawLightTables are the light walk's raw counters (Options.PawCells,
// when every one of them is a pawLightRaw) and the tail directions they
// read.
type pawLightTables struct {
	terms []pawLightTerm
	slot  [2]int8 // per tail direction at the corner: slot, or −1 if unread
	nDT   int
}

// pawLightTablesOf returns the light walk's tables of the paw raw
// counters in raws (indexes into the paw region), nil if one of them is
// not a pawLightRaw.
func pawLightTablesOf(raws []int) *pawLightTables {
	if len(raws) == 0 {
		return nil
	}
	t := &pawLightTables{slot: [2]int8{-1, -1}}
	for _, r := range raws {
		if !pawLightRaw(r) {
			return nil
		}
		dt := uint8(r >> 2 & 1)
		if t.slot[dt] < 0 {
			t.slot[dt] = int8(t.nDT)
			t.nDT++
		}
		pat := r / 24
		var x [3]uint8
		for j, s := range perms3[pat/8] {
			x[j] = uint8(2*s + pat>>(2-j)&1)
		}
		t.terms = append(t.terms, pawLightTerm{raw: int16(r), x: x, dt: dt, slot: uint8(t.slot[dt])})
	}
	return t
}

// pawLightMinHeavy is the fewest edges a pair needs for its prefix sums
// to be laid out (pawHeavy), so that it may be a light walk's heavy side;
// pawLightRatio is how many times the light sides' edges (in the span
// where the three sides meet) the heavy side must hold for a triangle to
// be walked on its light sides. Variables so that tests can send every
// triangle through the light walk.
var (
	pawLightMinHeavy = 16
	pawLightRatio    = 1.0
)

// pawHeavy are the prefix sums, along each pair with at least
// pawLightMinHeavy edges, of its edges' laid-out corner counts
// (tailSeqs.own) that the light walk reads at a heavy side: kind 0, all
// edges' tails before them (qAll); kind 1, the counted edges' tails
// before their t − δ (qAllFrom); by end (0: the pair's lower id), tail
// direction slot and edge direction (fIn).
type pawHeavy struct {
	off []int64 // per pair: its sums' first index in v, −1 if not laid out
	v   []int64
	nDT int
}

// stride is the sums per list index.
func (h *pawHeavy) stride() int { return 8 * h.nDT }

// idx is the index in a list index's sums of kind, end, slot and fIn.
func (h *pawHeavy) idx(kind, end, slot, fin int) int { return ((kind*2+end)*h.nDT+slot)*2 + fin }

// pawHeavy lays out the prefix sums of the pairs that may be heavy.
func (c *counter) pawHeavy(ctx context.Context, sp *staticPairs, sq *tailSeqs, lt *pawLightTables) (*pawHeavy, error) {
	h := &pawHeavy{off: make([]int64, sp.pairsLen), nDT: lt.nDT}
	stride := int64(h.stride())
	var n int64
	for j := range sp.pairsLen {
		m := sp.loff[j+1] - sp.loff[j] // the sentinel holds the totals
		if m-1 < int64(pawLightMinHeavy) {
			h.off[j] = -1
			continue
		}
		h.off[j] = n
		n += m * stride
	}
	h.v = make([]int64, n)
	err := c.parallel(ctx, sp.pairsLen, 256, func(_, lo, hi int) {
		acc := make([]int64, stride)
		for j := lo; j < hi; j++ {
			if h.off[j] < 0 {
				continue
			}
			clear(acc)
			at := h.off[j]
			for k := sp.loff[j]; ; k++ {
				copy(h.v[at:at+stride], acc)
				at += stride
				if k == sp.loff[j+1]-1 {
					break
				}
				e := &sp.ent[k]
				fin := int(e.flags & fIn)
				cnt := e.flags&fCounted != 0
				for end := range 2 {
					o := &sq.own[k][end]
					for dt := range 2 {
						slot := int(lt.slot[dt])
						if slot < 0 {
							continue
						}
						acc[h.idx(0, end, slot, fin)] += int64(o[qAll][dt])
						if cnt {
							acc[h.idx(1, end, slot, fin)] += int64(o[qAllFrom][dt])
						}
					}
				}
			}
		}
	})
	return h, err
}

// Cases of a light walk's raw counter in a triangle: where its heavy side
// falls among its three edges.
const (
	heavyFirst uint8 = iota
	heavyMiddle
	heavyLast
)

// pawLightAct is a raw counter's term read when an edge of symbol z (k,
// the later light edge) is walked: its case, the earlier light edge's
// symbol y (p), the heavy edge's direction d, the tail's direction dt at
// the corner and its slot.
type pawLightAct struct {
	kind, y, d, dt, slot uint8
	raw                  int16
}

// pawLightEnt is a walked light edge in the window, with what it added to
// its symbol's sums (pawLightSums), so that it takes them back when it
// leaves.
type pawLightEnt struct {
	t   int64
	sym uint8
	v   pawLightSums
}

// pawLightSums are, per symbol, the window's light edges p summed: their
// number; by heavy direction d, the heavy edges before p (pa) and the
// counted ones no later than t_p + δ (hi); by tail slot and d, the heavy
// prefix sums at those points (op: kind 0 at the heavy end on the other
// light side, ofc: kind 1 at the heavy end on p's side); by slot, p's
// tails at the light corner (qm) and at its heavy corner (ql), and those
// times pa and hi.
type pawLightSums struct {
	cnt        int64
	pa, hi     [2]int64
	op, ofc    [2][2]int64
	qm, ql     [2]int64
	qmPA, qlHI [2][2]int64
}

func (s *pawLightSums) add(v *pawLightSums, sign int64) {
	s.cnt += sign * v.cnt
	for d := range 2 {
		s.pa[d] += sign * v.pa[d]
		s.hi[d] += sign * v.hi[d]
		s.qm[d] += sign * v.qm[d]
		s.ql[d] += sign * v.ql[d]
		for x := range 2 {
			s.op[d][x] += sign * v.op[d][x]
			s.ofc[d][x] += sign * v.ofc[d][x]
			s.qmPA[d][x] += sign * v.qmPA[d][x]
			s.qlHI[d][x] += sign * v.qlHI[d][x]
		}
	}
}

// pawLightBuf is a worker's scratch for the light walk.
type pawLightBuf struct {
	q      []pawLightEnt
	acts   [6][]pawLightAct
	walked int64 // triangles walked on their light sides
}

// pawLightWalked counts the triangles every run walked on their light
// sides: what tests read to know which path ran.
var pawLightWalked atomic.Int64

// dirAt is the symbol direction (0: from n_s to n_s+1) of an edge of side
// s that has direction dt (0: out of it) at corner c, an end of s.
func dirAt(s, c int, dt uint8) int {
	if c == s {
		return int(dt)
	}
	return 1 - int(dt)
}

// pawLightWalk counts the triangle's light-walk raw counters if the
// triangle is walked on its light sides (its heaviest side laid out and
// pawLightRatio times the others in the span where all three meet), and
// reports whether it was.
func (c *counter) pawLightWalk(sp *staticPairs, sq *tailSeqs, n [3]uint32, pid [3]uint32, b *pawBuf, raw *[rawCycle - rawPaw]int64) bool {
	delta := c.delta
	var lists [3][]p4Edge
	var lower [3]bool
	first, last := int64(-1<<63), int64(1<<63-1)
	for s := range 3 {
		lists[s] = sp.list(pid[s])
		lower[s] = n[s] < n[(s+1)%3]
		first = max(first, sp.first[pid[s]])
		last = min(last, sp.last[pid[s]])
	}
	lo, hi := motif.SubTicks(first, delta), motif.AddTicks(last, delta)
	var from, to, size [3]int
	for s := range 3 {
		from[s], to[s] = timeRange(lists[s], lo, hi)
		if from[s] == to[s] {
			return true // no triple
		}
		size[s] = to[s] - from[s]
	}
	// A light edge l weighed by the heavy-last correction lies within δ
	// before a triple's middle edge, so up to 2δ before the span.
	lo2 := motif.SubTicks(lo, delta)
	H := 0
	for s := 1; s < 3; s++ {
		if size[s] > size[H] {
			H = s
		}
	}
	A, B := (H+1)%3, (H+2)%3
	ph := c.pawHeavyOf
	base := ph.off[pid[H]]
	if base < 0 || float64(size[H]) < pawLightRatio*float64(size[A]+size[B]) {
		return false
	}
	b.light.walked++
	// The light sides' edges with one of the other light side within δ
	// (every edge of a triple, and every light edge whose pairs the
	// window's corrections weigh, has one).
	light := [2]int{A, B}
	ll := [][]p4Edge{lists[A], lists[B]}
	order := []int{0, 1}
	var cand [2][]int32
	b.cand = b.cand[:0]
	for i := range 2 {
		at0 := len(b.cand)
		b.cand = candidates(b.cand, ll, i, firstTime(ll[i], lo2), to[light[i]], delta, b.curs[:2], order)
		if len(b.cand) == at0 {
			return true
		}
		cand[i] = b.cand[at0:len(b.cand):len(b.cand)]
	}
	// The counters' terms by the later light edge's symbol.
	lb := &b.light
	for z := range lb.acts {
		lb.acts[z] = lb.acts[z][:0]
	}
	for _, tm := range c.pawLight.terms {
		a := pawLightAct{dt: tm.dt, slot: tm.slot, raw: tm.raw}
		z := tm.x[2]
		switch H {
		case int(tm.x[0] / 2):
			a.kind, a.y, a.d = heavyFirst, tm.x[1], tm.x[0]&1
		case int(tm.x[1] / 2):
			a.kind, a.y, a.d = heavyMiddle, tm.x[0], tm.x[1]&1
		default:
			a.kind, a.y, a.d, z = heavyLast, tm.x[0], tm.x[2]&1, tm.x[1]
		}
		lb.acts[z] = append(lb.acts[z], a)
	}
	// What each symbol's edges read (the heavy sums at three points cost
	// a cache line each): as k, the heavy-first and heavy-last terms'; as
	// p, the sums those terms take from the window; hi for every edge
	// once a heavy-last term weighs pairs by it.
	var kFirst, kLast, pFirst, pLast [6]bool
	anyLast := false
	for z := range lb.acts {
		for _, a := range lb.acts[z] {
			switch a.kind {
			case heavyFirst:
				kFirst[z], pFirst[a.y] = true, true
			case heavyLast:
				kLast[z], pLast[a.y], anyLast = true, true, true
			}
		}
	}
	hl := lists[H]
	hv := ph.v[base : base+int64(len(hl)*ph.stride())]
	stride := ph.stride()
	// heavySum reads the heavy prefix sums of kind at list index i, corner
	// node c (an end of H), by tail slot and heavy symbol direction.
	heavySum := func(kind, i, c int) (v [2][2]int64) {
		end := 0
		if (c == H) != lower[H] {
			end = 1
		}
		row := hv[i*stride : i*stride+stride]
		for sl := range ph.nDT {
			for d := range 2 {
				fin := 0
				if (d == 1) == lower[H] {
					fin = 1
				}
				v[sl][d] = row[ph.idx(kind, end, sl, fin)]
			}
		}
		return
	}
	var sums [6]pawLightSums
	var w, w2 [6][6][2]int64 // Σ over window pairs l < p of pa(p) − pa(l), hi(p) − hi(l)
	syms := [4]uint8{uint8(2 * A), uint8(2*A + 1), uint8(2 * B), uint8(2*B + 1)}
	lb.q = lb.q[:0]
	head := 0
	var at [2]int
	var hPos, hIL, hIH int // heavy cursors: before e, first at t − δ, first after t + δ
	var oPos, sFrom [2]int // light cursors, by light index: before e, first at t − δ
	for {
		i := -1
		for k := range 2 {
			if at[k] < len(cand[k]) && (i < 0 || ll[k][cand[k][at[k]]].pos < ll[i][cand[i][at[i]]].pos) {
				i = k
			}
		}
		if i < 0 {
			break
		}
		idx := int(cand[i][at[i]])
		at[i]++
		e := &ll[i][idx]
		S, O := light[i], light[1-i]
		t := e.t
		for head < len(lb.q) && apart(lb.q[head].t, t, delta) {
			l := &lb.q[head]
			head++
			x := l.sym
			sums[x].add(&l.v, -1)
			for _, y := range syms {
				for d := range 2 {
					w[x][y][d] -= sums[y].pa[d] - sums[y].cnt*l.v.pa[d]
					w2[x][y][d] -= sums[y].hi[d] - sums[y].cnt*l.v.hi[d]
				}
			}
		}
		d := uint8(0)
		if (e.flags&fIn != 0) == lower[S] {
			d = 1
		}
		sym := uint8(2*S) + d
		tLo, tHi := motif.SubTicks(t, delta), motif.AddTicks(t, delta)
		hPos = gallopPos4(hl, hPos, e.pos)
		hcPos := countsAt(hl, hPos, lower[H])
		var hcIL, hcIH sideCounts
		if kFirst[sym] {
			hIL = gallop4(hl, hIL, tLo)
			hcIL = countsAt(hl, hIL, lower[H])
		}
		if anyLast {
			hIH = gallopAfter4(hl, hIH, tHi)
			hcIH = countsAt(hl, hIH, lower[H])
		}
		ol := ll[1-i]
		oPos[1-i] = gallopPos4(ol, oPos[1-i], e.pos)
		sFrom[1-i] = gallop4(ol, sFrom[1-i], tLo)
		sFrom[i] = gallop4(ll[i], sFrom[i], tLo)
		ocPos := countsAt(ol, oPos[1-i], lower[O])
		ocFrom := countsAt(ol, sFrom[1-i], lower[O])
		scFrom := countsAt(ll[i], sFrom[i], lower[S])
		counted := e.flags&fCounted != 0
		ix := sp.loff[pid[S]] + int64(idx)
		cSO, cSH, cOH := (H+2)%3, (O+2)%3, (S+2)%3 // the corners S∩O, S∩H, O∩H
		ownEnd := func(c int) int {                // n_c's end of S (0: its lower id)
			if (c == S) == lower[S] {
				return 0
			}
			return 1
		}
		ownSO, ownSH := &sq.own[ix][ownEnd(cSO)], &sq.own[ix][ownEnd(cSH)]
		// e as the later edge k: its terms.
		if acts := lb.acts[sym]; len(acts) > 0 {
			var opK, ofcK [2][2]int64
			if kFirst[sym] {
				opK = heavySum(0, hIL, cSH)
			}
			if kLast[sym] {
				ofcK = heavySum(1, hPos, cOH)
			}
			for _, a := range acts {
				s := &sums[a.y]
				if s.cnt == 0 {
					continue
				}
				hd, dt, sl := a.d, a.dt, a.slot
				var v int64
				switch a.kind {
				case heavyFirst:
					if !counted {
						continue
					}
					dS := dirAt(S, cSH, dt)
					il := hcIL.all[hd]
					ntot := s.pa[hd] - s.cnt*il
					qf := int64(ownSH[qAllFrom][dt]) - hcIL.all[dirAt(H, cSH, dt)]
					cw := scFrom.all[dS]
					v = s.op[sl][hd] - s.cnt*opK[sl][hd] - (cw+qf)*ntot - w[2*S+dS][a.y][hd]
				case heavyMiddle:
					if !counted {
						continue
					}
					pa := hcPos.all[hd]
					ntot := s.cnt*pa - s.pa[hd]
					qf := int64(ownSO[qAllFrom][dt]) - ocFrom.all[dirAt(O, cSO, dt)]
					v = pa*s.qm[sl] - s.qmPA[sl][hd] - qf*ntot
				case heavyLast:
					dO := dirAt(O, cOH, dt)
					pc := hcPos.cnt[hd]
					ntot := s.hi[hd] - s.cnt*pc
					v = s.qlHI[sl][hd] - pc*s.ql[sl] + ocFrom.all[dO]*ntot - (s.ofc[sl][hd] - s.cnt*ofcK[sl][hd]) + w2[2*O+dO][a.y][hd]
				}
				raw[a.raw] += v
			}
		}
		// e joins the window as an earlier edge p.
		var ent pawLightEnt
		ent.t, ent.sym = t, sym
		v := &ent.v
		v.cnt = 1
		v.pa, v.hi = hcPos.all, hcIH.cnt
		if pFirst[sym] {
			v.op = heavySum(0, hPos, cOH)
		}
		if pLast[sym] {
			v.ofc = heavySum(1, hIH, cSH)
		}
		for dt := range uint8(2) {
			sl := c.pawLight.slot[dt]
			if sl < 0 {
				continue
			}
			v.qm[sl] = int64(ownSO[qAll][dt]) - ocPos.all[dirAt(O, cSO, dt)]
			v.ql[sl] = int64(ownSH[qAll][dt]) - hcPos.all[dirAt(H, cSH, dt)]
			for hd := range 2 {
				v.qmPA[sl][hd] = v.qm[sl] * v.pa[hd]
				v.qlHI[sl][hd] = v.ql[sl] * v.hi[hd]
			}
		}
		for _, x := range syms {
			for hd := range 2 {
				w[x][sym][hd] += sums[x].cnt*v.pa[hd] - sums[x].pa[hd]
				w2[x][sym][hd] += sums[x].cnt*v.hi[hd] - sums[x].hi[hd]
			}
		}
		sums[sym].add(v, 1)
		lb.q = append(lb.q, ent)
	}
	return true
}
