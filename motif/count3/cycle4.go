package count3

import (
	"context"
	"math"

	"github.com/motifwatch/motifwatch/motif"
)

// cycleEntry is an edge of a four-cycle's sides in the cycle pass's
// buffer: its symbol 2·side + direction (0: from n_side to n_side+1).
type cycleEntry struct {
	t       int64
	sym     uint8
	counted bool
}

// cycleBuf is a worker's scratch for the cycle pass.
type cycleBuf struct {
	ent   []cycleEntry
	win   cycleWindow
	acc   [8][32]int64 // counted four-edge sequences by last symbol and window cell (flush)
	marks []int32      // per node: its bucket + 1 for the current top node
	bkt   [][]wedge4   // buckets: the wedges to one opposite node
	used  []uint32
	cand  []int32
	near  [4][]p4Edge // the sides' candidates, sentinel last (cycle)
	curs  [4]nearCursor
	sw    sparseWindow             // the window of a few cells' patterns (counter.cycleTab)
	sraw  [RawLen - rawCycle]int64 // its counted sequences by raw counter (flush)
	wb    wedgeBuf                 // the wedge sweeps (cycle4wedge.go)
}

// wedge4 is a wedge top–x–c of the cycle listing: x and its sides' pair
// ids.
type wedge4 struct {
	x      uint32
	tx, xc uint32
	near   slots256 // both sides' near slots (slots256)
	caps   uint8    // the direction pairs its sides hold (wedgeCaps), where the asked cells need some only
}

// wedgeCaps returns the direction pairs of the temporal wedges that a
// static wedge t–m–o can hold, bit dA<<1|dB (dA: a t–m edge m → t, dB:
// an m–o edge o → m, as the sweep's type bits), from its pairs' dirs
// (bit 0: an edge into the lower id, bit 1: out of it); lowA: t < m,
// lowB: m < o.
func wedgeCaps(dirsA uint8, lowA bool, dirsB uint8, lowB bool) uint8 {
	into := func(d uint8, low bool) [2]bool { // [out of the first node, into it]
		if low {
			return [2]bool{d&2 != 0, d&1 != 0}
		}
		return [2]bool{d&1 != 0, d&2 != 0}
	}
	a, b := into(dirsA, lowA), into(dirsB, lowB)
	var caps uint8
	for dA := range 2 {
		for dB := range 2 {
			if a[dA] && b[dB] {
				caps |= 1 << (dA<<1 | dB)
			}
		}
	}
	return caps
}

// wedgeCapsOf[dirsA<<4 | lowA<<3 | dirsB<<1 | lowB] is wedgeCaps, for
// the listing's inner loop: a table read per wedge.
var wedgeCapsOf = func() (t [64]uint8) {
	for i := range t {
		t[i] = wedgeCaps(uint8(i>>4), i>>3&1 == 1, uint8(i>>1&3), i&1 == 1)
	}
	return t
}()

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// cycleIndex[σ] lists, for the edge of symbol σ ending a sequence, the
// other three symbols in temporal order (on the three other sides, every
// order and direction) with the raw counter of the sequence.
type cycleTerm struct {
	x, y, z uint8
	raw     int16
}

var cycleTerms = func() (m [8][]cycleTerm) {
	perm := map[[4]int]int{}
	for i, p := range perms4 {
		perm[p] = i
	}
	for sig := range 8 {
		side := sig / 2
		for _, p := range perms4 {
			if p[3] != side {
				continue
			}
			for d := range 8 {
				x, y, z := 2*p[0]+d>>2, 2*p[1]+d>>1&1, 2*p[2]+d&1
				raw := perm[p]*16 + (d << 1) + sig&1
				if rawCell[rawCycle+raw] < 0 {
					continue // no motif: the second edge misses the first
				}
				m[sig] = append(m[sig], cycleTerm{uint8(x), uint8(y), uint8(z), int16(raw)})
			}
		}
	}
	return
}()

// cycles counts the temporal four-cycles: every static four-cycle is
// listed once, from its node last in degree order (its top), as pairs of
// wedges top–x–c grouped by the opposite node c; a pair whose wedges'
// δ-slot sets do not intersect is dropped by one AND, and the cycles whose
// four sides' spans meet within δ are counted by a sliding window over their
// sides' edges near each other, in position order, of the sequences of
// one, two and three edges on distinct sides by symbol: an edge adds the
// three-edge sequences before it in the window as four-edge ones (when it
// is counted), and extends the shorter ones; the window's first edge
// leaves by taking off the sequences it starts (SNAP's three-event
// counter, one level deeper). A cycle costs its sides' edges in the span
// where all four meet.
func (c *counter) cycles(ctx context.Context, sp *staticPairs) error {
	bufs := make([]cycleBuf, c.workers)
	tab := c.wedgeTab
	var dirs []uint8 // per pair: bit 0, an edge into its lower id; bit 1, out of it
	if !tab.pairsAll {
		dirs = make([]uint8, sp.pairsLen)
		for j := range dirs {
			l := sp.list(uint32(j))
			n, in := uint32(len(l)-1), l[len(l)-1].in
			dirs[j] = b2u8(in > 0) | b2u8(in < n)<<1
		}
	}
	// A top's work grows with its wedges to lower nodes: its lower
	// neighbours' degrees summed. A hub's groups are cut by opposite node
	// (heavySplit): one hub can hold most of the pass.
	wedges := make([]int64, c.nodes)
	var total int64
	for u := range c.nodes {
		for i := sp.off[u]; i < sp.off[u+1]; i++ {
			if x := sp.nb[i]; sp.before(x, uint32(u)) {
				wedges[u] += sp.off[x+1] - sp.off[x]
			}
		}
		total += wedges[u]
	}
	err := c.heavySplit(ctx, c.nodes, 16, total, func(u int) int64 { return wedges[u] }, int64(4*c.workers), func(wk, a, part, parts int) {
		b := &bufs[wk]
		if b.marks == nil {
			b.marks = make([]int32, c.nodes)
		}
		top := uint32(a)
		b.used = b.used[:0]
		for i := sp.off[a]; i < sp.off[a+1]; i++ {
			x, tx := sp.nb[i], sp.pid[i]
			if !sp.before(x, top) {
				continue
			}
			fx := sp.fold[tx]
			var capsX uint8 // the t–x side's part of wedgeCapsOf's index
			if dirs != nil {
				capsX = dirs[tx]<<4 | b2u8(top < x)<<3
			}
			for j := sp.off[x]; j < sp.off[x+1]; j++ {
				cn := sp.nb[j]
				// The part's test first: it reads no memory, and a hub's
				// parts each pass over all its wedges.
				if !inPart(cn, part, parts) || cn == top || !sp.before(cn, top) {
					continue
				}
				// The folds first: most wedges fail them (tgraphgen 1M, δ
				// a day: 4.4 of 7.4 million), and they read 8 bytes of
				// each pair, the slots 32.
				xc := sp.pid[j]
				if fx&sp.fold[xc] == 0 {
					continue
				}
				near := sp.slots[tx].and(sp.slots[xc])
				if near.empty() {
					continue
				}
				// A wedge whose sides hold no direction pair that the
				// asked cells read is in none of their cycles.
				var caps uint8
				if dirs != nil {
					caps = wedgeCapsOf[capsX|dirs[xc]<<1|b2u8(x < cn)]
					if caps&tab.capsUsed == 0 {
						continue
					}
				}
				k := b.marks[cn]
				if k == 0 {
					b.used = append(b.used, cn)
					k = int32(len(b.used))
					b.marks[cn] = k
					if len(b.bkt) < int(k) {
						b.bkt = append(b.bkt, nil)
					}
					b.bkt[k-1] = b.bkt[k-1][:0]
				}
				b.bkt[k-1] = append(b.bkt[k-1], wedge4{x: x, tx: tx, xc: xc, near: near, caps: caps})
			}
		}
		for k, cn := range b.used {
			ws := b.bkt[k]
			b.marks[cn] = 0
			if len(ws) < 2 {
				continue
			}
			if cycleWedges >= 0 && b.wb.group(sp, top, cn, ws, c.delta, c.wedgeTab, cycleWedges) {
				continue
			}
			c.listGroup(sp, top, cn, ws, b, tab)
		}
	})
	for wk := range bufs {
		raw := (*[RawLen - rawCycle]int64)(c.raws[wk].Raw[rawCycle:])
		bufs[wk].flush(raw)
		bufs[wk].wb.flush(c.wedgeTab, raw)
	}
	return err
}

// listGroup counts a group's cycles one by one: every pair of its wedges
// to cn whose near slots intersect.
func (c *counter) listGroup(sp *staticPairs, top, cn uint32, ws []wedge4, b *cycleBuf, tab *wedgeTables) {
	for i := range ws {
		for j := i + 1; j < len(ws); j++ {
			if ws[i].near.and(ws[j].near).empty() || !tab.pairsAll && !tab.capPairs[ws[i].caps][ws[j].caps] {
				continue
			}
			// top – x – cn – y – top.
			p := [4]uint32{ws[i].tx, ws[i].xc, ws[j].xc, ws[j].tx}
			n := [4]uint32{top, ws[i].x, cn, ws[j].x}
			c.cycle(sp, n, p, b)
		}
	}
}

// cycle adds the sequences of one static four-cycle n0–n1–n2–n3 (side s:
// n_s – n_s+1, pair id p[s]).
func (c *counter) cycle(sp *staticPairs, n [4]uint32, p [4]uint32, b *cycleBuf) {
	delta := c.delta
	first, last := int64(-1<<63), int64(1<<63-1)
	for s := range 4 {
		first = max(first, sp.first[p[s]])
		last = min(last, sp.last[p[s]])
	}
	if !spansMeet(first, last, delta) {
		return
	}
	lo, hi := motif.SubTicks(first, delta), motif.AddTicks(last, delta)
	var lists [4][]p4Edge
	var lower [4]bool
	for s := range 4 {
		lists[s] = sp.list(p[s])
		lower[s] = n[s] < n[(s+1)%4]
	}
	// The sides' edges in [first − δ, last + δ] with an edge of every
	// other side within δ: the others are in no sequence.
	var at, end, from, to, size [4]int
	for s := range 4 {
		from[s], to[s] = timeRange(lists[s], lo, hi)
		if from[s] == to[s] {
			return
		}
		size[s] = to[s] - from[s]
	}
	order := []int{0, 1, 2, 3}
	lightFirst(order, size[:])
	var cand [4][]int32 // the lightest side's first: most cycles end there
	b.cand = b.cand[:0]
	// A side's edge in a sequence has that sequence's edges of the sides
	// already filtered within δ, and those are candidates: so each side
	// is tested against the candidates found before it (a shorter list
	// to gallop, longer jumps), the others against their whole lists.
	near := lists
	for i, s := range order {
		at0 := len(b.cand)
		near[s] = lists[s]
		b.cand = candidates(b.cand, near[:], s, from[s], to[s], delta, b.curs[:], order)
		if len(b.cand) == at0 {
			return
		}
		cand[s] = b.cand[at0:len(b.cand):len(b.cand)]
		if i < 3 {
			f := b.near[s][:0]
			for _, j := range cand[s] {
				f = append(f, lists[s][j])
			}
			b.near[s] = append(f, p4Edge{pos: math.MaxInt64, t: math.MaxInt64})
			near[s] = b.near[s]
		}
	}
	// The sides' next positions (MaxInt64 past the end: no edge's) are
	// kept apart, so picking the least reads no list.
	var next [4]int64
	head := func(s int) int64 {
		if at[s] < end[s] {
			return lists[s][cand[s][at[s]]].pos
		}
		return math.MaxInt64
	}
	for s := range 4 {
		at[s], end[s] = 0, len(cand[s])
		next[s] = head(s)
	}
	b.ent = b.ent[:0]
	for {
		s := 0
		for k := 1; k < 4; k++ {
			if next[k] < next[s] {
				s = k
			}
		}
		if next[s] == math.MaxInt64 {
			break
		}
		e := &lists[s][cand[s][at[s]]]
		d := uint8(0)
		if (e.flags&fIn != 0) == lower[s] {
			d = 1
		}
		b.ent = append(b.ent, cycleEntry{t: e.t, sym: uint8(2*s) + d, counted: e.flags&fCounted != 0})
		at[s]++
		next[s] = head(s)
	}
	if c.cycleTab != nil {
		b.slideSparse(b.ent, delta, c.cycleTab, b.sraw[:])
		return
	}
	b.slide(b.ent, delta)
}

// slide runs the cycle pass's sliding window over a cycle's entries
// (position order) and adds each counted entry's four-edge sequences to
// the buffer's accumulators (acc, by the entry's symbol and the window's
// cell); it leaves the window's counters at zero.
func (b *cycleBuf) slide(ent []cycleEntry, delta int64) {
	w := &b.win
	head := 0
	for i := range ent {
		e := &ent[i]
		for head < i && apart(ent[head].t, e.t, delta) {
			w.remove(ent[head].sym)
			head++
		}
		if e.counted {
			// The three-edge sequences on the other three sides, one
			// contiguous block of the window: a run of adds.
			s := e.sym & 7
			a, c := &b.acc[s], (*[32]int64)(w.c3[32*int(s>>1):])
			for j := range a {
				a[j] += c[j]
			}
		}
		w.add(e.sym)
	}
	if len(ent)-head > 16 {
		*w = cycleWindow{} // cheaper than taking each entry off
		return
	}
	for ; head < len(ent); head++ { // empty the window: the counters return to zero
		w.remove(ent[head].sym)
	}
}

// flush adds the buffer's accumulators to raw and clears them.
func (b *cycleBuf) flush(raw *[RawLen - rawCycle]int64) {
	for s := range b.acc {
		for j, r := range cycleAccRaw[s] {
			if r >= 0 {
				raw[r] += b.acc[s][j]
			}
		}
	}
	b.acc = [8][32]int64{}
	for i, v := range b.sraw {
		raw[i] += v
	}
	b.sraw = [RawLen - rawCycle]int64{}
}

// cycleWindow holds the cycle pass's sequences of one, two and three
// edges on distinct sides in the window, by symbol: c1[x], c2[8x+y] with
// x first, and c3 at the cell cycleCell[64x+8y+z] — only the three-edge
// sequences whose second edge touches the first (not on the opposite
// side): the others start no motif. c3 holds 32 cells per side that the
// sequences miss (4 side orders × 8 directions), so an edge on that side
// reads the block it completes in one run. Fixed-size arrays updated
// through tables: the window's updates are most of the pass's time.
type cycleWindow struct {
	c1 [8]int64
	c2 [64]int64
	c3 [128]int64
}

// add puts an edge of symbol s at the window's end: it extends every one-
// and two-edge sequence on other sides.
func (w *cycleWindow) add(s uint8) {
	s &= 7
	for _, u := range cycleExtend[s] {
		w.c3[u.c3&127] += w.c2[u.c2&63]
	}
	for _, x := range cycleOthers[s] {
		w.c2[(x<<3|s)&63] += w.c1[x&7]
	}
	w.c1[s]++
}

// remove takes the window's first edge, of symbol s, off: the sequences
// it starts.
func (w *cycleWindow) remove(s uint8) {
	s &= 7
	w.c1[s]--
	for _, y := range cycleOthers[s] {
		w.c2[(s<<3|y)&63] -= w.c1[y&7]
	}
	for _, u := range cycleStart[s] {
		w.c3[u.c3&127] -= w.c2[u.c2&63]
	}
}

// cycleUpdate is one three-edge cell of the window and the two-edge
// sequence that changes it.
type cycleUpdate struct{ c2, c3 uint8 }

// The window's tables. cycleOthers[s]: the symbols on the three sides
// other than s's. cycleCell[64x+8y+z]: the c3 cell of a three-edge
// sequence, −1 where it starts on opposite sides or repeats a side.
// cycleExtend[s]: the cells an edge of symbol s ends, each with the
// two-edge sequence 8x+y it extends (x, y on adjacent sides). cycleStart[s]:
// the cells an edge of symbol s starts, each with the two-edge sequence
// 8y+z after it (the two-edge sequences on opposite sides are kept for
// this: they are such cells' tails). cycleAccRaw[s][j]: the raw counter
// of cell j of the block an edge of symbol s completes (cycleTerms), −1
// where the four edges are no motif.
var (
	cycleOthers [8][6]uint8
	cycleCell   [512]int16
	cycleExtend [8][16]cycleUpdate
	cycleStart  [8][16]cycleUpdate
	cycleAccRaw [8][32]int16
)

// opposite reports whether cycle sides a and b share no node.
func opposite(a, b int) bool { return (a+2)%4 == b }

func init() {
	var next [4]int16
	for k := range cycleCell {
		x, y, z := k>>6, k>>3&7, k&7
		sx, sy, sz := x/2, y/2, z/2
		cycleCell[k] = -1
		if sx == sy || sx == sz || sy == sz || opposite(sx, sy) {
			continue
		}
		miss := 6 - sx - sy - sz
		cycleCell[k] = int16(32*miss) + next[miss]
		next[miss]++
	}
	for s := range 8 {
		side := s / 2
		n, ne, ns := 0, 0, 0
		for x := range 8 {
			if x/2 == side {
				continue
			}
			cycleOthers[s][n] = uint8(x)
			n++
			for y := range 8 {
				if y/2 == side || y/2 == x/2 {
					continue
				}
				if c := cycleCell[64*x+8*y+s]; c >= 0 {
					cycleExtend[s][ne] = cycleUpdate{uint8(8*x + y), uint8(c)}
					ne++
				}
				if c := cycleCell[64*s+8*x+y]; c >= 0 {
					cycleStart[s][ns] = cycleUpdate{uint8(8*x + y), uint8(c)}
					ns++
				}
			}
		}
		for j := range cycleAccRaw[s] {
			cycleAccRaw[s][j] = -1
		}
		for _, tm := range cycleTerms[s] {
			if c := cycleCell[64*int(tm.x)+8*int(tm.y)+int(tm.z)]; c >= 0 {
				cycleAccRaw[s][int(c)-32*side] = tm.raw
			}
		}
	}
}
