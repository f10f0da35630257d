package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// BenchmarkDaemonDeadLetter measures the daemon dead-lettering a backlog
// of undecodable records over the Kafka protocol (the embedded broker,
// on TCP): 200,000 ~100-byte records of truncated JSON on 3 partitions,
// from the daemon's start until every one is on the dead-letter topic
// (acknowledged) and counted. Before batching, each was one acknowledged
// write: about 385 records/s.
func BenchmarkDaemonDeadLetter(b *testing.B) {
	const n = 200_000
	for range b.N {
		emb := kafkatest.StartEmbedded(b, kafka.EmbeddedOptions{Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 3}}})
		brokers := emb.Addrs()
		msgs := make([]kafka.Message, n)
		for i := range msgs {
			msgs[i] = kafka.Message{Partition: i % 3, Value: fmt.Appendf(nil, `{"src":"acct-%08d","dst":"acct-%08d","t":17000000%02d,"amount":12.5,"note":"unterminated`, i, i+1, i%100)}
		}
		kafkatest.Send(b, brokers, "edges", kafkatest.SendOptions{Timeout: 120 * time.Second, BatchSize: 5000}, msgs...)
		qpath := b.TempDir() + "/q.yaml"
		if err := writeFile(qpath, benchQueries); err != nil {
			b.Fatal(err)
		}
		cfg, err := config.Parse([]byte(e2eConfig(brokers, "bench-dlq", qpath, 0)), "bench.yaml")
		if err != nil {
			b.Fatal(err)
		}
		cfg.Alerts.PerQuery = nil
		reg := prometheus.NewRegistry()
		b.ResetTimer()
		start := time.Now()
		d := testenv.Start(b, 60*time.Second, func(ctx context.Context, started func(daemon.Info)) error {
			// Errors only: kafka-go's first-fetch warnings would split the
			// benchmark's result line (go test merges stderr into stdout).
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
			return daemon.Run(ctx, daemon.Options{Config: cfg, Registry: reg, Logger: log, Started: started})
		})
		deadline := time.Now().Add(120 * time.Second)
		for gauge(reg, "motifwatch_ingest_records_dead_lettered_total") < n {
			if time.Now().After(deadline) {
				b.Fatalf("after 120s: %v of %d dead-lettered", gauge(reg, "motifwatch_ingest_records_dead_lettered_total"), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(n/elapsed.Seconds(), "dead-letters/s")
		if err := d.Stop(); err != nil {
			b.Fatal(err)
		}
		emb.Close()
	}
}
