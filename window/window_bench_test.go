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
		src, dst       string
		srcKey, dstKey window.Key
		t              int64
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
		stream[i] = rec{src: names[u], dst: names[v], t: int64(i / 30)}
	}
	// keyed: the names come with their keys in a node dictionary, as the
	// daemon's decoders give them (off the writer's path, so not timed).
	keys := window.NewKeys()
	for i := range stream {
		stream[i].srcKey, _ = keys.Of(stream[i].src)
		stream[i].dstKey, _ = keys.Of(stream[i].dst)
	}
	for _, c := range []struct {
		batch int
		keyed bool
	}{{10_000, false}, {100_000, false}, {100_000, true}} {
		name := fmt.Sprintf("batch=%d", c.batch)
		if c.keyed {
			name += "/keyed"
		}
		batch := c.batch
		b.Run(name, func(b *testing.B) {
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
						var u, v uint32
						if c.keyed {
							u, _ = w.IDs().InternKey(r.srcKey, r.src)
							v, _ = w.IDs().InternKey(r.dstKey, r.dst)
						} else {
							u, _ = w.IDs().Intern(r.src)
							v, _ = w.IDs().Intern(r.dst)
						}
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
