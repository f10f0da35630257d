package motif

import "testing"

func TestQuerySummary(t *testing.T) {
	qs, err := ParseQueries([]byte(`queries:
  - name: ring
    delta: 10m
    edges: [A -> B, {from: B, to: C, within: 5m}, C -> A]
    not: [B -> A]
    where: [amount > 1000, e2.amount <= e1.amount]
    group_by: [B]
    group_within: 1h
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "A -> B, B -> C (within 5m), C -> A; not B -> A after edge 1; where amount > 1000 and e2.amount <= e1.amount; group by B within 1h"
	if got := qs[0].Summary(); got != want {
		t.Errorf("Summary() =\n %s\nwant\n %s", got, want)
	}
	built := &Query{Name: "p", Nodes: []Node{{Name: "X"}, {Name: "Y"}}, Edges: []Edge{{From: 0, To: 1}},
		Where: []Predicate{{Left: Operand{Kind: EdgeAttr, Index: 0, Attr: "cur"}, Op: OpIn,
			Right: Operand{Kind: List, List: []Operand{{IsStr: true, Str: "EUR"}, {Num: 2}}}}}}
	if got, want := built.Summary(), `X -> Y; where e1.cur in ["EUR", 2]`; got != want {
		t.Errorf("Summary() of a query built in code = %s; want %s", got, want)
	}
}
