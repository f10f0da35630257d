package count3

import (
	"math"
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/motif"
)

// The cycle pass by temporal wedges: a group of the cycle listing (a top
// t, an opposite node o and their middles m, each with sides t–m and m–o)
// is counted from its δ-close temporal wedges (an edge on t–m and one on
// m–o, within δ) instead of cycle by cycle, so a side is read once per
// group, not once per static cycle it closes (k middles close k(k−1)/2).
//
// A wedge has a type (which side comes first, and the two edges'
// directions: 8) and two group positions q1 < q2. A temporal cycle of the
// group is a pair of wedges on distinct middles whose four edges span at
// most δ; its time order is one of three interleavings, and with the two
// types that fixes its raw counter (wedgePairRaw):
//
//	sequential W1 = (q1, q2) wholly before W2 = (p2, p4): q2 < p2, q1 ≥ L(p4)
//	crossing   q1 < p2 < q2 < p4, q1 ≥ L(p4)
//	nested     W (p1, p4) around W' (q1, q2): p1 < q1, q2 < p4
//
// where L(p) is the first group position within δ before p. Each is a
// two-dimensional dominance count, done offline in one sweep of the
// group's positions with a Fenwick tree over the first positions of the
// wedges already closed (one column per type): at position p, the wedges
// that start there ask S = #{q2 < p, q1 ≥ L(p4)} (sequential, and taken
// off the crossing count), those that end there (if counted) ask
// X = #{q2 < p, L(p) ≤ q1 < p1} and N = #{q2 < p, q1 ≥ p1}, then are added;
// crossing = X − S. These count every pair of wedges, same middle or not,
// and two kinds of pairs that share an edge (which only same-middle
// pairs do): of three edges x1 < x2 < x3 on a middle's two sides within
// δ, x2 alone on its side, (x1, x2) and (x2, x3) as crossing; x1 alone,
// (x1, x3) around (x1, x2) as nested (x3 alone: the wedges that x3 ends
// ask before any of them joins the tree, so they are no pair). A
// middle's own pairs are taken off without a tree (sameMiddle): four of
// its edges within δ, two on each side, are two pairs of its wedges (its
// two pairings), and three as above one; so its edges' sequences of
// three and four by symbol, counted by a sliding window like the
// listing's, give its pairs by type. The cost is the wedges times the
// depth of the tree's walks and its columns (the window's is per edge),
// against the listing's (k−1)·(the group's edges) reads: cycles() takes
// the cheaper per group (wedgeCheaper).

// Wedge pair interleavings.
const (
	kindSeq = iota
	kindCross
	kindNest
)

// wedgeTables say which wedge pairs a run counts (Options.CycleCells).
type wedgeTables struct {
	// raw[kind][τ1][τ2]: the raw cycle counter (cycle region index) of
	// wedges of types τ1 (first edge first; the outer one, nested) and τ2,
	// −1 where the pair is no motif or not asked.
	raw     [3][8][8]int16
	same4   [256][2]int16 // the raw counters of a middle's four-edge sequence's two pairs (sameMiddle), −1: none
	same3   [64]int16     // of its three-edge sequence's pair
	win     midLists
	cols    int
	colOf   [8]int8  // the tree column of a closed wedge's type, −1: none asked
	colType [8]uint8 // the type of each column
	askS    [8]bool  // a wedge of this type, as W2, asks S
	askX    [8]bool  // asks X (crossing: M4's cell, say, asks none)
	askN    [8]bool  // asks N (nested)
	// dirs[li][dl][dh]: a wedge whose light side is li (0: t–m) of
	// direction bit dl, with a heavy edge of dh, has a type that some
	// table reads (in either order); allDirs: every one does.
	dirs    [2][2][2]bool
	allDirs bool
	// capPairs[c1][c2]: two static wedges whose sides can hold temporal
	// wedges of the direction pairs in c1 and c2 (wedgeCaps) close a
	// cycle of some asked cell; capsUsed: the direction pairs in some
	// such cycle; pairsAll: every two wedges may.
	capPairs [16][16]bool
	capsUsed uint8
	pairsAll bool
	// sweepCost weighs the sweeps' walks in wedgeCheaper.
	sweepCost int64
	// oneS[onM][d], oneE[onM][d]: the one partner direction of the
	// wedges that an edge of direction bit d (on the m–o side: onM)
	// starts and ends that some counter reads, −1: none; one: every edge
	// has at most one each way and the tree is one word (sweepOne).
	oneS, oneE [2][2]int8
	one        bool
	light      lightTables
}

// wedgePairRaw is the raw cycle counter of a pair of wedges of types t1
// and t2 interleaved by kind, on the cycle n0 = t, n1 = W1's middle,
// n2 = o, n3 = W2's middle (cycleShape). Type bits: 4, the m–o edge comes
// first; 2, the t–m edge runs m → t; 1, the m–o edge runs o → m.
func wedgePairRaw(kind int, t1, t2 uint8) int {
	dir := [4]int{int(t1 >> 1 & 1), int(t1 & 1), 1 - int(t2&1), 1 - int(t2>>1&1)}
	f1, s1 := 0, 1
	if t1&4 != 0 {
		f1, s1 = 1, 0
	}
	f2, s2 := 3, 2
	if t2&4 != 0 {
		f2, s2 = 2, 3
	}
	order := map[int][4]int{kindSeq: {f1, s1, f2, s2}, kindCross: {f1, f2, s1, s2}, kindNest: {f1, f2, s2, s1}}[kind]
	p := slices.Index(perms4, order)
	d := 0
	for r, s := range order {
		d |= dir[s] << (3 - r)
	}
	return p*16 + d
}

// newWedgeTables returns the tables of the cycle cells in mask (bit i:
// Cycle4 + i; zero: all).
func newWedgeTables(mask uint32) *wedgeTables {
	t := &wedgeTables{}
	t.colOf = [8]int8{-1, -1, -1, -1, -1, -1, -1, -1}
	need := func(ty uint8) {
		if t.colOf[ty] < 0 {
			t.colOf[ty] = int8(t.cols)
			t.colType[t.cols] = ty
			t.cols++
		}
	}
	for kind := range 3 {
		for t1 := range uint8(8) {
			for t2 := range uint8(8) {
				r := wedgePairRaw(kind, t1, t2)
				t.raw[kind][t1][t2] = -1
				c := rawCell[rawCycle+r]
				if c < 0 || mask != 0 && mask>>(c-Cycle4)&1 == 0 {
					continue
				}
				t.raw[kind][t1][t2] = int16(r)
				switch kind {
				case kindSeq:
					need(t1)
					t.askS[t2] = true
				case kindCross:
					need(t1)
					t.askS[t2], t.askX[t2], t.askN[t2] = true, true, true
				case kindNest:
					need(t2)
					t.askN[t1] = true
				}
			}
		}
	}
	for i := range 256 {
		t.same4[i] = [2]int16{-1, -1}
		if i < 64 {
			t.same3[i] = -1
		}
	}
	for i := range 256 {
		if w := seqWedges(i, 4); len(w) == 4 {
			// Its two pairings: the A edges' with the C edges in order,
			// and crossed.
			t.same4[i] = [2]int16{t.pairRaw(w[0], w[3]), t.pairRaw(w[1], w[2])}
		}
	}
	for i := range 64 {
		if w := seqWedges(i, 3); len(w) == 2 {
			t.same3[i] = t.pairRaw(w[0], w[1])
		}
	}
	t.win = newMidLists(t)
	var pairOK [4][4]bool // direction pairs (type & 3) of two wedges in an asked cycle
	for kind := range 3 {
		for t1 := range 8 {
			for t2 := range 8 {
				if t.raw[kind][t1][t2] >= 0 {
					pairOK[t1&3][t2&3], pairOK[t2&3][t1&3] = true, true
					t.capsUsed |= 1<<(t1&3) | 1<<(t2&3)
				}
			}
		}
	}
	t.pairsAll = true
	for c1 := range 16 {
		for c2 := range 16 {
			for p1 := range 4 {
				for p2 := range 4 {
					if c1>>p1&1 == 1 && c2>>p2&1 == 1 && pairOK[p1][p2] {
						t.capPairs[c1][c2] = true
					}
				}
			}
			t.pairsAll = t.pairsAll && (t.capPairs[c1][c2] || c1 == 0 || c2 == 0)
		}
	}
	t.allDirs = true
	for dA := range uint8(2) {
		for dB := range uint8(2) {
			ok := false
			for _, ty := range []uint8{dA<<1 | dB, 4 | dA<<1 | dB} {
				ok = ok || t.colOf[ty] >= 0 || t.askS[ty] || t.askN[ty]
			}
			t.dirs[0][dA][dB], t.dirs[1][dB][dA] = ok, ok
			t.allDirs = t.allDirs && ok
		}
	}
	t.one = t.cols <= 2
	for onM := range uint8(2) {
		for d := range uint8(2) {
			t.oneS[onM][d], t.oneE[onM][d] = -1, -1
			for fd := range uint8(2) {
				if ty := onM<<2 | d<<(1-onM) | fd<<onM; t.askS[ty] {
					t.one = t.one && t.oneS[onM][d] < 0
					t.oneS[onM][d] = int8(fd)
				}
				if ty := (1-onM)<<2 | d<<(1-onM) | fd<<onM; t.askN[ty] || t.colOf[ty] >= 0 {
					t.one = t.one && t.oneE[onM][d] < 0
					t.oneE[onM][d] = int8(fd)
				}
			}
		}
	}
	t.newLightTables()
	t.sweepCost = 5
	if !t.allDirs {
		t.sweepCost = 2
	}
	return t
}

// midLists are sameMiddle's window's index lists by an edge's symbol σ,
// only of the sequences that the asked cells need: the sequences of
// three p that it makes four (same4[p<<2|σ] += c3[p]) and of two that
// it makes three (same3), and the window's sequences it extends (c3[p<<2|σ]
// += c2[p], c2[y<<2|σ] += c1[y]) or, leaving, takes off (c3[σ<<4|p] −=
// c2[p], c2[σ<<2|y] −= c1[y]).
type midLists struct {
	add4, add3, up3, up2, rm3, rm2 [4][]uint8
	// single: no list holds more than one sequence; one[σ] then holds
	// each list's (−1: empty), for sameMiddle1.
	single bool
	one    [4]midOne
}

// midOne is a symbol's index lists of midLists where each holds at most
// one sequence, −1 for none.
type midOne struct{ add4, add3, up3, up2, rm3, rm2 int8 }

func newMidLists(t *wedgeTables) (l midLists) {
	var need3 [64]bool
	var need2 [16]bool
	for σ := range 4 {
		for p := range 64 {
			if r := t.same4[p<<2|σ]; r[0] >= 0 || r[1] >= 0 {
				l.add4[σ] = append(l.add4[σ], uint8(p))
				need3[p] = true
			}
		}
		for p := range 16 {
			if t.same3[p<<2|σ] >= 0 {
				l.add3[σ] = append(l.add3[σ], uint8(p))
				need2[p] = true
			}
		}
	}
	for p, ok := range need3 {
		if ok {
			need2[p>>2], need2[p&15] = true, true // its prefix and suffix
		}
	}
	for σ := range 4 {
		for p := range 16 {
			if need3[p<<2|σ] {
				l.up3[σ] = append(l.up3[σ], uint8(p))
			}
			if need3[σ<<4|p] {
				l.rm3[σ] = append(l.rm3[σ], uint8(p))
			}
		}
		for y := range 4 {
			if need2[y<<2|σ] {
				l.up2[σ] = append(l.up2[σ], uint8(y))
			}
			if need2[σ<<2|y] {
				l.rm2[σ] = append(l.rm2[σ], uint8(y))
			}
		}
	}
	l.single = true
	for σ := range 4 {
		one := func(p []uint8) int8 {
			if len(p) > 1 {
				l.single = false
			}
			if len(p) == 0 {
				return -1
			}
			return int8(p[0])
		}
		l.one[σ] = midOne{add4: one(l.add4[σ]), add3: one(l.add3[σ]), up3: one(l.up3[σ]), up2: one(l.up2[σ]), rm3: one(l.rm3[σ]), rm2: one(l.rm2[σ])}
	}
	return l
}

// seqWedge is a wedge of a sequence of symbols (sameMiddle): the
// positions of its first and second edge, and its type.
type seqWedge struct {
	first, second int
	ty            uint8
}

// seqWedges returns the wedges of the sequence of n symbols packed in i
// (two bits each, first symbol highest; symbol: side bit (0: t–m, 1:
// m–o) << 1 | direction bit): for each edge on t–m in order, its wedges
// with the m–o edges in order.
func seqWedges(i, n int) []seqWedge {
	var w []seqWedge
	sym := func(k int) int { return i >> (2 * (n - 1 - k)) & 3 }
	for a := range n {
		if sym(a)>>1 != 0 {
			continue
		}
		for c := range n {
			if sym(c)>>1 != 1 {
				continue
			}
			ty := uint8(sym(a)&1<<1 | sym(c)&1)
			if c < a {
				ty |= 4
			}
			w = append(w, seqWedge{min(a, c), max(a, c), ty})
		}
	}
	return w
}

// pairRaw is the raw counter that the group's sweep adds a pair of
// distinct wedges to (−1: none), shared edges included as it counts
// them: w the one that starts first (of two that start together, the
// outer), the pair is sequential, crossing (w's second edge after v's
// first, before v's second) or nested; two that end together, none.
func (t *wedgeTables) pairRaw(w, v seqWedge) int16 {
	if v.first < w.first || v.first == w.first && v.second > w.second {
		w, v = v, w
	}
	switch {
	case w.second == v.second:
		return -1 // its queries precede the joining of the wedges it ends
	case w.second < v.first:
		return t.raw[kindSeq][w.ty][v.ty]
	case w.first < v.first && w.second < v.second:
		return t.raw[kindCross][w.ty][v.ty]
	}
	return t.raw[kindNest][w.ty][v.ty]
}

// gEdge is an edge of a group's sides in the wedge sweep: side 2m (t–m)
// or 2m+1 (m–o) of middle m, d its direction bit (type bit 2 or 1).
type gEdge struct {
	pos, t  int64
	side    int32
	d       uint8
	counted bool
}

// wedgeBuf is a worker's scratch for the wedge sweeps.
type wedgeBuf struct {
	ge, me  []gEdge
	lt, hv  []gEdge // a middle's light and heavy side's edges in wedges
	runs    []int32 // ends of ge's runs in position order
	off     []int32
	se      []swEdge // the edges by side, each in position order
	oe      []oneEdge
	ol      []oneList                // sweepOne's lists' cursors
	lx      []lightEdge              // the group's light edges by middle (lightEdges) or by position (sortLight)
	loff    []int32                  // each middle's in lx by middle
	lcur    []int32                  // each middle's next slot (unsortLight)
	lm      []lightMiddle            // its middles
	lkey    []uint64                 // sortLight's keys, permuteLight's sources
	ltmp    []uint64                 // radixSort's other buffer
	lnear   []slots256               // the near sets of a group's middles from each on (lightEdges)
	lraw    [RawLen - rawCycle]int64 // the light pairs' counts
	bm      []uint64                 // the positions of b.ge (sortPos)
	rank    []int32                  // the edges at positions before each word of bm
	lo, hi  []int32
	low     []int32 // L(k) by position (sweepOne)
	cnt     []int32
	fw      []uint64    // the tree (sweep)
	s, x, n [8][8]int64 // by column and the asking wedge's type
	mw      midWindow
	same4   [256]int64 // a middle's own sequences of four by symbols (sameMiddle)
	same3   [64]int64  // of three
}

// midWindow is sameMiddle's sliding window: its sequences of one, two
// and three edges by symbols (two bits each, first highest), of two and
// three only those that midLists say.
type midWindow struct {
	c1 [4]int64
	c2 [16]int64
	c3 [64]int64
}

// sameMiddle adds the sequences of three and four edges within δ (the
// last counted) of one middle's edges run (position order) to same3 and
// same4: its own wedge pairs, taken off the group's sweep at flush.
func (b *wedgeBuf) sameMiddle(run []gEdge, delta int64, l *midLists) {
	if l.single {
		b.sameMiddle1(run, delta, l)
		return
	}
	w := &b.mw
	*w = midWindow{}
	sym := func(e *gEdge) uint8 { return uint8(e.side&1)<<1 | e.d }
	head := 0
	for i := range run {
		e := &run[i]
		for apart(run[head].t, e.t, delta) {
			x := sym(&run[head])
			w.c1[x]--
			for _, y := range l.rm2[x] {
				w.c2[x<<2|y] -= w.c1[y]
			}
			for _, p := range l.rm3[x] {
				w.c3[x<<4|p] -= w.c2[p]
			}
			head++
		}
		x := sym(e)
		if e.counted {
			for _, p := range l.add4[x] {
				b.same4[p<<2|x] += w.c3[p]
			}
			for _, p := range l.add3[x] {
				b.same3[p<<2|x] += w.c2[p]
			}
		}
		for _, p := range l.up3[x] {
			w.c3[p<<2|x] += w.c2[p]
		}
		for _, y := range l.up2[x] {
			w.c2[y<<2|x] += w.c1[y]
		}
		w.c1[x]++
	}
}

// sameMiddle1 is sameMiddle where every index list holds at most one
// sequence (l.single; M4's: one each): its entries read from l.one, no
// loops over lists. The same updates in the same order.
func (b *wedgeBuf) sameMiddle1(run []gEdge, delta int64, l *midLists) {
	w := &b.mw
	*w = midWindow{}
	head := 0
	for i := range run {
		e := &run[i]
		for apart(run[head].t, e.t, delta) {
			h := &run[head]
			x := uint8(h.side&1)<<1 | h.d
			o := &l.one[x]
			w.c1[x]--
			if o.rm2 >= 0 {
				w.c2[x<<2|uint8(o.rm2)] -= w.c1[o.rm2]
			}
			if o.rm3 >= 0 {
				w.c3[x<<4|uint8(o.rm3)] -= w.c2[o.rm3]
			}
			head++
		}
		x := uint8(e.side&1)<<1 | e.d
		o := &l.one[x]
		if e.counted {
			if o.add4 >= 0 {
				b.same4[uint8(o.add4)<<2|x] += w.c3[o.add4]
			}
			if o.add3 >= 0 {
				b.same3[uint8(o.add3)<<2|x] += w.c2[o.add3]
			}
		}
		if o.up3 >= 0 {
			w.c3[uint8(o.up3)<<2|x] += w.c2[o.up3]
		}
		if o.up2 >= 0 {
			w.c2[uint8(o.up2)<<2|x] += w.c1[o.up2]
		}
		w.c1[x]++
	}
}

// group counts the temporal cycles of one group, by light pairs or the
// wedge sweeps: ws are its wedges to the opposite node cn (at least
// two). It returns false, counting nothing, when the listing should
// count it: the cheaper by wedgeCheaper and minLightMiddles (force 0),
// or as force says (cycleWedges).
func (b *wedgeBuf) group(sp *staticPairs, top, cn uint32, ws []wedge4, delta int64, tab *wedgeTables, force int) bool {
	few := len(ws) <= minSweepMiddles
	if force == 0 && few && (tab.allDirs || len(ws) < minLightMiddles) {
		return false // wedgeCheaper says so: build no wedges
	}
	if !tab.allDirs {
		// Each middle's light edges with their heavy partners, for the
		// light pairs or the wedges (middleDirs) alike.
		partners := b.lightEdges(sp, top, cn, ws, delta, tab)
		if force == 0 && few || force == 3 {
			b.sortLight()
			b.lightPairs(delta, tab)
			return true
		}
		if force == 0 {
			b.sortLight()
			if b.lightPairsCheaper(delta, tab, lightPairsRatio*partners) {
				b.lightPairs(delta, tab)
				return true
			}
			b.unsortLight()
		}
		// middleDirs keeps at most the light edges and their heavy
		// partners: b.ge sized once (as b.lx, lightEdges).
		if n := len(b.lx) + b.lightUnion(); cap(b.ge) < n {
			b.ge = make([]gEdge, 0, n)
		}
	}
	b.ge = b.ge[:0]
	b.runs = append(b.runs[:0], 0)
	var wedges, edges int64
	for mi, w := range ws {
		a, c := sp.list(w.tx), sp.list(w.xc) // sentinels included
		sides := [2]struct {
			l   []p4Edge
			low bool
		}{{a, top < w.x}, {c, w.x < cn}}
		// The lighter side's edges, each with the heavier's edges within
		// δ (galloped to: a hub's side is in many groups, read only near
		// the other side's edges): the wedges and the edges in one.
		li := 0
		if len(a) > len(c) {
			li = 1
		}
		light, heavy := sides[li].l, sides[1-li].l
		// Position order within the middle (its own sweep needs it); the
		// group's order is then a merge of these runs.
		if tab.allDirs {
			wedges += b.middle(light, heavy, int32(2*mi+li), sides[li].low, sides[1-li].low, delta)
			b.ge = mergePos(b.ge, b.lt, b.hv)
		} else {
			wedges += b.middleDirs(heavy, int32(2*mi+li), sides[1-li].low, tab.dirs[li], b.lx[b.loff[mi]:b.loff[mi+1]])
			b.ge = mergePos(b.ge, b.lt, b.hv)
		}
		if len(b.lt) > 0 {
			b.runs = append(b.runs, int32(len(b.ge)))
		}
	}
	edges = int64(len(b.ge))
	if len(b.runs) < 3 {
		return true // wedges on one middle at most: no cycle
	}
	switch {
	case wedges >= 1<<32:
		return false // the tree's lanes are 32 bits, two to a word
	case force == 0 && !wedgeCheaper(len(ws), edges, wedges, tab.sweepCost), force == 2 && (top^cn)&1 == 1:
		return false
	}
	// Each middle's own pairs, from its edges in position order (taken
	// off at flush); then the group's.
	for r := 1; r < len(b.runs); r++ {
		b.sameMiddle(b.ge[b.runs[r-1]:b.runs[r]], delta, &tab.win)
	}
	b.sortPos()
	switch {
	case tab.allDirs:
		b.sweepSides(b.ge, 0, 2*len(ws), delta, tab)
	case tab.one:
		b.sweepOne(b.ge, 0, 2*len(ws), delta, tab)
	default:
		b.sweep(b.ge, 0, 2*len(ws), delta, tab)
	}
	return true
}

// middle gathers a middle's edges in wedges into b.lt (the light side's,
// side ls) and b.hv (the heavy side's, ls^1), each in position order, and
// returns its wedges: the light side's edges, each with the heavier's
// edges within δ (galloped to: a hub's side is in many groups, read only
// near the other side's edges). low: the side's first node has the
// pair's lower id (gEdge).
func (b *wedgeBuf) middle(light, heavy []p4Edge, ls int32, lowL, lowH bool, delta int64) (wedges int64) {
	b.lt, b.hv = b.lt[:0], b.hv[:0]
	lo, hi, done := 0, 0, 0
	for i := range light[:len(light)-1] {
		t := light[i].t
		lo = gallop4(heavy, lo, motif.SubTicks(t, delta))
		hi = gallopAfter4(heavy, max(hi, lo), motif.AddTicks(t, delta))
		if lo == hi {
			continue
		}
		wedges += int64(hi - lo)
		b.lt = append(b.lt, b.gEdge(&light[i], ls, lowL))
		for k := max(done, lo); k < hi; k++ {
			b.hv = append(b.hv, b.gEdge(&heavy[k], ls^1, lowH))
		}
		done = max(done, hi)
	}
	return wedges
}

// middleDirs is middle for cells that need wedges of some direction
// pairs only: ok[dl][dh] says whether a light edge of direction bit dl
// and a heavy one of dh make a wedge of a type the sweeps read. Only
// those wedges are counted and only their edges kept: the others are
// in no pair that a counter reads (as the sweep's, sameMiddle's pairs
// of a type no table asks are read nowhere). A heavy edge is kept where
// some light edge's range that takes its direction holds it; the ranges
// start in order, so the heavy edges before a light edge's range are
// decided when it comes and go to b.hv in position order (one merge
// with b.lt then, not one per direction first).
//
// wins are the light edges (lightWindows, side ls) with their heavy
// partners within δ, in position order.
func (b *wedgeBuf) middleDirs(heavy []p4Edge, ls int32, lowH bool, ok [2][2]bool, wins []lightEdge) (wedges int64) {
	b.lt, b.hv = b.lt[:0], b.hv[:0]
	// The heavy edges before done are decided; one of direction bit dh
	// at k ≥ done is in some earlier light edge's range that takes dh
	// where k < end[dh] (the ranges' starts are at most done).
	done := 0
	var end [2]int
	// Branch-free (the directions interleave at random): every edge is
	// written at the list's end, which then moves on by the keep bit.
	// Only those before some range's end are read: the edges between
	// the light edges' ranges (most of a hub's side) are skipped.
	emit := func(to int) {
		top := min(to, max(end[0], end[1]))
		if top <= done {
			done = max(done, to)
			return
		}
		n := len(b.hv)
		hv := slices.Grow(b.hv, top-done)[:n+top-done]
		for k := done; k < top; k++ {
			h := &heavy[k]
			d := 0
			if (h.flags&fIn != 0) == lowH {
				d = 1
			}
			hv[n] = b.gEdge(h, ls^1, lowH)
			keep := 0
			if k < end[d] {
				keep = 1
			}
			n += keep
		}
		b.hv = hv[:n]
		done = to
	}
	for _, l := range wins {
		dl := l.ctx & 1
		lo, hi := int(l.w0), int(l.w1)
		w := heavyWedges(heavy, lo, hi, lowH, ok[dl])
		if w == 0 {
			continue
		}
		wedges += w
		b.lt = append(b.lt, gEdge{pos: l.pos, t: l.t, side: ls, d: dl, counted: l.counted})
		emit(lo) // no later range reaches before lo
		for dh := range 2 {
			if ok[dl][dh] {
				end[dh] = max(end[dh], hi)
			}
		}
	}
	emit(max(end[0], end[1]))
	return wedges
}

// heavyWedges returns how many of heavy[lo:hi] make a wedge that some
// table reads with a light edge whose row of middleDirs's ok is okl:
// those of a direction bit okl takes (bit 1: into the first node, so
// into the lower id where it is the first, lowH), counted from the
// list's prefix counts.
func heavyWedges(heavy []p4Edge, lo, hi int, lowH bool, okl [2]bool) int64 {
	in := int(heavy[hi].in - heavy[lo].in)
	n := [2]int{hi - lo - in, in}
	if !lowH {
		n = [2]int{in, hi - lo - in}
	}
	var w int64
	for dh := range 2 {
		if okl[dh] {
			w += int64(n[dh])
		}
	}
	return w
}

// mergePos appends the merge of x and y (each in position order) to dst.
// Branch-free: which list the next edge comes from is as good as random
// (the middles' and sides' edges interleave), so the loop picks it by a
// conditional move and advances both cursors by the comparison's bit.
func mergePos(dst, x, y []gEdge) []gEdge {
	n := len(dst)
	dst = slices.Grow(dst, len(x)+len(y))[:n+len(x)+len(y)]
	out := dst[n:]
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) {
		from := [2]*gEdge{&x[i], &y[j]}
		c := lessPos(from[1], from[0]) // 1: y's first
		out[k] = *from[c&1]            // indexed, not a branch (which the compiler would make of an if)
		k++
		i += 1 - c
		j += c
	}
	k += copy(out[k:], x[i:])
	copy(out[k:], y[j:])
	return dst
}

// lessPos is 1 where a's position is before b's, else 0.
func lessPos(a, b *gEdge) int {
	if a.pos < b.pos {
		return 1
	}
	return 0
}

// sortPos sorts b.ge by position: it holds sorted runs ending at
// b.runs[1:] (two or more), one a middle. Merging them pairwise copies
// every edge once per level (log2 of the runs); ranking the edges in a
// bitmap of the positions they span copies each once, after a pass over
// the bitmap: the latter where there are many runs and the edges are
// not too sparse in their span (it reports which: ranked).
func (b *wedgeBuf) sortPos() (ranked bool) {
	levels := bits.Len(uint(len(b.runs) - 2))
	lo, hi := b.ge[0].pos, b.ge[0].pos
	for r := 1; r < len(b.runs); r++ {
		lo = min(lo, b.ge[b.runs[r-1]].pos)
		hi = max(hi, b.ge[b.runs[r]-1].pos)
	}
	words := (hi-lo)>>6 + 1
	if levels < 3 || words > 2*int64(len(b.ge)) {
		b.mergeRuns()
		return false
	}
	b.bm = resize(b.bm, int(words))
	b.rank = resize(b.rank, int(words))
	for k := range b.ge {
		d := b.ge[k].pos - lo
		b.bm[d>>6] |= 1 << (d & 63)
	}
	var r int32
	for w, x := range b.bm {
		b.rank[w] = r
		r += int32(bits.OnesCount64(x))
	}
	b.me = grow(b.me, len(b.ge))
	for k := range b.ge {
		d := b.ge[k].pos - lo
		at := b.rank[d>>6] + int32(bits.OnesCount64(b.bm[d>>6]&(1<<(d&63)-1)))
		b.me[at] = b.ge[k]
	}
	b.ge, b.me = b.me, b.ge
	return true
}

// mergeRuns sorts b.ge by position: it holds sorted runs ending at
// b.runs[1:], merged pairwise.
func (b *wedgeBuf) mergeRuns() {
	for len(b.runs) > 2 {
		b.me = b.me[:0]
		runs := b.runs[:1]
		for r := 1; r < len(b.runs); r += 2 {
			if r+1 == len(b.runs) {
				b.me = append(b.me, b.ge[b.runs[r-1]:b.runs[r]]...)
			} else {
				b.me = mergePos(b.me, b.ge[b.runs[r-1]:b.runs[r]], b.ge[b.runs[r]:b.runs[r+1]])
			}
			runs = append(runs, int32(len(b.me)))
		}
		b.runs = runs
		b.ge, b.me = b.me, b.ge
	}
}

// gEdge returns e as an edge of side (2m or 2m+1) of the sweep; low:
// the side's first node (t, or m) has the pair's lower id.
func (b *wedgeBuf) gEdge(e *p4Edge, side int32, low bool) gEdge {
	var d uint8
	if (e.flags&fIn != 0) == low {
		d = 1 // into the first node: m → t, or o → m
	}
	return gEdge{pos: e.pos, t: e.t, side: side, d: d, counted: e.flags&fCounted != 0}
}

// wedgeCheaper reports whether a group of k middles whose sides hold
// edges edges that are in some wedge the asked cells read, wedges of
// them, costs less by the wedge sweeps than cycle by cycle: the sweeps'
// tree walks (wedges × the group's depth, standing for the δ-window's
// they walk) against the listing's reads ((k−1)·edges: each middle's
// edges once per other middle), the walks weighed by cost. Timing both
// methods on every group of tgraphgen's 1M-edge graph at δ 86400, the
// sweeps win below about 1/5 of a walk per read for all 32 cells (cost
// 5: the groups of many middles that hold most of the wedges) and below
// about 1/2 where the cells read wedges of two direction pairs only (cost
// 2, M4: a sweep walks only their partners; allDirs false); groups of
// at most minSweepMiddles middles list faster either way.
//
// With cost 5 no group of minSweepMiddles middles or fewer passes anyway:
// its edges in wedges number at most twice its wedges, and at least four
// (two middles' wedges), so the depth is at least 4 and the sweeps cost
// at least 2.5·4·edges > (k−1)·edges.
func wedgeCheaper(k int, edges, wedges, cost int64) bool {
	if k <= minSweepMiddles {
		return false
	}
	depth := int64(bits.Len64(uint64(edges)) + 1)
	return cost*wedges*depth < int64(k-1)*edges
}

// minSweepMiddles is the most middles of a group that wedgeCheaper
// always sends to the listing, so group need not build its wedges first.
const minSweepMiddles = 11

// swEdge is an edge of the sweep in its side's list: its time, its
// index in position order, that of the first edge within δ before it
// (L), its direction bit and whether it is counted.
type swEdge struct {
	t       int64
	at, low int32
	d       uint8
	counted bool
}

// treeWords lays out the sweeps' Fenwick tree: its 64-bit words per
// position (two 32-bit columns to a word) and, per wedge type, the word and
// the increment of its column (word −1: a type no asked cell reads).
func (tab *wedgeTables) treeWords() (words int, word [8]int8, inc [8]uint64) {
	words = 4
	switch {
	case tab.cols <= 2:
		words = 1
	case tab.cols <= 4:
		words = 2
	}
	for ty, c := range tab.colOf {
		word[ty] = -1
		if c >= 0 {
			word[ty], inc[ty] = c>>1, 1<<(32*(c&1))
		}
	}
	return words, word, inc
}

// sweep adds the wedge-pair counts (S, X, N by column and type) of the
// edges ge in position order on sides base..base+sides−1 (side s pairs
// with s^1; even sides are t–m).
//
// Every query is a count of the closed wedges whose first edge is at or
// after some position x ≥ L(p) (p: the sweep's position), so the tree
// sums suffixes: its node i holds the wedges first at i, …, i+lowbit(i)−1
// (one-based), a query walks up from x until past p (no wedge starts
// later) and an insertion walks down until below L(p) (no later query
// starts there): log of the δ-window's edges, not of the group's. A
// tree row packs the columns two to a word (32-bit lanes: a lane counts
// at most the group's wedges, below 2^32), and the counts are summed
// packed too, unpacked before a lane could carry. Each side's edges are
// kept in two lists by direction, and an edge walks its partners only in
// the lists whose wedge type the asked cells need (M4's: 2 of 4).
func (b *wedgeBuf) sweep(ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables) {
	n := len(ge)
	lists := b.listOffsets(ge, base, sides)
	b.se = resize(b.se, n)
	j := 0
	for k := range ge {
		e := &ge[k]
		for apart(ge[j].t, e.t, delta) {
			j++
		}
		u := 2*(e.side-base) + int32(e.d)
		b.se[b.off[u]+b.cnt[u]] = swEdge{t: e.t, at: int32(k), low: int32(j), d: e.d, counted: e.counted}
		b.cnt[u]++
	}
	clear(b.cnt)
	b.lo = resize(b.lo, lists)
	b.hi = resize(b.hi, lists)
	words, word, inc := tab.treeWords()
	b.fw = resize(b.fw, (n+1)*words)
	fw := b.fw
	var sa, xa, na [8][4]uint64 // packed sums by the asking wedge's type
	var used, ins uint64        // a bound on sa, xa and na's lanes; the wedges in the tree
	room := func() {
		if used > math.MaxUint32-ins {
			b.unpack(&sa, &xa, &na, tab.cols)
			used = 0
		}
		used += ins
	}
	jl := int32(0) // L(k)
	for k := range ge {
		e := &ge[k]
		for apart(ge[jl].t, e.t, delta) {
			jl++
		}
		s := e.side - base
		b.cnt[2*s+int32(e.d)]++
		at := int32(k)
		onM := uint8(s & 1) // e is on the m–o side
		o := 2 * (s ^ 1)    // the partners' lists: o + their direction bit
		// The wedges e starts (partners later on the other side) ask S;
		// their types differ only in the partner's direction bit.
		ty0 := onM<<2 | e.d<<(1-onM)
		for fd := range int32(2) {
			ty := ty0 | uint8(fd)<<onM
			if !tab.askS[ty] {
				continue
			}
			u := o + fd
			ol := b.se[b.off[u]:b.off[u+1]]
			c, hi := b.cnt[u], max(b.hi[u], b.cnt[u])
			for int(hi) < len(ol) && !apart(e.t, ol[hi].t, delta) {
				hi++
			}
			b.hi[u] = hi
			for i := range ol[c:hi] {
				f := &ol[int(c)+i]
				if !f.counted {
					continue
				}
				v := suffix(fw, words, f.low, at)
				room()
				for w := range words {
					sa[ty][w] += v[w]
				}
			}
		}
		// The wedges e ends (partners earlier on the other side) ask X
		// and N if e is counted, then join the tree.
		ty0 = (1-onM)<<2 | e.d<<(1-onM)
		ty1 := ty0 | 1<<onM
		ask := e.counted && (tab.askN[ty0] || tab.askN[ty1])
		if !ask && word[ty0] < 0 && word[ty1] < 0 {
			continue
		}
		// The suffix from L(k), before e's wedges join: X's only (no
		// crossing cell asked, no walk).
		var vl [4]uint64
		if e.counted && (tab.askX[ty0] || tab.askX[ty1]) {
			vl = suffix(fw, words, jl, at)
		}
		// Queries first: wedges that end together are no pair, so none of
		// e's may be in the tree when another of them asks.
		var from [2]int32
		for fd := range int32(2) {
			ty := ty0 | uint8(fd)<<onM
			askT := ask && tab.askN[ty]
			if !askT && word[ty] < 0 {
				continue
			}
			u := o + fd
			ol := b.se[b.off[u]:b.off[u+1]]
			lo, c := b.lo[u], b.cnt[u]
			for lo < c && apart(ol[lo].t, e.t, delta) {
				lo++
			}
			b.lo[u], from[fd] = lo, lo
			if !askT {
				continue
			}
			if !tab.askX[ty] {
				for i := range ol[lo:c] {
					v := suffix(fw, words, ol[int(lo)+i].at, at)
					room()
					for w := range words {
						na[ty][w] += v[w]
					}
				}
				continue
			}
			for i := range ol[lo:c] {
				v := suffix(fw, words, ol[int(lo)+i].at, at)
				room()
				for w := range words {
					xa[ty][w] += vl[w] - v[w]
					na[ty][w] += v[w]
				}
			}
		}
		for fd := range int32(2) {
			ty := ty0 | uint8(fd)<<onM
			w := int(word[ty])
			if w < 0 {
				continue
			}
			u := o + fd
			ol := b.se[b.off[u]:b.off[u+1]]
			for i := range ol[from[fd]:b.cnt[u]] {
				ins++
				for x := ol[int(from[fd])+i].at + 1; x > jl; x &= x - 1 {
					fw[int(x)*words+w] += inc[ty]
				}
			}
		}
	}
	b.unpack(&sa, &xa, &na, tab.cols)
}

// listOffsets lays out b.off for the sweeps' partner lists, list 2s+d
// holding side s's edges of direction d (sides counted from base): b.off
// gets each list's start, b.cnt room for a cursor per list; it returns
// the number of lists.
func (b *wedgeBuf) listOffsets(ge []gEdge, base int32, sides int) int {
	lists := 2 * sides
	b.off = resize(b.off, lists+1)
	for k := range ge {
		b.off[2*(ge[k].side-base)+int32(ge[k].d)+1]++
	}
	for s := range lists {
		b.off[s+1] += b.off[s]
	}
	b.cnt = resize(b.cnt, lists)
	return lists
}

// sweepOne is sweep for cells whose wedges that an edge starts, and
// those it ends, that some counter reads have partners of one direction
// each (tab.one; M4's: a wedge's two edges run the same way round the
// cycle), in a tree of one word: an edge walks one partner list each
// way, with no loop over directions and no table reads per partner, and
// the tree's walks are scalar. The same queries and insertions, in the
// same order.
func (b *wedgeBuf) sweepOne(ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables) {
	n := len(ge)
	lists := 2 * sides // list 2s+d: side s's edges of direction d
	// Each list's cursors in one 16-byte record (absolute indices into
	// b.oe): an edge reads its own list's and two partner lists' at
	// random, one cache line each rather than one per cursor array.
	b.ol = resize(b.ol, lists+1)
	ls := b.ol
	for k := range ge {
		ls[2*(ge[k].side-base)+int32(ge[k].d)+1].end++
	}
	for u := range lists {
		ls[u+1].end += ls[u].end
	}
	for u := range lists {
		st := ls[u].end // the list's start
		ls[u+1].cnt, ls[u+1].lo, ls[u+1].hi = st, st, st
	}
	ls = ls[1:]
	b.oe = grow(b.oe, n)
	b.low = grow(b.low, n) // L(k), for the sweep below
	j := 0
	for k := range ge {
		e := &ge[k]
		for apart(ge[j].t, e.t, delta) {
			j++
		}
		b.low[k] = int32(j)
		l := &ls[2*(e.side-base)+int32(e.d)]
		f := oneEdge{at: int32(k), low: int32(j)}
		if !e.counted {
			f.low |= math.MinInt32
		}
		b.oe[l.hi] = f
		l.hi++
	}
	for u := range ls {
		ls[u].hi = ls[u].lo
	}
	_, word, inc := tab.treeWords()
	b.fw = resize(b.fw, n+1)
	fw := b.fw
	oe := b.oe
	var sa, xa, na [8][4]uint64 // packed sums by the asking wedge's type (word 0)
	var used, ins uint64        // a bound on sa, xa and na's lanes; the wedges in the tree
	low := b.low[:len(ge)]
	for k := range ge {
		e := &ge[k]
		jl := low[k] // L(k)
		s := e.side - base
		ls[2*s+int32(e.d)].cnt++
		at := int32(k)
		onM := uint8(s & 1) // e is on the m–o side
		o := 2 * (s ^ 1)    // the partners' lists: o + their direction bit
		// The wedges e starts (partners later on the other side) ask S.
		if fd := tab.oneS[onM][e.d]; fd >= 0 {
			ty := onM<<2 | e.d<<(1-onM) | uint8(fd)<<onM
			l := &ls[o+int32(fd)]
			c, hi := l.cnt, max(l.hi, l.cnt)
			for hi < l.end && oe[hi].low&math.MaxInt32 <= at { // within δ after e
				hi++
			}
			l.hi = hi
			for _, f := range oe[c:hi] {
				if f.low < 0 {
					continue // not counted
				}
				v := suffix1(fw, f.low, at)
				if used > math.MaxUint32-ins {
					b.unpack(&sa, &xa, &na, tab.cols)
					used = 0
				}
				used += ins
				sa[ty][0] += v
			}
		}
		// The wedges e ends (partners earlier on the other side) ask X
		// and N if e is counted, then join the tree: as wedges that end
		// together are no pair, each asks before any of them joins.
		fd := tab.oneE[onM][e.d]
		if fd < 0 {
			continue
		}
		ty := (1-onM)<<2 | e.d<<(1-onM) | uint8(fd)<<onM
		l := &ls[o+int32(fd)]
		lo, c := l.lo, l.cnt
		for lo < c && oe[lo].at < jl { // more than δ before e
			lo++
		}
		l.lo = lo
		w := word[ty]
		if !(e.counted && tab.askN[ty]) {
			if w >= 0 {
				in := inc[ty]
				for _, f := range oe[lo:c] {
					ins++
					for x := f.at + 1; x > jl; x &= x - 1 {
						fw[x] += in
					}
				}
			}
			continue
		}
		var vl uint64 // the suffix from L(k), before e's wedges join: X's
		if tab.askX[ty] {
			vl = suffix1(fw, jl, at)
		}
		if w < 0 {
			for _, f := range oe[lo:c] {
				v := suffix1(fw, f.at, at)
				if used > math.MaxUint32-ins {
					b.unpack(&sa, &xa, &na, tab.cols)
					used = 0
				}
				used += ins
				na[ty][0] += v
				xa[ty][0] += vl - v // read only where X is asked
			}
			continue
		}
		// Asking and joining in one pass, latest partner first: the
		// wedges of e's already in the tree start after f, so each
		// query's suffix holds every one of them, taken off as a count
		// (in their lane, which holds at least that many: no borrow).
		in := inc[ty]
		var mine uint64 // e's wedges in the tree, in their lane
		for i := c - 1; i >= lo; i-- {
			f := oe[i].at
			v := suffix1(fw, f, at) - mine
			if used > math.MaxUint32-ins {
				b.unpack(&sa, &xa, &na, tab.cols)
				used = 0
			}
			used += ins
			na[ty][0] += v
			xa[ty][0] += vl - v // read only where X is asked
			ins++
			mine += in
			for x := f + 1; x > jl; x &= x - 1 {
				fw[x] += in
			}
		}
	}
	b.unpack(&sa, &xa, &na, tab.cols)
}

// oneList is a partner list's cursors in sweepOne, as indices into
// b.oe: its end, the next of its edges the sweep reaches (cnt), the first
// within δ before the sweep (lo) and the first past δ after it (hi).
type oneList struct{ end, cnt, lo, hi int32 }

// oneEdge is an edge of sweepOne in its list: its index in position
// order and L, that of the first edge within δ before it, with the sign
// bit set where it is not counted. Positions stand for times: f is within
// δ after e where L(f) ≤ e, before e where f ≥ L(e); a third of swEdge's
// bytes, and the lists are read at random (a middle's, at each of its
// edges).
type oneEdge struct{ at, low int32 }

// suffix1 is suffix for a tree of one word.
func suffix1(fw []uint64, x, p int32) (v uint64) {
	for i := x + 1; i <= p; i += i & -i {
		v += fw[i]
	}
	return v
}

// sweepSides is sweep with one list of partners a side, for cells that
// read wedges of every direction pair (allDirs): an edge walks both of a
// side's direction lists anyway, and one list keeps half the cursors and
// loops. The same queries and insertions, in the same order.
func (b *wedgeBuf) sweepSides(ge []gEdge, base int32, sides int, delta int64, tab *wedgeTables) {
	n := len(ge)
	b.off = resize(b.off, sides+1)
	for k := range ge {
		b.off[ge[k].side-base+1]++
	}
	for s := range sides {
		b.off[s+1] += b.off[s]
	}
	b.cnt = resize(b.cnt, sides)
	b.se = resize(b.se, n)
	j := 0
	for k := range ge {
		e := &ge[k]
		for apart(ge[j].t, e.t, delta) {
			j++
		}
		s := e.side - base
		b.se[b.off[s]+b.cnt[s]] = swEdge{t: e.t, at: int32(k), low: int32(j), d: e.d, counted: e.counted}
		b.cnt[s]++
	}
	clear(b.cnt)
	b.lo = resize(b.lo, sides)
	b.hi = resize(b.hi, sides)
	words, word, inc := tab.treeWords()
	b.fw = resize(b.fw, (n+1)*words)
	fw := b.fw
	var sa, xa, na [8][4]uint64 // packed sums by the asking wedge's type
	var used, ins uint64        // a bound on sa, xa and na's lanes; the wedges in the tree
	room := func() {
		if used > math.MaxUint32-ins {
			b.unpack(&sa, &xa, &na, tab.cols)
			used = 0
		}
		used += ins
	}
	jl := int32(0) // L(k)
	for k := range ge {
		e := &ge[k]
		for apart(ge[jl].t, e.t, delta) {
			jl++
		}
		s := e.side - base
		o := s ^ 1
		ol := b.se[b.off[o]:b.off[o+1]]
		lo, c, hi := b.lo[o], b.cnt[o], b.hi[o]
		for lo < c && apart(ol[lo].t, e.t, delta) {
			lo++
		}
		hi = max(hi, c)
		for int(hi) < len(ol) && !apart(e.t, ol[hi].t, delta) {
			hi++
		}
		b.lo[o], b.hi[o] = lo, hi
		b.cnt[s]++
		at := int32(k)
		onM := uint8(s & 1) // e is on the m–o side
		// The wedges e starts (partners later on the other side) ask S;
		// their types differ only in the partner's direction bit.
		ty0 := onM<<2 | e.d<<(1-onM)
		if tab.askS[ty0] || tab.askS[ty0|1<<onM] {
			for i := range ol[c:hi] {
				f := &ol[int(c)+i]
				ty := ty0 | f.d<<onM
				if !f.counted || !tab.askS[ty] {
					continue
				}
				v := suffix(fw, words, f.low, at)
				room()
				for w := range words {
					sa[ty][w] += v[w]
				}
			}
		}
		// The wedges e ends (partners earlier on the other side) ask X
		// and N if e is counted, then join the tree.
		ty0 = (1-onM)<<2 | e.d<<(1-onM)
		ty1 := ty0 | 1<<onM
		ask := e.counted && (tab.askN[ty0] || tab.askN[ty1])
		if !ask && word[ty0] < 0 && word[ty1] < 0 {
			continue
		}
		var vl [4]uint64 // the suffix from L(k), before e's wedges join (X's)
		if e.counted && (tab.askX[ty0] || tab.askX[ty1]) {
			vl = suffix(fw, words, jl, at)
		}
		for i := range ol[lo:c] {
			f := &ol[int(lo)+i]
			ty := ty0 | f.d<<onM
			if ask && tab.askN[ty] {
				v := suffix(fw, words, f.at, at)
				room()
				for w := range words {
					na[ty][w] += v[w]
				}
				if tab.askX[ty] {
					for w := range words {
						xa[ty][w] += vl[w] - v[w]
					}
				}
			}
			if w := int(word[ty]); w >= 0 {
				ins++
				for x := f.at + 1; x > jl; x &= x - 1 {
					fw[int(x)*words+w] += inc[ty]
				}
			}
		}
	}
	b.unpack(&sa, &xa, &na, tab.cols)
}

// suffix returns the packed counts of the wedges in the tree fw (rows of
// words) whose first edge is at or after position x, all before p.
func suffix(fw []uint64, words int, x, p int32) (v [4]uint64) {
	end := int(p)
	switch words {
	case 1:
		for i := int(x) + 1; i <= end; i += i & -i {
			v[0] += fw[i]
		}
	case 2:
		for i := int(x) + 1; i <= end; i += i & -i {
			r := fw[2*i : 2*i+2 : 2*i+2]
			v[0] += r[0]
			v[1] += r[1]
		}
	default:
		for i := int(x) + 1; i <= end; i += i & -i {
			r := (*[4]uint64)(fw[4*i : 4*i+4])
			v[0] += r[0]
			v[1] += r[1]
			v[2] += r[2]
			v[3] += r[3]
		}
	}
	return v
}

// unpack adds the packed sums to s, x and n by column and clears them.
func (b *wedgeBuf) unpack(sa, xa, na *[8][4]uint64, cols int) {
	for ty := range 8 {
		for c := range cols {
			w, sh := c>>1, 32*(c&1)
			b.s[c][ty] += int64(uint32(sa[ty][w] >> sh))
			b.x[c][ty] += int64(uint32(xa[ty][w] >> sh))
			b.n[c][ty] += int64(uint32(na[ty][w] >> sh))
		}
	}
	*sa, *xa, *na = [8][4]uint64{}, [8][4]uint64{}, [8][4]uint64{}
}

// flush adds the sweeps' counts to raw (the cycle region) and clears them.
func (b *wedgeBuf) flush(tab *wedgeTables, raw *[RawLen - rawCycle]int64) {
	for c := range tab.cols {
		t1 := tab.colType[c]
		for ty := range uint8(8) {
			if r := tab.raw[kindSeq][t1][ty]; r >= 0 {
				raw[r] += b.s[c][ty]
			}
			if r := tab.raw[kindCross][t1][ty]; r >= 0 {
				raw[r] += b.x[c][ty] - b.s[c][ty]
			}
			if r := tab.raw[kindNest][ty][t1]; r >= 0 {
				raw[r] += b.n[c][ty]
			}
		}
	}
	for i, n := range b.same4 {
		for _, r := range tab.same4[i] {
			if r >= 0 {
				raw[r] -= n
			}
		}
	}
	for i, n := range b.same3 {
		if r := tab.same3[i]; r >= 0 {
			raw[r] -= n
		}
	}
	for i, n := range b.lraw {
		raw[i] += n
	}
	b.lraw = [RawLen - rawCycle]int64{}
	b.s, b.x, b.n = [8][8]int64{}, [8][8]int64{}, [8][8]int64{}
	b.same4, b.same3 = [256]int64{}, [64]int64{}
}

// cycleWedges chooses the cycle pass's method per group: 0 the cheapest
// (wedgeCheaper, lightPairsCheaper, minLightMiddles), 1 always the wedge
// sweeps, 2 the sweeps for half the groups (by their nodes' ids) and the
// listing for the others, 3 always the light pairs (cells of some
// direction pairs only; the others the sweeps), −1 always the listing.
// A variable so that tests can send every group through any, or mix
// them in one run.
var cycleWedges = 0

// lightPairsRatio: a group goes to the light pairs where their work
// (lightPairsCheaper) is at most this many times its light edges' heavy
// partners (the wedges' bound); the sweeps' cost per wedge is about
// twice the light pairs' per heavy edge walked (tgraphgen 1M, δ a day,
// M4: every group timed both ways, 1 through 3 the same within 4%).
var lightPairsRatio int64 = 2

// minLightMiddles is the fewest middles of a group that the light pairs
// count rather than the listing, for cells of some direction pairs only
// (groups of at most minSweepMiddles; the sweeps never win there): from
// 4 middles they are faster on the whole (tgraphgen 1M, δ a day, M4,
// each group timed both ways: 0.32 s against 0.38 s for all such
// groups, 1 worker), with 2 or 3 slower.
const minLightMiddles = 4
