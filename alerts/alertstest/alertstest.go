// Package alertstest holds alert records for the tests of the packages
// that write them (the stdout sink in alerts, the Kafka sink in
// kafka), so that both check their encodings against one set.
package alertstest

import (
	"time"

	"github.com/motifwatch/motifwatch/alerts"
)

// Sample returns records of every kind for three queries, one with a
// non-ASCII name, including a provisional match, and a match that carries
// what routes it (severity, labels, annotations, source, status URL).
func Sample() []alerts.Alert {
	at := time.Date(2025, 3, 1, 12, 0, 5, 123e6, time.UTC)
	edges := []alerts.Edge{
		{Src: "a", Dst: "b", T: 100, Seq: 1, Partition: 2, Offset: 17},
		{Src: "b", Dst: "c", T: 160, Seq: 2, Partition: 0, Offset: 4},
	}
	var out []alerts.Alert
	for i, q := range []string{"ring", "fan-in", "ünïcode query"} {
		out = append(out,
			alerts.Alert{Kind: alerts.KindMatch, Query: q, MatchID: alerts.MatchID(q, edges, true), Edges: edges, First: 100, Last: 160, DetectedAt: at},
			alerts.Alert{Kind: alerts.KindCount, Query: q, Count: int64(10 + i), From: at.Add(-time.Minute), To: at, DetectedAt: at.Add(time.Second)},
			alerts.Alert{Kind: alerts.KindRateLimited, Query: q, Count: 3, From: at.Add(-time.Minute), To: at, DetectedAt: at.Add(2 * time.Second)},
			alerts.Alert{Kind: alerts.KindMatch, Query: q, MatchID: alerts.MatchID(q, edges[:1], false), Edges: edges[:1], First: 100, Last: 100, DetectedAt: at, Provisional: true},
		)
	}
	routed := out[0]
	routed.Severity, routed.Labels = "page", map[string]string{"team": "fraud"}
	routed.Annotations = map[string]string{"summary": "ring: a → b → c", "runbook_url": "https://runbooks.example/ring"}
	routed.Source, routed.StatusURL = alerts.Source{Instance: "mw-0", Topic: "edges", Group: "motifwatch"}, "http://mw-0:9464/"
	return append(out, routed)
}
