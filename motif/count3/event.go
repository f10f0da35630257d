package count3

import (
	"cmp"
	"slices"

	"github.com/motifwatch/motifwatch/window"
)

// Event is one edge in a counting pass's sequence, in position order.
type Event struct {
	Pos int64
	T   int64
	// Local is the edge's neighbour slot.
	Local int32
	Flags uint8
}

// apart reports u − t > δ for times t ≤ u and δ ≥ 0 (Count returns before
// any pass for a negative δ): whether an earlier edge at t is out of the δ
// window of a later one at u. u − t taken unsigned is the exact difference
// of any two int64 times, where the signed one wraps past 2^63 − 1, and
// it costs what the test t < u − δ did; the saturated bound
// motif.SubTicks(u, δ) gives the same answer but cost the centre pass 5%
// more instructions (its per-edge window test). Bounds that a pass
// searches for are saturated with motif.AddTicks and SubTicks instead.
// kernels/count3.cu has the same test (apart).
func apart(t, u, delta int64) bool { return uint64(u-t) > uint64(delta) }

// Event flags, shared with kernels/count3.cu.
const (
	// fIn: into the centre (centre pass), into the pair's own end (a
	// pairEdge).
	fIn uint8 = 1
	// fCounted: the edge may end a triple (in the range, not masked).
	fCounted uint8 = 2
	// fHigher (centre pass): the neighbour's id is above the centre's, so
	// this centre counts the pair's two-node triples.
	fHigher uint8 = 4
)

// scope is the part of a request the passes need: the last edge of a
// counted triple lies in [lo, hi) and is not masked; edges at or after hi
// can be in no such triple and are left out.
type scope struct {
	lo, hi int64
	mask   []bool
}

func (s *scope) counted(p int64) bool {
	return p >= s.lo && (s.mask == nil || s.mask[p-s.lo])
}

// centreBuilder gathers a centre's incident edges (self-loops dropped) in
// position order, numbering its distinct neighbours in order of first
// appearance. One per worker.
type centreBuilder struct {
	w     *window.Window
	sc    scope
	stamp []uint32 // stamp[v] == gen: v has a slot for the current centre
	slot  []int32
	gen   uint32
	ev    []Event
	nbrs  []uint32 // neighbour of each slot
	mult  []int32  // edges per slot
}

func newCentreBuilder(w *window.Window, sc scope, nodes int) *centreBuilder {
	return &centreBuilder{w: w, sc: sc, stamp: make([]uint32, nodes), slot: make([]int32, nodes)}
}

// build gathers all of centre c's edges before the scope's end.
func (b *centreBuilder) build(c uint32) {
	b.buildRange(c, centreRange{from: b.w.First(), to: b.sc.hi, count: b.w.First()})
}

// centreRange is a piece of a centre's sequence: its edges at positions
// [from, to), of which those before count are only warm-up (never
// counted: they fill the δ window for the first counted edges).
type centreRange struct{ from, to, count int64 }

// buildRange is build restricted to r.
func (b *centreBuilder) buildRange(c uint32, r centreRange) {
	b.reset()
	out, in := b.w.Out(c), b.w.In(c)
	i, j := b.firstAt(out, r.from), b.firstAt(in, r.from)
	to := min(r.to, b.sc.hi)
	for {
		var a window.Adj
		var fl uint8
		switch {
		case i < len(out) && (j >= len(in) || out[i].Rel < in[j].Rel): // one base: Rel orders as positions
			a = out[i]
			i++
		case j < len(in):
			a = in[j]
			j++
			fl = fIn
		default:
			return
		}
		pos := b.w.Pos(a)
		if pos >= to {
			return // both lists are in position order
		}
		if a.Other == c {
			continue
		}
		s := b.add(a.Other)
		if a.Other > c {
			fl |= fHigher
		}
		if pos >= r.count && b.sc.counted(pos) {
			fl |= fCounted
		}
		b.ev = append(b.ev, Event{Pos: pos, T: a.T, Local: s, Flags: fl})
	}
}

// firstAt returns the index of l's first edge at or after position p.
func (b *centreBuilder) firstAt(l []window.Adj, p int64) int {
	i, _ := slices.BinarySearchFunc(l, p, func(a window.Adj, p int64) int { return cmp.Compare(b.w.Pos(a), p) })
	return i
}

func (b *centreBuilder) reset() {
	b.ev, b.nbrs, b.mult = b.ev[:0], b.nbrs[:0], b.mult[:0]
	if b.gen++; b.gen == 0 {
		clear(b.stamp)
		b.gen = 1
	}
}

// markSet starts a new, empty set of marked nodes on the builder's
// per-node arrays (the triangle listing's F(u), each node with its pair
// id), so that a worker keeps one pair of node-sized arrays for all its
// passes: at 16 workers and 1.25 M nodes each pair is 10 MB.
func (b *centreBuilder) markSet() { b.reset() }

// mark adds v to the set with value x.
func (b *centreBuilder) mark(v, x uint32) { b.stamp[v], b.slot[v] = b.gen, int32(x) }

// marked returns v's value and whether v is in the set.
func (b *centreBuilder) marked(v uint32) (uint32, bool) {
	return uint32(b.slot[v]), b.stamp[v] == b.gen
}

// add counts an edge to neighbour v and returns v's slot.
func (b *centreBuilder) add(v uint32) int32 {
	s := b.slot[v]
	if b.stamp[v] != b.gen {
		b.stamp[v] = b.gen
		s = int32(len(b.nbrs))
		b.slot[v] = s
		b.nbrs = append(b.nbrs, v)
		b.mult = append(b.mult, 0)
	}
	b.mult[s]++
	return s
}

// neighbours is build without the events: centre c's distinct neighbours
// and their edge counts (slots in order of first appearance in each of
// the out and in lists, not by position: the static graph needs no
// order), for a triangle pass that runs without the centre pass.
func (b *centreBuilder) neighbours(c uint32) {
	b.reset()
	for _, l := range [2][]window.Adj{b.w.Out(c), b.w.In(c)} {
		for _, a := range l {
			if b.w.Pos(a) >= b.sc.hi {
				break // the list is in position order
			}
			if a.Other != c {
				b.add(a.Other)
			}
		}
	}
}
