package count3

import (
	"context"
	"fmt"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
)

// BenchmarkFourAgainstEngine prices the cycle and paw counters against
// the general CPU engine that enumerates the same query, 2 workers each,
// on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH): Everest's M3 and M9 (paws)
// and M4 and M7 (four-cycles); the environment as for benchAgainstEngine.
func BenchmarkFourAgainstEngine(b *testing.B) {
	benchAgainstEngine(b, []string{"M3", "M9", "M4", "M7"}, []int64{3600, 86400})
}

// BenchmarkCycleCells prices the cycle pass for 1, 2, 4 and 8 cells (the
// sparse window, Options.CycleCells) against all 32 (the full window)
// on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH), δ 86400, 1 worker: the
// measure behind sparseMaxCells; each with the groups counted cycle by
// cycle (listing) and by the cheaper method per group (auto: the wedge
// sweeps where wedgeCheaper says, cycle4wedge.go).
func BenchmarkCycleCells(b *testing.B) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	for _, cells := range []int{1, 2, 4, 8, 32} {
		mask := uint32(1)<<cells - 1
		if cells == 32 {
			mask = 0
		}
		for _, m := range []struct {
			name string
			v    int
		}{{"listing", -1}, {"auto", 0}} {
			b.Run(fmt.Sprintf("cells=%d/%s", cells, m.name), func(b *testing.B) {
				old := cycleWedges
				defer func() { cycleWedges = old }()
				cycleWedges = m.v
				cpu0 := cpuSeconds(b)
				for b.Loop() {
					if _, err := Count(context.Background(), w, 86400, req, Cycles4, Options{Workers: 1, CycleCells: mask}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
			})
		}
	}
}
