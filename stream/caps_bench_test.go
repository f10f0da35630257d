package stream

import (
	"fmt"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
)

// BenchmarkHostile streams each hostile shape through a processor and
// reports what the window holds at the end: live ids and dense-id
// capacity (ids must leave with their last edge), edges, bytes and bytes
// per edge, and edges evicted early by the memory cap.
//
//	go test ./stream/ -run '^$' -bench Hostile -benchtime 1x
func BenchmarkHostile(b *testing.B) {
	const edges = 500_000 // 1M never-repeating ids
	for _, c := range []struct {
		name     string
		opts     Options
		delta    int64
		edge     func(n int) ingest.Edge
		batchLen int
	}{
		{"never-repeating-ids", Options{}, 100, func(n int) ingest.Edge {
			return ingest.Edge{Src: fmt.Sprint("s", n), Dst: fmt.Sprint("d", n), T: int64(n)}
		}, 1000},
		{"hub-capped-64MiB", Options{MaxBytes: 64 << 20}, 1 << 40, func(n int) ingest.Edge {
			return ingest.Edge{Src: "hub", Dst: fmt.Sprint(n % 50_000), T: int64(n)}
		}, 5000},
		{"equal-timestamps-capped-64MiB", Options{MaxBytes: 64 << 20}, 1 << 40, func(n int) ingest.Edge {
			return ingest.Edge{Src: fmt.Sprint(n % 30_000), Dst: fmt.Sprint(n%70_000 + 30_000), T: 1_700_000_000}
		}, 5000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				p, _ := capProcessor(b, c.opts, pathQuery(c.delta, false))
				early := 0
				batch := make([]ingest.Edge, c.batchLen)
				for start := 0; start < edges; start += c.batchLen {
					for i := range batch {
						batch[i] = c.edge(start + i)
					}
					early += process(b, p, batch).EvictedEarly
				}
				w := p.Window()
				b.ReportMetric(float64(w.IDs().Len()), "live-ids")
				b.ReportMetric(float64(w.IDs().Cap()), "id-capacity")
				b.ReportMetric(float64(w.Len()), "edges")
				b.ReportMetric(float64(w.Bytes())/(1<<20), "window-MiB")
				b.ReportMetric(w.BytesPerEdge(), "B/edge")
				b.ReportMetric(float64(early), "evicted-early")
			}
		})
	}
}
