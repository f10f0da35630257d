package motif

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// validQuery is A→B→C→A within 10m, each edge within 5m, an anti-edge
// B→A after edge 1 and a predicate.
func validQuery() *Query {
	five := DurationSpan(5 * time.Minute)
	return &Query{
		Name:  "cycle3",
		Nodes: []Node{{"A"}, {"B"}, {"C"}},
		Edges: []Edge{
			{From: 0, To: 1},
			{From: 1, To: 2, Within: &five},
			{From: 2, To: 0, Within: &five},
		},
		Delta:     DurationSpan(10 * time.Minute),
		AntiEdges: []AntiEdge{{From: 1, To: 0, After: 0}},
		Where: []Predicate{{
			Left:  Operand{Kind: EdgeAttr, Index: 0, Attr: "amount"},
			Op:    OpGt,
			Right: Operand{Kind: Literal, Num: 1000},
		}},
	}
}

func TestValidate(t *testing.T) {
	span := func(s Span) *Span { return &s }
	min := func(n int) *Span { return span(DurationSpan(time.Duration(n) * time.Minute)) }
	edgeAttr := func(i int) Operand { return Operand{Kind: EdgeAttr, Index: i, Attr: "amount"} }
	num := Operand{Kind: Literal, Num: 1}
	tests := []struct {
		name   string
		modify func(q *Query)
		want   string // "" = valid
	}{
		{"valid", func(q *Query) {}, ""},

		{"name missing", func(q *Query) { q.Name = "" }, `name: must be set`},
		{"name bad", func(q *Query) { q.Name = "a b" }, `query "a b": name: "a b" must match [A-Za-z0-9_.-]+`},
		{"name with dot and dash", func(q *Query) { q.Name = "fraud.cycle-3_v2" }, ""},

		{"no edges", func(q *Query) { q.Edges = nil; q.Nodes = nil; q.AntiEdges = nil; q.Where = nil }, `query "cycle3": edges: a motif has 1 to 16 edges, not 0`},
		{"one edge", func(q *Query) {
			q.Edges = q.Edges[:1]
			q.Nodes = q.Nodes[:2]
			q.Where = nil
		}, ""},
		{"16 edges", func(q *Query) {
			q.Edges = nil
			for i := range 16 {
				q.Edges = append(q.Edges, Edge{From: i % 2, To: 1 - i%2})
			}
			q.Nodes = q.Nodes[:2]
		}, ""},
		{"17 edges", func(q *Query) {
			q.Edges = nil
			for i := range 17 {
				q.Edges = append(q.Edges, Edge{From: i % 2, To: 1 - i%2})
			}
			q.Nodes = q.Nodes[:2]
		}, "edges: a motif has 1 to 16 edges, not 17"},

		{"delta zero ticks", func(q *Query) { q.Delta = Span{} }, `query "cycle3": delta: 0 must be positive`},
		{"delta zero duration", func(q *Query) { q.Delta = DurationSpan(0) }, `delta: 0s must be positive`},
		{"delta negative", func(q *Query) { q.Delta = DurationSpan(-time.Minute) }, `delta: -1m must be positive`},
		{"delta one tick", func(q *Query) { q.Delta = TicksSpan(1); q.Edges[1].Within, q.Edges[2].Within = nil, nil }, ""},

		{"node index out of range", func(q *Query) { q.Edges[1].To = 3 }, `edges[1]: node index 3 out of range (the query has 3 nodes)`},
		{"node index negative", func(q *Query) { q.Edges[0].From = -1 }, `edges[0]: node index -1 out of range`},
		{"self-loop", func(q *Query) { q.Edges[1].To = 1 }, `edges[1]: self-loop B -> B never matches`},
		{"disconnected", func(q *Query) {
			q.Nodes = append(q.Nodes, Node{"D"})
			q.Edges[1] = Edge{From: 2, To: 3}
		}, `edges[1]: C -> D touches no node of an earlier edge`},
		{"connected through to", func(q *Query) { q.Edges[1] = Edge{From: 2, To: 1} }, ""},

		{"duplicate node", func(q *Query) { q.Nodes[2].Name = "A" }, `nodes[2]: duplicate node name "A" (also nodes[0])`},
		{"empty node name", func(q *Query) { q.Nodes[1].Name = "" }, `nodes[1]: name must be set`},
		{"unused node", func(q *Query) { q.Nodes = append(q.Nodes, Node{"D"}) }, `nodes.D: node "D" is not used by any edge`},
		{"unused node odd name", func(q *Query) { q.Nodes = append(q.Nodes, Node{"D 1"}) }, `nodes[3]: node "D 1" is not used by any edge`},

		{"within on first edge", func(q *Query) { q.Edges[0].Within = min(1) }, `edges[0].within: 1m on the first edge`},
		{"within negative", func(q *Query) { q.Edges[2].Within = min(-1) }, `edges[2].within: -1m must not be negative`},
		{"within zero", func(q *Query) { q.Edges[2].Within = min(0) }, ""},
		{"within equals delta", func(q *Query) { q.Edges[2].Within = min(10) }, ""},
		{"within exceeds delta", func(q *Query) { q.Edges[2].Within = min(20) }, `query "cycle3": edges[2].within: gap 2 (20m) exceeds delta (10m)`},
		{"within ticks exceed ticks", func(q *Query) {
			q.Delta = TicksSpan(600)
			q.Edges[1].Within = span(TicksSpan(601))
			q.Edges[2].Within = nil
		}, `edges[1].within: gap 1 (601) exceeds delta (600)`},
		{"within ticks vs duration delta not compared", func(q *Query) { q.Edges[1].Within = span(TicksSpan(1 << 40)) }, ""},

		{"anti after out of range", func(q *Query) { q.AntiEdges[0].After = 3 }, `not[0].after: 4 is not a motif edge (1..3)`},
		{"anti after negative", func(q *Query) { q.AntiEdges[0].After = -1 }, `not[0].after: 0 is not a motif edge (1..3)`},
		{"anti after last edge", func(q *Query) { q.AntiEdges[0].After = 2 }, ""},
		{"anti same node", func(q *Query) { q.AntiEdges[0].To = 1 }, `not[0]: anti-edge B -> B has the same node at both ends`},
		{"anti node out of range", func(q *Query) { q.AntiEdges[0].From = 5 }, `not[0]: node index 5 out of range`},
		{"anti node not yet mapped", func(q *Query) { q.AntiEdges[0] = AntiEdge{From: 2, To: 0, After: 0} }, `not[0]: anti-edge C -> A after edge 1: node C is first mapped by edge 2`},
		{"anti node mapped later edge", func(q *Query) { q.AntiEdges[0] = AntiEdge{From: 2, To: 0, After: 1} }, ""},
		{"anti within negative", func(q *Query) { q.AntiEdges[0].Within = min(-2) }, `not[0].within: -2m must not be negative`},
		{"anti within above delta allowed", func(q *Query) { q.AntiEdges[0].Within = min(60) }, ""},

		{"pred edge out of range", func(q *Query) { q.Where[0].Left.Index = 3 }, `where[0]: edge index 3 out of range (the query has 3 edges)`},
		{"pred node out of range", func(q *Query) { q.Where[0].Left = Operand{Kind: NodeAttr, Index: -1, Attr: "x"} }, `where[0]: node index -1 out of range`},
		{"pred uses field and text", func(q *Query) {
			q.Where[0].Left.Index = 7
			q.Where[0].Field, q.Where[0].Text = "queries[0].where", "e8.amount > 1000"
		}, `queries[0].where: "e8.amount > 1000": edge index 7 out of range`},
		{"pred empty attr", func(q *Query) { q.Where[0].Left.Attr = "" }, `edge attribute name is empty`},
		{"pred order on string", func(q *Query) { q.Where[0].Right = Operand{Kind: Literal, Str: "x", IsStr: true} }, `> needs numbers, not strings`},
		{"pred eq on string", func(q *Query) {
			q.Where[0].Op = OpEq
			q.Where[0].Right = Operand{Kind: Literal, Str: "x", IsStr: true}
		}, ""},
		{"pred in without list", func(q *Query) { q.Where[0].Op = OpIn }, `in needs a list on the right`},
		{"pred in list", func(q *Query) {
			q.Where[0].Op = OpNotIn
			q.Where[0].Right = Operand{Kind: List, List: []Operand{num}}
		}, ""},
		{"pred empty list", func(q *Query) {
			q.Where[0].Op = OpIn
			q.Where[0].Right = Operand{Kind: List}
		}, `empty list`},
		{"pred mixed list", func(q *Query) {
			q.Where[0].Op = OpIn
			q.Where[0].Right = Operand{Kind: List, List: []Operand{num, {Kind: Literal, Str: "a", IsStr: true}}}
		}, `list mixes strings and numbers`},
		{"pred list with a reference", func(q *Query) {
			q.Where[0].Op = OpIn
			q.Where[0].Right = Operand{Kind: List, List: []Operand{edgeAttr(0)}}
		}, `a list holds literals only`},
		{"pred list on the left", func(q *Query) {
			q.Where[0].Left = Operand{Kind: List, List: []Operand{num}}
		}, `a list may only be the right side of in / not in`},
		{"pred list with ==", func(q *Query) { q.Where[0].Right = Operand{Kind: List, List: []Operand{num}} }, `a list may only be the right side`},
		{"pred in with literal left", func(q *Query) {
			q.Where[0].Op = OpIn
			q.Where[0].Left = num
			q.Where[0].Right = Operand{Kind: List, List: []Operand{num}}
		}, `the left side of in must be an attribute`},
		{"pred two literals", func(q *Query) { q.Where[0].Left = num }, `compares two literals`},
		{"pred literal left", func(q *Query) { q.Where[0].Left, q.Where[0].Right = num, edgeAttr(2) }, ""},
		{"pred two refs", func(q *Query) { q.Where[0].Right = edgeAttr(2) }, ""},
		{"pred bad op", func(q *Query) { q.Where[0].Op = 99 }, `unknown operator 99`},
		{"pred bad kind", func(q *Query) { q.Where[0].Right.Kind = 9 }, `unknown operand kind 9`},
	}
	for _, tt := range tests {
		q := validQuery()
		tt.modify(q)
		err := q.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v; want nil", tt.name, err)
		case tt.want != "" && err == nil:
			t.Errorf("%s: Validate() = nil; want %q", tt.name, tt.want)
		case tt.want != "" && !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: Validate() = %v; want %q", tt.name, err, tt.want)
		}
		var fe *FieldError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("%s: Validate() error is %T; want *FieldError", tt.name, err)
		}
	}
}

func TestSpanText(t *testing.T) {
	tests := []struct {
		in   Span
		want string
	}{
		{DurationSpan(20 * time.Minute), "20m"},
		{DurationSpan(time.Hour), "1h"},
		{DurationSpan(90 * time.Minute), "1h30m"},
		{DurationSpan(90 * time.Second), "1m30s"},
		{DurationSpan(0), "0s"},
		{DurationSpan(-5 * time.Minute), "-5m"},
		{DurationSpan(1500 * time.Millisecond), "1.5s"},
		{TicksSpan(600), "600"},
	}
	for _, tt := range tests {
		if got := spanText(tt.in); got != tt.want {
			t.Errorf("spanText(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
