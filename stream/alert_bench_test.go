package stream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// BenchmarkAlertRecords mines a fan-in burst (30 payers of one account,
// C(30,4) = 27,405 matches of a four-edge fan-in) in enumerate mode: the
// cost of building the alert records (edges, attributes, nodes, times,
// ids) per match, which the engine's part shares with count mode.
func BenchmarkAlertRecords(b *testing.B) {
	schema := window.Schema{TimeUnit: time.Second,
		EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}, {Name: "currency", Kind: window.String}}}
	var edges []ingest.Edge
	for i := range 30 {
		edges = append(edges, ingest.Edge{Src: fmt.Sprintf("payer-%d", i), Dst: "hub", T: int64(i), Seq: int64(i), HasSeq: true,
			Attrs:  []ingest.Value{{Num: 500 + float64(i), Kind: window.Number, Set: true}, {Str: "EUR", Kind: window.String, Set: true}},
			Origin: ingest.Origin{Offset: int64(i)}})
	}
	q := &motif.Query{Name: "fan-in", Description: "four payers of one account", Delta: motif.TicksSpan(100),
		Nodes: []motif.Node{{Name: "S1"}, {Name: "S2"}, {Name: "S3"}, {Name: "S4"}, {Name: "T"}},
		Edges: []motif.Edge{{From: 0, To: 4}, {From: 1, To: 4}, {From: 2, To: 4}, {From: 3, To: 4}}}
	b.ReportAllocs()
	matches := 0
	for b.Loop() {
		b.StopTimer()
		p, err := New(Options{Engine: cpu.New(1), Schema: schema})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.SetQueries([]Query{{Query: q, Enumerate: true}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		out, err := p.Process(context.Background(), edges, motif.Batch)
		if err != nil {
			b.Fatal(err)
		}
		matches = len(out.Alerts)
	}
	if matches != 27405 {
		b.Fatalf("%d alerts; want C(30,4) = 27405", matches)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*matches), "ns/alert")
}
