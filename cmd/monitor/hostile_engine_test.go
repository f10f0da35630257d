package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// TestDaemonHostileIDsAndMiningBomb drives issue 12's items 5 and 6
// through the daemon over Kafka. Ids that are not valid UTF-8 ("\ud800"
// and "\udbff" escaped, raw 0xff and 0xfe bytes) used to become one node
// (U+FFFD) and fire a false reply alert: they are dead-lettered with a
// reason naming the field, and only the real reply alerts. A hub (300
// edges in, 300 out) makes the path query's batch cost more than
// window.max_mine_steps: the query is truncated for the batch, counted
// like max_matches_per_batch.
func TestDaemonHostileIDsAndMiningBomb(t *testing.T) {
	t.Parallel()
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, "queries:\n  - {name: reply, delta: 3600, edges: [A -> B, B -> A]}\n  - {name: bomb, delta: 3600, edges: [A -> B, B -> C]}\n")
	cfg := strings.Replace(e2eConfig(brokers, "hostile-engine", queries, 10*time.Second), "partitions: 3", "partitions: 1", 1)
	cfg = strings.Replace(cfg, "  per_query:\n    path-count: {mode: count}\n", "", 1)
	cfg = strings.Replace(cfg, "window:\n", "window:\n  max_mine_steps: 2000\n  max_matches_per_batch: 0\n", 1)
	d := startDaemon(t, cfg)
	bad := []string{
		`{"src":"\ud800","dst":"b","t":1000,"seq":1}`,
		`{"src":"b","dst":"\udbff","t":1001,"seq":2}`,
		"{\"src\":\"\xff\",\"dst\":\"c\",\"t\":1002,\"seq\":3}",
		"{\"src\":\"c\",\"dst\":\"\xfe\",\"t\":1003,\"seq\":4}",
	}
	values := append([]string{}, bad...)
	values = append(values, `{"src":"p","dst":"q","t":1004,"seq":5}`, `{"src":"q","dst":"p","t":1005,"seq":6}`)
	for i := range 300 {
		values = append(values, fmt.Sprintf(`{"src":"in%d","dst":"hub","t":%d,"seq":%d}`, i, 2000+i, 10+i))
	}
	for i := range 300 {
		values = append(values, fmt.Sprintf(`{"src":"hub","dst":"out%d","t":%d,"seq":%d}`, i, 2300+i, 310+i))
	}
	// The edge topic has one partition: every record goes to it, in order.
	kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{}, kafkatest.Values(values...)...)
	waitConsumed(t, d.info.MetricsAddr, int64(len(values)))

	m := testenv.Scrape(t, d.info.MetricsAddr)
	if got := m[`motifwatch_pipeline_records_total{outcome="dead_lettered"}`]; got != float64(len(bad)) {
		t.Errorf("dead-lettered records: %v; want the %d with invalid UTF-8 ids", got, len(bad))
	}
	if m[`motifwatch_cap_limit{cap="mine_steps"}`] != 2000 || m[`motifwatch_cap_actions_total{cap="mine_steps"}`] < 1 ||
		m[`motifwatch_matches_truncated_total{query="bomb"}`] < 1 || m[`motifwatch_matches_truncated_total{query="reply"}`] != 0 {
		t.Errorf("mine_steps limit %v, actions %v, bomb truncated %v, reply truncated %v; want 2000, >= 1, >= 1, 0",
			m[`motifwatch_cap_limit{cap="mine_steps"}`], m[`motifwatch_cap_actions_total{cap="mine_steps"}`],
			m[`motifwatch_matches_truncated_total{query="bomb"}`], m[`motifwatch_matches_truncated_total{query="reply"}`])
	}
	var replies, bombs []string
	for _, a := range readAlerts(t, brokers) {
		if a.Kind != alerts.KindMatch {
			continue
		}
		switch a.Query {
		case "reply":
			replies = append(replies, fmt.Sprintf("%s->%s,%s->%s", a.Edges[0].Src, a.Edges[0].Dst, a.Edges[1].Src, a.Edges[1].Dst))
		case "bomb":
			bombs = append(bombs, a.MatchID)
		}
	}
	if len(replies) != 1 || replies[0] != "p->q,q->p" {
		t.Errorf("reply alerts %q; want only p->q,q->p (invalid ids must not merge into one node)", replies)
	}
	if len(bombs) == 0 || len(bombs) >= 300*300 {
		t.Errorf("%d bomb alerts; want some, fewer than the 90,000 paths (truncated)", len(bombs))
	}
	reasons := deadLetterReasons(t, brokers)
	for i, v := range bad {
		want := "invalid UTF-8"
		if i < 2 {
			want = "lone UTF-16 surrogate"
		}
		field := `field "src"`
		if i%2 == 1 {
			field = `field "dst"`
		}
		if r := reasons[v]; !strings.Contains(r, want) || !strings.Contains(r, field) {
			t.Errorf("dead letter of %q: reason %q; want it to name %s and %q", v, r, field, want)
		}
	}
}
