package motif

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// edgeSeq renders q's edges with nodes renamed in order of first
// appearance: two motifs have isomorphic edge sequences iff their edgeSeq
// are equal.
func edgeSeq(q *Query) string {
	rename := map[int]int{}
	var b strings.Builder
	for _, e := range q.Edges {
		for _, n := range [2]int{e.From, e.To} {
			if _, ok := rename[n]; !ok {
				rename[n] = len(rename)
			}
		}
		fmt.Fprintf(&b, "%d>%d ", rename[e.From], rename[e.To])
	}
	return b.String()
}

func TestBuiltinsValidate(t *testing.T) {
	names := BuiltinNames()
	if len(names) != 13+1+36+16+32+160 {
		t.Errorf("BuiltinNames() has %d names; want 258", len(names))
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("BuiltinNames() lists %q twice", name)
		}
		seen[name] = true
		q, err := Builtin(name)
		if err != nil {
			t.Errorf("Builtin(%q) = %v", name, err)
			continue
		}
		if q.Name != name {
			t.Errorf("Builtin(%q).Name = %q", name, q.Name)
		}
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), "delta: 0 must be positive") {
			t.Errorf("Builtin(%q).Validate() without delta = %v; want the delta error", name, err)
		}
		q.Delta = TicksSpan(3600)
		if err := q.Validate(); err != nil {
			t.Errorf("Builtin(%q).Validate() = %v", name, err)
		}
	}
}

func TestBuiltinEverest(t *testing.T) {
	tests := []struct {
		name, want string // edges as "from>to" node names
	}{
		{"M1", "1>2 2>3 3>4"},
		{"M2", "2>3 2>1 3>4"},
		{"M4", "1>2 2>3 3>4 4>1"},
		{"M6", "1>2 3>2 3>4 5>4"},
		{"M10", "1>2 2>3 3>1 1>4 4>3"},
		{"M13", "1>2 2>3 3>4 4>2 2>5"},
		{"M4-A", "1>2 2>3 3>4 4>1"},
	}
	for _, tt := range tests {
		q, err := Builtin(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, e := range q.Edges {
			parts = append(parts, q.Nodes[e.From].Name+">"+q.Nodes[e.To].Name)
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("Builtin(%q) edges = %s; want %s", tt.name, got, tt.want)
		}
	}
	q, _ := Builtin("M4-A")
	want := AntiEdge{From: q.NodeIndex("3"), To: q.NodeIndex("1"), After: 1}
	if len(q.AntiEdges) != 1 || q.AntiEdges[0] != want {
		t.Errorf("Builtin(M4-A).AntiEdges = %+v; want [%+v]", q.AntiEdges, want)
	}
	if m4, _ := Builtin("M4"); len(m4.AntiEdges) != 0 {
		t.Errorf("Builtin(M4) has anti-edges %+v", m4.AntiEdges)
	}
}

func TestBuiltinFreshCopy(t *testing.T) {
	a, _ := Builtin("M4-A")
	a.Edges[0].From = 3
	a.Nodes[0].Name = "changed"
	a.AntiEdges[0].After = 0
	a.Delta = TicksSpan(5)
	b, _ := Builtin("M4-A")
	if b.Edges[0].From != 0 || b.Nodes[0].Name != "1" || b.AntiEdges[0].After != 1 || b.Delta != (Span{}) {
		t.Errorf("Builtin(M4-A) after changing an earlier copy = %+v", b)
	}
	g := SNAPGrid()
	g[0][0].Edges[0].From = 2
	if h := SNAPGrid(); h[0][0].Edges[0].From != 0 {
		t.Errorf("SNAPGrid() shares queries between calls")
	}
}

func TestBuiltinUnknown(t *testing.T) {
	for _, name := range []string{"M99", "M0", "m1", "", "snap-0-1", "snap-7-1", "snap-1-7", "snap-1-1x", "snap-01-1", "snap-+1-1", "M4-B", "path4-132-fff", "path4-123-ffx", "path4-123-fffb",
		"cycle4-1324-ffff", "cycle4-1234-fff", "cycle4-1234-fffx", "paw-4321-ffff", "paw-1324-ffff", "paw-1234-ffffb"} {
		_, err := Builtin(name)
		if !errors.Is(err, ErrUnknownMotif) {
			t.Errorf("Builtin(%q) = %v; want ErrUnknownMotif", name, err)
			continue
		}
		want := fmt.Sprintf("unknown motif %q (known: M1…M13, M4-A, snap-1-1…snap-6-6, path4-123-fff…path4-213-bbb, cycle4-1234-ffff…cycle4-1243-bbbb, paw-1234-ffff…paw-4213-bbbb)", name)
		if err.Error() != want {
			t.Errorf("Builtin(%q) = %v; want %s", name, err, want)
		}
	}
}

func TestSNAPGrid(t *testing.T) {
	g := SNAPGrid()
	seen := map[string]string{}
	for i := range g {
		for j := range g[i] {
			q := g[i][j]
			name := fmt.Sprintf("snap-%d-%d", i+1, j+1)
			if q.Name != name {
				t.Errorf("SNAPGrid()[%d][%d].Name = %q; want %q", i, j, q.Name, name)
			}
			if len(q.Edges) != 3 || len(q.Nodes) < 2 || len(q.Nodes) > 3 {
				t.Errorf("%s has %d edges and %d nodes; want 3 edges on 2 or 3 nodes", name, len(q.Edges), len(q.Nodes))
			}
			seq := edgeSeq(q)
			if other, dup := seen[seq]; dup {
				t.Errorf("%s and %s have isomorphic edge sequences %s", name, other, seq)
			}
			seen[seq] = name
			b, err := Builtin(name)
			if err != nil || edgeSeq(b) != seq {
				t.Errorf("Builtin(%q) = %v, %v; want the grid's motif", name, b, err)
			}
		}
	}
	// 36 distinct sequences cover every connected 3-edge temporal motif on
	// at most 3 nodes: 4 on 2 nodes (pair) and 32 on 3 nodes.
	if len(seen) != 36 {
		t.Errorf("SNAPGrid() has %d distinct motifs; want 36", len(seen))
	}
	// Spot checks of SNAP's layout: M(1,1), the 2-node corner block, and
	// the triangles of columns 3-4 / 5-6.
	for _, tt := range []struct {
		i, j int
		want string
	}{
		{1, 1, "0>1 2>1 0>1 "},
		{5, 1, "0>1 1>0 0>1 "},
		{6, 1, "0>1 0>1 0>1 "},
		{6, 2, "0>1 0>1 1>0 "},
		{1, 3, "0>1 2>1 0>2 "},
		{4, 6, "0>1 0>2 2>1 "},
		{6, 6, "0>1 0>1 2>1 "},
	} {
		if got := edgeSeq(g[tt.i-1][tt.j-1]); got != tt.want {
			t.Errorf("SNAPGrid() M(%d,%d) = %s; want %s", tt.i, tt.j, got, tt.want)
		}
	}
}

func TestSNAPGridCoversAllMotifs(t *testing.T) {
	// Every sequence of 3 directed edges on nodes {0, 1, 2}, without
	// self-loops, each edge touching an earlier one: up to isomorphism
	// there are 36, and the grid must hold exactly these.
	var arcs [][2]int
	for u := range 3 {
		for v := range 3 {
			if u != v {
				arcs = append(arcs, [2]int{u, v})
			}
		}
	}
	touches := func(a, b [2]int) bool { return a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1] }
	want := map[string]bool{}
	for _, a := range arcs {
		for _, b := range arcs {
			for _, c := range arcs {
				if !touches(a, b) || !touches(c, a) && !touches(c, b) {
					continue
				}
				q := &Query{Edges: []Edge{{From: a[0], To: a[1]}, {From: b[0], To: b[1]}, {From: c[0], To: c[1]}}}
				want[edgeSeq(q)] = true
			}
		}
	}
	if len(want) != 36 {
		t.Fatalf("enumerated %d motifs; want 36", len(want))
	}
	g := SNAPGrid()
	for i := range g {
		for j := range g[i] {
			delete(want, edgeSeq(g[i][j]))
		}
	}
	for s := range want {
		t.Errorf("SNAPGrid() lacks motif %s", s)
	}
}
