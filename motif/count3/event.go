package count3

import "github.com/motifwatch/motifwatch/window"

// Event is one edge in a counting pass's sequence, in position order.
type Event struct {
	Pos int64
	T   int64
	// Local is the edge's neighbour slot.
	Local int32
	Flags uint8
}

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

func (b *centreBuilder) build(c uint32) {
	b.ev, b.nbrs, b.mult = b.ev[:0], b.nbrs[:0], b.mult[:0]
	if b.gen++; b.gen == 0 {
		clear(b.stamp)
		b.gen = 1
	}
	out, in := b.w.Out(c), b.w.In(c)
	i, j := 0, 0
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
		if pos >= b.sc.hi {
			return // both lists are in position order
		}
		if a.Other == c {
			continue
		}
		s := b.slot[a.Other]
		if b.stamp[a.Other] != b.gen {
			b.stamp[a.Other] = b.gen
			s = int32(len(b.nbrs))
			b.slot[a.Other] = s
			b.nbrs = append(b.nbrs, a.Other)
			b.mult = append(b.mult, 0)
		}
		b.mult[s]++
		if a.Other > c {
			fl |= fHigher
		}
		if b.sc.counted(pos) {
			fl |= fCounted
		}
		b.ev = append(b.ev, Event{Pos: pos, T: a.T, Local: s, Flags: fl})
	}
}
