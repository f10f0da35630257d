package oracle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// build makes a window of the package Schema from (src, dst, t, amount,
// kind) edges over nodes 0..n-1.
func build(t *testing.T, n int, edges [][5]any) *window.Window {
	t.Helper()
	w, err := window.New(Schema())
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		w.IDs().Intern(fmt.Sprint(i))
	}
	for _, e := range edges {
		kind := float64(w.Strings().Intern(e[4].(string)))
		if _, err := w.Append(window.Edge{Src: uint32(e[0].(int)), Dst: uint32(e[1].(int)), T: int64(e[2].(int)),
			Attrs: []float64{float64(e[3].(int)), kind}}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func ticks(n int64) *motif.Span { s := motif.TicksSpan(n); return &s }

// path is the query A->B->C (delta 5), optionally changed by f.
func path(f func(q *motif.Query)) *motif.Query {
	q := &motif.Query{Name: "path", Nodes: []motif.Node{{Name: "A"}, {Name: "B"}, {Name: "C"}},
		Edges: []motif.Edge{{From: 0, To: 1}, {From: 1, To: 2}}, Delta: motif.TicksSpan(5)}
	if f != nil {
		f(q)
	}
	return q
}

// TestMine checks the oracle on cases worked out by hand.
func TestMine(t *testing.T) {
	notBA := func(q *motif.Query) { q.AntiEdges = []motif.AntiEdge{{From: 1, To: 0, After: 0}} }
	for _, c := range []struct {
		name    string
		edges   [][5]any
		q       *motif.Query
		horizon int64
		want    []string
	}{
		{"plain path", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}}, path(nil), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"delta is inclusive", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 6, 0, "a"}}, path(nil), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"delta excludes", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 7, 0, "a"}}, path(nil), motif.Batch, nil},
		{"tie in arrival order", [][5]any{{0, 1, 4, 0, "a"}, {1, 2, 4, 0, "a"}}, path(nil), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"tie against arrival order", [][5]any{{1, 2, 4, 0, "a"}, {0, 1, 4, 0, "a"}}, path(nil), motif.Batch, nil},
		{"injective: C may not be A", [][5]any{{0, 1, 1, 0, "a"}, {1, 0, 2, 0, "a"}}, path(nil), motif.Batch, nil},
		{"self-loops never match", [][5]any{{0, 0, 1, 0, "a"}, {0, 2, 2, 0, "a"}}, path(nil), motif.Batch, nil},
		{"within is inclusive", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}, {1, 2, 4, 0, "a"}},
			path(func(q *motif.Query) { q.Edges[1].Within = ticks(2) }), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"anti-edge in the interval", [][5]any{{0, 1, 1, 0, "a"}, {1, 0, 2, 0, "a"}, {1, 2, 3, 0, "a"}}, path(notBA), motif.Batch, nil},
		{"anti-edge tied but earlier", [][5]any{{1, 0, 1, 0, "a"}, {0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}}, path(notBA), motif.Batch,
			[]string{"[1 2] [0 1 2] false 0"}},
		{"anti-edge after t1+delta", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}, {1, 0, 7, 0, "a"}}, path(notBA), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"anti-edge at t1+delta", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}, {1, 0, 6, 0, "a"}}, path(notBA), motif.Batch, nil},
		{"anti-edge limited by the next edge's within", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}, {1, 0, 4, 0, "a"}},
			path(func(q *motif.Query) { notBA(q); q.Edges[1].Within = ticks(2) }), motif.Batch,
			[]string{"[0 1] [0 1 2] false 0"}},
		{"anti-edge interval open past the horizon", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}}, path(notBA), 3,
			[]string{"[0 1] [0 1 2] true 6"}},
		{"open anti-edge already violated", [][5]any{{0, 1, 1, 0, "a"}, {1, 2, 3, 0, "a"}, {1, 0, 3, 0, "a"}}, path(notBA), 3, nil},
		{"string predicate by value", [][5]any{{0, 1, 1, 0, "b"}, {1, 2, 3, 0, "a"}, {1, 2, 4, 0, "b"}},
			path(func(q *motif.Query) {
				q.Where = []motif.Predicate{{Left: motif.Operand{Kind: motif.EdgeAttr, Index: 1, Attr: "kind"}, Op: motif.OpEq, Right: str("b")}}
			}), motif.Batch, []string{"[0 2] [0 1 2] false 0"}},
		{"cross-edge predicate", [][5]any{{0, 1, 1, 3, "a"}, {1, 2, 3, 2, "a"}, {1, 2, 4, 5, "a"}},
			path(func(q *motif.Query) {
				q.Where = []motif.Predicate{{Left: motif.Operand{Kind: motif.EdgeAttr, Index: 0, Attr: "amount"}, Op: motif.OpLe,
					Right: motif.Operand{Kind: motif.EdgeAttr, Index: 1, Attr: "amount"}}}
			}), motif.Batch, []string{"[0 2] [0 1 2] false 0"}},
	} {
		w := build(t, 3, c.edges)
		if err := c.q.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ms, err := Mine(w, c.q, motif.WholeWindow(w), c.horizon)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, fmt.Sprint(m.Edges, " ", m.Nodes, " ", m.Open, " ", m.OpenUntil))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Mine = %q; want %q\n%s%s", c.name, got, c.want, FormatWindow(w), FormatQuery(c.q))
		}
		// The CPU engine on the same case, for a readable failure before
		// the random differential tests.
		p, err := motif.Compile(c.q, w)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got = nil
		sink := motif.SinkFunc(func(m *motif.Match) error {
			got = append(got, fmt.Sprint(m.Edges, " ", m.Nodes, " ", m.Open, " ", m.OpenUntil))
			return nil
		})
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: c.horizon, Sink: sink}
		if _, err := cpu.New(1).Mine(context.Background(), w, p, req); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: CPU engine = %q, %v; want %q\n%s%s%s", c.name, got, err, c.want, FormatWindow(w), FormatQuery(c.q), p)
		}
	}
}

// TestRandomQueryValid checks that the generator only makes valid queries
// that compile against random windows.
func TestRandomQueryValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		w := RandomWindow(rng, DefaultWindowConfig())
		q := RandomQuery(rng, DefaultQueryConfig())
		if err := q.Validate(); err != nil {
			t.Fatalf("query %d: %v\n%s", i, err, FormatQuery(q))
		}
		if _, err := motif.Compile(q, w); err != nil {
			t.Fatalf("query %d: %v\n%s", i, err, FormatQuery(q))
		}
		if _, err := New(w, q); err != nil {
			t.Fatalf("query %d: %v\n%s", i, err, FormatQuery(q))
		}
	}
}
