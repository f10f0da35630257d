package count3

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/motifwatch/motifwatch/motif"
)

// The cycle pass by light pairs: every wedge of a group has one edge on
// its middle's light side (the shorter list) and one on the heavy side,
// so a temporal cycle of two middles holds one light edge of each, within
// δ of each other. Around a hub the light edges are sparse and the heavy
// ones (the hub's sides) many: tgraphgen 1M at δ a day has some twenty
// heavy edges within δ of a light one and a few light edges of other
// middles. So a group can be counted pair of light edges by pair: for
// each heavy edge h1 near one light edge (ℓX), the heavy edges h2 of the
// other's middle that fit (all four within δ) fall, by position, into
// four runs around ℓX, h1 and ℓY, each fixing the four edges' order; the
// lists' prefix counts give each run's edges by direction (and counted,
// for a run that puts h2 last), and the order and the four edges'
// directions fix the raw counter (pairRaw's, as the wedge sweeps read
// it). As h1 moves on, the runs' bounds only move on too. It costs the
// light pairs times the heavy edges near the lighter of the two, against
// the sweeps' every wedge and heavy edge (lightPairsCheaper).

// lightEdge is a light edge of a group: its time and position, its
// middle (index into the group's wedges), its context (side << 1 |
// direction bit, the bit as gEdge's d), whether it is counted, and its
// heavy partners: the indices [w0, w1) of its middle's heavy list within
// δ. 32 bytes: a hub's groups hold a hundred thousand.
type lightEdge struct {
	t, pos  int64
	mid     int32
	w0, w1  int32
	ctx     uint8
	counted bool
}

// lightMiddle is a middle's heavy list (sentinel included) and whether
// its heavy side's first node has the pair's lower id (gEdge's low).
type lightMiddle struct {
	heavy []p4Edge
	low   bool
}

// lightTables are the light pairs' raw counters: terms[ctxX][eX][ctxY]
// [3·rX + rH] for light edges ℓX, ℓY of contexts ctxX, ctxY, a heavy
// edge h1 of ℓX's middle (direction bit eX), and ranks rX, rH of ℓX and
// h1 among ℓX, h1 and ℓY by position, lists the counters that a heavy
// edge h2 of ℓY's middle adds to, each with its gap g among those three
// (0: before all) and direction bit e2; the others are pairs the sweeps
// count in no counter. any[ctxA][ctxB]: some such pair has a counter,
// ℓA first.
type lightTables struct {
	terms [4][2][4][9]lightTerms
	any   [4][4]bool
}

// lightTerms are the counters of one order of ℓX, h1 and ℓY (lightTables):
// most orders have none or one.
type lightTerms struct {
	n int8
	t [8]lightTerm
}

// lightTerm is a counter h2 adds to from gap g with direction bit e2.
type lightTerm struct {
	g, e2 uint8
	raw   int16
}

// newLightTables derives the light pairs' counters from pairRaw.
func (t *wedgeTables) newLightTables() {
	l := &t.light
	for cx := range uint8(4) {
		for cy := range uint8(4) {
			for ex := range uint8(2) {
				for e2 := range uint8(2) {
					for rx := range 3 {
						for rh := range 3 {
							if rx == rh {
								continue
							}
							for g := range 4 {
								if r := t.lightRaw(cx, ex, cy, e2, rx, rh, g); r >= 0 {
									ts := &l.terms[cx][ex][cy][3*rx+rh]
									ts.t[ts.n] = lightTerm{uint8(g), e2, r}
									ts.n++
									if ry := 3 - rx - rh; rx < ry {
										l.any[cx][cy] = true
									} else {
										l.any[cy][cx] = true
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// lightRaw is the raw counter of light edges ℓX, ℓY (contexts cx, cy)
// with heavy edges h1 (direction bit ex) and h2 (e2): ℓX and h1 ranked
// rx and rh among ℓX, h1 and ℓY by position, h2 in gap g of them.
func (t *wedgeTables) lightRaw(cx, ex, cy, e2 uint8, rx, rh, g int) int16 {
	at := func(r int) int { // the rank among all four, h2 put in gap g
		if r >= g {
			return r + 1
		}
		return r
	}
	w1 := lightWedge(at(rx), cx>>1, cx&1, at(rh), ex)
	w2 := lightWedge(at(3-rx-rh), cy>>1, cy&1, g, e2)
	return t.pairRaw(w1, w2)
}

// lightWedge is the wedge of a light edge at position pl (side s: 0 t–m,
// 1 m–o; direction bit d) and a heavy one at ph (the other side,
// direction bit e), as seqWedge.
func lightWedge(pl int, s, d uint8, ph int, e uint8) seqWedge {
	tm, mo, pTM, pMO := d, e, pl, ph
	if s == 1 {
		tm, mo, pTM, pMO = e, d, ph, pl
	}
	ty := tm<<1 | mo
	if pMO < pTM {
		ty |= 4
	}
	return seqWedge{min(pl, ph), max(pl, ph), ty}
}

// lightEdges gathers the group's light edges that are in some wedge,
// with their heavy partners, into b.lx, middle by middle (b.loff), and
// the middles into b.lm; it returns their heavy partners in all (a
// bound on the wedges). b.lx is sized once for the light lists' edges:
// growing it by appends leaves garbage a few times the size of a hub's
// groups, held until the next collection.
func (b *wedgeBuf) lightEdges(sp *staticPairs, top, cn uint32, ws []wedge4, delta int64, tab *wedgeTables) (partners int64) {
	size := 0
	for _, w := range ws {
		size += min(len(sp.list(w.tx)), len(sp.list(w.xc))) - 1 // less the sentinel
	}
	if cap(b.lx) < size {
		b.lx = make([]lightEdge, 0, size)
	}
	b.lx, b.lm = b.lx[:0], b.lm[:0]
	b.loff = append(b.loff[:0], 0)
	// A cycle's four edges lie in slots k and k+1 for some k, so both
	// its middles' wedges have near bit k: a light edge in slot s is in
	// one only where its middle's near set and some other middle's have
	// bit s−1 or s. The others (tgraphgen 1M, δ a day, M4: 2.5 of the 5.9
	// million light edges read) are neither galloped nor kept.
	b.lnear = resize(b.lnear, len(ws)+1)
	for i := len(ws) - 1; i >= 0; i-- {
		b.lnear[i] = b.lnear[i+1].or(ws[i].near)
	}
	var before slots256 // the earlier middles' near sets
	for mi, w := range ws {
		a, c := sp.list(w.tx), sp.list(w.xc) // sentinels included
		light, heavy, li := a, c, uint8(0)
		lowL, lowH := top < w.x, w.x < cn
		if len(a) > len(c) {
			light, heavy, li = c, a, 1
			lowL, lowH = lowH, lowL
		}
		b.lm = append(b.lm, lightMiddle{heavy, lowH})
		slots := lightSlots{sp.grid, w.near.and(before.or(b.lnear[mi+1])).up()}
		before = before.or(w.near)
		if !slots.reach.empty() {
			var n int64
			b.lx, n = lightWindows(b.lx, light, heavy, int32(mi), li, lowL, lowH, delta, tab.dirs[li], slots)
			partners += n
		}
		b.loff = append(b.loff, int32(len(b.lx)))
	}
	return partners
}

// lightSlots are the slots of a middle's light edges that may be in a
// cycle of their group (a light edge in slot k where reach has bit k).
type lightSlots struct {
	grid  slotGrid
	reach slots256
}

// lightUnion returns the group's heavy edges within δ of some light
// edge of their middle (b.lx in middle order): a middle's light edges'
// ranges start and end in order, so each adds its part past the last.
func (b *wedgeBuf) lightUnion() int {
	n := 0
	for mi := range len(b.loff) - 1 {
		end := int32(0)
		for _, l := range b.lx[b.loff[mi]:b.loff[mi+1]] {
			n += int(l.w1 - max(l.w0, end))
			end = l.w1
		}
	}
	return n
}

// lightWindows appends to dst a middle's light edges (side li, list
// light) that have a heavy edge within δ of a direction that makes a
// wedge type some table reads (ok[dl][dh], as middleDirs's; lowL, lowH:
// the sides' first nodes have their pairs' lower ids), each with its
// heavy partners (galloped to: a hub's side is in many groups, read
// only near the other side's edges), in position order; and returns
// their heavy partners in all. A light edge whose partners all run the
// other way is in no wedge that a counter reads (tgraphgen 1M, δ a day,
// M4: one in six), so it is left out of the light pairs as middleDirs
// leaves it out of the sweeps; so is one in a slot that slots leaves out,
// before its partners are searched.
func lightWindows(dst []lightEdge, light, heavy []p4Edge, mid int32, li uint8, lowL, lowH bool, delta int64, ok [2][2]bool, slots lightSlots) ([]lightEdge, int64) {
	var partners int64
	lo, hi, width := 0, 0, 0
	last := len(heavy) - 2 // the last edge (then the sentinel)
	if last < 0 {
		return dst, 0
	}
	end, in := int64(math.MinInt64), false // the current slot's end, and whether reach has it
	for i := range light[:len(light)-1] {
		e := &light[i]
		if e.t >= end {
			var k uint64
			k, end = slots.grid.slot(e.t)
			in = slots.reach.has(k)
		}
		var dl uint8
		if (e.flags&fIn != 0) == lowL {
			dl = 1
		}
		if !in || !ok[dl][0] && !ok[dl][1] {
			continue
		}
		// The heavy edges' times stand for their indices: the guesses
		// are where the first edge within δ before e and the first past
		// δ after it would be in an even list, from lo to its last edge
		// and from the last window's size (a hub's list is read near the
		// light edges only, and the gallops' far reads missed the cache).
		from, to := motif.SubTicks(e.t, delta), motif.AddTicks(e.t, delta)
		if t0 := heavy[lo].t; t0 < from {
			guess := len(heavy) - 1 // past the last edge
			if t1 := heavy[last].t; from <= t1 {
				guess = lo + int(float64(last-lo)*(float64(uint64(from-t0))/float64(uint64(t1-t0))))
			}
			lo = seek4(heavy, lo, min(max(guess, lo), len(heavy)-1), from)
		}
		if to == math.MaxInt64 {
			hi = len(heavy) - 1
		} else {
			hi = seek4(heavy, max(hi, lo), min(max(lo+width, hi, lo), len(heavy)-1), to+1)
		}
		width = hi - lo
		if lo == hi {
			continue
		}
		if heavyWedges(heavy, lo, hi, lowH, ok[dl]) == 0 {
			continue
		}
		partners += int64(hi - lo)
		dst = append(dst, lightEdge{t: e.t, pos: e.pos, mid: mid, w0: int32(lo), w1: int32(hi), ctx: li<<1 | dl, counted: e.flags&fCounted != 0})
	}
	return dst, partners
}

// sortLight sorts b.lx by position, in place (unsortLight puts it back):
// by one packed key where the positions' span and the count fit (most
// groups), else by comparing. Many keys (a hub's groups: most of the
// light edges) are sorted by radix on their position bits, a pass an 11
// bits (two for tgraphgen 1M's spans), not by comparing.
func (b *wedgeBuf) sortLight() {
	lx := b.lx
	if len(lx) < 2 {
		return
	}
	lo, hi := lx[0].pos, lx[0].pos
	for i := range lx {
		lo, hi = min(lo, lx[i].pos), max(hi, lx[i].pos)
	}
	const idxBits = 24
	if uint64(hi-lo) >= 1<<(64-idxBits) || len(lx) >= 1<<idxBits {
		slices.SortFunc(lx, func(x, y lightEdge) int { return cmp.Compare(x.pos, y.pos) })
		return
	}
	b.lkey = grow(b.lkey, len(lx))
	for i := range lx {
		b.lkey[i] = uint64(lx[i].pos-lo)<<idxBits | uint64(i)
	}
	keys := b.lkey
	if width := bits.Len64(uint64(hi - lo)); len(lx) >= radixMinKeys && width <= 3*radixBits {
		b.ltmp = grow(b.ltmp, len(lx))
		keys = radixSort(b.lkey, b.ltmp, idxBits, width)
	} else {
		slices.Sort(keys)
	}
	permuteLight(lx, keys, 1<<idxBits-1)
}

// radixBits is a radix pass's digit; radixMinKeys the fewest keys that
// sortLight sorts by radix (fewer sort faster by comparing than a pass
// clears and sums its 2^11 counts).
const (
	radixBits    = 11
	radixMinKeys = 1024
)

// radixSort sorts keys by their bits [shift, shift+width) (none above
// them set), least significant digit first, moving them between keys
// and tmp (as long): it returns the one that holds them sorted. A pass
// is stable, so the passes sort by the whole field.
func radixSort(keys, tmp []uint64, shift uint, width int) []uint64 {
	var count [1 << radixBits]int32
	for d := shift; d < shift+uint(width); d += radixBits {
		clear(count[:])
		for _, k := range keys {
			count[k>>d&(1<<radixBits-1)]++
		}
		var sum int32
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			c := &count[k>>d&(1<<radixBits-1)]
			tmp[*c] = k
			*c++
		}
		keys, tmp = tmp, keys
	}
	return keys
}

// unsortLight puts b.lx, sorted by sortLight, back in middle order
// (b.loff's), for the sweeps: a middle's edges keep their order.
func (b *wedgeBuf) unsortLight() {
	lx := b.lx
	b.lcur = append(b.lcur[:0], b.loff[:len(b.loff)-1]...) // each middle's next slot
	from := grow(b.lkey, len(lx))
	for i := range lx {
		m := lx[i].mid
		from[b.lcur[m]] = uint64(i)
		b.lcur[m]++
	}
	b.lkey = from
	permuteLight(lx, from, math.MaxUint64)
}

// permuteLight moves lx[from[i]&mask] to lx[i] for every i, in place,
// one cycle of the permutation at a time; it marks the entries of from
// that it has placed with their own index. A copy would double a hub's
// groups' buffers.
func permuteLight(lx []lightEdge, from []uint64, mask uint64) {
	for i := range lx {
		k := int(from[i] & mask)
		if k == i {
			continue
		}
		first, j := lx[i], i
		for k != i {
			lx[j] = lx[k]
			from[j] = uint64(j)
			j, k = k, int(from[k]&mask)
		}
		lx[j] = first
		from[j] = uint64(j)
	}
}

// lightPairsCheaper reports whether the light pairs' work, in heavy
// edges walked, is at most limit: per pair of light edges on distinct
// middles within δ that some counter may read, the lighter one's heavy
// partners plus a pair's fixed cost. It stops at the limit: a group of
// dense light sides has pairs by the square.
func (b *wedgeBuf) lightPairsCheaper(delta int64, tab *wedgeTables, limit int64) bool {
	lx := b.lx
	var work int64
	for i := range lx {
		x := &lx[i]
		for k := i + 1; k < len(lx) && !apart(x.t, lx[k].t, delta); k++ {
			work += lightPairCost / 2 // a pair that needs no walk is read all the same
			y := &lx[k]
			if y.mid != x.mid && tab.light.any[x.ctx][y.ctx] {
				work += int64(min(x.w1-x.w0, y.w1-y.w0)) + lightPairCost
			}
		}
		if work > limit {
			return false
		}
	}
	return true
}

// lightPairCost is a light pair's fixed cost in heavy edges walked (its
// searches and setup).
const lightPairCost = 4

// lightPairs counts the group's cycles from its light edges b.lx (by
// position, sortLight) into b.lraw.
func (b *wedgeBuf) lightPairs(delta int64, tab *wedgeTables) {
	lx := b.lx
	for i := range lx {
		x := &lx[i]
		for k := i + 1; k < len(lx) && !apart(x.t, lx[k].t, delta); k++ {
			y := &lx[k]
			if y.mid == x.mid || !tab.light.any[x.ctx][y.ctx] {
				continue
			}
			if x.w1-x.w0 <= y.w1-y.w0 {
				b.lightPair(x, y, delta, tab)
			} else {
				b.lightPair(y, x, delta, tab)
			}
		}
	}
}

// lightPair counts the cycles of light edges x and y (distinct middles,
// within δ): each heavy partner h1 of x against the runs of y's.
func (b *wedgeBuf) lightPair(x, y *lightEdge, delta int64, tab *wedgeTables) {
	hx, hy := &b.lm[x.mid], &b.lm[y.mid]
	ly, lh := hy.heavy, hx.heavy
	// The first of y's partners after x and after y, by position.
	qx := y.w0 + int32(searchPos(ly[y.w0:y.w1], x.pos))
	qy := y.w0 + int32(searchPos(ly[y.w0:y.w1], y.pos))
	u0, u1, qh := y.w0, y.w0, y.w0 // y's partners within δ of all three: [u0, u1); first after h1
	lraw := &b.lraw
	for j := x.w0; j < x.w1; j++ {
		h := &lh[j]
		first, last := min(x.t, y.t, h.t), max(x.t, y.t, h.t)
		if apart(first, last, delta) {
			continue
		}
		var ex uint8
		if (h.flags&fIn != 0) == hx.low {
			ex = 1
		}
		// Ranks of x and h1 among x, h1 and y by position.
		rx, rh := 0, 0
		if h.pos < x.pos {
			rx++
		} else {
			rh++
		}
		if y.pos < x.pos {
			rx++
		}
		if y.pos < h.pos {
			rh++
		}
		ts := &tab.light.terms[x.ctx][ex][y.ctx][3*rx+rh]
		if ts.n == 0 {
			continue
		}
		from, to := motif.SubTicks(last, delta), motif.AddTicks(first, delta)
		for u0 < y.w1 && ly[u0].t < from {
			u0++
		}
		u1 = max(u1, u0)
		for u1 < y.w1 && ly[u1].t <= to {
			u1++
		}
		qh = max(qh, u0)
		for qh < u1 && ly[qh].pos < h.pos {
			qh++
		}
		// The gaps' bounds in y's list (the first edge after each of the
		// three in position order), and whether the last is counted.
		var bound [5]int32
		bound[0], bound[4] = u0, u1
		bound[rx+1], bound[rh+1], bound[4-rx-rh] = qx, qh, qy
		for k := 1; k < 4; k++ {
			bound[k] = min(max(bound[k], u0), u1)
		}
		lastCounted := y.counted
		switch 2 {
		case rx:
			lastCounted = x.counted
		case rh:
			lastCounted = h.flags&fCounted != 0
		}
		for _, tm := range ts.t[:ts.n] {
			a, c := &ly[bound[tm.g]], &ly[bound[tm.g+1]]
			var n [2]int64 // by y's heavy edges' direction bit
			switch {
			case tm.g == 3: // h2 last: counted ones only
				n = [2]int64{int64(c.c0 - a.c0), int64(c.c1 - a.c1)}
			case lastCounted:
				in := int64(c.in - a.in)
				n = [2]int64{int64(bound[tm.g+1]-bound[tm.g]) - in, in}
			}
			e2 := tm.e2
			if !hy.low { // direction bit 1: into the first node, the higher id
				e2 ^= 1
			}
			lraw[tm.raw] += n[e2]
		}
	}
}

// searchPos returns the index of l's first edge at or after position p
// (firstTime's search, by position: a light edge's position, never one
// of l's, so the first after it).
func searchPos(l []p4Edge, p int64) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m].pos < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
