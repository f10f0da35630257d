package count3

import (
	"fmt"
	"strings"

	"github.com/motifwatch/motifwatch/motif"
)

// Cell is a counted shape. Cells below Star4 are SNAP's grid: row*6 +
// column, both from 0 (M(i, j) is Cell((i-1)*6 + j-1)). The cells from
// Star4 on are the other shapes the centre pass counts (SmallCells):
//   - Star4 + 4*d1 + 2*d2 + d3: four-node, three-edge stars (a centre with
//     three distinct neighbours), d each edge's direction (0 = out of the
//     centre);
//   - Pair2 + d2: two-node, two-edge motifs, d2 the second edge's
//     direction against the first's (0 = the same way, 1 = a reply);
//   - Wedge + 2*d1 + d2: three-node, two-edge motifs (every connected
//     two-edge motif on three nodes is a centre with two distinct
//     neighbours), d as for Star4;
//   - Pair4 + 4*d2 + 2*d3 + d4: two-node, four-edge motifs, each d against
//     the first edge's direction;
//   - Path4 + 8*o + 4*b1 + 2*b2 + b3: four-node, three-edge paths a–b–c–d
//     (the path pass, paths.go), read from the end whose edge comes first
//     in time: o is the temporal ranks of the edges in reading order (0:
//     1 2 3, 1: 2 1 3; two orders more are these read from the other end,
//     and the last two, 1 3 2 and 2 3 1, are no motif: their second edge
//     touches no node of the first), b each edge's direction against the
//     reading (0 = forward: a→b, b→c, c→d);
//   - Cycle4 + i and Paw + i: the four-node, four-edge cycles and paws
//     (triangles with a tail), motif.Cycle4Names()[i] and
//     motif.PawNames()[i] (four.go).
type Cell int

const (
	// Star4 is the first four-node star cell.
	Star4 Cell = 36
	// Pair2 is the first two-node, two-edge cell.
	Pair2 Cell = 44
	// Wedge is the first three-node, two-edge cell.
	Wedge Cell = 46
	// Pair4 is the first two-node, four-edge cell.
	Pair4 Cell = 50
	// Path4 is the first four-node path cell.
	Path4 Cell = 58
	// Cycle4 is the first four-node, four-edge cycle cell (four.go).
	Cycle4 Cell = 74
	// Paw is the first paw cell: a triangle with a tail (four.go).
	Paw Cell = 106
	// Cells is the number of cells.
	Cells = 266
)

// path4Ranks are the Path4 cells' temporal orders, by o: the ranks of
// the path's edges in reading order.
var path4Ranks = [2]string{"123", "213"}

// String names the cell: snap-<i>-<j> and path4-<ranks>-<dirs> as the
// library does (motif.Builtin), or the family and its edges' directions,
// o and i: out of and into the centre for star4 and wedge, the same way
// as and against the first edge for pair2 and pair4 (whose first edge is
// o). A path's ranks are its edges' temporal ranks in reading order and
// its dirs f or b for each edge along or against the reading.
func (c Cell) String() string {
	dirs := func(d, n int) string {
		b := make([]byte, n)
		for i := range n {
			b[i] = "oi"[d>>(n-1-i)&1]
		}
		return string(b)
	}
	switch {
	case c >= Paw:
		return pawNames[c-Paw]
	case c >= Cycle4:
		return cycle4Names[c-Cycle4]
	case c >= Path4:
		i := int(c - Path4)
		return "path4-" + path4Ranks[i>>3] + "-" + strings.NewReplacer("o", "f", "i", "b").Replace(dirs(i&7, 3))
	case c >= Pair4:
		return "pair4-" + dirs(int(c-Pair4), 4)
	case c >= Wedge:
		return "wedge-" + dirs(int(c-Wedge), 2)
	case c >= Pair2:
		return "pair2-" + dirs(int(c-Pair2), 2)
	case c >= Star4:
		return "star4-" + dirs(int(c-Star4), 3)
	}
	return fmt.Sprintf("snap-%d-%d", int(c)/6+1, int(c)%6+1)
}

// Grid holds the 36 counts in SNAP's layout: Grid[i][j] is M(i+1, j+1).
type Grid [6][6]int64

// At returns the count of cell c.
func (g *Grid) At(c Cell) int64 { return g[c/6][c%6] }

// Total is the sum of every cell.
func (g *Grid) Total() int64 {
	var s int64
	for i := range g {
		for _, v := range g[i] {
			s += v
		}
	}
	return s
}

// shape3 is a three-edge motif as node-index pairs, edges in temporal order.
type shape3 struct {
	edges [3][2]int
	nodes int
}

// snapShapes are motif.SNAPGrid's 36 motifs as shapes, by cell.
var snapShapes = func() [36]shape3 {
	var s [36]shape3
	g := motif.SNAPGrid()
	for i := range 6 {
		for j := range 6 {
			q := g[i][j]
			for e := range 3 {
				s[i*6+j].edges[e] = [2]int{q.Edges[e].From, q.Edges[e].To}
			}
			s[i*6+j].nodes = len(q.Nodes)
		}
	}
	return s
}()

// classify returns the SNAP cell isomorphic to s (same edge order and
// directions under some bijection of nodes), or -1.
func classify(s shape3) Cell {
	if s.nodes < 2 || s.nodes > 3 {
		return -1
	}
	perms := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for c, t := range snapShapes {
		if t.nodes != s.nodes {
			continue
		}
	perm:
		for _, p := range perms {
			if s.nodes == 2 && (p[0] > 1 || p[1] > 1) {
				continue
			}
			for e := range 3 {
				if p[s.edges[e][0]] != t.edges[e][0] || p[s.edges[e][1]] != t.edges[e][1] {
					continue perm
				}
			}
			return Cell(c)
		}
	}
	return -1
}

// star4 returns the four-node star cell of s, or -1: one node on all
// three edges, each other node on one.
func star4(s shape3) Cell {
	for c := range 4 {
		cell, ok := Star4, true
		seen := map[int]bool{}
		for e, ed := range s.edges {
			switch {
			case ed[0] == c && !seen[ed[1]]:
				seen[ed[1]] = true
			case ed[1] == c && !seen[ed[0]]:
				seen[ed[0]] = true
				cell += Cell(1 << (2 - e))
			default:
				ok = false
			}
		}
		if ok {
			return cell
		}
	}
	return -1
}

// Shape returns the cell whose count is p's count, when p is one of SNAP's
// 36 shapes or another counted shape (Cell: four-node stars, paths,
// cycles and paws, the two-edge and the two-node four-edge motifs), under any naming of its
// nodes, with nothing that the counters do not model: no predicates or
// node labels, no anti-edges, and no per-hop limit tighter than Delta (a
// limit of at least Delta is implied by it) — except on a two-edge
// motif, whose one hop is its whole span.
//
// The cell is counted with the window Delta(p).
func Shape(p *motif.Plan) (Cell, bool) {
	q := p.Query
	k := len(q.Edges)
	if k < 2 || k > 4 || len(p.Preds) > 0 || len(p.Antis) > 0 || len(q.Nodes) < 2 || len(q.Nodes) > 4 {
		return -1, false
	}
	for i := 1; i < len(p.Hop) && k > 2; i++ {
		if p.Hop[i] != motif.NoLimit && p.Hop[i] < p.Delta {
			return -1, false
		}
	}
	for _, e := range q.Edges {
		if e.From == e.To {
			return -1, false
		}
	}
	var c Cell = -1
	switch k {
	case 2:
		c = twoEdges(q)
	case 3:
		s := shape3{nodes: len(q.Nodes)}
		for e := range 3 {
			s.edges[e] = [2]int{q.Edges[e].From, q.Edges[e].To}
		}
		c = classify(s)
		if s.nodes == 4 {
			c = star4(s)
			if c < 0 {
				c = path4(s)
			}
		}
	case 4:
		c = pair4(q)
		if c < 0 {
			c = fourEdges(q)
		}
	}
	return c, c >= 0
}

// path4 returns the Path4 cell of s, or -1: four nodes on a path a–b–c–d
// (two nodes on one edge, two on two; three distinct node pairs).
func path4(s shape3) Cell {
	if s.nodes != 4 {
		return -1
	}
	var deg [4]int
	for _, e := range s.edges {
		if e[0] < 0 || e[0] > 3 || e[1] < 0 || e[1] > 3 || e[0] == e[1] {
			return -1
		}
		deg[e[0]]++
		deg[e[1]]++
	}
	var ends, inner int
	for _, d := range deg {
		ends += b2ii(d == 1)
		inner += b2ii(d == 2)
	}
	if ends != 2 || inner != 2 {
		return -1
	}
	mid := -1
	for i, e := range s.edges {
		if deg[e[0]] == 2 && deg[e[1]] == 2 {
			mid = i
		}
	}
	if mid < 0 {
		return -1
	}
	b, c := s.edges[mid][0], s.edges[mid][1]
	on := func(e [2]int, v int) bool { return e[0] == v || e[1] == v }
	l, r := -1, -1
	for i, e := range s.edges {
		if i != mid && on(e, b) {
			l = i
		}
		if i != mid && on(e, c) {
			r = i
		}
	}
	if l < 0 || r < 0 || l == r { // a parallel edge to the middle one: not connected
		return -1
	}
	if r < l { // read from the end whose edge comes first
		l, r, b, c = r, l, c, b
	}
	var o int
	switch {
	case l == 0 && mid == 1:
		o = 0
	case mid == 0:
		o = 1
	default: // the end edges first: the second touches no node of the first
		return -1
	}
	back := 4*b2ii(s.edges[l][1] != b) + 2*b2ii(s.edges[mid][0] != b) + b2ii(s.edges[r][0] != c)
	return Path4 + Cell(8*o+back)
}

func b2ii(b bool) int {
	if b {
		return 1
	}
	return 0
}

// twoEdges returns the Pair2 or Wedge cell of a two-edge query, or -1.
func twoEdges(q *motif.Query) Cell {
	a, b := q.Edges[0], q.Edges[1]
	switch len(q.Nodes) {
	case 2: // both edges join nodes 0 and 1 (no self-loops)
		return Pair2 + Cell(b2i(b.From != a.From))
	case 3:
		for _, c := range [2]int{a.From, a.To} {
			if (b.From == c) != (b.To == c) { // c is on both edges, once
				other := b.To
				if b.To == c {
					other = b.From
				}
				if other == a.From || other == a.To {
					return -1
				}
				return Wedge + Cell(2*b2i(a.To == c)+b2i(b.To == c))
			}
		}
	}
	return -1
}

// pair4 returns the Pair4 cell of a four-edge query on two nodes, or -1.
func pair4(q *motif.Query) Cell {
	if len(q.Nodes) != 2 {
		return -1
	}
	first := q.Edges[0].From
	c := Pair4
	for i, e := range q.Edges[1:] {
		c += Cell(b2i(e.From != first) << (2 - i))
	}
	return c
}

// Delta returns the motif window that p's cell is counted with: p.Delta,
// or on a two-edge plan the tighter of it and the plan's hop limit (the
// one hop is the motif's whole span).
func Delta(p *motif.Plan) int64 {
	if len(p.Query.Edges) == 2 && p.Hop[1] != motif.NoLimit {
		return min(p.Delta, p.Hop[1])
	}
	return p.Delta
}
