package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// BenchmarkProcessAppend streams 3M edges over 120,000 nodes (300 a
// second, a window of δ = 3600: ~1.08M edges, ~9 per node, ten batches)
// through
// Processor.ProcessRefs in batches of 100,000 with one count query (a
// single edge) on an engine that mines nothing (so no pair index either,
// as with the GPU engine), and reports the window stage per edge
// (appending, evicting: the processor's serial work before mining) and
// the window's host bytes per edge at the end (window.Window.BytesPerEdge,
// no attributes: issue 14's goal 5; it holds room for a batch beside the
// window). keyed: the edges carry node keys from a
// dictionary shared with the processor, as the daemon's decoders give
// them (keyed before the timed loop: the decoders do it in parallel).
// batch=2000: the same keyed edges in batches of 2,000, below the size
// from which the window's workers share the append (a daemon whose
// batches are cut small by its linger time).
//
//	go test ./stream/ -run '^$' -bench ProcessAppend -benchtime 3x
func BenchmarkProcessAppend(b *testing.B) {
	const nodes, edges, perTick, delta = 120_000, 3_000_000, 300, 3600
	rng := rand.New(rand.NewPCG(3, 4))
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	plain := make([]ingest.Edge, edges)
	for i := range plain {
		u, v := rng.IntN(nodes), rng.IntN(nodes)
		plain[i] = ingest.Edge{Src: names[u], Dst: names[v], T: int64(i / perTick), Origin: ingest.Origin{Offset: int64(i)}}
	}
	q := Query{Query: &motif.Query{Name: "edge", Delta: motif.TicksSpan(delta),
		Nodes: []motif.Node{{Name: "A"}, {Name: "B"}}, Edges: []motif.Edge{{From: 0, To: 1}}}}
	for _, c := range []struct {
		keyed    bool
		batchLen int
	}{{false, 100_000}, {true, 100_000}, {true, 2_000}} {
		keyed, batchLen := c.keyed, c.batchLen
		name := fmt.Sprintf("keyed=%v", keyed)
		if batchLen != 100_000 {
			name += fmt.Sprintf(",batch=%d", batchLen)
		}
		b.Run(name, func(b *testing.B) {
			var keys *window.Keys
			in := plain
			if keyed {
				keys = window.NewKeys()
				in = make([]ingest.Edge, edges)
				for i, e := range plain {
					e.SrcKey, e.Src = keys.Of(e.Src)
					e.DstKey, e.Dst = keys.Of(e.Dst)
					in[i] = e
				}
			}
			refs := make([]*ingest.Edge, edges)
			for i := range in {
				refs[i] = &in[i]
			}
			var windowTime time.Duration
			var bytesPerEdge float64
			var lastLen int
			b.ResetTimer()
			for range b.N {
				p, err := New(Options{Engine: idleEngine{}, Schema: window.Schema{TimeUnit: time.Second}, NodeKeys: keys})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.SetQueries([]Query{q}); err != nil {
					b.Fatal(err)
				}
				for lo := 0; lo < edges; lo += batchLen {
					batch := refs[lo:min(lo+batchLen, edges)]
					out, err := p.ProcessRefs(context.Background(), batch, batch[len(batch)-1].T)
					if err != nil {
						b.Fatal(err)
					}
					windowTime += out.Stages.Window
				}
				bytesPerEdge = p.Window().BytesPerEdge()
				lastLen = p.Window().Len()
			}
			b.ReportMetric(float64(windowTime.Nanoseconds())/float64(edges*b.N), "window-ns/edge")
			b.ReportMetric(bytesPerEdge, "B/edge")
			b.ReportMetric(float64(lastLen), "window-edges")
		})
	}
}

// idleEngine mines nothing.
type idleEngine struct{}

func (idleEngine) Mine(context.Context, *window.Window, *motif.Plan, motif.Request) (motif.Result, error) {
	return motif.Result{}, nil
}
