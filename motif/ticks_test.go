package motif_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

func TestAddSubTicks(t *testing.T) {
	const maxT, minT = math.MaxInt64, math.MinInt64
	for _, c := range []struct{ t, d, add, sub int64 }{
		{1, 2, 3, -1},
		{-5, 0, -5, -5},
		{1, maxT, maxT, minT + 2},
		{maxT, 1, maxT, maxT - 1},
		{minT, 1, minT + 1, minT},
		{-4, maxT, maxT - 4, minT},
		{0, maxT, maxT, -maxT},
		{maxT, maxT, maxT, 0},
		{minT, maxT, -1, minT},
		{5, -7, -2, 12},
		{minT, -1, minT, minT + 1},
		{maxT, -1, maxT - 1, maxT},
		{0, minT, minT, maxT},
	} {
		if got := motif.AddTicks(c.t, c.d); got != c.add {
			t.Errorf("AddTicks(%d, %d) = %d; want %d", c.t, c.d, got, c.add)
		}
		if got := motif.SubTicks(c.t, c.d); got != c.sub {
			t.Errorf("SubTicks(%d, %d) = %d; want %d", c.t, c.d, got, c.sub)
		}
	}
}

// intWindow builds a window of "src dst t" edges over named nodes.
func intWindow(t *testing.T, edges ...string) *window.Window {
	t.Helper()
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		var s, d string
		var tm int64
		if _, err := fmt.Sscan(e, &s, &d, &tm); err != nil {
			t.Fatalf("edge %q: %v", e, err)
		}
		u, _ := w.IDs().Intern(s)
		v, _ := w.IDs().Intern(d)
		if _, err := w.Append(window.Edge{Src: u, Dst: v, T: tm}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func parseOne(t *testing.T, yaml string) *motif.Query {
	t.Helper()
	qs, err := motif.ParseQueries([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return qs[0]
}

// TestRecheckSaturates: a held match re-checked with delta 2^63−1 sees
// the forbidden edge that arrived (a wrapped interval end hid it).
func TestRecheckSaturates(t *testing.T) {
	w := intWindow(t, "a b 1", "b c 2", "b a 3")
	q := parseOne(t, "queries: [{name: q, delta: 9223372036854775807, edges: [A -> B, B -> C], not: [B -> A]}]\n")
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.IDs().Lookup("a")
	b, _ := w.IDs().Lookup("b")
	c, _ := w.IDs().Lookup("c")
	valid, open, _ := p.Recheck(w, []int64{0, 1}, []uint32{a, b, c}, motif.Batch)
	if valid || open {
		t.Fatalf("Recheck = valid %v open %v; want invalid (b->a at t=3 is inside the interval)", valid, open)
	}
	w2 := intWindow(t, "a b 1", "b c 2")
	valid, open, until := p.Recheck(w2, []int64{0, 1}, []uint32{a, b, c}, 2)
	if !valid || !open || until != math.MaxInt64 {
		t.Fatalf("Recheck = valid %v open %v until %d; want valid, open until %d", valid, open, until, int64(math.MaxInt64))
	}
}
