package count3

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
)

// With Options.Phases set, a Count prints one line naming each
// pass it ran, in order, with its figures, and counts what it counts
// with the timers off.
func TestPhases(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	cfg := oracle.WindowConfig{MinNodes: 6, MaxNodes: 12, MaxEdges: 300, MaxTime: 100, SelfLoop: 0.03}
	w := oracle.RandomWindow(rng, cfg)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	for _, tc := range []struct {
		fam    Families
		name   string
		phases []string
	}{
		{Stars, "stars", []string{"centres"}},
		{Triangles, "triangles", []string{"centres", "forward-sizes", "forward-fill", "pair-lists", "work", "listing", "sort", "heavy-scan", "count"}},
		{Grid3, "stars+triangles", []string{"centres", "forward-sizes", "forward-fill", "pair-lists", "work", "listing", "sort", "heavy-scan", "count"}},
		{Small, "small", []string{"centres"}},
		{Paths, "paths", []string{"centres", "forward-sizes", "forward-fill", "pair-lists", "work", "listing", "sort", "heavy-scan", "count", "path-sequences", "paths"}},
		{Paws | Cycles4, "cycles4+paws", []string{"centres", "static-pairs", "paws", "cycles"}},
		{All, "stars+triangles+small+paths+cycles4+paws", []string{"centres", "forward-sizes", "forward-fill", "pair-lists", "work", "listing", "sort", "heavy-scan", "count", "path-sequences", "paths", "static-pairs", "paws", "cycles"}},
	} {
		want, err := Count(context.Background(), w, 20, req, tc.fam, Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		got, err := Count(context.Background(), w, 20, req, tc.fam, Options{Workers: 3, Phases: &out})
		if err != nil {
			t.Fatal(err)
		}
		if got.Cells() != want.Cells() {
			t.Errorf("%s: counts with the phase timers %v, without %v", tc.name, got.Cells(), want.Cells())
		}
		num := `[0-9]+\.[0-9]`
		re := "^" + regexp.QuoteMeta("count3 phases ("+tc.name+", ms wall (cpu) [busy median/max]):")
		for _, p := range tc.phases {
			re += " " + p + " " + num + ` \(cpu [0-9]+\)( \[[0-9]+/[0-9]+\])?`
		}
		re += " total " + num + "\n$"
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("%s: phase line %q, want it to match %s", tc.name, out.String(), re)
		}
	}
}
