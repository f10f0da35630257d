package main

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
)

const benchQueries = `queries:
  - {name: cycle, delta: 3600, edges: [A -> B, B -> C, C -> A]}
  - {name: reply, delta: 600, edges: [A -> B, B -> A]}
  - {name: relay, delta: 1800, edges: [A -> B, B -> C, C -> D], not: [{from: B, to: A, after: 1}]}
`

// BenchmarkDaemon measures the streaming path over the Kafka protocol
// with three queries: a backlog of a generated CollegeMsg-like stream is
// consumed as fast as it goes (sustained edges/s), and the same stream
// paced at a fixed rate gives the end-to-end batch latency (fetch of a
// batch's first record to its alerts acknowledged and offsets committed,
// p50/p99). The split of batch time into mining, alert writing and the
// rest (decode, reorder, window, commit) comes from the daemon's metrics.
func BenchmarkDaemon(b *testing.B) {
	const n = 200_000
	edges, err := synth.Generate(synth.Default(n, 5))
	if err != nil {
		b.Fatal(err)
	}
	records := make([]kafka.Record, len(edges))
	for i, e := range edges {
		records[i] = kafka.Record{Src: fmt.Sprint(e.Src), Dst: fmt.Sprint(e.Dst), T: e.T, Seq: int64(i)}
	}
	b.Run("backlog", func(b *testing.B) {
		for range b.N {
			reg, elapsed := runBench(b, records, 0)
			b.ReportMetric(float64(n)/elapsed.Seconds(), "edges/s")
			reportSplit(b, reg, elapsed)
		}
	})
	b.Run("paced-20k", func(b *testing.B) {
		for range b.N {
			reg, elapsed := runBench(b, records[:100_000], 20_000)
			p50, p99 := quantiles(reg, "motifwatch_batch_latency_seconds")
			b.ReportMetric(p50*1000, "p50-ms")
			b.ReportMetric(p99*1000, "p99-ms")
			reportSplit(b, reg, elapsed)
		}
	})
}

// runBench starts a broker and a daemon, produces records (at rate/s, or
// all before the daemon starts when rate is 0) and waits until all are
// consumed and released.
func runBench(b *testing.B, records []kafka.Record, rate float64) (*prometheus.Registry, time.Duration) {
	b.Helper()
	ctx := context.Background()
	brokers := kafkatest.StartBroker(b, kafka.TopicSpec{Name: "edges", Partitions: 3})
	dir := b.TempDir()
	qpath := dir + "/q.yaml"
	if err := writeFile(qpath, benchQueries); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Parse([]byte(e2eConfig(brokers, "bench", qpath, 0)), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Alerts.PerQuery = nil
	cfg.Window.BatchMaxWait = 20 * time.Millisecond
	produce := func() {
		if _, err := kafka.Produce(ctx, slices.Values(records), kafka.ProduceOptions{Brokers: brokers, Topic: "edges", TimeUnit: time.Second, Rate: rate}); err != nil {
			b.Error(err)
		}
	}
	if rate == 0 {
		produce()
	}
	reg := prometheus.NewRegistry()
	b.ResetTimer()
	start := time.Now()
	d := testenv.Start(b, 60*time.Second, func(ctx context.Context, started func(daemon.Info)) error {
		log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		return daemon.Run(ctx, daemon.Options{Config: cfg, Registry: reg, Logger: log, Started: started})
	})
	if rate > 0 {
		go produce()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		consumed, appended := gauge(reg, "motifwatch_ingest_records_consumed_total"), gauge(reg, "motifwatch_window_appended_total")
		if consumed >= float64(len(records)) && appended >= float64(len(records)) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("after 30s: consumed %v, appended %v of %d; buffered %v, batches %v, alerts failed %v written %v", consumed, appended, len(records),
				gauge(reg, "motifwatch_ingest_reorder_buffer_edges"), histCount(reg, "motifwatch_batch_seconds"), gauge(reg, "motifwatch_alerts_failed_total"), gauge(reg, "motifwatch_alerts_written_total"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := d.Stop(); err != nil {
		b.Fatal(err)
	}
	return reg, elapsed
}

func writeFile(path, body string) error {
	return osWriteFile(path, []byte(body))
}

func reportSplit(b *testing.B, reg *prometheus.Registry, elapsed time.Duration) {
	mine := histSum(reg, "motifwatch_mine_seconds")
	write := histSum(reg, "motifwatch_alert_write_seconds")
	batch := histSum(reg, "motifwatch_batch_seconds")
	b.ReportMetric(mine/elapsed.Seconds()*100, "%mine")
	b.ReportMetric(write/elapsed.Seconds()*100, "%alert-write")
	b.ReportMetric((batch-mine-write)/elapsed.Seconds()*100, "%window+commit")
	// The rest of the wall time is the pipeline taking records in (fetch,
	// decode, reorder) and waiting for them.
	b.ReportMetric((elapsed.Seconds()-batch)/elapsed.Seconds()*100, "%fetch+decode+wait")
	b.ReportMetric(gauge(reg, "motifwatch_alerts_written_total"), "alerts")
}

func families(reg *prometheus.Registry, name string) []*dto.Metric {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	return nil
}

// gauge sums a counter or gauge over its series.
func gauge(reg *prometheus.Registry, name string) float64 {
	var v float64
	for _, m := range families(reg, name) {
		v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return v
}

func histSum(reg *prometheus.Registry, name string) float64 {
	var v float64
	for _, m := range families(reg, name) {
		v += m.GetHistogram().GetSampleSum()
	}
	return v
}

// quantiles estimates p50 and p99 of a histogram by linear interpolation
// inside the bucket that holds the quantile.
func quantiles(reg *prometheus.Registry, name string) (p50, p99 float64) {
	ms := families(reg, name)
	if len(ms) == 0 {
		return math.NaN(), math.NaN()
	}
	h := ms[0].GetHistogram()
	type bucket struct{ upper, count float64 }
	var bs []bucket
	for _, x := range h.GetBucket() {
		bs = append(bs, bucket{x.GetUpperBound(), float64(x.GetCumulativeCount())})
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].upper < bs[j].upper })
	total := float64(h.GetSampleCount())
	q := func(p float64) float64 {
		rank := p * total
		lower, prev := 0.0, 0.0
		for _, x := range bs {
			if x.count >= rank {
				if x.count == prev {
					return x.upper
				}
				return lower + (x.upper-lower)*(rank-prev)/(x.count-prev)
			}
			lower, prev = x.upper, x.count
		}
		return lower
	}
	return q(0.5), q(0.99)
}

func osWriteFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }

func histCount(reg *prometheus.Registry, name string) float64 {
	var v float64
	for _, m := range families(reg, name) {
		v += float64(m.GetHistogram().GetSampleCount())
	}
	return v
}
