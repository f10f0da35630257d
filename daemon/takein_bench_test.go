package daemon

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

// BenchmarkPipelineTakeIn measures the pipeline goroutine's own work per
// edge, without Kafka and without mining (no queries): taking decoded
// chunks in (offsets, duty, the reorder buffer), releasing batches of
// 100,000 and appending them to the window (and evicting). Eight
// partitions, chunks of 4,096 records (131,072 edges a round), edges one
// second apart in each partition over 50,000 nodes. This is the serial
// part of the streaming path that bounds its edges/s however many cores
// decode. (With no query the window keeps no edge from one batch to the
// next: every node is interned anew each batch.) The window append runs
// on the batch's own goroutine (pipeline_batch.go), overlapping the next
// batch's taking in: with two cores free the figure is about the larger
// of the two, not their sum.
//
//	go test ./daemon/ -run '^$' -bench PipelineTakeIn -benchtime 3x -cpuprofile cpu.prof
func BenchmarkPipelineTakeIn(b *testing.B) { benchTakeIn(b, false) }

// BenchmarkPipelineTakeInWindow is BenchmarkPipelineTakeIn with a window
// that keeps its edges as the daemon's does: one count query of δ = 3600
// (28,800 edges, every node live) on an engine that mines nothing, so
// that what is measured is still taking in, releasing and appending
// (evicting the edges that leave), now to a window whose nodes stay.
func BenchmarkPipelineTakeInWindow(b *testing.B) { benchTakeIn(b, true) }

func benchTakeIn(b *testing.B, keep bool) {
	// The decoder keys nodes and the processor shares its dictionary, as
	// in the daemon (decodeOptions, newMiner).
	keys := window.NewKeys()
	p, _, _ := capPipeline(b, stream.Options{NodeKeys: keys}, 0, time.Now())
	if err := p.miner.proc.SetQueries(nil); err != nil {
		b.Fatal(err)
	}
	if keep {
		proc, err := stream.New(stream.Options{Engine: idleEngine{}, Schema: window.Schema{TimeUnit: time.Second}, NodeKeys: keys})
		if err != nil {
			b.Fatal(err)
		}
		q := &motif.Query{Name: "path", Delta: motif.TicksSpan(3600),
			Nodes: []motif.Node{{Name: "A"}, {Name: "B"}}, Edges: []motif.Edge{{From: 0, To: 1}}}
		if err := proc.SetQueries([]stream.Query{{Query: q}}); err != nil {
			b.Fatal(err)
		}
		p.miner.proc = proc
	}
	p.batcher.size = 100_000
	const parts, perChunk, chunks = 8, 4096, 32 // 131,072 edges per round
	var cs []*kafka.Chunk
	for k := range chunks {
		part := k % parts
		c := &kafka.Chunk{Partition: part, Fetched: time.Now()}
		for i := range perChunk {
			n := (k/parts)*perChunk + i
			v := fmt.Appendf(nil, `{"src":"n%d","dst":"n%d","time":%d}`, (n*7919+part)%50_000, (n*104729+3*part)%50_000, n)
			m := kafka.Message{Topic: "edges", Partition: part, Offset: int64(n), HighWaterMark: 1 << 40, Value: v}
			e, err := p.parts.dec.Decode(v, ingest.Origin{Topic: "edges", Partition: part, Offset: int64(n)})
			if err != nil {
				b.Fatal(err)
			}
			c.Recs, c.Edges, c.Errs = append(c.Recs, m), append(c.Edges, e), append(c.Errs, nil)
		}
		cs = append(cs, c)
	}
	span := int64(chunks / parts * perChunk)
	ctx := context.Background()
	edges := 0
	cpu0 := processCPU()
	b.ResetTimer()
	for round := range b.N {
		for _, c := range cs {
			// As the fetcher does for a chunk whose edges the reorder
			// buffer kept (kafka.Chunk.KeepEdges), each round decodes into
			// a new array (copied here, outside the timer).
			b.StopTimer()
			es := make([]ingest.Edge, len(c.Edges))
			copy(es, c.Edges)
			c.Edges = es
			if round > 0 {
				for i := range c.Recs {
					c.Recs[i].Offset += span
					c.Edges[i].T += span
					c.Edges[i].Origin.Offset += span
				}
			}
			b.StartTimer()
			if err := p.takeChunk(ctx, c); err != nil {
				b.Fatal(err)
			}
			edges += len(c.Recs)
		}
	}
	if err := p.batch(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(edges), "ns/edge")
	// CPU time of the process (every goroutine, the GC's included): on a
	// shared machine the wall clock also counts the time others ran.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(edges), "cpu-ns/edge")
	b.ReportMetric(float64(p.miner.proc.Window().Len()), "window-edges")
	if p.stats.Late+p.stats.DeadLettered > 0 {
		b.Fatalf("stats %+v: records late or dead-lettered", p.stats)
	}
}

// idleEngine mines nothing (BenchmarkPipelineTakeInWindow).
type idleEngine struct{}

func (idleEngine) Mine(context.Context, *window.Window, *motif.Plan, motif.Request) (motif.Result, error) {
	return motif.Result{}, nil
}

// processCPU returns the process's user and system CPU time in ns.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
