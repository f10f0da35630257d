package window

import (
	"testing"
	"time"
)

func TestReserve(t *testing.T) {
	w, err := New(Schema{TimeUnit: time.Second, EdgeAttrs: []Attr{{Name: "w", Kind: Number}}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.IDs().Intern("a")
	b, _ := w.IDs().Intern("b")
	c, _ := w.IDs().Intern("c")
	edges := []Edge{{a, b, 1, []float64{1}}, {a, c, 2, []float64{2}}, {b, a, 3, []float64{3}}, {a, b, 3, []float64{4}}}
	out, in := make([]int, 3), make([]int, 3)
	for _, e := range edges {
		out[e.Src]++
		in[e.Dst]++
	}
	w.Reserve(len(edges), out, in)
	// Reserve sizes the columns and adjacency lists; the pair index grows
	// as pairs appear and is left out of the comparison.
	before := w.Bytes() - w.pairBytes()
	for _, e := range edges {
		if _, err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.Bytes() - w.pairBytes(); got != before {
		t.Errorf("Bytes grew from %d to %d after a reserved load", before, got)
	}
	if got := len(w.Out(a)); got != 3 {
		t.Errorf("len(Out(a)) = %d; want 3", got)
	}
	if got := w.EdgeAttr(0, 3); got != 4 {
		t.Errorf("EdgeAttr(0, 3) = %v; want 4", got)
	}
	w.Reserve(0, nil, nil) // no-op
}
