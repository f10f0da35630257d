package count3

import (
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// Every raw counter lands in a cell of its own family, and every cell
// gets the expected number of counters: 2 per two-node cell (both
// orientations of a pair: SNAP's 4, Pair2's 2, Pair4's 8), 1 per star
// cell (SNAP's 24, Star4's 8, Wedge's 4) and per path cell (16: a path
// read around its middle edge's direction), 6 per triangle cell (48
// assignable triangle patterns over 8 cells).
func TestRawCellCoverage(t *testing.T) {
	per := map[Cell]int{}
	for i, c := range rawCell {
		if c < 0 {
			if (i < rawTri || i >= rawStar4) && i < rawPaw {
				t.Fatalf("raw %d (not a triangle, paw or cycle slot) maps to no cell", i)
			}
			continue
		}
		per[c]++
		var lo, hi int // the raw range of c's family
		switch {
		case c >= Paw:
			lo, hi = rawPaw, rawCycle
		case c >= Cycle4:
			lo, hi = rawCycle, RawLen
		case c >= Path4:
			lo, hi = rawPath, rawPaw
		case c >= Pair4:
			lo, hi = rawPair4, rawPath
		case c >= Wedge:
			lo, hi = rawWedge, rawPair4
		case c >= Pair2:
			lo, hi = rawPair2, rawWedge
		case c >= Star4:
			lo, hi = rawStar4, rawPair2
		default:
			lo, hi = 0, rawStar4
			nodes := snapShapes[c].nodes
			switch {
			case i < rawPre && nodes != 2, i >= rawPre && nodes != 3:
				t.Errorf("raw %d maps to %v with %d nodes", i, c, nodes)
			}
		}
		if i < lo || i >= hi {
			t.Errorf("raw %d maps to %v, outside its family's counters [%d, %d)", i, c, lo, hi)
		}
	}
	want := map[int]int{2: 0, 1: 0, 6: 0, 8: 0}
	for c := range Cell(Cells) {
		want[per[c]]++
	}
	// A paw is counted around its static triangle, whose three nodes the
	// listing labels in one of 6 ways; a four-cycle around its static
	// cycle, labelled in one of 8 (its rotations and reflections).
	if want[2] != 14 || want[1] != 52 || want[6] != 8+160 || want[8] != 32 || len(want) != 4 {
		t.Errorf("counters per cell: %v; want 14 cells with 2, 52 with 1, 168 with 6, 32 with 8", want)
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
	for _, tc := range []struct {
		nodes int
		edges []motif.Edge
		want  string // "" = refused
	}{
		{2, []motif.Edge{{From: 1, To: 0}, {From: 0, To: 1}}, "pair2-oi"},
		{2, []motif.Edge{{From: 1, To: 0}, {From: 1, To: 0}}, "pair2-oo"},
		{3, []motif.Edge{{From: 2, To: 0}, {From: 0, To: 1}}, "wedge-io"}, // a path through 0
		{3, []motif.Edge{{From: 2, To: 0}, {From: 1, To: 2}}, "wedge-oi"}, // centre 2
		{3, []motif.Edge{{From: 2, To: 0}, {From: 1, To: 0}}, "wedge-ii"},
		{3, []motif.Edge{{From: 0, To: 1}, {From: 0, To: 2}}, "wedge-oo"},
		{3, []motif.Edge{{From: 0, To: 1}, {From: 1, To: 0}}, ""}, // node 2 on no edge
		{2, []motif.Edge{{From: 1, To: 0}, {From: 0, To: 1}, {From: 0, To: 1}, {From: 1, To: 0}}, "pair4-oiio"},
		{3, []motif.Edge{{From: 1, To: 0}, {From: 0, To: 1}, {From: 0, To: 2}, {From: 1, To: 0}}, ""},
	} {
		q := &motif.Query{Name: "small", Edges: tc.edges}
		for i := range tc.nodes {
			q.Nodes = append(q.Nodes, motif.Node{Name: string(rune('a' + i))})
		}
		hop := make([]int64, len(tc.edges))
		for i := range hop {
			hop[i] = motif.NoLimit
		}
		c, ok := Shape(&motif.Plan{Query: q, Delta: 10, Hop: hop})
		if got := map[bool]string{true: c.String(), false: ""}[ok]; got != tc.want {
			t.Errorf("Shape(%v on %d nodes) = %q; want %q", tc.edges, tc.nodes, got, tc.want)
		}
	}
	m5, _ := motif.Builtin("M5") // five nodes, four edges
	if c, ok := Shape(&motif.Plan{Query: m5, Hop: []int64{-1, -1, -1, -1}}); ok {
		t.Errorf("Shape(M5) = %v; want refused", c)
	}
}

// Each four-node path of the library is its own cell under every naming
// of its nodes; Everest's M1 and M2 are paths; a path with the end edges
// first (no motif) and a triangle with a pendant-free fourth node are not.
func TestShapePath4(t *testing.T) {
	perms := [][4]int{}
	for a := range 4 {
		for b := range 4 {
			for c := range 4 {
				d := 6 - a - b - c
				if a != b && a != c && b != c && d != a && d != b && d != c {
					perms = append(perms, [4]int{a, b, c, d})
				}
			}
		}
	}
	hop := []int64{motif.NoLimit, motif.NoLimit, motif.NoLimit}
	for c := Path4; c < Cycle4; c++ {
		for _, pm := range perms {
			q, err := motif.Builtin(c.String())
			if err != nil {
				t.Fatal(err)
			}
			for e := range q.Edges {
				q.Edges[e].From, q.Edges[e].To = pm[q.Edges[e].From], pm[q.Edges[e].To]
			}
			if got, ok := Shape(&motif.Plan{Query: q, Delta: 5, Hop: hop}); !ok || got != c {
				t.Errorf("Shape(%s, nodes renamed %v) = %v, %v", c, pm, got, ok)
			}
		}
	}
	for name, want := range map[string]string{"M1": "path4-123-fff", "M2": "path4-213-bff"} {
		q, _ := motif.Builtin(name)
		if c, ok := Shape(&motif.Plan{Query: q, Delta: 5, Hop: hop}); !ok || c.String() != want {
			t.Errorf("Shape(%s) = %v, %v; want %s", name, c, ok, want)
		}
	}
	for _, edges := range [][]motif.Edge{
		{{From: 0, To: 1}, {From: 2, To: 3}, {From: 1, To: 2}}, // end edges first
		{{From: 0, To: 1}, {From: 1, To: 0}, {From: 2, To: 3}}, // disconnected
		{{From: 0, To: 1}, {From: 1, To: 2}, {From: 2, To: 0}}, // a triangle beside node 3
	} {
		q := &motif.Query{Name: "x", Nodes: []motif.Node{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}, Edges: edges}
		if c, ok := Shape(&motif.Plan{Query: q, Delta: 5, Hop: hop}); ok {
			t.Errorf("Shape(%v) = %v; want refused", edges, c)
		}
	}
}

// Each four-cycle and paw of the library is its own cell under every
// naming of its nodes, also as a YAML query with other node names;
// Everest's M3, M9 (paws), M4 and M7 (cycles) are recognised; a hop
// limit tighter than δ is refused.
func TestShapeFour(t *testing.T) {
	perms := [][4]int{}
	for a := range 4 {
		for b := range 4 {
			for c := range 4 {
				d := 6 - a - b - c
				if a != b && a != c && b != c && d != a && d != b && d != c {
					perms = append(perms, [4]int{a, b, c, d})
				}
			}
		}
	}
	hop := []int64{motif.NoLimit, motif.NoLimit, motif.NoLimit, motif.NoLimit}
	names := []string{"w", "x", "y", "z"}
	for c := Cycle4; c < Cells; c++ {
		q, err := motif.Builtin(c.String())
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := Shape(&motif.Plan{Query: q, Delta: 5, Hop: hop}); !ok || got != c {
			t.Errorf("Shape(%s) = %v, %v", c, got, ok)
		}
		for _, pm := range perms {
			var edges []string
			for _, e := range q.Edges {
				edges = append(edges, names[pm[e.From]]+" -> "+names[pm[e.To]])
			}
			yaml := "queries:\n  - name: q\n    delta: 5\n    edges: [" + strings.Join(edges, ", ") + "]\n"
			qs, err := motif.ParseQueries([]byte(yaml), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			w, err := window.New(oracle.Schema())
			if err != nil {
				t.Fatal(err)
			}
			p, err := motif.Compile(qs[0], w)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := Shape(p); !ok || got != c {
				t.Errorf("Shape(%s as %s) = %v, %v", c, strings.Join(edges, ", "), got, ok)
			}
			p.Hop[3] = 4
			if got, ok := Shape(p); ok {
				t.Errorf("Shape(%s with a hop limit 4 < delta 5) = %v; want refused", c, got)
			}
		}
	}
	for name, want := range map[string]string{"M3": "paw-1234-ffff", "M9": "paw-3214-bbbb", "M4": "cycle4-1234-ffff", "M7": "cycle4-1243-bfbf"} {
		q, _ := motif.Builtin(name)
		if c, ok := Shape(&motif.Plan{Query: q, Delta: 5, Hop: hop}); !ok || c.String() != want {
			t.Errorf("Shape(%s) = %v, %v; want %s", name, c, ok, want)
		}
	}
}
