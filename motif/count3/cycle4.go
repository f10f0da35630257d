package count3

import "context"

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
	c1    [8]int64
	c2    [8][8]int64
	c3    [8][8][8]int64
	marks []int32    // per node: its bucket + 1 for the current top node
	bkt   [][]wedge4 // buckets: the wedges to one opposite node
	used  []uint32
	cand  []int32
	curs  [4]nearCursor
	went  []wedgeEntry // the current bucket's wedges' edges
}

// wedge4 is a wedge top–x–c of the cycle listing: x and its sides' pair
// ids, their near slots, the later first and earlier last time of the two
// sides, and once built its edges near each other, went[lo:lo+n] (n < 0:
// not built).
type wedge4 struct {
	x           uint32
	tx, xc      uint32
	near        slots256
	first, last int64
	lo, n       int32
}

// wedgeEntry is an edge of a wedge's sides with an edge of the other side
// within δ: wOnC (on x–c, else on top–x), wFromEnd (from top, or from c),
// fCounted.
type wedgeEntry struct {
	pos, t int64
	flags  uint8
}

const (
	wOnC uint8 = 1 << iota
	wFromEnd
	wCounted
)

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
// listed once (from its node first in degree order... last: its top, as
// wedges top–x–c grouped by the opposite node c), and those whose four
// sides' spans meet within δ are counted by a sliding window over their
// sides' edges near each other, in position order, of the sequences of
// one, two and three edges on distinct sides by symbol: an edge adds the
// three-edge sequences before it in the window as four-edge ones (when it
// is counted), and extends the shorter ones; the window's first edge
// leaves by taking off the sequences it starts (SNAP's three-event
// counter, one level deeper). A cycle costs its sides' edges in the span
// where all four meet.
func (c *counter) cycles(ctx context.Context, sp *staticPairs) error {
	bufs := make([]cycleBuf, c.workers)
	before := func(u, v uint32) bool {
		return sp.nodeDeg[u] < sp.nodeDeg[v] || sp.nodeDeg[u] == sp.nodeDeg[v] && u < v
	}
	return c.heavyFirst(ctx, c.nodes, 16, sp.off[c.nodes], func(u int) int64 { return sp.off[u+1] - sp.off[u] }, func(wk, a int) {
		b := &bufs[wk]
		if b.marks == nil {
			b.marks = make([]int32, c.nodes)
		}
		raw := (*[RawLen - rawCycle]int64)(c.raws[wk].Raw[rawCycle:])
		top := uint32(a)
		b.used = b.used[:0]
		for i := sp.off[a]; i < sp.off[a+1]; i++ {
			x, tx := sp.nb[i], sp.pid[i]
			if !before(x, top) {
				continue
			}
			for j := sp.off[x]; j < sp.off[x+1]; j++ {
				cn := sp.nb[j]
				if cn == top || !before(cn, top) {
					continue
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
				near := sp.slots[tx].and(sp.slots[sp.pid[j]])
				if near.empty() {
					continue
				}
				xc := sp.pid[j]
				b.bkt[k-1] = append(b.bkt[k-1], wedge4{x: x, tx: tx, xc: xc, near: near, n: -1,
					first: max(sp.first[tx], sp.first[xc]), last: min(sp.last[tx], sp.last[xc])})
			}
		}
		for k, cn := range b.used {
			ws := b.bkt[k]
			b.marks[cn] = 0
			b.went = b.went[:0]
			for i := range ws {
				for j := i + 1; j < len(ws); j++ {
					if ws[i].near.and(ws[j].near).empty() ||
						!spansMeet(max(ws[i].first, ws[j].first), min(ws[i].last, ws[j].last), c.delta) {
						continue
					}
					// top – x – cn – y – top.
					if c.wedgeEdges(sp, top, cn, &ws[i], b) == 0 || c.wedgeEdges(sp, top, cn, &ws[j], b) == 0 {
						continue
					}
					c.cycle(&ws[i], &ws[j], b, raw)
				}
			}
		}
	})
}

// wedgeEdges builds w's edges near each other (once per bucket) and
// returns how many there are.
func (c *counter) wedgeEdges(sp *staticPairs, top, cn uint32, w *wedge4, b *cycleBuf) int32 {
	if w.n >= 0 {
		return w.n
	}
	lists := [2][]p4Edge{sp.list(w.tx), sp.list(w.xc)}
	// fIn is into the lower id: "from the end" (top, or cn) is fIn when
	// the end is the higher id.
	fromEnd := [2]bool{top > w.x, cn > w.x}
	order := []int{0, 1}
	if len(lists[1]) < len(lists[0]) {
		order = []int{1, 0}
	}
	var cand [2][]int32
	b.cand = b.cand[:0]
	for s := range 2 {
		at0 := len(b.cand)
		b.cand = candidates(b.cand, lists[:], s, 0, len(lists[s])-1, c.delta, b.curs[:2], order)
		cand[s] = b.cand[at0:len(b.cand):len(b.cand)]
	}
	w.lo, w.n = int32(len(b.went)), 0
	if len(cand[0]) == 0 || len(cand[1]) == 0 {
		return 0
	}
	i, j := 0, 0
	for i < len(cand[0]) || j < len(cand[1]) {
		s := 0
		if i >= len(cand[0]) || j < len(cand[1]) && lists[1][cand[1][j]].pos < lists[0][cand[0][i]].pos {
			s = 1
		}
		var e *p4Edge
		if s == 0 {
			e = &lists[0][cand[0][i]]
			i++
		} else {
			e = &lists[1][cand[1][j]]
			j++
		}
		fl := uint8(s) * wOnC
		if (e.flags&fIn != 0) == fromEnd[s] {
			fl |= wFromEnd
		}
		if e.flags&fCounted != 0 {
			fl |= wCounted
		}
		b.went = append(b.went, wedgeEntry{pos: e.pos, t: e.t, flags: fl})
	}
	w.n = int32(len(b.went)) - w.lo
	return w.n
}

// wedgeSym is the symbol of a wedge edge in the cycle top–x–c–y: side 0
// top–x (0: top→x), 1 x–c (0: x→c), 2 c–y (0: c→y), 3 y–top (0: y→top).
func wedgeSym(fl uint8, second bool) uint8 {
	onC, from := fl&wOnC != 0, fl&wFromEnd != 0
	switch {
	case !second && !onC:
		return b2u8(!from)
	case !second:
		return 2 + b2u8(from)
	case onC:
		return 4 + b2u8(!from)
	}
	return 6 + b2u8(from)
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// cycle adds the sequences of the static four-cycle top–x–c–y of the
// wedges wx (top–x–c) and wy: their edges near each other merged in
// position order feed the window.
func (c *counter) cycle(wx, wy *wedge4, b *cycleBuf, raw *[RawLen - rawCycle]int64) {
	delta := c.delta
	ex, ey := b.went[wx.lo:wx.lo+wx.n], b.went[wy.lo:wy.lo+wy.n]
	b.ent = b.ent[:0]
	for i, j := 0, 0; i < len(ex) || j < len(ey); {
		if j >= len(ey) || i < len(ex) && ex[i].pos < ey[j].pos {
			b.ent = append(b.ent, cycleEntry{t: ex[i].t, sym: wedgeSym(ex[i].flags, false), counted: ex[i].flags&wCounted != 0})
			i++
		} else {
			b.ent = append(b.ent, cycleEntry{t: ey[j].t, sym: wedgeSym(ey[j].flags, true), counted: ey[j].flags&wCounted != 0})
			j++
		}
	}
	ent := b.ent
	c1, c2, c3 := &b.c1, &b.c2, &b.c3
	head := 0
	remove := func(s uint8) {
		c1[s]--
		side := s / 2
		for y := range uint8(8) {
			if y/2 == side {
				continue
			}
			c2[s][y] -= c1[y]
			for z := range uint8(8) {
				if z/2 != side && z/2 != y/2 {
					c3[s][y][z] -= c2[y][z]
				}
			}
		}
	}
	for i := range ent {
		e := &ent[i]
		for head < i && apart(ent[head].t, e.t, delta) {
			remove(ent[head].sym)
			head++
		}
		s := e.sym
		if e.counted {
			for _, tm := range cycleTerms[s] {
				raw[tm.raw] += c3[tm.x][tm.y][tm.z]
			}
		}
		side := s / 2
		for x := range uint8(8) {
			if x/2 == side {
				continue
			}
			for y := range uint8(8) {
				if y/2 != side && y/2 != x/2 {
					c3[x][y][s] += c2[x][y]
				}
			}
			c2[x][s] += c1[x]
		}
		c1[s]++
	}
	for ; head < len(ent); head++ { // empty the window: the counters return to zero
		remove(ent[head].sym)
	}
}
