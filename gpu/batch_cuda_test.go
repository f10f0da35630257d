//go:build cuda

package gpu_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
)

// BenchmarkBatchOverWindow is issue 16's streaming goal and its "no
// floor" goal: a large window ($MOTIFWATCH_WINDOW_GRAPH, whole file, e.g.
// 10M tgraphgen edges) mirrored once, then its last -batch edges mined as
// one batch by ten queries (M1…M10, delta 1 h, count mode), as the daemon
// mines a batch's new edges. Each query touches ~1% of the window, so its
// call must cost in proportion to the batch, not the window. Reported:
// the ten calls together per batch (batch-ms) and the slowest query's
// median call (max-query-ms), medians over b.N batches, and the kernels'
// share (kernel-ms/batch, a mean).
func BenchmarkBatchOverWindow(b *testing.B) {
	path := os.Getenv("MOTIFWATCH_WINDOW_GRAPH")
	if path == "" {
		b.Skip("MOTIFWATCH_WINDOW_GRAPH names no graph")
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := gpu.New(gpu.Options{Devices: []int{0}})
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer e.Close()
	if err := e.Prepare(context.Background(), w); err != nil {
		b.Fatal(err)
	}
	const delta = 3600
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10"}
	var plans []*motif.Plan
	for _, n := range names {
		plans = append(plans, compileBuiltin(b, w, n, delta))
	}
	for _, batch := range []int64{100000, 10000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			req := motif.Request{Range: motif.Range{Lo: w.End() - batch, Hi: w.End()}, Horizon: w.LastT()}
			per := make([][]time.Duration, len(plans))
			var batches []time.Duration
			var matches int64
			mine0 := e.Stats()[0].Mine
			for range b.N {
				t0 := time.Now()
				for i, p := range plans {
					t1 := time.Now()
					r, err := e.Mine(context.Background(), w, p, req)
					if err != nil {
						b.Fatal(err)
					}
					per[i] = append(per[i], time.Since(t1))
					matches += r.Matches + r.Open
				}
				batches = append(batches, time.Since(t0))
			}
			med := func(d []time.Duration) float64 {
				s := slices.Clone(d)
				slices.Sort(s)
				return s[len(s)/2].Seconds() * 1e3
			}
			worst, worstName := 0.0, ""
			var line string
			for i, d := range per {
				m := med(d)
				line += fmt.Sprintf(" %s=%.3f", names[i], m)
				if m > worst {
					worst, worstName = m, names[i]
				}
			}
			b.ReportMetric(med(batches), "batch-ms")
			// Launch to read-back of the control block, summed over the ten
			// calls (the rest of batch-ms is the calls' host work).
			b.ReportMetric((e.Stats()[0].Mine-mine0).Seconds()*1e3/float64(b.N), "kernel-ms/batch")
			b.ReportMetric(worst, "max-query-ms")
			b.ReportMetric(float64(matches)/float64(b.N), "matches")
			b.Logf("window %d edges, batch %d, per-query median ms:%s (slowest %s)", w.Len(), batch, line, worstName)
		})
	}
}
