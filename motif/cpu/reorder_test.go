package cpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/synth"
)

// TestReorderedMatchesSame mines every built-in motif (the anti-edge
// variant included) in every step order Plan.Reordered accepts and checks
// the matches (final and open, counted and enumerated) equal those of
// Compile's order: the GPU engine picks its own order (gpu's order).
func TestReorderedMatchesSame(t *testing.T) {
	w, err := synth.Window(synth.Default(3_000, 3))
	if err != nil {
		t.Fatal(err)
	}
	e := cpu.New(2)
	for _, name := range motif.BuiltinNames() {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(6 * time.Hour)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: w.LastT() - 3600}
		want, err := e.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		k, orders := p.K(), 0
		for _, o := range permutations(k) {
			r, err := p.Reordered(o)
			if err != nil {
				continue // an edge touching no node mapped before it
			}
			orders++
			for i, st := range r.Steps {
				if st.Edge != o[i] {
					t.Fatalf("%s order %v: step %d matches edge %d", name, o, i, st.Edge)
				}
			}
			got, err := e.Mine(context.Background(), w, r, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Matches != want.Matches || got.Open != want.Open {
				t.Errorf("%s order %v: %d matches, %d open; Compile's order %d, %d", name, o, got.Matches, got.Open, want.Matches, want.Open)
			}
			var n countSink
			if _, err := e.Mine(context.Background(), w, r, motif.Request{Range: req.Range, Horizon: req.Horizon, Sink: &n}); err != nil {
				t.Fatal(err)
			}
			if n.n != want.Matches+want.Open {
				t.Errorf("%s order %v: %d matches enumerated, want %d", name, o, n.n, want.Matches+want.Open)
			}
		}
		// A path rooted at its last edge has one order; M7, M10 and M13
		// (the GPU engine's choices) have several.
		if orders < 1 || (orders < 2 && (name == "M7" || name == "M10" || name == "M13")) {
			t.Errorf("%s: %d orders accepted", name, orders)
		}
		if want.Matches == 0 && k > 3 {
			t.Errorf("%s: no matches on the test graph: the test checks nothing", name)
		}
	}
	q, _ := motif.Builtin("M7")
	q.Delta = motif.DurationSpan(time.Hour)
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int{{3, 2, 1}, {2, 3, 1, 0}, {3, 0, 1, 2}, {3, 2, 2, 0}, {3, 2, 1, 7}} {
		if _, err := p.Reordered(bad); err == nil {
			t.Errorf("M7 order %v accepted", bad)
		}
	}
}

type countSink struct{ n int64 }

func (s *countSink) Match(*motif.Match) error { s.n++; return nil }

// permutations returns every order of the edges 0..k-1 that starts with
// the root k-1.
func permutations(k int) [][]int {
	var out [][]int
	var rec func(pre []int, used []bool)
	rec = func(pre []int, used []bool) {
		if len(pre) == k {
			out = append(out, append([]int(nil), pre...))
			return
		}
		for e := 0; e < k; e++ {
			if !used[e] {
				used[e] = true
				rec(append(pre, e), used)
				used[e] = false
			}
		}
	}
	used := make([]bool, k)
	used[k-1] = true
	rec([]int{k - 1}, used)
	return out
}
