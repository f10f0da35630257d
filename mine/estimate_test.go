package mine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunEstimate: --estimate reports, per query, an estimate whose
// interval holds its value; one that had to mine every root (an ε no
// sample meets) is the exact count; a counted shape (count3) is exact
// and marked counted; a query file's estimate: key asks for one alone.
func TestRunEstimate(t *testing.T) {
	ctx := context.Background()
	exact, err := Run(ctx, Options{Synthetic: 20000, Seed: 3, Motifs: []string{"M4", "M6", "snap-1-1"}, Delta: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, q := range exact.Queries {
		want[q.Name] = q.Matches
	}
	for _, eps := range []float64{0.1, 1e-9} {
		r, err := Run(ctx, Options{Synthetic: 20000, Seed: 3, Motifs: []string{"M4", "M6", "snap-1-1"}, Delta: "1h", Estimate: eps})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range r.Queries {
			e := q.Estimate
			switch {
			case e == nil:
				t.Errorf("ε %v, %s: no estimate", eps, q.Name)
			case !(e.Lo <= e.Value && e.Value <= e.Hi) || e.Confidence != 0.95 || e.Epsilon != eps || e.Sampled > e.Roots:
				t.Errorf("ε %v, %s: estimate %+v", eps, q.Name, *e)
			case q.Name == "snap-1-1" && (!e.Counted || !e.Exact || q.Matches != want[q.Name]):
				t.Errorf("ε %v, snap-1-1 (counted by count3): %+v, %d matches; want exact %d, counted", eps, *e, q.Matches, want[q.Name])
			case eps < 1e-6 && (!e.Exact || e.Value != float64(want[q.Name]) || e.Lo != e.Hi):
				t.Errorf("ε %v, %s: %+v; want exact %d", eps, q.Name, *e, want[q.Name])
			}
		}
	}
	// A query file's estimate: key, without --estimate.
	path := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(path, []byte("queries:\n  - {name: ring, delta: 1h, edges: [A -> B, B -> C, C -> D, D -> A], estimate: 1e-9}\n  - {name: plain, delta: 1h, edges: [A -> B, B -> C, C -> D, D -> A]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Run(ctx, Options{Synthetic: 20000, Seed: 3, QueryFiles: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	if e := r.Queries[0].Estimate; e == nil || !e.Exact || e.Value != float64(want["M4"]) {
		t.Errorf("ring (estimate: 1e-9): %+v; want an exact estimate of M4's %d", e, want["M4"])
	}
	if r.Queries[1].Estimate != nil || r.Queries[1].Matches != want["M4"] {
		t.Errorf("plain: estimate %+v, %d matches; want none and %d", r.Queries[1].Estimate, r.Queries[1].Matches, want["M4"])
	}
}

// TestRunEstimateRefused: an ε or confidence out of range, an estimate
// with enumeration or on the GPU backend are errors naming the value.
func TestRunEstimateRefused(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Estimate: 1.5}, "estimate 1.5: want a relative error in (0, 1)"},
		{Options{Estimate: -0.1}, "estimate -0.1: want a relative error in (0, 1)"},
		{Options{Estimate: 0.1, Confidence: 2}, "confidence 2: want a value in (0, 1)"},
		{Options{Estimate: 0.1, Enumerate: 5}, "query M4 has an estimate, which only counts"},
		{Options{Estimate: 0.1, Backend: "gpu"}, "backend gpu cannot (use cpu)"},
	} {
		c.o.Synthetic, c.o.Motifs, c.o.Delta = 100, []string{"M4"}, "1h"
		if _, err := Run(context.Background(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%+v) = %v; want an error containing %q", c.o, err, c.want)
		}
	}
}
