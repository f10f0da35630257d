package count3

import "math/bits"

// sparseWindow is the cycle pass's sliding window restricted to a set of
// raw cycle patterns (a query's cells): it keeps only the one-, two- and
// three-edge sequences that are substrings of the patterns' first three
// symbols, so an edge updates a handful of counters, not the full
// window's 45. Same updates as cycleWindow (add extends, remove takes off
// the sequences the window's first edge starts), on fewer counters.
type sparseWindow struct {
	c1 [8]int64
	c2 []int64
	c3 []int64
	t  *sparseTables
}

// sparseTables are a pattern set's update lists, by symbol: ext3[s] the
// three-edge counters an edge of symbol s ends (with the two-edge prefix
// it extends), start3[s] those it starts (with their two-edge tail);
// ext2, start2 likewise for two-edge counters (with the other symbol's
// one-edge counter); acc[s] the patterns an edge of symbol s completes
// (their three-edge prefix and raw counter).
type sparseTables struct {
	n2, n3       int
	ext3, start3 [8][]sparseUpd
	ext2, start2 [8][]sparseUpd
	acc          [8][]sparseUpd
}

// sparseUpd: counter a changes by counter b (or raw counter b for acc).
type sparseUpd struct{ a, b int16 }

// newSparseTables builds the tables of the raw cycle patterns in raws
// (indexes into the cycle region, cycleTerms' raw).
func newSparseTables(raws []int) *sparseTables {
	t := &sparseTables{}
	two := map[[2]uint8]int16{}
	three := map[[3]uint8]int16{}
	id2 := func(x, y uint8) int16 {
		k, ok := two[[2]uint8{x, y}]
		if !ok {
			k = int16(len(two))
			two[[2]uint8{x, y}] = k
			t.ext2[y] = append(t.ext2[y], sparseUpd{k, int16(x)})
			t.start2[x] = append(t.start2[x], sparseUpd{k, int16(y)})
		}
		return k
	}
	for _, r := range raws {
		var sym [4]uint8
		for q, s := range perms4[r/16] {
			sym[q] = uint8(2*s + (r%16)>>(3-q)&1)
		}
		pre := [3]uint8{sym[0], sym[1], sym[2]}
		k, ok := three[pre]
		if !ok {
			k = int16(len(three))
			three[pre] = k
			t.ext3[sym[2]] = append(t.ext3[sym[2]], sparseUpd{k, id2(sym[0], sym[1])})
			t.start3[sym[0]] = append(t.start3[sym[0]], sparseUpd{k, id2(sym[1], sym[2])})
		}
		t.acc[sym[3]] = append(t.acc[sym[3]], sparseUpd{k, int16(r)})
	}
	t.n2, t.n3 = len(two), len(three)
	return t
}

func (w *sparseWindow) reset(t *sparseTables) {
	w.t = t
	w.c1 = [8]int64{}
	w.c2 = resize(w.c2, t.n2)
	w.c3 = resize(w.c3, t.n3)
}

func (w *sparseWindow) add(s uint8) {
	s &= 7
	for _, u := range w.t.ext3[s] {
		w.c3[u.a] += w.c2[u.b]
	}
	for _, u := range w.t.ext2[s] {
		w.c2[u.a] += w.c1[u.b&7]
	}
	w.c1[s]++
}

func (w *sparseWindow) remove(s uint8) {
	s &= 7
	w.c1[s]--
	for _, u := range w.t.start2[s] {
		w.c2[u.a] -= w.c1[u.b&7]
	}
	for _, u := range w.t.start3[s] {
		w.c3[u.a] -= w.c2[u.b]
	}
}

// slideSparse is slide over a sparse window: each counted entry adds the
// three-edge prefixes before it to its patterns' raw counters.
func (b *cycleBuf) slideSparse(ent []cycleEntry, delta int64, t *sparseTables, raw []int64) {
	w := &b.sw
	if w.t != t {
		w.reset(t)
	}
	head := 0
	for i := range ent {
		e := &ent[i]
		for head < i && apart(ent[head].t, e.t, delta) {
			w.remove(ent[head].sym)
			head++
		}
		if e.counted {
			for _, u := range t.acc[e.sym&7] {
				raw[u.b] += w.c3[u.a]
			}
		}
		w.add(e.sym)
	}
	for ; head < len(ent); head++ {
		w.remove(ent[head].sym)
	}
}

// sparseMaxCells is the most cells a cycle pass counts through a sparse
// window; more go through the full one. The sparse window's counters are
// reached through one more indirection, so it pays only while it keeps
// few of them: on tgraphgen 1M at δ 86400 one cell costs 0.6 of the full
// window's pass, two 0.8, four as much, eight and all 32 more
// (BenchmarkCycleCells). A variable so that tests can send every mask
// through the sparse window.
var sparseMaxCells = 2

// cycleTables returns the sparse tables of the cycle cells in mask (bit
// i: Cycle4 + i), nil for the full window: mask zero (every cell) or over
// sparseMaxCells cells.
func cycleTables(mask uint32) *sparseTables {
	if mask == 0 || bits.OnesCount32(mask) > sparseMaxCells {
		return nil
	}
	var raws []int
	for r := range RawLen - rawCycle {
		if c := rawCell[rawCycle+r]; c >= Cycle4 && c < Cycle4+32 && mask>>(c-Cycle4)&1 == 1 {
			raws = append(raws, r)
		}
	}
	return newSparseTables(raws)
}
