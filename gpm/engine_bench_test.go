package gpm_test

import (
	"fmt"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
)

// BenchmarkCiteseer counts cliques (k = 3..8) and motifs (k = 3..6) on
// citeseer with 1 and 2 workers, balancing off (DM_WC) and on (DM_OPT).
// The subgraphs/s metric and the ratios between configurations are the
// figures of BENCHMARKS.md; absolute times on shared CPUs are not.
//
//	go test ./gpm/ -run '^$' -bench Citeseer -benchtime 3x
func BenchmarkCiteseer(b *testing.B) {
	g := citeseer(b)
	type job struct {
		app gpm.App
		k   int
	}
	var jobs []job
	for k := 3; k <= 8; k++ {
		jobs = append(jobs, job{gpm.Clique, k})
	}
	for k := 3; k <= 6; k++ {
		jobs = append(jobs, job{gpm.Motif, k})
	}
	// The references of ARCHITECTURE.md and the issue: a wrong count fails the
	// benchmark.
	want := map[job]uint64{{gpm.Clique, 3}: 1166, {gpm.Clique, 4}: 255, {gpm.Clique, 5}: 46, {gpm.Clique, 6}: 4,
		{gpm.Clique, 7}: 0, {gpm.Clique, 8}: 0, {gpm.Motif, 4}: 362232, {gpm.Motif, 5}: 7668883, {gpm.Motif, 6}: 168189810}
	for _, j := range jobs {
		for _, o := range []gpm.CPUOptions{{Workers: 1}, {Workers: 2}, {Workers: 2, Balance: true}} {
			name := fmt.Sprintf("%s/k=%d/workers=%d/balance=%v", j.app, j.k, o.Workers, o.Balance)
			b.Run(name, func(b *testing.B) {
				var r *gpm.Result
				for b.Loop() {
					r = run(b, g, j.app, j.k, o)
				}
				if w, ok := want[j]; ok && r.Total != w {
					b.Fatalf("%s: total %d; want %d", name, r.Total, w)
				}
				b.ReportMetric(float64(r.Total)*float64(b.N)/b.Elapsed().Seconds(), "subgraphs/s")
				b.ReportMetric(float64(r.Stats.Moved), "moved")
			})
		}
	}
}
