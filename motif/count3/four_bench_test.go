package count3

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
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

// BenchmarkPawCells prices the paw pass for 1, 2, 4 and 8 cells (the
// sparse tables, Options.PawCells, whatever pawSparseMaxCells says; and
// the light walk, for cells it counts) and for all 160 (the dense pass) on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH),
// δ 86400, 1 worker (or MOTIFWATCH_COUNT3_WORKERS): the measure behind
// pawSparseMaxCells and pawCellsCost.
func BenchmarkPawCells(b *testing.B) {
	w := benchGraph(b)
	workers := 1
	if s := os.Getenv("MOTIFWATCH_COUNT3_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("MOTIFWATCH_COUNT3_WORKERS=%q: want a positive integer", s)
		}
		workers = n
	}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	old := pawSparseMaxCells
	pawSparseMaxCells = 8
	b.Cleanup(func() { pawSparseMaxCells = old })
	var light, other []int
	for i := range len(pawNames) {
		if pawLightCell(i) {
			light = append(light, i)
		} else {
			other = append(other, i)
		}
	}
	type set struct {
		name string
		mask PawMask
	}
	var sets []set
	for _, cells := range []int{1, 2, 4, 8} {
		// Spread over the side orders and ranks: the sparse tables'
		// (cells the light walk does not count) and the light walk's.
		var sm, lm PawMask
		for i := range cells {
			sm.Set(other[i*37%len(other)])
			lm.Set(light[i*19%len(light)])
		}
		sets = append(sets, set{fmt.Sprintf("sparse/cells=%d", cells), sm}, set{fmt.Sprintf("light/cells=%d", cells), lm})
	}
	sets = append(sets, set{"cells=160", PawMask{}})
	for _, st := range sets {
		mask := st.mask
		if mask != (PawMask{}) && pawMaskLight(mask) != strings.HasPrefix(st.name, "light") {
			b.Fatalf("%s: light walk %v", st.name, pawMaskLight(mask))
		}
		b.Run(st.name, func(b *testing.B) {
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				if _, err := Count(context.Background(), w, 86400, req, Paws, Options{Workers: workers, PawCells: mask}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkPawLight prices M3 (paw-1234-ffff), M9 (paw-3214-bbbb) and a
// tail-second and a tail-last light-walk cell counted with every triangle walked over its three sides (the sparse
// tables) against the light-side walk (pawlight.go) for a few heavy-side
// ratios (pawLightRatio) and layout thresholds (pawLightMinHeavy), on
// CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH), δ 86400, 1 worker, counts
// checked equal: the measure behind both.
func BenchmarkPawLight(b *testing.B) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	oldMin, oldRatio := pawLightMinHeavy, pawLightRatio
	b.Cleanup(func() { pawLightMinHeavy, pawLightRatio = oldMin, oldRatio })
	for _, q := range []struct{ name, cell string }{{"M3", "paw-1234-ffff"}, {"M9", "paw-3214-bbbb"}, {"tail2", "paw-2143-ffff"}, {"tail4", "paw-4123-ffff"}} {
		i := slices.Index(pawNames[:], q.cell)
		if i < 0 {
			b.Fatalf("no paw cell %s", q.cell)
		}
		var m PawMask
		m.Set(i)
		want := int64(-1) // the three sides' count: every variant must equal it
		for _, v := range []struct {
			min   int
			ratio float64
		}{{1 << 40, 0}, {16, 0.5}, {16, 1}, {16, 2}, {8, 1}, {32, 1}} {
			name := fmt.Sprintf("%s/light/min=%d/ratio=%g", q.name, v.min, v.ratio)
			if v.min == 1<<40 {
				name = q.name + "/three-sides"
			}
			b.Run(name, func(b *testing.B) {
				pawLightMinHeavy, pawLightRatio = v.min, v.ratio
				cpu0 := cpuSeconds(b)
				for b.Loop() {
					raw, err := Count(context.Background(), w, 86400, req, Paws, Options{Workers: 1, PawCells: m})
					if err != nil {
						b.Fatal(err)
					}
					if got := raw.Cells()[Paw+Cell(i)]; want < 0 {
						want = got
					} else if got != want {
						b.Fatalf("%s: %d, three sides %d", name, got, want)
					}
				}
				b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
			})
		}
	}
}
