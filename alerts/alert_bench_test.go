package alerts

import (
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkAlertJSON encodes a four-edge match record as the Kafka sink
// does: the per-record cost every alert pays after it is built.
func BenchmarkAlertJSON(b *testing.B) {
	a := Alert{Kind: KindMatch, Query: "fan-in", Description: "four payers of one account", MatchID: "779dfb5d989b059e589d628f7b80c2fd",
		Nodes: map[string]Node{"S1": {ID: "payer-1"}, "S2": {ID: "payer-2"}, "S3": {ID: "payer-3"}, "S4": {ID: "payer-4"}, "T": {ID: "hub"}},
		First: 1796216416, Last: 1796216448, FirstTime: "2026-12-02T13:00:16Z", LastTime: "2026-12-02T13:00:48Z", DetectedAt: time.Now()}
	for i := range 4 {
		a.Edges = append(a.Edges, Edge{Src: "payer-1", Dst: "hub", T: 1796216416 + int64(i), Time: "2026-12-02T13:00:16Z", Seq: 111, Partition: 2, Offset: 18,
			Attrs: map[string]any{"amount": 967.6, "currency": "EUR"}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(a); err != nil {
			b.Fatal(err)
		}
	}
}
