package gpu

import (
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// TestOrderAnchorsSteps checks the kernel's step order (order): M7, whose
// Compile order leaves a step searching for its run's end, gets an order
// with none (every other step order the same kind: closing edges as soon
// as they close), and every plan with nothing to gain keeps Compile's.
func TestOrderAnchorsSteps(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	edges := func(p *motif.Plan) []int {
		var o []int
		for _, st := range p.Steps {
			o = append(o, st.Edge)
		}
		return o
	}
	for _, name := range motif.BuiltinNames() {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(time.Hour)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		r := order(p)
		before, after := unanchored(q, edges(p)), unanchored(q, edges(r))
		switch {
		case name == "M7":
			if before != 1 || after != 0 || !slices.Equal(edges(r), []int{3, 1, 2, 0}) {
				t.Errorf("M7: order %v (%d unanchored) -> %v (%d), want [3 1 2 0] (0)", edges(p), before, edges(r), after)
			}
			if r.Steps[3].Bind != motif.BindBoth || r.Steps[1].Bind != motif.BindTo || r.Steps[2].Bind != motif.BindFrom {
				t.Errorf("M7 reordered: binds %v %v %v", r.Steps[1].Bind, r.Steps[2].Bind, r.Steps[3].Bind)
			}
		case r != p:
			t.Logf("%s: %v -> %v", name, edges(p), edges(r))
			if after >= before {
				t.Errorf("%s: reordered %v -> %v without fewer unanchored steps (%d -> %d)", name, edges(p), edges(r), before, after)
			}
		case before == 0:
		default:
			// Kept with unanchored steps: no order of the same kind has fewer.
			t.Logf("%s keeps %v (%d unanchored)", name, edges(p), before)
		}
		for _, m := range []string{"M10", "M13", "M1", "M3", "M11"} {
			if name == m && r != p {
				t.Errorf("%s reordered to %v: its Compile order anchors every step", name, edges(r))
			}
		}
	}
}

// TestUnanchored counts, on M7 (1->2, 1->3, 4->2, 4->3), the steps whose
// list is not at an endpoint of their next matched edge.
func TestUnanchored(t *testing.T) {
	q, err := motif.Builtin("M7")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		order []int
		want  int
	}{
		{[]int{3, 2, 1, 0}, 1}, // 1->3 scans 3's in-list, next edge 4->2
		{[]int{3, 2, 0, 1}, 1}, // closing 1->3: next edge 4->2 at neither end
		{[]int{3, 1, 0, 2}, 0},
		{[]int{3, 1, 2, 0}, 0},
	} {
		if got := unanchored(q, c.order); got != c.want {
			t.Errorf("order %v: %d unanchored steps, want %d", c.order, got, c.want)
		}
	}
}
