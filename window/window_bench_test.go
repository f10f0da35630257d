package window_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// BenchmarkSlidingWindow measures the host window's share of streaming:
// appending batches and evicting past δ, as the daemon does before every
// mining call (the GPU engine's streaming rate is bounded by it once the
// kernels take a few ms per batch: BENCHMARKS.md). The stream is skewed
// like tgraphgen's: one hub on a third of the edges, 30 edges per time
// unit, δ = 3600 (a window of ~108,000 edges).
func BenchmarkSlidingWindow(b *testing.B) {
	const nodes, edges, delta = 200_000, 1_000_000, 3600
	rng := rand.New(rand.NewPCG(1, 2))
	stream := make([]window.Edge, edges)
	for i := range stream {
		u, v := uint32(rng.IntN(nodes)), uint32(rng.IntN(nodes))
		if rng.IntN(3) == 0 {
			u = 0 // the hub
		}
		if u == v {
			v = (v + 1) % nodes
		}
		stream[i] = window.Edge{Src: u, Dst: v, T: int64(i / 30)}
	}
	for _, batch := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			var bytesPerEdge float64
			for range b.N {
				w, err := window.New(window.Schema{TimeUnit: time.Second})
				if err != nil {
					b.Fatal(err)
				}
				for i := range nodes {
					w.IDs().Intern(fmt.Sprint(i))
				}
				for lo := 0; lo < edges; lo += batch {
					for _, e := range stream[lo:min(lo+batch, edges)] {
						if _, err := w.Append(e); err != nil {
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
