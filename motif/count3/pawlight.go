package count3

import (
	"context"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/motif"
)

// The light-side walk of the paw pass (the triangle pass's method, one
// level deeper): for the paw cells whose tail hangs at the corner shared
// by the sides of the two triangle edges next to it in time (the first
// and last for a tail first or last, e1 and e2 for a tail between them,
// e2 and e3 for one between those: M3, M9 and their kin, 64 of the 160;
// pawLightRaw), a triangle's two light sides' edges are walked, merged in
// position order, and its heaviest side is read only through prefix
// counts and prefix sums at searched points. Such a cell's count is a sum
// over triples of a difference of the corner's tail counts at two bounds
// (pawTails' terms: e.g. tail first, Σ over triples with e3 counted of
// Qa_c(e1) − QaFrom_c(e3)). For a light pair p < k within δ, the heavy
// edges h completing it are a range of the heavy side's list, by where h
// falls (first: t ≥ t_k − δ and before p; middle: between p and k; last:
// after k, no later than t_p + δ), so a term read at a light edge is that
// edge's value times the range's size, and a term read at h is a
// difference of the heavy side's prefix sums of its edges' laid-out
// corner counts (pawHeavy: tailSeqs.own summed along the pair). Those
// counts are less the heavy pair only; the corner's other side — a light
// side — is taken off by a sum over its edges l of the heavy edges in the
// range on the right side of l's bound: the range's size for an l far
// enough from the pair, else counts of light pairs in the window weighed
// by heavy prefix counts (the tracked pair arrays, trackW …), and for an
// l after k, the window's pairs read again when l arrives
// (pawLightBuf.later). That the corner is always an end of the sides
// whose edges its terms read is what makes this exact with per-pair
// sums; the other 96 cells, whose terms read a heavy edge at the corner
// opposite it (the third corner's tails, searched per heavy edge), keep
// the walk over all three sides (pawSparse, pawDense).

// pawLightRaw reports whether paw raw counter r (pawShape's i) is one the
// light walk counts: tail first (rank 0) at the corner of the first and
// last triangle edges' sides, second (rank 1, between e1 and e2) at the
// corner of the first two's, third (rank 2, between e2 and e3) at the
// corner of the last two's, or last (rank 3) where the first and last
// sides meet.
func pawLightRaw(r int) bool {
	rank, cn, pat := r&3, r>>3%3, r/24
	p := perms3[pat/8]
	switch rank {
	case 0:
		return cn == (p[1]+2)%3
	case 1:
		return cn == (p[2]+2)%3
	case 2:
		return cn == (p[0]+2)%3
	case 3:
		return cn == (p[1]+2)%3
	}
	return false
}

// pawLightCell reports whether every raw counter of paw cell Paw + i is
// one the light walk counts (pawLightRaw): 64 of the 160.
func pawLightCell(i int) bool {
	n := 0
	for r := range rawCycle - rawPaw {
		if rawCell[rawPaw+r] == Paw+Cell(i) {
			if !pawLightRaw(r) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// pawMaskLight reports whether a run of the cells in m takes the light
// walk: a few cells (the sparse tables, pawTablesOf), every one a
// pawLightCell.
func pawMaskLight(m PawMask) bool {
	if n := m.Len(); n == 0 || n > pawSparseMaxCells {
		return false
	}
	for i := range len(pawNames) {
		if m.Has(i) && !pawLightCell(i) {
			return false
		}
	}
	return true
}

// pawLightTerm is a raw counter of the light walk: its tail's rank, its
// triangle edges' symbols in temporal order, its tail direction at the
// corner, and that direction's slot in the heavy prefix sums.
type pawLightTerm struct {
	raw  int16
	rank uint8
	x    [3]uint8
	dt   uint8
	slot uint8
}

// pawLightTables are the light walk's raw counters (Options.PawCells,
// when every one of them is a pawLightRaw), the tail directions they read
// and the kinds of heavy prefix sums (pawHeavy) they need.
type pawLightTables struct {
	terms []pawLightTerm
	slot  [2]int8 // per tail direction at the corner: slot, or −1 if unread
	nDT   int
	kind  [5]int8 // per heavy sum kind: slot, or −1 if unread
	nKind int
	// ranks has bit r where a term has its tail at rank r; fields are the
	// pawLightSums indexes those ranks' terms read.
	ranks  uint8
	fields []uint8
}

// pawLightTablesOf returns the light walk's tables of the paw raw
// counters in raws (indexes into the paw region), nil if one of them is
// not a pawLightRaw.
func pawLightTablesOf(raws []int) *pawLightTables {
	if len(raws) == 0 {
		return nil
	}
	t := &pawLightTables{slot: [2]int8{-1, -1}, kind: [5]int8{-1, -1, -1, -1, -1}}
	need := func(k int) {
		if t.kind[k] < 0 {
			t.kind[k] = int8(t.nKind)
			t.nKind++
		}
	}
	for _, r := range raws {
		if !pawLightRaw(r) {
			return nil
		}
		dt := uint8(r >> 2 & 1)
		if t.slot[dt] < 0 {
			t.slot[dt] = int8(t.nDT)
			t.nDT++
		}
		switch r & 3 {
		case 0:
			need(sumAll)
			need(sumCntFrom)
		case 1:
			need(sumAll)
		case 2:
			need(sumAll)
			need(sumCnt)
		case 3:
			need(sumEnd)
			need(sumQc)
		}
		pat := r / 24
		var x [3]uint8
		for j, s := range perms3[pat/8] {
			x[j] = uint8(2*s + pat>>(2-j)&1)
		}
		t.terms = append(t.terms, pawLightTerm{raw: int16(r), rank: uint8(r & 3), x: x, dt: dt, slot: uint8(t.slot[dt])})
		t.ranks |= 1 << (r & 3)
	}
	var in [lfLen]bool
	for _, f := range [][2]int{{lfCnt, 1}, {lfPa, 2}, {lfHi, 2}} {
		for i := range f[1] {
			in[f[0]+i] = true
		}
	}
	for r, fs := range pawLightFields {
		if t.ranks>>r&1 == 0 {
			continue
		}
		for _, f := range fs {
			for i := range f[1] {
				in[f[0]+i] = true
			}
		}
	}
	for f, ok := range in {
		if ok {
			t.fields = append(t.fields, uint8(f))
		}
	}
	return t
}

// pawLightMinHeavy is the fewest edges a pair needs for its prefix sums
// to be laid out (pawHeavy), so that it may be a light walk's heavy side;
// pawLightRatio is how many times the light sides' edges (in the span
// where the three sides meet) the heavy side must hold for a triangle to
// be walked on its light sides (BenchmarkPawLight: 0.5 to 2 and 8 to 32
// edges alike, 0 slower: every triangle walked so). Variables so that
// tests can send every triangle through the light walk.
var (
	pawLightMinHeavy = 16
	pawLightRatio    = 1.0
)

// Kinds of heavy prefix sums: along a pair, of its edges' tails before
// them (sumAll: all edges, qAll; sumCnt: counted edges, qAll), of its
// counted edges' tails before their t − δ (sumCntFrom, qAllFrom), and of
// its edges' counted tails no later than their t + δ (sumEnd, qCntEnd)
// and before them (sumQc, qCnt).
const (
	sumAll = iota
	sumCntFrom
	sumCnt
	sumEnd
	sumQc
)

// pawHeavy are the prefix sums, along each pair with at least
// pawLightMinHeavy edges, of its edges' laid-out corner counts
// (tailSeqs.own) that the light walk reads at a heavy side, by kind slot,
// end (0: the pair's lower id), tail direction slot and edge direction
// (fIn).
type pawHeavy struct {
	off   []int64 // per pair: its sums' first index in v, −1 if not laid out
	v     []int64
	nDT   int
	nKind int
}

// stride is the sums per list index.
func (h *pawHeavy) stride() int { return 4 * h.nKind * h.nDT }

// idx is the index in a list index's sums of kind slot, end, slot and fIn.
func (h *pawHeavy) idx(kind, end, slot, fin int) int {
	return ((kind*2+end)*h.nDT+slot)*2 + fin
}

// pawHeavy lays out the prefix sums of the pairs that may be heavy.
func (c *counter) pawHeavy(ctx context.Context, sp *staticPairs, sq *tailSeqs, lt *pawLightTables) (*pawHeavy, error) {
	h := &pawHeavy{off: make([]int64, sp.pairsLen), nDT: lt.nDT, nKind: lt.nKind}
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
						if ks := lt.kind[sumAll]; ks >= 0 {
							acc[h.idx(int(ks), end, slot, fin)] += int64(o[qAll][dt])
						}
						if ks := lt.kind[sumCntFrom]; ks >= 0 && cnt {
							acc[h.idx(int(ks), end, slot, fin)] += int64(o[qAllFrom][dt])
						}
						if ks := lt.kind[sumCnt]; ks >= 0 && cnt {
							acc[h.idx(int(ks), end, slot, fin)] += int64(o[qAll][dt])
						}
						if ks := lt.kind[sumEnd]; ks >= 0 {
							acc[h.idx(int(ks), end, slot, fin)] += int64(o[qCntEnd][dt])
						}
						if ks := lt.kind[sumQc]; ks >= 0 {
							acc[h.idx(int(ks), end, slot, fin)] += int64(o[qCnt][dt])
						}
					}
				}
			}
		}
	})
	return h, err
}

// Terms of a light walk's raw counter in a triangle, by its rank and
// where its heavy side falls among its three edges (first, middle, last).
const (
	r0First uint8 = iota
	r0Middle
	r0Last
	r1First
	r1Middle
	r1Last
	r2First
	r2Middle
	r2Last
	r3First
	r3Middle
	r3Last
)

// pawLightAct is a raw counter's term read when an edge of symbol z (k,
// the later light edge) is walked: its kind, the earlier light edge's
// symbol y (p), the heavy edge's direction d, the tail's direction dt at
// the corner and its slot. A rank 2 heavy-last term and a rank 3
// heavy-first or heavy-last one are also read when a later light edge l
// of their correction's side arrives (pawLightBuf.later).
type pawLightAct struct {
	kind, y, z, d, dt, slot uint8
	raw                     int16
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
// prefix sums at those points (op: sumAll at pa, at the heavy end on the
// other light side; opS: the same at the heavy end on p's side; ofc:
// sumCntFrom at hi, at the heavy end on p's side; opc: sumCnt at hi, at
// the heavy end on the other light side); by slot, p's tails at the light
// corner less the other light side before p (qm), at its heavy corner
// less the heavy side before p (ql), the other light side's edges before
// p at the heavy corner (cs), ql plus p's own side's edges before p and
// p itself at that corner (g), and those times pa and hi. Rank 3 (tail
// last) adds cntC, p if counted; hiA, all heavy edges no later than t_p +
// δ; opE (sumEnd at pa, the other light side's heavy end) and opq (sumQc
// at hiA, p's heavy end); qe, p's counted tails to t_p + δ at the light
// corner less the other light side's; f, those at p's heavy corner less
// the heavy side's, plus p's own side's counted edges to p; times pa, hiA.
//
// They are one array, indexed by the lf constants (a field by slot and
// direction at lf + 2·slot + d, by slot or direction at lf + i), so that
// a window update adds only the fields the run's ranks read
// (pawLightTables.fields).
type pawLightSums [lfLen]int64

// Fields of pawLightSums.
const (
	lfCnt  = 0
	lfCntC = 1
	lfPa   = 2
	lfHi   = 4
	lfHiA  = 6
	lfOp   = 8
	lfOpS  = 12
	lfOfc  = 16
	lfOpc  = 20
	lfOpE  = 24
	lfOpq  = 28
	lfQm   = 32
	lfQl   = 34
	lfCs   = 36
	lfG    = 38
	lfQe   = 40
	lfF    = 42
	lfQmPA = 44
	lfQmHI = 48
	lfQlPA = 52
	lfQlHI = 56
	lfCsPA = 60
	lfGPA  = 64
	lfQePA = 68
	lfFHIA = 72
	lfLen  = 76
)

// pawLightFields are the fields each rank's terms read, with their widths.
var pawLightFields = [4][][2]int{
	{{lfOp, 4}, {lfOfc, 4}, {lfQm, 2}, {lfQmPA, 4}, {lfQl, 2}, {lfQlHI, 4}},
	{{lfQl, 2}, {lfQlPA, 4}, {lfOpS, 4}, {lfG, 2}, {lfGPA, 4}, {lfQm, 2}, {lfQmHI, 4}},
	{{lfQm, 2}, {lfQmPA, 4}, {lfOp, 4}, {lfCs, 2}, {lfCsPA, 4}, {lfOpc, 4}},
	{{lfOpE, 4}, {lfQe, 2}, {lfQePA, 4}, {lfF, 2}, {lfFHIA, 4}, {lfOpq, 4}, {lfHiA, 2}, {lfCntC, 1}},
}

// add adds sign times v's fields (a list of indexes) to s.
func (s *pawLightSums) add(v *pawLightSums, sign int64, fields []uint8) {
	for _, f := range fields {
		s[f] += sign * v[f]
	}
}

// put stores sums by slot and direction at field f.
func (s *pawLightSums) put(f int, v [2][2]int64) {
	s[f], s[f+1], s[f+2], s[f+3] = v[0][0], v[0][1], v[1][0], v[1][1]
}

// pawLightBuf is a worker's scratch for the light walk.
type pawLightBuf struct {
	q      []pawLightEnt
	acts   [6][]pawLightAct // by k's symbol
	later  [6][]pawLightAct // rank 2 and 3, heavy first or last: by l's symbol
	first  [6][]pairTrack   // the window pairs read, by their first edge's symbol
	second [6][]pairTrack   // and by their second's
	walked int64            // triangles walked on their light sides
}

// pairTrack is a window pair array (trackW …) and the pair's other symbol.
type pairTrack struct{ arr, other uint8 }

// The window pair arrays of pawLightWalk, by symbols x of the earlier edge
// l and y of the later p, both within δ before the current edge: w Σ pa(p)
// − pa(l), w2 Σ hi(p) − hi(l), np their number, pl Σ pa(p), vh Σ hi(l).
const (
	trackW = iota
	trackW2
	trackNP
	trackPL
	trackVH
	trackVP  // Σ pa(l)
	trackVA  // Σ hiA(l)
	trackNPC // the pairs whose p is counted
	trackVAC // Σ hiA(l) over those
)

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
	lo, hi := c.sidesSpan(sp, n, pid, &lists, &lower)
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
	// The counters' terms by the later light edge's symbol, and what each
	// symbol's edges read (the heavy sums cost a cache line a point).
	lb := &b.light
	for z := range lb.acts {
		lb.acts[z], lb.later[z] = lb.acts[z][:0], lb.later[z][:0]
		lb.first[z], lb.second[z] = lb.first[z][:0], lb.second[z][:0]
	}
	// The window pairs the terms read, kept per symbol of their first
	// and of their second edge.
	var tracked [9][6][6]bool
	track := func(arr int, x, y uint8) {
		if !tracked[arr][x][y] {
			tracked[arr][x][y] = true
			lb.first[x] = append(lb.first[x], pairTrack{uint8(arr), y})
			lb.second[y] = append(lb.second[y], pairTrack{uint8(arr), x})
		}
	}
	type needs struct {
		kIL, kOP, kOFC, kOPpos, kOPC, kOPo, kOPposO, kOPE, kOPQ bool
		pOP, pOPS, pOFC, pOPC, pOPE, pOPQ                       bool
	}
	var nd [6]needs
	anyHi, anyEnd := false, false
	for _, tm := range c.pawLight.terms {
		a := pawLightAct{dt: tm.dt, slot: tm.slot, raw: tm.raw}
		x := tm.x
		var pos uint8 // the heavy edge's place
		switch H {
		case int(x[0] / 2):
			a.y, a.z, a.d = x[1], x[2], x[0]&1
		case int(x[1] / 2):
			a.y, a.z, a.d, pos = x[0], x[2], x[1]&1, 1
		default:
			a.y, a.z, a.d, pos = x[0], x[1], x[2]&1, 2
		}
		a.kind = 3*tm.rank + pos
		k, p := &nd[a.z], &nd[a.y]
		// k's side and p's, their symbols in the tail's direction at the
		// corner each shares with the heavy side.
		sk, so := int(a.z/2), int(a.y/2)
		kH := uint8(2*sk + dirAt(sk, (so+2)%3, a.dt))
		pH := uint8(2*so + dirAt(so, (sk+2)%3, a.dt))
		switch a.kind {
		case r0First:
			k.kIL, k.kOP, p.pOP = true, true, true
			track(trackW, kH, a.y)
		case r0Last:
			k.kOFC, p.pOFC, anyHi = true, true, true
			track(trackW2, pH, a.y)
		case r1First:
			k.kIL, k.kOPo, p.pOPS = true, true, true
			track(trackW, pH, a.y)
		case r1Middle:
			k.kOPposO, p.pOPS = true, true
			track(trackNP, a.y, pH)
			track(trackPL, a.y, pH)
		case r1Last:
			anyHi = true
		case r2First:
			k.kIL = true
		case r2Middle:
			k.kOPpos, p.pOP = true, true
			track(trackNP, a.y, kH)
			track(trackPL, a.y, kH)
		case r2Last:
			k.kOPC, p.pOPC, anyHi = true, true, true
			track(trackNP, a.y, a.z)
			track(trackVH, a.y, a.z)
			lb.later[kH] = append(lb.later[kH], a) // l: of k's side, the tail's direction
		case r3First:
			k.kIL, k.kOPE, p.pOPE = true, true, true
			nd[kH].kIL = true
			track(trackNP, a.y, a.z)
			track(trackVP, a.y, a.z)
			lb.later[kH] = append(lb.later[kH], a)
		case r3Middle:
			anyEnd = true
		case r3Last:
			k.kOPQ, p.pOPQ, anyHi = true, true, true
			track(trackNPC, a.y, pH)
			track(trackVAC, a.y, pH)
			track(trackNP, a.y, a.z)
			track(trackVA, a.y, a.z)
			lb.later[pH] = append(lb.later[pH], a)
		}
		lb.acts[a.z] = append(lb.acts[a.z], a)
	}
	hl := lists[H]
	stride := ph.stride()
	hv := ph.v[base : base+int64(len(hl)*stride)]
	kinds := c.pawLight.kind
	fields, ranks := c.pawLight.fields, c.pawLight.ranks
	// heavySum reads the heavy prefix sums of kind at list index i, corner
	// node cn (an end of H), by tail slot and heavy symbol direction.
	heavySum := func(kind, i, cn int) (v [2][2]int64) {
		end := 0
		if (cn == H) != lower[H] {
			end = 1
		}
		ks := int(kinds[kind])
		row := hv[i*stride : i*stride+stride]
		for sl := range ph.nDT {
			for d := range 2 {
				fin := 0
				if (d == 1) == lower[H] {
					fin = 1
				}
				v[sl][d] = row[ph.idx(ks, end, sl, fin)]
			}
		}
		return
	}
	var sums [6]pawLightSums
	var w, w2, pl, vh, vp, va, vac [6][6][2]int64 // trackW …, by heavy direction
	var npc [6][6]int64
	var np [6][6]int64
	lb.q = lb.q[:0]
	head := 0
	var at [2]int
	var hPos, hIL, hIH int       // heavy cursors: before e, first at t − δ, first after t + δ
	var oPos, sFrom, oEnd [2]int // light cursors, by light index: before e, first at t − δ, first after t + δ
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
			sums[x].add(&l.v, -1, fields)
			for _, tr := range lb.first[x] {
				y := tr.other
				s := &sums[y]
				switch tr.arr {
				case trackNP:
					np[x][y] -= s[lfCnt]
				case trackW:
					for d := range 2 {
						w[x][y][d] -= s[lfPa+int(d)] - s[lfCnt]*l.v[lfPa+int(d)]
					}
				case trackW2:
					for d := range 2 {
						w2[x][y][d] -= s[lfHi+int(d)] - s[lfCnt]*l.v[lfHi+int(d)]
					}
				case trackPL:
					for d := range 2 {
						pl[x][y][d] -= s[lfPa+int(d)]
					}
				case trackVH:
					for d := range 2 {
						vh[x][y][d] -= l.v[lfHi+int(d)] * s[lfCnt]
					}
				case trackVP:
					for d := range 2 {
						vp[x][y][d] -= l.v[lfPa+int(d)] * s[lfCnt]
					}
				case trackVA:
					for d := range 2 {
						va[x][y][d] -= l.v[lfHiA+int(d)] * s[lfCnt]
					}
				case trackNPC:
					npc[x][y] -= s[lfCntC]
				case trackVAC:
					for d := range 2 {
						vac[x][y][d] -= l.v[lfHiA+int(d)] * s[lfCntC]
					}
				}
			}
		}
		ed := 0
		if (e.flags&fIn != 0) == lower[S] {
			ed = 1
		}
		sym := uint8(2*S + ed)
		need := &nd[sym]
		tLo, tHi := motif.SubTicks(t, delta), motif.AddTicks(t, delta)
		hPos = gallopPos4(hl, hPos, e.pos)
		hcPos := countsAt(hl, hPos, lower[H])
		var hcIL, hcIH sideCounts
		if need.kIL {
			hIL = gallop4(hl, hIL, tLo)
			hcIL = countsAt(hl, hIL, lower[H])
		}
		if anyHi {
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
		scPos := countsAt(ll[i], idx, lower[S])
		var ocEnd sideCounts
		if anyEnd {
			oEnd[1-i] = gallopAfter4(ol, oEnd[1-i], tHi)
			ocEnd = countsAt(ol, oEnd[1-i], lower[O])
		}
		counted := e.flags&fCounted != 0
		ix := sp.loff[pid[S]] + int64(idx)
		cSO, cSH, cOH := (H+2)%3, (O+2)%3, (S+2)%3 // the corners S∩O, S∩H, O∩H
		ownEnd := func(cn int) int {               // n_cn's end of S (0: its lower id)
			if (cn == S) == lower[S] {
				return 0
			}
			return 1
		}
		ownSO, ownSH := &sq.own[ix][ownEnd(cSO)], &sq.own[ix][ownEnd(cSH)]
		// e's values as an earlier edge p, and the scalars it reads as k.
		var ent pawLightEnt
		ent.t, ent.sym = t, sym
		v := &ent.v
		v[lfCnt] = 1
		v[lfPa], v[lfPa+1], v[lfHi], v[lfHi+1], v[lfHiA], v[lfHiA+1] = hcPos.all[0], hcPos.all[1], hcIH.cnt[0], hcIH.cnt[1], hcIH.all[0], hcIH.all[1]
		if counted {
			v[lfCntC] = 1
		}
		for dt := range uint8(2) {
			sl := c.pawLight.slot[dt]
			if sl < 0 {
				continue
			}
			v[lfQm+int(sl)] = int64(ownSO[qAll][dt]) - ocPos.all[dirAt(O, cSO, dt)]
			v[lfQl+int(sl)] = int64(ownSH[qAll][dt]) - hcPos.all[dirAt(H, cSH, dt)]
			qm, ql := v[lfQm+int(sl)], v[lfQl+int(sl)]
			dS := dirAt(S, cSH, dt)
			for hd := range 2 {
				v[lfQmPA+2*int(sl)+hd] = qm * v[lfPa+hd]
				v[lfQlHI+2*int(sl)+hd] = ql * v[lfHi+hd]
			}
			if ranks&(1<<1) != 0 {
				g := ql + scPos.all[dS]
				if ed == dS {
					g++
				}
				v[lfG+int(sl)] = g
				for hd := range 2 {
					v[lfQmHI+2*int(sl)+hd] = qm * v[lfHi+hd]
					v[lfQlPA+2*int(sl)+hd] = ql * v[lfPa+hd]
					v[lfGPA+2*int(sl)+hd] = g * v[lfPa+hd]
				}
			}
			if ranks&(1<<2) != 0 {
				cs := ocPos.all[dirAt(O, cOH, dt)]
				v[lfCs+int(sl)] = cs
				for hd := range 2 {
					v[lfCsPA+2*int(sl)+hd] = cs * v[lfPa+hd]
				}
			}
			if ranks&(1<<3) != 0 {
				qe := int64(ownSO[qCntEnd][dt]) - ocEnd.cnt[dirAt(O, cSO, dt)]
				f := int64(ownSH[qCntEnd][dt]) - hcIH.cnt[dirAt(H, cSH, dt)] + scPos.cnt[dS]
				if counted && ed == dS {
					f++
				}
				v[lfQe+int(sl)], v[lfF+int(sl)] = qe, f
				for hd := range 2 {
					v[lfQePA+2*int(sl)+hd] = qe * v[lfPa+hd]
					v[lfFHIA+2*int(sl)+hd] = f * v[lfHiA+hd]
				}
			}
		}
		// e as the last light edge l of its pairs' corrections: the pairs
		// p < k before it, weighed by the range's heavy edges on the far
		// side of l's bound.
		for _, a := range lb.later[sym] {
			switch a.kind {
			case r2Last:
				raw[a.raw] -= vh[a.y][a.z][a.d] - hcPos.cnt[a.d]*np[a.y][a.z]
			case r3First: // l's counted tail: t_l ≤ t_h + δ for h from il(l)
				if counted {
					raw[a.raw] -= vp[a.y][a.z][a.d] - hcIL.all[a.d]*np[a.y][a.z]
				}
			case r3Last: // l before h, l counted
				if counted {
					raw[a.raw] += va[a.y][a.z][a.d] - hcPos.all[a.d]*np[a.y][a.z]
				}
			}
		}
		// e as the later edge k: its terms.
		if acts := lb.acts[sym]; len(acts) > 0 {
			var opK, ofcK, opKpos, opcK, opKo, opKposO, opEK, opqK [2][2]int64
			if need.kOPE {
				opEK = heavySum(sumEnd, hIL, cSH)
			}
			if need.kOPQ {
				opqK = heavySum(sumQc, hPos, cOH)
			}
			if need.kOP {
				opK = heavySum(sumAll, hIL, cSH)
			}
			if need.kOFC {
				ofcK = heavySum(sumCntFrom, hPos, cOH)
			}
			if need.kOPpos {
				opKpos = heavySum(sumAll, hPos, cSH)
			}
			if need.kOPC {
				opcK = heavySum(sumCnt, hPos, cSH)
			}
			if need.kOPo {
				opKo = heavySum(sumAll, hIL, cOH)
			}
			if need.kOPposO {
				opKposO = heavySum(sumAll, hPos, cOH)
			}
			for _, a := range acts {
				s := &sums[a.y]
				if s[lfCnt] == 0 {
					continue
				}
				hd, dt, sl := a.d, a.dt, a.slot
				var val int64
				switch a.kind {
				case r0First:
					if !counted {
						continue
					}
					dS := dirAt(S, cSH, dt)
					il := hcIL.all[hd]
					ntot := s[lfPa+int(hd)] - s[lfCnt]*il
					qf := int64(ownSH[qAllFrom][dt]) - hcIL.all[dirAt(H, cSH, dt)]
					cw := scFrom.all[dS]
					val = s[lfOp+2*int(sl)+int(hd)] - s[lfCnt]*opK[sl][hd] - (cw+qf)*ntot - w[2*S+dS][a.y][hd]
				case r0Middle:
					if !counted {
						continue
					}
					pa := hcPos.all[hd]
					ntot := s[lfCnt]*pa - s[lfPa+int(hd)]
					qf := int64(ownSO[qAllFrom][dt]) - ocFrom.all[dirAt(O, cSO, dt)]
					val = pa*s[lfQm+int(sl)] - s[lfQmPA+2*int(sl)+int(hd)] - qf*ntot
				case r0Last:
					dO := dirAt(O, cOH, dt)
					pc := hcPos.cnt[hd]
					ntot := s[lfHi+int(hd)] - s[lfCnt]*pc
					val = s[lfQlHI+2*int(sl)+int(hd)] - pc*s[lfQl+int(sl)] + ocFrom.all[dO]*ntot - (s[lfOfc+2*int(sl)+int(hd)] - s[lfCnt]*ofcK[sl][hd]) + w2[2*O+dO][a.y][hd]
				case r1First:
					if !counted {
						continue
					}
					dO := dirAt(O, cOH, dt)
					il := hcIL.all[hd]
					ntot := s[lfPa+int(hd)] - s[lfCnt]*il
					val = s[lfQlPA+2*int(sl)+int(hd)] - il*s[lfQl+int(sl)] - s[lfOpS+2*int(sl)+int(hd)] + s[lfCnt]*opKo[sl][hd] + ocFrom.all[dO]*ntot + w[2*O+dO][a.y][hd]
				case r1Middle:
					if !counted {
						continue
					}
					x := 2*O + dirAt(O, cOH, dt)
					pa := hcPos.all[hd]
					val = s[lfCnt]*opKposO[sl][hd] - s[lfOpS+2*int(sl)+int(hd)] - (pa*s[lfG+int(sl)] - s[lfGPA+2*int(sl)+int(hd)]) - (pa*np[a.y][x] - pl[a.y][x][hd])
				case r1Last:
					pc := hcPos.cnt[hd]
					val = v[lfQm+int(sl)]*(s[lfHi+int(hd)]-s[lfCnt]*pc) - (s[lfQmHI+2*int(sl)+int(hd)] - pc*s[lfQm+int(sl)])
				case r2First:
					if !counted {
						continue
					}
					il := hcIL.all[hd]
					val = v[lfQm+int(sl)]*(s[lfPa+int(hd)]-s[lfCnt]*il) - (s[lfQmPA+2*int(sl)+int(hd)] - il*s[lfQm+int(sl)])
				case r2Middle:
					if !counted {
						continue
					}
					pa := hcPos.all[hd]
					x := 2*S + dirAt(S, cSH, dt)
					val = (s[lfCnt]*pa-s[lfPa+int(hd)])*v[lfQl+int(sl)] - s[lfCnt]*opKpos[sl][hd] + s[lfOp+2*int(sl)+int(hd)] + pa*s[lfCs+int(sl)] - s[lfCsPA+2*int(sl)+int(hd)] + pa*np[a.y][x] - pl[a.y][x][hd]
				case r2Last:
					dS := dirAt(S, cSH, dt)
					self := int64(0)
					if ed == dS {
						self = 1
					}
					ntot := s[lfHi+int(hd)] - s[lfCnt]*hcPos.cnt[hd]
					val = s[lfOpc+2*int(sl)+int(hd)] - s[lfCnt]*opcK[sl][hd] - (scPos.all[dS]+self+v[lfQl+int(sl)])*ntot
				case r3First:
					dS := dirAt(S, cSH, dt)
					qc := int64(ownSH[qCnt][dt]) - hcPos.cnt[dirAt(H, cSH, dt)] + scPos.cnt[dS]
					if counted && ed == dS {
						qc++
					}
					ntot := s[lfPa+int(hd)] - s[lfCnt]*hcIL.all[hd]
					val = s[lfOpE+2*int(sl)+int(hd)] - s[lfCnt]*opEK[sl][hd] - qc*ntot
				case r3Middle:
					pa := hcPos.all[hd]
					qc := int64(ownSO[qCnt][dt]) - ocPos.cnt[dirAt(O, cSO, dt)]
					val = pa*s[lfQe+int(sl)] - s[lfQePA+2*int(sl)+int(hd)] - qc*(s[lfCnt]*pa-s[lfPa+int(hd)])
				case r3Last:
					pa := hcPos.all[hd]
					x := 2*O + dirAt(O, cOH, dt)
					val = s[lfFHIA+2*int(sl)+int(hd)] - pa*s[lfF+int(sl)] - s[lfOpq+2*int(sl)+int(hd)] + s[lfCnt]*opqK[sl][hd] + vac[a.y][x][hd] - pa*npc[a.y][x]
				}
				raw[a.raw] += val
			}
		}
		// e joins the window as an earlier edge p.
		if need.pOP {
			v.put(lfOp, heavySum(sumAll, hPos, cOH))
		}
		if need.pOPS {
			v.put(lfOpS, heavySum(sumAll, hPos, cSH))
		}
		if need.pOFC {
			v.put(lfOfc, heavySum(sumCntFrom, hIH, cSH))
		}
		if need.pOPC {
			v.put(lfOpc, heavySum(sumCnt, hIH, cOH))
		}
		if need.pOPE {
			v.put(lfOpE, heavySum(sumEnd, hPos, cOH))
		}
		if need.pOPQ {
			v.put(lfOpq, heavySum(sumQc, hIH, cSH))
		}
		for _, tr := range lb.second[sym] {
			x := tr.other
			s := &sums[x]
			switch tr.arr {
			case trackNP:
				np[x][sym] += s[lfCnt]
			case trackW:
				for hd := range 2 {
					w[x][sym][hd] += s[lfCnt]*v[lfPa+int(hd)] - s[lfPa+int(hd)]
				}
			case trackW2:
				for hd := range 2 {
					w2[x][sym][hd] += s[lfCnt]*v[lfHi+int(hd)] - s[lfHi+int(hd)]
				}
			case trackPL:
				for hd := range 2 {
					pl[x][sym][hd] += s[lfCnt] * v[lfPa+int(hd)]
				}
			case trackVH:
				for hd := range 2 {
					vh[x][sym][hd] += s[lfHi+int(hd)]
				}
			case trackVP:
				for hd := range 2 {
					vp[x][sym][hd] += s[lfPa+int(hd)]
				}
			case trackVA:
				for hd := range 2 {
					va[x][sym][hd] += s[lfHiA+int(hd)]
				}
			case trackNPC:
				if counted {
					npc[x][sym] += s[lfCnt]
				}
			case trackVAC:
				if counted {
					for hd := range 2 {
						vac[x][sym][hd] += s[lfHiA+int(hd)]
					}
				}
			}
		}
		sums[sym].add(v, 1, fields)
		if head >= 256 && 2*head >= len(lb.q) { // the window only: a hub's triangle walks many
			lb.q = lb.q[:copy(lb.q, lb.q[head:])]
			head = 0
		}
		lb.q = append(lb.q, ent)
	}
	return true
}
