package daemon

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
)

// BenchmarkStatusAPI is one /api/status answer's work (what the console
// fetches every 2 s): the snapshot, which gathers the registry, and its
// compact JSON, for 2 queries, 12 partitions, a full history and 100 alerts of
// three edges each.
func BenchmarkStatusAPI(b *testing.B) {
	board, clk := testBoard(b)
	r := newConsoleRegistry(b)
	board.gather = r.reg
	for p := range 12 {
		r.pm.lag.WithLabelValues(fmt.Sprint(p)).Set(float64(p))
		r.im.Consumed(p, 1000)
	}
	for i := range historyLen {
		clk.t = statusT0.Add(time.Duration(i) * historyStep)
		board.batch(batchStatus{edges: 1000, matches: map[string]int64{"ring": 3, "fan": 1}})
		r.pm.latencySeconds.Observe(0.01)
		board.sample()
	}
	for i := range recentAlerts {
		edges := []alerts.Edge{{Src: "acct-1", Dst: "acct-2", T: 1, Offset: int64(i)}, {Src: "acct-2", Dst: "acct-3", T: 2}, {Src: "acct-3", Dst: "acct-1", T: 3}}
		board.written([]alerts.Alert{{Kind: alerts.KindMatch, Query: "ring", MatchID: fmt.Sprintf("%032x", i), Edges: edges, DetectedAt: clk.t,
			Nodes: map[string]alerts.Node{"A": {ID: "acct-1"}, "B": {ID: "acct-2"}, "C": {ID: "acct-3"}}}})
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		w := countingWriter{}
		enc := json.NewEncoder(&w) // compact, as the console asks for it
		if err := enc.Encode(board.snapshot()); err != nil {
			b.Fatal(err)
		}
		size = w.n
	}
	b.ReportMetric(float64(size), "json_bytes")
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
