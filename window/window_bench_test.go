package window_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// BenchmarkSlidingWindow measures the host window's share of streaming:
// interning names, appending batches and evicting past δ, as the daemon
// does before every mining call (the GPU engine's streaming rate is
// bounded by it once the kernels take a few ms per batch: BENCHMARKS.md). The stream is skewed
// like tgraphgen's: one hub on a third of the edges, 30 edges per time
// unit, δ = 3600 (a window of ~108,000 edges).
func BenchmarkSlidingWindow(b *testing.B) {
	const nodes, edges, delta = 200_000, 1_000_000, 3600
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	type rec struct {
		src, dst string
		t        int64
	}
	stream := make([]rec, edges)
	for i := range stream {
		u, v := rng.IntN(nodes), rng.IntN(nodes)
		if rng.IntN(3) == 0 {
			u = 0 // the hub
		}
		if u == v {
			v = (v + 1) % nodes
		}
		stream[i] = rec{names[u], names[v], int64(i / 30)}
	}
	for _, batch := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			var bytesPerEdge float64
			for range b.N {
				w, err := window.New(window.Schema{TimeUnit: time.Second})
				if err != nil {
					b.Fatal(err)
				}
				for lo := 0; lo < edges; lo += batch {
					for _, r := range stream[lo:min(lo+batch, edges)] {
						// Names interned per record, as the decoder does
						// (ids of vertices that left the window are reused).
						u, _ := w.IDs().Intern(r.src)
						v, _ := w.IDs().Intern(r.dst)
						if _, err := w.Append(window.Edge{Src: u, Dst: v, T: r.t}); err != nil {
							b.Fatal(err)
						}
					}
					w.EvictBefore(w.LastT() - delta)
				}
				bytesPerEdge = w.BytesPerEdge()
			}
			b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(bytesPerEdge, "B/edge")
		})
	}
}
