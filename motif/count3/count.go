package count3

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Families selects counting passes.
type Families uint8

const (
	// Stars: the centre pass, which counts the two-node and star cells.
	Stars Families = 1 << iota
	// Triangles: static triangles and the triangle pass.
	Triangles
	// All families: the whole grid.
	All = Stars | Triangles
)

// Family returns the pass that counts cell c.
func Family(c Cell) Families {
	for i, rc := range rawCell {
		if rc == c && i >= rawTri && i < rawStar4 {
			return Triangles
		}
	}
	return Stars
}

// Sequences are counting-pass inputs laid out flat for a device: sequence
// i is Events[Off[i]:Off[i+1]] with Slots[i] neighbour (or third-node)
// slots. Triangle tells the pass: triangle groups, else centres.
type Sequences struct {
	Triangle bool
	Off      []int64
	Slots    []int32
	Events   []Event
}

// Device runs the counting passes over Sequences (package gpu's CUDA
// kernels); its counters must equal CountSequences'.
type Device interface {
	CountSequences(ctx context.Context, s *Sequences, delta int64) (Raw, error)
}

// Options configure Count.
type Options struct {
	// Workers is the number of goroutines (at least 1).
	Workers int
	// Device, if set, runs the passes; the host then only builds their
	// inputs.
	Device Device
}

// CountSequences runs the passes over s on the CPU, sequence by sequence:
// the reference for a Device.
func CountSequences(s *Sequences, delta int64) Raw {
	var raw Raw
	var ns []nbrState
	var ts []triState
	for i := range len(s.Off) - 1 {
		ev := s.Events[s.Off[i]:s.Off[i+1]]
		if len(ev) < 3 {
			continue
		}
		n := int(s.Slots[i])
		if s.Triangle {
			ts = resize(ts, n)
			scanGroup(ev, ts, delta, &raw)
		} else {
			ns = resize(ns, n)
			scanCentre(ev, ns, delta, &raw)
		}
	}
	return raw
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Count returns the raw counters of the triples of the requested families
// in w, with window delta, whose last edge lies in req.Range and is not
// masked by req.RootMask. Totals do not depend on the worker count.
func Count(ctx context.Context, w *window.Window, delta int64, req motif.Request, fam Families, opts Options) (Raw, error) {
	var raw Raw
	if err := req.CheckRootMask(); err != nil {
		return raw, err
	}
	sc := scope{lo: req.Range.Lo, hi: min(req.Range.Hi, w.End()), mask: req.RootMask}
	if sc.hi <= max(sc.lo, w.First()) || w.Len() == 0 {
		return raw, nil
	}
	var nodes uint32
	for p := w.First(); p < sc.hi; p++ {
		nodes = max(nodes, w.Src(p)+1, w.Dst(p)+1)
	}
	c := &counter{w: w, sc: sc, delta: delta, nodes: int(nodes), workers: max(opts.Workers, 1), dev: opts.Device}
	if err := c.centres(ctx, fam); err != nil {
		return raw, err
	}
	if fam&Triangles != 0 {
		if err := c.triangles(ctx); err != nil {
			return raw, err
		}
	}
	for i := range c.raws {
		raw.Add(&c.raws[i].Raw)
	}
	return raw, nil
}

// paddedRaw keeps workers' counters on separate cache lines.
type paddedRaw struct {
	Raw
	_ [128]byte
}

type counter struct {
	w       *window.Window
	sc      scope
	delta   int64
	nodes   int
	workers int
	dev     Device
	raws    []paddedRaw

	// Static graph, for triangles: node v's distinct neighbours and their
	// edge counts at nbr[off[v] : off[v]+deg[v]].
	off  []int64
	deg  []int32
	nbr  []uint32
	mult []int32
}

// parallel runs fn over [0, n) in chunks claimed by the workers.
func (c *counter) parallel(ctx context.Context, n, chunk int, fn func(worker, lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for wk := range c.workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(int64(chunk))) - chunk
				if i >= n {
					return
				}
				fn(wk, i, min(i+chunk, n))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// heavyFirst runs fn(worker, i) for every i in [0, n): first, one at a
// time and heaviest first, the items whose weight is at least
// 1/(16·workers) of total (a hub's centre, which can hold a large share of
// all edge ends), so that no worker starts one of them late and finishes
// alone; then the rest in chunks.
func (c *counter) heavyFirst(ctx context.Context, n, chunk int, total int64, weight func(i int) int64, fn func(worker, i int)) error {
	limit := max(total/int64(16*c.workers), 1)
	var heavy []int
	for i := range n {
		if weight(i) >= limit {
			heavy = append(heavy, i)
		}
	}
	slices.SortFunc(heavy, func(a, b int) int { return cmp.Compare(weight(b), weight(a)) })
	err := c.parallel(ctx, len(heavy), 1, func(wk, lo, hi int) {
		for _, i := range heavy[lo:hi] {
			fn(wk, i)
		}
	})
	if err != nil {
		return err
	}
	return c.parallel(ctx, n, chunk, func(wk, lo, hi int) {
		for i := lo; i < hi; i++ {
			if weight(i) < limit {
				fn(wk, i)
			}
		}
	})
}

// degree is node v's incident edges in the window (its centre pass's cost).
func (c *counter) degree(v int) int64 {
	return int64(len(c.w.Out(uint32(v))) + len(c.w.In(uint32(v))))
}

// centres runs the centre pass (Stars) and, for Triangles, records each
// node's distinct neighbours.
func (c *counter) centres(ctx context.Context, fam Families) error {
	c.raws = make([]paddedRaw, c.workers)
	tri := fam&Triangles != 0
	if tri {
		c.off = make([]int64, c.nodes+1)
		for v := range c.nodes {
			c.off[v+1] = c.off[v] + int64(len(c.w.Out(uint32(v)))+len(c.w.In(uint32(v))))
		}
		c.deg = make([]int32, c.nodes)
		c.nbr = make([]uint32, c.off[c.nodes])
		c.mult = make([]int32, c.off[c.nodes])
	}
	stars := fam&Stars != 0
	var seqs *seqBuilder
	if c.dev != nil && stars {
		seqs = newSeqBuilder(c.nodes)
	}
	builders := make([]*centreBuilder, c.workers)
	states := make([][]nbrState, c.workers)
	err := c.heavyFirst(ctx, c.nodes, 256, 2*int64(c.w.Len()), c.degree, func(wk, v int) {
		b := builders[wk]
		if b == nil {
			b = newCentreBuilder(c.w, c.sc, c.nodes)
			builders[wk] = b
		}
		b.build(uint32(v))
		if tri {
			c.deg[v] = int32(len(b.nbrs))
			copy(c.nbr[c.off[v]:], b.nbrs)
			copy(c.mult[c.off[v]:], b.mult)
		}
		if !stars || len(b.ev) < 3 || !anyCounted(b.ev) {
			return
		}
		if seqs != nil {
			seqs.put(v, b.ev, len(b.nbrs))
			return
		}
		states[wk] = resize(states[wk], len(b.nbrs))
		scanCentre(b.ev, states[wk], c.delta, &c.raws[wk].Raw)
	})
	if err != nil || seqs == nil {
		return err
	}
	return c.onDevice(ctx, seqs.sequences(false))
}

func (c *counter) onDevice(ctx context.Context, s *Sequences) error {
	raw, err := c.dev.CountSequences(ctx, s, c.delta)
	if err != nil {
		return err
	}
	c.raws[0].Add(&raw)
	return nil
}

func anyCounted(ev []Event) bool {
	for i := range ev {
		if ev[i].Flags&fCounted != 0 {
			return true
		}
	}
	return false
}

// seqBuilder collects sequences for a device, each at the index of its
// centre or group so the layout does not depend on the worker schedule.
type seqBuilder struct {
	ev    [][]Event
	slots []int32
}

func newSeqBuilder(n int) *seqBuilder {
	return &seqBuilder{ev: make([][]Event, n), slots: make([]int32, n)}
}

func (s *seqBuilder) put(i int, ev []Event, slots int) {
	s.ev[i] = slices.Clone(ev) // distinct indices: no lock needed
	s.slots[i] = int32(slots)
}

// sequences lays the collected sequences out flat, longest first (ties by
// index), so that a device's neighbouring threads get similar lengths.
func (s *seqBuilder) sequences(triangle bool) *Sequences {
	var order []int
	total := 0
	for i, ev := range s.ev {
		if len(ev) > 0 {
			order = append(order, i)
			total += len(ev)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(s.ev[b]) - len(s.ev[a]) })
	out := &Sequences{Triangle: triangle, Off: make([]int64, 1, len(order)+1), Events: make([]Event, 0, total)}
	for _, i := range order {
		out.Events = append(out.Events, s.ev[i]...)
		out.Off = append(out.Off, int64(len(out.Events)))
		out.Slots = append(out.Slots, s.slots[i])
	}
	return out
}

// triangles lists the static triangles, assigns each to its pair with the
// most temporal edges (ties: the first of uv, uw, vw in listing order),
// and runs the triangle pass once per assigned pair.
func (c *counter) triangles(ctx context.Context) error {
	n := c.nodes
	before := func(u, v uint32) bool { // degree order, then id
		return c.deg[u] < c.deg[v] || c.deg[u] == c.deg[v] && u < v
	}
	// Forward adjacency F(u): neighbours after u in degree order. Pair id
	// = index into fnbr; its own end is u (the lower end).
	foff := make([]int64, n+1)
	for u := range n {
		k := int64(0)
		for _, v := range c.nbr[c.off[u] : c.off[u]+int64(c.deg[u])] {
			if before(uint32(u), v) {
				k++
			}
		}
		foff[u+1] = foff[u] + k
	}
	pairs := foff[n]
	if pairs > lightID {
		return fmt.Errorf("count3: %d node pairs exceed the triangle pass's %d-bit pair ids", pairs, bits.Len32(lightID))
	}
	fnbr := make([]uint32, pairs)
	fmult := make([]int32, pairs)
	poff := make([]int64, pairs+1)
	for u := range n {
		j := foff[u]
		for i := c.off[u]; i < c.off[u]+int64(c.deg[u]); i++ {
			if v := c.nbr[i]; before(uint32(u), v) {
				fnbr[j], fmult[j] = v, c.mult[i]
				poff[j+1] = int64(c.mult[i])
				j++
			}
		}
	}
	for j := range pairs {
		poff[j+1] += poff[j]
	}
	// Each pair's edges in position order, directions seen from its own end.
	pev := make([]Event, poff[pairs])
	builders := make([]*centreBuilder, c.workers)
	pidOf := make([][]int64, c.workers)
	err := c.heavyFirst(ctx, n, 256, 2*int64(c.w.Len()), c.degree, func(wk, u int) {
		b := builders[wk]
		if b == nil {
			b = newCentreBuilder(c.w, c.sc, n)
			builders[wk] = b
		}
		if foff[u] == foff[u+1] {
			return
		}
		b.build(uint32(u))
		pid := resize(pidOf[wk], len(b.nbrs))
		pidOf[wk] = pid
		for s := range pid {
			pid[s] = -1
		}
		for j := foff[u]; j < foff[u+1]; j++ {
			pid[b.slot[fnbr[j]]] = j
		}
		cur := pid // reused as the write cursor: slot -> next index
		for s, j := range pid {
			if j >= 0 {
				cur[s] = poff[j]
			}
		}
		for _, e := range b.ev {
			if i := cur[e.Local]; i >= 0 {
				pev[i] = Event{Pos: e.Pos, T: e.T, Flags: e.Flags & (fIn | fCounted)}
				cur[e.Local]++
			}
		}
	})
	if err != nil {
		return err
	}
	// List triangles u < v < w in degree order; emit (heavy pair, light
	// pairs), each light pair with its edges' flag changes (lightRef), in
	// fixed-size blocks: one growing slice per worker cost more copying
	// than the listing itself on the 10M-edge graph.
	type tri struct{ h, l1, l2 uint32 }
	const block = 1 << 15
	found := make([][][]tri, c.workers)
	put := func(wk int, t tri) {
		f := found[wk]
		if len(f) == 0 || len(f[len(f)-1]) == block {
			f = append(f, make([]tri, 0, block))
			found[wk] = f
		}
		f[len(f)-1] = append(f[len(f)-1], t)
	}
	marks := make([][]uint32, c.workers)
	markPid := make([][]uint32, c.workers)
	gens := make([]uint32, c.workers)
	err = c.parallel(ctx, n, 64, func(wk, lo, hi int) {
		if marks[wk] == nil {
			marks[wk], markPid[wk] = make([]uint32, n), make([]uint32, n)
		}
		mark, mpid := marks[wk], markPid[wk]
		for u := lo; u < hi; u++ {
			if foff[u+1]-foff[u] < 2 {
				continue
			}
			if gens[wk]++; gens[wk] == 0 {
				clear(mark)
				gens[wk] = 1
			}
			g := gens[wk]
			for j := foff[u]; j < foff[u+1]; j++ {
				mark[fnbr[j]], mpid[fnbr[j]] = g, uint32(j)
			}
			for j := foff[u]; j < foff[u+1]; j++ {
				v := fnbr[j]
				for j2 := foff[v]; j2 < foff[v+1]; j2++ {
					x := fnbr[j2]
					if mark[x] != g {
						continue
					}
					uv, uw, vw := uint32(j), mpid[x], uint32(j2)
					// Pair ends (own, other): uv (u, v), uw (u, x), vw (v, x).
					var t tri
					switch m1, m2, m3 := fmult[uv], fmult[uw], fmult[vw]; {
					case m1 >= m2 && m1 >= m3: // x–y = u–v
						t = tri{uv, lightRef(uw, 0, 0), lightRef(vw, 1, 0)}
					case m2 >= m3: // x–y = u–w
						t = tri{uw, lightRef(uv, 0, 0), lightRef(vw, 1, 1)}
					default: // x–y = v–w
						t = tri{vw, lightRef(uv, 0, 1), lightRef(uw, 1, 1)}
					}
					put(wk, t)
				}
			}
		}
	})
	if err != nil {
		return err
	}
	// Group by heavy pair (counting sort).
	goff := make([]int64, pairs+1)
	for _, f := range found {
		for _, b := range f {
			for _, t := range b {
				goff[t.h+1]++
			}
		}
	}
	for j := range pairs {
		goff[j+1] += goff[j]
	}
	light := make([][2]uint32, goff[pairs])
	fill := slices.Clone(goff[:pairs])
	for _, f := range found {
		for _, b := range f {
			for _, t := range b {
				light[fill[t.h]] = [2]uint32{t.l1, t.l2}
				fill[t.h]++
			}
		}
	}
	found = nil
	// A triple has its two non-pair edges on one third node, so a group
	// counts as the sum of pieces that each hold all the pair's edges and
	// some of its triangles: a group too heavy for one worker (a hub–hub
	// pair's) is cut into pieces that run first, one at a time.
	type piece struct{ h, lo, hi int64 }
	var pieces []piece
	limit := max(goff[pairs]/int64(16*c.workers), minPiece)
	for h := range pairs {
		if k := goff[h+1] - goff[h]; k > limit {
			size := max(minPiece, (k+int64(4*c.workers)-1)/int64(4*c.workers))
			for lo := goff[h]; lo < goff[h+1]; lo += size {
				pieces = append(pieces, piece{h, lo, min(lo+size, goff[h+1])})
			}
		}
	}
	var seqs *seqBuilder
	if c.dev != nil {
		seqs = newSeqBuilder(int(pairs) + len(pieces))
	}
	evs := make([][]Event, c.workers)
	tmps := make([][]Event, c.workers)
	states := make([][]triState, c.workers)
	// group counts pair h's triples over triangles ts (sequence index at
	// for a device).
	group := func(wk int, h int64, ts [][2]uint32, at int) {
		ev := evs[wk][:0]
		for _, e := range pev[poff[h]:poff[h+1]] {
			e.Flags |= fPair
			ev = append(ev, e)
		}
		uv := pev[poff[h]:poff[h+1]]
		for j, t := range ts {
			for _, ref := range t {
				l, change := ref&lightID, lightFlags(ref)
				// Only edges with a pair edge within δ can be in a
				// triangle triple (it holds one pair edge and spans
				// at most δ): the others are skipped by galloping
				// through both lists, never copied or sorted.
				le := pev[poff[l]:poff[l+1]]
				for i, k := 0, 0; k < len(le); {
					i = gallop(uv, i, le[k].T-c.delta)
					if i == len(uv) {
						break
					}
					if uv[i].T > le[k].T+c.delta {
						k = gallop(le, k, uv[i].T-c.delta)
						continue
					}
					e := le[k]
					e.Flags ^= change
					e.Local = int32(j)
					ev = append(ev, e)
					k++
				}
			}
		}
		evs[wk] = ev
		if len(ev) == len(uv) || !anyCounted(ev) {
			return
		}
		tmps[wk] = sortByPos(ev, tmps[wk])
		if seqs != nil {
			seqs.put(at, ev, len(ts))
			return
		}
		states[wk] = resize(states[wk], len(ts))
		scanGroup(ev, states[wk], c.delta, &c.raws[wk].Raw)
	}
	err = c.parallel(ctx, len(pieces), 1, func(wk, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := pieces[i]
			group(wk, p.h, light[p.lo:p.hi], int(pairs)+i)
		}
	})
	if err != nil {
		return err
	}
	err = c.parallel(ctx, int(pairs), 64, func(wk, lo, hi int) {
		for h := lo; h < hi; h++ {
			if k := goff[h+1] - goff[h]; k > 0 && k <= limit {
				group(wk, int64(h), light[goff[h]:goff[h+1]], h)
			}
		}
	})
	if err != nil || seqs == nil {
		return err
	}
	return c.onDevice(ctx, seqs.sequences(true))
}

// minPiece is the fewest triangles in a piece of a heavy pair's group
// (each piece copies, sorts and scans all the pair's edges again).
const minPiece = 1024

// A light pair of a triangle is referred to by its pair id with two flag
// bits on top, set at listing time where the triangle's three nodes are at
// hand (so the triangle pass reads no pair ends): side (the edge touches
// y, the heavy pair's other end, else x = its own end) and flip (the light
// pair's own end is not the end on the heavy pair, so fIn, seen from the
// light pair's own end, is reversed to be seen from that end). lightID
// masks the id and bounds the pair count.
const (
	lightSide = 1 << 31
	lightFlip = 1 << 30
	lightID   = lightFlip - 1
)

// lightRef packs light pair l with its side and flip bits (0 or 1).
func lightRef(l, side, flip uint32) uint32 { return l | side<<31 | flip<<30 }

// lightFlags is the XOR that turns a light pair's stored flags (fIn,
// fCounted) into the triangle pass's (fIn seen from its side, fSide).
func lightFlags(ref uint32) uint8 {
	return uint8(ref>>31)*fSide | uint8(ref>>30&1)*fIn
}

// sortByPos sorts ev in place by position (unique within a sequence): an
// LSD radix sort over the positions' span, which beats comparison sorts on
// the triangle pass's merged pair lists. tmp is scratch; the possibly
// grown scratch is returned for reuse.
func sortByPos(ev, tmp []Event) []Event {
	if len(ev) < 256 {
		slices.SortFunc(ev, func(a, b Event) int { return int(a.Pos - b.Pos) })
		return tmp
	}
	lo, hi := ev[0].Pos, ev[0].Pos
	for i := range ev {
		lo, hi = min(lo, ev[i].Pos), max(hi, ev[i].Pos)
	}
	digit := 8
	if len(ev) >= 4096 {
		digit = 11
	}
	mask := uint64(1)<<digit - 1
	tmp = slices.Grow(tmp[:0], len(ev))[:len(ev)]
	src, dst := ev, tmp
	var cnt [1 << 11]int
	for shift := 0; shift < bits.Len64(uint64(hi-lo)); shift += digit {
		c := cnt[:mask+1]
		clear(c)
		for i := range src {
			c[uint64(src[i].Pos-lo)>>shift&mask]++
		}
		sum := 0
		for d, n := range c {
			c[d] = sum
			sum += n
		}
		for i := range src {
			d := uint64(src[i].Pos-lo) >> shift & mask
			dst[c[d]] = src[i]
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ev[0] {
		copy(ev, src)
	}
	return tmp
}

// gallop returns the first index at or after from whose event has T >= t
// (len(ev) if none): exponential steps, then a binary search, so a short
// skip costs O(1) and a long one O(log).
func gallop(ev []Event, from int, t int64) int {
	if from >= len(ev) || ev[from].T >= t {
		return from
	}
	lo, step := from, 1 // ev[lo].T < t
	for lo+step < len(ev) && ev[lo+step].T < t {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(ev)) // ev[hi].T >= t or hi == len(ev)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if ev[m].T < t {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}
