package count3

// Raw holds the counting passes' counters before they are mapped onto
// SNAP's grid. Directions are bits: for stars and pairs 0 = out of the
// centre (or of the pair's lower-id node), 1 = into it; a triple's
// directions d1 d2 d3 index 4*d1 + 2*d2 + d3.
//
//	[0, 8)     two-node triples of a pair, oriented from its lower id
//	[8, 16)    stars x-x-y: the odd neighbour is on the last edge
//	[16, 24)   stars x-y-x: the odd neighbour is on the middle edge
//	[24, 32)   stars y-x-x: the odd neighbour is on the first edge
//	[32, 128)  triangles around their heaviest side (x, y) and third node
//	           w: 32 + 32*p + 16*d + 4*l1 + l2, where p is the position of
//	           the x–y edge in the triple (0 first, 2 last), d its
//	           direction (0 = x→y), and l1, l2 the labels of the first and
//	           second of the other two edges: 2*side + dir, side 0 = the
//	           edge touches x, 1 = it touches y, dir 0 = from x (or y) to w.
//	[128, 136) four-node stars: three distinct neighbours of the centre
//	           (beyond SNAP's grid; cells Star4 + 4*d1 + 2*d2 + d3)
//	[136, 140) two-node pairs of edges, oriented from the lower id: 2*d1 + d2
//	[140, 144) wedges: a centre's pairs of edges on distinct neighbours
//	[144, 160) two-node four-edge sequences, oriented from the lower id:
//	           8*d1 + 4*d2 + 2*d3 + d4
//
// The layout of [0, 136) is shared with kernels/count3.cu; the counters
// after it (the Small family) are counted on the host only.
type Raw [RawLen]int64

// RawLen is the number of raw counters.
const RawLen = 160

const (
	rawPair  = 0
	rawPre   = 8
	rawMid   = 16
	rawPost  = 24
	rawTri   = 32
	rawStar4 = 128
	rawPair2 = 136
	rawWedge = 140
	rawPair4 = 144
)

// Add accumulates r2 into r.
func (r *Raw) Add(r2 *Raw) {
	for i := range r {
		r[i] += r2[i]
	}
}

// rawCell maps each raw counter to the grid cell it adds to, or -1 for
// the triangle slots whose two other edges touch the same node of the
// pair (stars, never counted there). Each cell of the two-node family
// receives two counters: the pattern read from either end of the pair.
var rawCell = func() [RawLen]Cell {
	var m [RawLen]Cell
	dir := func(d, a, b int) [2]int {
		if d == 0 {
			return [2]int{a, b}
		}
		return [2]int{b, a}
	}
	for i := range 8 {
		d := [3]int{i >> 2, (i >> 1) & 1, i & 1}
		// Two nodes: U=0, V=1.
		var s shape3
		s.nodes = 2
		for e := range 3 {
			s.edges[e] = dir(d[e], 0, 1)
		}
		m[rawPair+i] = classify(s)
		// Stars: centre C=0, paired neighbour X=1, odd neighbour Y=2.
		for f, odd := range [3]int{2, 1, 0} {
			s = shape3{nodes: 3}
			for e := range 3 {
				nbr := 1
				if e == odd {
					nbr = 2
				}
				s.edges[e] = dir(d[e], 0, nbr)
			}
			m[rawPre+8*f+i] = classify(s)
		}
	}
	// Triangles: X=0, Y=1, W=2.
	for p := range 3 {
		for d := range 2 {
			for l1 := range 4 {
				for l2 := range 4 {
					idx := rawTri + 32*p + 16*d + 4*l1 + l2
					if l1>>1 == l2>>1 {
						m[idx] = -1
						continue
					}
					s := shape3{nodes: 3}
					others := [2]int{l1, l2}
					o := 0
					for e := range 3 {
						if e == p {
							s.edges[e] = dir(d, 0, 1)
							continue
						}
						l := others[o]
						o++
						s.edges[e] = dir(l&1, l>>1, 2)
					}
					m[idx] = classify(s)
				}
			}
		}
	}
	for i := range 8 {
		m[rawStar4+i] = Star4 + Cell(i)
	}
	// Two-node cells count a sequence read from either end of the pair:
	// the cell is the directions against the first edge's.
	for i := range 4 {
		m[rawPair2+i] = Pair2 + Cell(i>>1^i&1)
		m[rawWedge+i] = Wedge + Cell(i)
	}
	for i := range 16 {
		d1 := i >> 3
		m[rawPair4+i] = Pair4 + Cell((i>>2&1^d1)<<2|(i>>1&1^d1)<<1|(i&1^d1))
	}
	return m
}()

// Cells returns the count of every cell, SNAP's 36 and the others.
func (r *Raw) Cells() [Cells]int64 {
	var c [Cells]int64
	for i, v := range r {
		if rc := rawCell[i]; rc >= 0 {
			c[rc] += v
		}
	}
	return c
}

// Grid maps the raw counters onto SNAP's grid.
func (r *Raw) Grid() Grid {
	var g Grid
	for i, v := range r {
		if c := rawCell[i]; c >= 0 && c < Star4 {
			g[c/6][c%6] += v
		}
	}
	return g
}
