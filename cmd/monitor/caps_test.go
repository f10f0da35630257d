package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestDaemonCapsAct drives hostile input through the daemon over Kafka: a
// hub whose fan-out makes more matches in a batch than
// max_matches_per_batch, edges with new node ids past max_nodes, a record
// from a broken clock a decade ahead, and one far in the past. Each cap
// acts, is counted in motifwatch_cap_actions_total, and every refused
// record is on the dead-letter topic with its reason: the record
// accounting still adds up.
func TestDaemonCapsAct(t *testing.T) {
	t.Parallel()
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, "queries:\n  - name: fan\n    delta: 3600\n    edges: [A -> B, A -> C]\n")
	cfg := strings.Replace(e2eConfig(brokers, "caps", queries, 10*time.Second), "partitions: 3", "partitions: 1", 1)
	cfg = strings.Replace(cfg, "  per_query:\n    path-count: {mode: count}\n", "", 1)
	cfg = strings.Replace(cfg, "window:\n", "window:\n  max_nodes: 12\n  max_matches_per_batch: 5\n  max_future: 1h\n", 1)
	d := startDaemon(t, cfg)
	// The edge topic has one partition: every record goes to it, in order.
	send := func(values ...string) {
		t.Helper()
		kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{}, kafkatest.Values(values...)...)
	}
	var hub []string
	for i := range 10 { // 11 ids, 45 fan matches
		hub = append(hub, fmt.Sprintf(`{"src":"hub","dst":"l%d","t":%d,"seq":%d}`, i, 1000+i, i))
	}
	nodeCapped := `{"src":"x1","dst":"x2","t":1020,"seq":20}` // 11 + 2 new ids > 12
	future := fmt.Sprintf(`{"src":"f1","dst":"f2","t":%d,"seq":21}`, time.Now().AddDate(10, 0, 0).Unix())
	send(hub...)
	send(nodeCapped, future)
	waitConsumed(t, d.info.MetricsAddr, 12)
	past := `{"src":"hub","dst":"l1","t":-1000000000,"seq":22}` // 2001 years before the watermark
	send(past)
	waitConsumed(t, d.info.MetricsAddr, 13)

	m := testenv.Scrape(t, d.info.MetricsAddr)
	for name, want := range map[string]float64{
		`motifwatch_cap_actions_total{cap="nodes"}`:                        1,
		`motifwatch_cap_actions_total{cap="future"}`:                       1,
		`motifwatch_cap_actions_total{cap="window_bytes"}`:                 0,
		`motifwatch_cap_limit{cap="nodes"}`:                                12,
		`motifwatch_cap_limit{cap="future"}`:                               3600,
		`motifwatch_pipeline_records_total{outcome="appended"}`:            10,
		`motifwatch_pipeline_records_total{outcome="late"}`:                1,
		`motifwatch_pipeline_records_total{outcome="dead_lettered"}`:       2,
		`motifwatch_ingest_records_dead_lettered_total{reason="node_cap"}`: 1,
		`motifwatch_ingest_records_dead_lettered_total{reason="future"}`:   1,
		`motifwatch_ingest_records_dead_lettered_total{reason="late"}`:     1,
		`motifwatch_window_nodes`:                                          11,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (present %v); want %v", name, got, ok, want)
		}
	}
	truncated := m[`motifwatch_matches_truncated_total{query="fan"}`]
	if truncated < 1 || m[`motifwatch_cap_actions_total{cap="matches_per_batch"}`] != truncated {
		t.Errorf("fan truncated in %v batches, cap actions %v; want at least 1, equal", truncated, m[`motifwatch_cap_actions_total{cap="matches_per_batch"}`])
	}
	var fan int
	for _, a := range readAlerts(t, brokers) {
		if a.Kind == alerts.KindMatch && a.Query == "fan" {
			fan++
		}
	}
	// 45 fan matches exist; a truncated batch reports exactly 5 of its own.
	if fan < 5 || fan >= 45 {
		t.Errorf("%d fan alerts with %v truncated batches; want at least 5, fewer than the 45 matches", fan, truncated)
	}

	reasons := deadLetterReasons(t, brokers)
	for v, want := range map[string]string{nodeCapped: "node cap", future: "future edge", past: "late edge"} {
		if !strings.Contains(reasons[v], want) {
			t.Errorf("dead letter of %s: reason %q; want it to mention %q", v, reasons[v], want)
		}
	}
}

// deadLetterReasons reads the dead-letter topic: record value → reason.
func deadLetterReasons(t *testing.T, brokers []string) map[string]string {
	t.Helper()
	reasons := map[string]string{}
	for _, msg := range kafkatest.ReadTopic(t, brokers, "edges-dlq") {
		for _, h := range msg.Headers {
			if h.Key == kafka.HeaderReason {
				reasons[string(msg.Value)] = string(h.Value)
			}
		}
	}
	return reasons
}
