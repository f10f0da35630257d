package count3

import (
	"testing"

	"github.com/motifwatch/motifwatch/motif"
)

// Every raw counter lands in a cell of its own family, and every cell
// gets the expected number of counters: 2 per two-node cell (both
// orientations of a pair), 1 per star cell, 6 per triangle cell (48
// assignable triangle patterns over 8 cells).
func TestRawCellCoverage(t *testing.T) {
	per := map[Cell]int{}
	for i, c := range rawCell {
		if c < 0 {
			if i < rawTri {
				t.Fatalf("raw %d (not a triangle slot) maps to no cell", i)
			}
			continue
		}
		per[c]++
		if c >= Star4 {
			if i < rawStar4 {
				t.Errorf("raw %d maps to four-node star %v", i, c)
			}
			continue
		}
		nodes := snapShapes[c].nodes
		switch {
		case i < rawPre && nodes != 2, i >= rawPre && nodes != 3:
			t.Errorf("raw %d maps to %v with %d nodes", i, c, nodes)
		}
	}
	want := map[int]int{2: 0, 1: 0, 6: 0}
	for c := range Cell(Cells) {
		want[per[c]]++
	}
	if want[2] != 4 || want[1] != 32 || want[6] != 8 || len(want) != 3 {
		t.Errorf("counters per cell: %v; want 4 cells with 2, 32 with 1, 8 with 6", want)
	}
}

// Each SNAP motif is recognised as its own cell, under any renaming of
// its nodes, and shapes the counters cannot honour are refused.
func TestShape(t *testing.T) {
	g := motif.SNAPGrid()
	for i := range 6 {
		for j := range 6 {
			q := g[i][j]
			q.Delta = motif.TicksSpan(10)
			// Reverse the node numbering: the same motif under other names.
			n := len(q.Nodes)
			for e := range q.Edges {
				q.Edges[e].From, q.Edges[e].To = n-1-q.Edges[e].From, n-1-q.Edges[e].To
			}
			for a, b := 0, n-1; a < b; a, b = a+1, b-1 {
				q.Nodes[a], q.Nodes[b] = q.Nodes[b], q.Nodes[a]
			}
			p := &motif.Plan{Query: q, Delta: 10, Hop: []int64{motif.NoLimit, motif.NoLimit, 10}}
			if c, ok := Shape(p); !ok || c != Cell(i*6+j) {
				t.Errorf("Shape(%s renamed) = %v, %v; want %v", q.Name, c, ok, Cell(i*6+j))
			}
			p.Hop[2] = 9
			if c, ok := Shape(p); ok {
				t.Errorf("Shape(%s with a hop limit 9 < delta 10) = %v; want refused", q.Name, c)
			}
		}
	}
	q := &motif.Query{Name: "star4", Nodes: []motif.Node{{Name: "a"}, {Name: "hub"}, {Name: "b"}, {Name: "c"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}, {From: 3, To: 1}}}
	if c, ok := Shape(&motif.Plan{Query: q, Hop: []int64{-1, -1, -1}}); !ok || c.String() != "star4-ioi" {
		t.Errorf("Shape(a->hub, hub->b, c->hub) = %v, %v; want star4-ioi", c, ok)
	}
	m1, _ := motif.Builtin("M1") // a 4-node path
	if c, ok := Shape(&motif.Plan{Query: m1}); ok {
		t.Errorf("Shape(M1) = %v; want refused", c)
	}
}
