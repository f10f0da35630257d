package count3

import (
	"fmt"

	"github.com/motifwatch/motifwatch/motif"
)

// Cell is a counted shape. Cells below Star4 are SNAP's grid: row*6 +
// column, both from 0 (M(i, j) is Cell((i-1)*6 + j-1)). From Star4 on are
// the four-node, three-edge stars: a centre with three distinct
// neighbours, Star4 + 4*d1 + 2*d2 + d3 where d is each edge's direction
// (0 = out of the centre).
type Cell int

const (
	// Star4 is the first four-node star cell.
	Star4 Cell = 36
	// Cells is the number of cells.
	Cells = 44
)

// String names the cell: snap-<i>-<j> as the library does, or
// star4-<dirs> with o (out of the centre) and i (into it).
func (c Cell) String() string {
	if c >= Star4 {
		d := int(c - Star4)
		return "star4-" + string("oi"[d>>2]) + string("oi"[d>>1&1]) + string("oi"[d&1])
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
// 36 shapes or a four-node star (under any naming of its nodes) with nothing that the
// counters do not model: no predicates or node labels, no anti-edges, and
// no per-hop limit tighter than Delta (a limit of at least Delta is
// implied by it).
func Shape(p *motif.Plan) (Cell, bool) {
	q := p.Query
	if len(q.Edges) != 3 || len(p.Preds) > 0 || len(p.Antis) > 0 || len(q.Nodes) < 2 || len(q.Nodes) > 4 {
		return -1, false
	}
	for i := 1; i < len(p.Hop); i++ {
		if p.Hop[i] != motif.NoLimit && p.Hop[i] < p.Delta {
			return -1, false
		}
	}
	s := shape3{nodes: len(q.Nodes)}
	for e := range 3 {
		s.edges[e] = [2]int{q.Edges[e].From, q.Edges[e].To}
	}
	c := classify(s)
	if s.nodes == 4 {
		c = star4(s)
	}
	return c, c >= 0
}
