package count3

import (
	"context"

	"github.com/motifwatch/motifwatch/motif"
)

// The four-node, four-edge cells: the 32 temporal four-cycles (Cycle4 +
// i, motif.Cycle4Names()[i]) and the 160 temporal paws (Paw + i,
// motif.PawNames()[i]). Their counters (cycle4.go, paw.go) are indexed
// by labelled patterns (rawCycle, rawPaw); the map from pattern to cell is
// derived at start-up, like SNAP's grid, by testing each pattern's shape
// for isomorphism against the library's motifs (fourKey), and the same
// test recognises a query's shape (Shape).

var (
	cycle4Names = motif.Cycle4Names()
	pawNames    = motif.PawNames()
)

// fourKey is a canonical key of a four-edge sequence on nodes 0..3 under
// renaming: nodes renumbered in order of first appearance (edges are in
// temporal order, so two sequences are isomorphic iff their keys are
// equal), two bits per endpoint.
func fourKey(edges [4][2]int) uint16 {
	rename := [4]int{-1, -1, -1, -1}
	next := 0
	var k uint16
	for _, e := range edges {
		for _, v := range e {
			if v < 0 || v > 3 {
				return 0xffff
			}
			if rename[v] < 0 {
				rename[v] = next
				next++
			}
			k = k<<2 | uint16(rename[v])
		}
	}
	return k
}

// fourCells maps each fourKey of a cycle4 or paw motif to its cell.
var fourCells = func() map[uint16]Cell {
	m := make(map[uint16]Cell, len(cycle4Names)+len(pawNames))
	add := func(first Cell, names []string) {
		for i, name := range names {
			q, err := motif.Builtin(name)
			if err != nil {
				panic(err) // the library lists it
			}
			var es [4][2]int
			for e := range 4 {
				es[e] = [2]int{q.Edges[e].From, q.Edges[e].To}
			}
			m[fourKey(es)] = first + Cell(i)
		}
	}
	add(Cycle4, cycle4Names)
	add(Paw, pawNames)
	return m
}()

// fourEdges returns the cycle4 or paw cell of a four-edge query on four
// nodes, or -1.
func fourEdges(q *motif.Query) Cell {
	if len(q.Nodes) != 4 || len(q.Edges) != 4 {
		return -1
	}
	var es [4][2]int
	for e := range 4 {
		es[e] = [2]int{q.Edges[e].From, q.Edges[e].To}
	}
	if c, ok := fourCells[fourKey(es)]; ok {
		return c
	}
	return -1
}

// sideEdge is side s of a cycle of n nodes (n_s – n_{s+1}) in direction d
// (0: n_s → n_{s+1}).
func sideEdge(s, d, n int) [2]int {
	a, b := s, (s+1)%n
	if d == 1 {
		a, b = b, a
	}
	return [2]int{a, b}
}

// perms4 are the orders of four sides (perms4[p][i]: the side at temporal
// rank i), perms3 of three.
var (
	perms4 = func() [][4]int {
		var ps [][4]int
		for a := range 4 {
			for b := range 4 {
				for c := range 4 {
					if a != b && a != c && b != c {
						ps = append(ps, [4]int{a, b, c, 6 - a - b - c})
					}
				}
			}
		}
		return ps
	}()
	perms3 = [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
)

// cycleShape is cycle counter i's shape: a static four-cycle n0–n1–n2–n3,
// its sides in the order perms4[i/16], the edge at rank r in direction
// bit 3−r of i%16.
func cycleShape(i int) [4][2]int {
	var es [4][2]int
	for r, s := range perms4[i/16] {
		es[r] = sideEdge(s, i>>(3-r)&1, 4)
	}
	return es
}

// pawShape is paw counter i's shape: a static triangle n0, n1, n2 whose
// sides (side s: n_s – n_{s+1 mod 3}) come in the order perms3[pat/8],
// edge j of the three in direction bit 2−j of pat%8, with a tail from
// corner k to n3 in direction dt (0: out of the corner) at temporal rank
// r; i = ((pat*3+k)*2+dt)*4 + r.
func pawShape(i int) [4][2]int {
	r, dt, k, pat := i&3, i>>2&1, i>>3%3, i/24
	tail := [2]int{k, 3}
	if dt == 1 {
		tail = [2]int{3, k}
	}
	var es [4][2]int
	j := 0
	for at := range 4 {
		if at == r {
			es[at] = tail
			continue
		}
		es[at] = sideEdge(perms3[pat/8][j], pat>>(2-j)&1, 3)
		j++
	}
	return es
}

// fourEdges runs the four-node, four-edge passes of fam (Cycles4,
// Paws) over the static pairs, after the centre pass has recorded each
// node's neighbours.
func (c *counter) fourEdgePasses(ctx context.Context, fam Families) error {
	sp, err := c.staticPairs(ctx)
	c.ph.mark("static-pairs")
	if err != nil {
		return err
	}
	if fam&Paws != 0 {
		sq, err := c.tailSeqs(ctx, sp)
		if err != nil {
			return err
		}
		if err := c.paws(ctx, sp, sq); err != nil {
			return err
		}
		c.ph.mark("paws")
	}
	if fam&Cycles4 != 0 {
		if err := c.cycles(ctx, sp); err != nil {
			return err
		}
		c.ph.mark("cycles")
	}
	return nil
}

// Grid4 lists the four-node cells of three and four edges: the stars,
// the paths, the cycles and the paws (`monitor mine --grid4`).
func Grid4() []Cell {
	var cs []Cell
	for c := Star4; c < Star4+8; c++ {
		cs = append(cs, c)
	}
	for c := Path4; c < Cells; c++ {
		cs = append(cs, c)
	}
	return cs
}

// CellQuery returns a query of cell c's shape named c.String(), with no
// window: a four-node star has centre c and leaves x, y, z; the other
// four-node cells are the library's motifs (motif.Builtin). False for
// the cells of fewer nodes.
func CellQuery(c Cell) (*motif.Query, bool) {
	switch {
	case c >= Path4 && c < Cells:
		q, err := motif.Builtin(c.String())
		return q, err == nil
	case c >= Star4 && c < Star4+8:
		d := int(c - Star4)
		q := &motif.Query{Name: c.String(), Description: "four-node temporal star " + c.String() + " (o: out of the centre c, i: into it)",
			Nodes: []motif.Node{{Name: "c"}, {Name: "x"}, {Name: "y"}, {Name: "z"}}}
		for e := range 3 {
			edge := motif.Edge{From: 0, To: e + 1}
			if d>>(2-e)&1 == 1 {
				edge.From, edge.To = e+1, 0
			}
			q.Edges = append(q.Edges, edge)
		}
		return q, true
	}
	return nil, false
}
