package estimate

import (
	"context"
	"math"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
)

// TestRunning: a graph mined in 20 batches (each the matches ending in
// it, as the daemon mines), with the scale adapting between batches: the
// mean of the running totals over seeds is within four standard errors
// of the exact count (no stopping bias: each batch's scale is fixed
// before it), and the 95% interval covers it in at least 90% of seeds.
func TestRunning(t *testing.T) {
	eng := cpu.New(2)
	ctx := context.Background()
	for _, i := range []int{1, 5} {
		c := newCase(t, 7, i)
		lo, hi := c.w.First(), c.w.End()
		const batches, seeds = 20, 100
		var totals []float64
		covered, sampled := 0, 0
		for seed := range uint64(seeds) {
			r, err := NewRunning(Options{Epsilon: 0.1, Seed: seed, FirstSample: 200})
			if err != nil {
				t.Fatal(err)
			}
			for b := range int64(batches) {
				req := motif.Request{Range: motif.Range{Lo: lo + (hi-lo)*b/batches, Hi: lo + (hi-lo)*(b+1)/batches}, Horizon: motif.Batch}
				if err := r.Add(ctx, eng, c.w, c.p, req); err != nil {
					t.Fatal(err)
				}
			}
			e := r.Total()
			totals = append(totals, e.Value)
			if e.Sampled < e.Roots {
				sampled++
			}
			if e.Lo <= float64(c.truth) && float64(c.truth) <= e.Hi {
				covered++
			}
		}
		mean, se := meanSE(totals)
		t.Logf("%s: running mean %.1f ± %.1f, count %d; covered %d of %d (%d sampled)", c.name, mean, se, c.truth, covered, seeds, sampled)
		if math.Abs(mean-float64(c.truth)) > 4*se+1e-9 {
			t.Errorf("%s: mean running estimate %.1f (standard error %.1f); exact count %d", c.name, mean, se, c.truth)
		}
		if sampled < seeds/2 {
			t.Errorf("%s: only %d of %d runs sampled (the rest mined every root): the test tests little", c.name, sampled, seeds)
		}
		if covered < seeds*90/100 {
			t.Errorf("%s: the running interval covered the count in %d of %d runs; want 90%%", c.name, covered, seeds)
		}
	}
}
