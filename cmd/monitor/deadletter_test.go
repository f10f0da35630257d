package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// hostileConfig is e2eConfig with one enumerate-mode query, path: a→b→c.
func hostileConfig(t *testing.T, brokers []string, group string) string {
	t.Helper()
	queries := writeQueries(t, "queries:\n  - name: path\n    delta: 3600\n    edges: [A -> B, B -> C]\n")
	cfg := e2eConfig(brokers, group, queries, 0)
	return strings.Replace(cfg, "  per_query:\n    path-count: {mode: count}\n", "", 1)
}

// sendTo writes msgs to the edge topic, each to its Partition, as a
// producer other than motifwatch would (zstd-compressed when compress is
// set).
func sendTo(t *testing.T, brokers []string, compress bool, msgs ...kafka.Message) {
	t.Helper()
	kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{Compress: compress}, msgs...)
}

// pathEdges are a→b (partition 1) and b→c (partition 2): one path match
// whose records share no partition with the hostile ones on partition 0.
func pathEdges() []kafka.Message {
	return []kafka.Message{
		{Partition: 1, Value: []byte(`{"src":"a","dst":"b","t":1000,"seq":1}`)},
		{Partition: 2, Value: []byte(`{"src":"b","dst":"c","t":1001,"seq":2}`)},
	}
}

// waitPathAlert polls the alert topic for the path match a→b→c.
func waitPathAlert(t *testing.T, brokers []string, d *runningDaemon) {
	t.Helper()
	found := testenv.Poll(90*time.Second, 200*time.Millisecond, func() bool {
		for _, a := range readAlerts(t, brokers) {
			if a.Kind == alerts.KindMatch && a.Query == "path" {
				return true
			}
		}
		return false
	})
	if !found {
		m := testenv.Scrape(t, d.info.MetricsAddr)
		t.Fatalf("no path alert: the daemon is wedged; dead-letter write errors %v, dead-lettered %v, appended %v",
			m[`motifwatch_kafka_errors_total{operation="dead_letter"}`], m["motifwatch_ingest_records_dead_lettered_total"],
			m[`motifwatch_pipeline_records_total{outcome="appended"}`])
	}
}

// TestDaemonHostileRecordsDoNotWedge reproduces issue 12 item 1 over the
// Kafka protocol: an undecodable record just under the broker's 1 MiB
// limit (its dead letter, whole with the motifwatch-* headers, is over
// it) and a 5 MB oversized record sent zstd-compressed (the broker
// accepts it by its compressed size) are dead-lettered truncated, with
// their sizes and hashes, and valid edges on other partitions are mined:
// before, the broker refused the dead letter (MESSAGE_TOO_LARGE), the
// writer retried it every 5 s forever and nothing was mined again.
func TestDaemonHostileRecordsDoNotWedge(t *testing.T) {
	t.Parallel()
	brokers := kafkatest.StartBroker(t)
	d := startDaemon(t, hostileConfig(t, brokers, "hostile"))
	// Undecodable: an unterminated string. Sized so that the record fits
	// the edge topic's limit with a little room.
	huge := append([]byte(`{"src":"`), bytes.Repeat([]byte("a"), 1<<20-400)...)
	bomb := bytes.Repeat([]byte(`{"src":"x","dst":"y","t":1}`), 5_000_000/27)
	sendTo(t, brokers, false, kafka.Message{Partition: 0, Value: huge, Headers: []kafka.Header{{Key: "trace", Value: []byte("h1")}}})
	sendTo(t, brokers, true, kafka.Message{Partition: 0, Value: bomb})
	sendTo(t, brokers, false, pathEdges()...)
	waitPathAlert(t, brokers, d)
	waitConsumed(t, d.info.MetricsAddr, 4)

	m := testenv.Scrape(t, d.info.MetricsAddr)
	for name, want := range map[string]float64{
		`motifwatch_ingest_records_dead_lettered_total{reason="decode"}`:   1,
		`motifwatch_ingest_records_dead_lettered_total{reason="oversize"}`: 1,
		`motifwatch_ingest_dead_letter_truncated_total`:                    2,
		`motifwatch_ingest_dead_letter_lost_total`:                         0,
		`motifwatch_pipeline_records_total{outcome="appended"}`:            2,
	} {
		if got := m[name]; got != want {
			t.Errorf("%s = %v; want %v", name, got, want)
		}
	}
	if resp, err := http.Get("http://" + d.info.MetricsAddr + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz = %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}

	dls := kafkatest.ReadTopic(t, brokers, "edges-dlq")
	if len(dls) != 2 {
		t.Fatalf("%d dead letters; want 2", len(dls))
	}
	for _, dl := range dls {
		h := map[string]string{}
		for _, kv := range dl.Headers {
			h[kv.Key] = string(kv.Value)
		}
		src := huge
		if h[kafka.HeaderSourceOffset] == "1" {
			src = bomb
		}
		sum := sha256.Sum256(src)
		if h[kafka.HeaderTruncated] != "value" || h[kafka.HeaderOriginalSize] != strconv.Itoa(len(src)) ||
			h[kafka.HeaderOriginalSHA256] != hex.EncodeToString(sum[:]) || !bytes.HasPrefix(src, dl.Value) ||
			len(dl.Value) > kafka.DefaultDeadLetterMaxBytes || len(dl.Value) < kafka.DefaultDeadLetterMaxBytes/2 {
			t.Errorf("dead letter of offset %s: %d bytes, headers %v; want a prefix of the %d-byte source under the cap, truncated, its size and SHA-256",
				h[kafka.HeaderSourceOffset], len(dl.Value), h, len(src))
		}
	}
}

// TestDaemonDeadLetterLost: a dead-letter topic that refuses even the
// minimal dead letter (its max.message.bytes is 256) costs the record its
// dead letter, never the daemon: counted lost, logged at error with its
// source position, and the valid edges are mined.
func TestDaemonDeadLetterLost(t *testing.T) {
	t.Parallel()
	brokers := kafkatest.StartBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &kafkago.Transport{} // not kafka-go's default: that one is never closed
	defer tr.CloseIdleConnections()
	c := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}
	res, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{
		{Topic: "edges", NumPartitions: 3, ReplicationFactor: 1},
		{Topic: "edges-dlq", NumPartitions: 3, ReplicationFactor: 1,
			ConfigEntries: []kafkago.ConfigEntry{{ConfigName: "max.message.bytes", ConfigValue: "256"}}}}})
	if err != nil || res.Errors["edges"] != nil || res.Errors["edges-dlq"] != nil {
		t.Fatalf("creating the topics: %v %v", err, res)
	}
	var log testenv.SyncBuffer
	d := startDaemonWith(t, hostileConfig(t, brokers, "lost"), slog.New(slog.NewTextHandler(&log, nil)))
	garbage := make([]byte, 4096) // random: it does not compress under the limit
	rand.NewChaCha8([32]byte{7}).Read(garbage)
	sendTo(t, brokers, false, kafka.Message{Partition: 0, Value: garbage})
	sendTo(t, brokers, false, pathEdges()...)
	waitPathAlert(t, brokers, d)
	waitConsumed(t, d.info.MetricsAddr, 3)

	m := testenv.Scrape(t, d.info.MetricsAddr)
	for name, want := range map[string]float64{
		`motifwatch_ingest_dead_letter_lost_total{reason="decode"}`:            1,
		`motifwatch_pipeline_records_total{outcome="dead_letter_lost"}`:        1,
		`motifwatch_pipeline_records_total{outcome="dead_lettered"}`:           0,
		`motifwatch_ingest_records_dead_lettered_total`:                        0,
		`motifwatch_ingest_dead_letter_write_failures_total{kind="permanent"}`: 2,
	} {
		if got := m[name]; got != want {
			t.Errorf("%s = %v; want %v", name, got, want)
		}
	}
	out := log.String()
	if !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "dead letters lost") || !strings.Contains(out, "sources=edges/0@0") {
		t.Errorf("log has no error naming the lost dead letter edges/0@0:\n%s", testenv.Tail(out, 20))
	}
}
