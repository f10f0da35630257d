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
//	[160, 176) four-node paths a–s–t–d around their middle edge s→t:
//	           160 + 4*o + 2*dl + dr, where o is the temporal order of
//	           the left edge L (on s), the middle M and the right edge R
//	           (on t) — 0 L M R, 1 R M L, 2 M L R, 3 M R L (L R M and
//	           R L M are no motif: R touches no node of L) — and dl, dr
//	           L's and R's directions (0 = out of s, of t)
//	[176, 1328) four-node paws around a static triangle (pawShape): 48
//	           triangle patterns × tail corner × tail direction × tail
//	           rank; the orders that are no motif map to no cell
//	[1328, 1712) four-node cycles (cycleShape): side order × directions;
//	           the orders whose second edge misses the first map to no
//	           cell
//
// The layout of [0, 136) is shared with kernels/count3.cu; the counters
// after it (the Small family, the paths) are counted on the host only.
type Raw [RawLen]int64

// RawLen is the number of raw counters.
const RawLen = 1712

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
	rawPath  = 160
	rawPaw   = 176
	rawCycle = 1328
)

// pathOrders are the temporal orders o of the path counters, as the
// edges L, M, R (0, 1, 2) in time order.
var pathOrders = [4][3]int{{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {1, 2, 0}}

// pathShape is path counter i's shape: a=0, s=1, t=2, d=3.
func pathShape(i int) shape3 {
	o, dl, dr := i>>2, i>>1&1, i&1
	lmr := [3][2]int{{1, 0}, {1, 2}, {2, 3}}
	if dl == 1 {
		lmr[0] = [2]int{0, 1}
	}
	if dr == 1 {
		lmr[2] = [2]int{3, 2}
	}
	s := shape3{nodes: 4}
	for k, e := range pathOrders[o] {
		s.edges[k] = lmr[e]
	}
	return s
}

// triShape is triangle counter i's shape (X=0, Y=1, W=2), or false for
// the slots whose two other edges touch the same node of the pair.
func triShape(i int) (shape3, bool) {
	i -= rawTri
	p, d, l1, l2 := i>>5, i>>4&1, i>>2&3, i&3
	if l1>>1 == l2>>1 {
		return shape3{}, false
	}
	dir := func(d, a, b int) [2]int {
		if d == 0 {
			return [2]int{a, b}
		}
		return [2]int{b, a}
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
	return s, true
}

// triPaths maps each triangle counter to the path counters (up to three,
// -1 for none) that count its triples too: the path pass joins an edge at s to one at t
// without asking whether their far ends differ, so a triangle u, s, t
// with edges on u–s and t–u counts once around each of its three edges
// (the far ends coincide). Count takes the triangle pass's counts off the
// path counters through this table.
var triPaths = func() [rawStar4 - rawTri][3]int {
	var m [rawStar4 - rawTri][3]int
	for i := range m {
		s, ok := triShape(rawTri + i)
		if !ok {
			m[i] = [3]int{-1, -1, -1}
			continue
		}
		for k := range 3 { // edge k is the middle edge s→t
			m[i][k] = -1 // M last: no path counter
			src, dst := s.edges[k][0], s.edges[k][1]
			var pos [3]int // time ranks of L, M, R
			dl, dr := 0, 0
			pos[1] = k
			for j, e := range s.edges {
				switch {
				case j == k:
				case e[0] == src || e[1] == src:
					pos[0], dl = j, b2ii(e[1] == src)
				default:
					pos[2], dr = j, b2ii(e[1] == dst)
				}
			}
			for o, ord := range pathOrders {
				if pos[ord[0]] < pos[ord[1]] && pos[ord[1]] < pos[ord[2]] {
					m[i][k] = rawPath + 4*o + 2*dl + dr
				}
			}
		}
	}
	return m
}()

// dropTriangles takes the triangle counters' triples off the path
// counters (triPaths).
func (r *Raw) dropTriangles() {
	for i, ps := range triPaths {
		for _, p := range ps {
			if p >= 0 {
				r[p] -= r[rawTri+i]
			}
		}
	}
}

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
	for i := rawTri; i < rawStar4; i++ {
		m[i] = -1
		if s, ok := triShape(i); ok {
			m[i] = classify(s)
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
	for i := range rawPaw - rawPath {
		m[rawPath+i] = path4(pathShape(i))
	}
	four := func(es [4][2]int) Cell {
		if c, ok := fourCells[fourKey(es)]; ok {
			return c
		}
		return -1
	}
	for i := range rawCycle - rawPaw {
		m[rawPaw+i] = four(pawShape(i))
	}
	for i := range RawLen - rawCycle {
		m[rawCycle+i] = four(cycleShape(i))
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
