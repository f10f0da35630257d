package gpm_test

import (
	"context"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/testenv"
)

// citeseer loads the reference citeseer graph (the module's testdata/).
func citeseer(tb testing.TB) *gpm.Graph {
	tb.Helper()
	g, _, err := gpm.Load(testenv.Data(tb, "static/citeseer.edgelist"))
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func run(tb testing.TB, g *gpm.Graph, app gpm.App, k int, o gpm.CPUOptions) *gpm.Result {
	tb.Helper()
	r, err := gpm.NewCPU(o).Run(context.Background(), g, gpm.Job{App: app, K: k})
	if err != nil {
		tb.Fatalf("%s k=%d: %v", app, k, err)
	}
	return r
}

// TestCiteseerReference checks ARCHITECTURE.md's citeseer figures: clique
// counts for k = 3..7 (and that k = 8..12 run and find none), the six
// induced 4-vertex motifs, and the k = 5 motif total, with 1 and 2
// workers, balancing on and off.
func TestCiteseerReference(t *testing.T) {
	g := citeseer(t)
	if g.N() != 3264 || g.M() != 4536 {
		t.Errorf("citeseer: %d vertices, %d edges; want 3264, 4536", g.N(), g.M())
	}
	cliques := map[int]uint64{3: 1166, 4: 255, 5: 46, 6: 4, 7: 0, 8: 0, 12: 0}
	motifs4 := map[string]uint64{"3-star": 222630, "4-path": 111153, "tailed triangle": 22900,
		"4-cycle": 3094, "diamond": 2200, "4-clique": 255}
	for _, o := range []gpm.CPUOptions{{Workers: 1}, {Workers: 2}, {Workers: 2, Balance: true}, {Workers: 3, Balance: true}} {
		for k, want := range cliques {
			if got := run(t, g, gpm.Clique, k, o).Total; got != want {
				t.Errorf("%+v: %d-cliques = %d; want %d", o, k, got, want)
			}
		}
		r := run(t, g, gpm.Motif, 4, o)
		for name, want := range motifs4 {
			if got := r.Count(name); got != want {
				t.Errorf("%+v: %s = %d; want %d", o, name, got, want)
			}
		}
		if len(r.Patterns) != 6 || r.Total != 362232 {
			t.Errorf("%+v: 4-motifs: %d patterns, total %d; want 6, 362232", o, len(r.Patterns), r.Total)
		}
		if got := run(t, g, gpm.Motif, 5, o).Total; got != 7668883 {
			t.Errorf("%+v: 5-motif total = %d; want 7668883", o, got)
		}
	}
}
