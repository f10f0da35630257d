package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
)

// soakQueries' deltas are in feed seconds. The feed's times are whole
// seconds and it puts about 12 edges in each (bursts, replies, gaps
// floored), so at 2000 edges/s its clock runs ~170× the wall clock: the
// largest delta holds ~35k edges among 50,000 accounts, filled in about
// 20 s of wall time, after which the window slides: the soak sees the
// steady state, not the fill.
const soakQueries = `queries:
  - {name: cycle, delta: 3000, edges: [A -> B, B -> C, C -> A]}
  - {name: reply, delta: 1000, edges: [A -> B, B -> A]}
  - {name: relay, delta: 300, edges: [A -> B, B -> C, C -> D], not: [{from: B, to: A, after: 1}]}
`

// BenchmarkSoak runs the daemon as its own process against an embedded
// broker in this one (loopback only), produces the demo feed at a fixed
// edge rate for a few minutes, and samples every two seconds the consumer
// lag (records produced minus records the daemon consumed), the window
// (edges, bytes) and the daemon's heap and RSS. It fails if the lag goes
// past a bound or keeps growing, or if memory keeps growing once the
// window is full. Not part of `go test ./...`:
//
//	go test ./cmd/monitor/ -run '^$' -bench Soak -benchtime 1x -timeout 30m
//
// MOTIFWATCH_SOAK_DURATION (default 3m) and MOTIFWATCH_SOAK_RATE (edges/s,
// default 2000) change the run; MOTIFWATCH_SOAK_MAX_LAG (records, default
// 10 s of the rate) the lag bound.
func BenchmarkSoak(b *testing.B) {
	duration := envDuration(b, "MOTIFWATCH_SOAK_DURATION", 3*time.Minute)
	rate := envFloat(b, "MOTIFWATCH_SOAK_RATE", 2000)
	maxLag := envFloat(b, "MOTIFWATCH_SOAK_MAX_LAG", 10*rate)
	for range b.N {
		samples, sent := soak(b, duration, rate)
		judgeSoak(b, samples, sent, duration, maxLag)
	}
}

// soakSample is one observation of the running daemon.
type soakSample struct {
	at                                  time.Duration
	lag, windowEdges, windowBytes, rss  float64
	heap, consumed, capActions, appends float64
}

func soak(b *testing.B, duration time.Duration, rate float64) ([]soakSample, int64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	brokers := kafkatest.StartBroker(b)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(b))
	dir := b.TempDir()
	qpath, cpath := filepath.Join(dir, "q.yaml"), filepath.Join(dir, "soak.yaml")
	cfg := fmt.Sprintf("kafka: {brokers: [%s], partitions: 3, group: soak}\ndemo: false\n"+
		"input: {attributes: {amount: number}}\n"+
		"window: {allowed_lateness: 2s, batch_size: 4000, batch_max_wait: 100ms, idle_timeout: 1s}\n"+
		"queries: {files: [%s]}\nmetrics: {listen: %q}\nlog: {level: warn}\n", brokers[0], qpath, addr)
	if err := os.WriteFile(qpath, []byte(soakQueries), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cpath, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS=run --config "+cpath)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Errorf("daemon exit: %v; stderr:\n%s", err, stderr.String())
		}
	}()
	waitHTTP(b, addr, &stderr)

	// One edge per feed second on average (see soakQueries), from now on.
	feedCfg := synth.DefaultFeed(7)
	feedCfg.Start, feedCfg.MeanGap, feedCfg.PlantEvery = time.Now().Truncate(time.Second), 1, time.Hour
	feedCfg.Accounts = 50_000
	src, err := synth.NewFeed(feedCfg)
	if err != nil {
		b.Fatal(err)
	}
	var sent atomic.Int64
	pctx, stopProducer := context.WithTimeout(ctx, duration)
	defer stopProducer()
	produced := make(chan error, 1)
	go func() {
		_, err := kafka.Produce(pctx, feed.Demo(src, time.Second), kafka.ProduceOptions{Brokers: brokers,
			Topic: "edges", TimeUnit: time.Second, Rate: rate, BatchSize: 200, Progress: func(n int) { sent.Store(int64(n)) }})
		produced <- err
	}()

	b.ResetTimer()
	start := time.Now()
	var samples []soakSample
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-tick.C:
		case err := <-produced:
			if err != nil && pctx.Err() == nil {
				b.Fatalf("producer: %v", err)
			}
			done = true
		}
		s := sampleDaemon(b, addr, sent.Load(), time.Since(start))
		samples = append(samples, s)
		if len(samples)%15 == 0 {
			b.Logf("%4.0fs sent %d lag %.0f window %.0f edges %.1f MiB heap %.1f MiB rss %.1f MiB",
				s.at.Seconds(), sent.Load(), s.lag, s.windowEdges, s.windowBytes/(1<<20), s.heap/(1<<20), s.rss/(1<<20))
		}
	}
	b.StopTimer()
	return samples, sent.Load()
}

func sampleDaemon(b *testing.B, addr string, sent int64, at time.Duration) soakSample {
	m := testenv.Scrape(b, addr)
	if os.Getenv("MOTIFWATCH_SOAK_DEBUG") != "" {
		b.Logf("records %v buffered %v appended %v", m, m["motifwatch_ingest_reorder_buffer_edges"], m["motifwatch_window_appended_total"])
	}
	consumed := m["motifwatch_ingest_records_consumed_total"]
	return soakSample{at: at, lag: float64(sent) - consumed, consumed: consumed,
		windowEdges: m["motifwatch_window_edges"], windowBytes: m["motifwatch_window_bytes"],
		rss: m["process_resident_memory_bytes"], heap: m["go_memstats_heap_inuse_bytes"],
		capActions: m["motifwatch_cap_actions_total"], appends: m["motifwatch_window_appended_total"]}
}

// judgeSoak reports the run's figures and fails a run whose lag passes
// maxLag or grows, or whose memory grows once the window is full: the
// samples after the warm-up (a third of the run, at least 40 s: the
// largest delta plus lateness and batching) are split in halves, and the
// second half may not exceed the first by more than noise.
func judgeSoak(b *testing.B, samples []soakSample, sent int64, duration time.Duration, maxLag float64) {
	if len(samples) < 6 {
		b.Fatalf("%d samples; run longer than %v", len(samples), duration)
	}
	last := samples[len(samples)-1]
	lags := make([]float64, len(samples))
	for i, s := range samples {
		lags[i] = s.lag
	}
	warm := max(duration/3, 40*time.Second)
	i := slices.IndexFunc(samples, func(s soakSample) bool { return s.at >= warm })
	if i < 0 || len(samples)-i < 4 {
		b.Fatalf("too few samples after the %v warm-up: run longer than %v", warm, duration)
	}
	steady := samples[i:]
	first, second := steady[:len(steady)/2], steady[len(steady)/2:]
	peak := func(ss []soakSample, f func(soakSample) float64) float64 {
		m := 0.0
		for _, s := range ss {
			m = max(m, f(s))
		}
		return m
	}
	mean := func(ss []soakSample, f func(soakSample) float64) float64 {
		t := 0.0
		for _, s := range ss {
			t += f(s)
		}
		return t / float64(len(ss))
	}
	lagOf := func(s soakSample) float64 { return s.lag }
	rssOf := func(s soakSample) float64 { return s.rss }
	winOf := func(s soakSample) float64 { return s.windowBytes }
	rate := float64(sent) / last.at.Seconds()
	b.ReportMetric(rate, "edges/s")
	b.ReportMetric(percentile(lags, 0.5), "lag-p50")
	b.ReportMetric(percentile(lags, 1), "lag-max")
	b.ReportMetric(steady[0].rss/(1<<20), "rss-start-MiB")
	b.ReportMetric(last.rss/(1<<20), "rss-end-MiB")
	b.ReportMetric(peak(samples, rssOf)/(1<<20), "rss-max-MiB")
	b.ReportMetric(last.windowBytes/(1<<20), "window-MiB")
	b.ReportMetric(last.windowEdges, "window-edges")
	b.ReportMetric(last.heap/(1<<20), "heap-MiB")
	b.Logf("%d edges in %v (%.0f/s); lag p50 %.0f max %.0f; window %.0f edges %.1f MiB; rss %.1f → %.1f MiB (max %.1f); cap actions %.0f",
		sent, last.at.Round(time.Second), rate, percentile(lags, 0.5), percentile(lags, 1), last.windowEdges,
		last.windowBytes/(1<<20), steady[0].rss/(1<<20), last.rss/(1<<20), peak(samples, rssOf)/(1<<20), last.capActions)

	if l := percentile(lags, 1); l > maxLag {
		b.Errorf("consumer lag reached %.0f records; want at most %.0f", l, maxLag)
	}
	if a, z := mean(first, lagOf), mean(second, lagOf); z > 2*a+rate {
		b.Errorf("consumer lag grows: mean %.0f in the first half of the steady state, %.0f in the second", a, z)
	}
	if a, z := peak(first, rssOf), peak(second, rssOf); z > a*1.25+32<<20 {
		b.Errorf("RSS grows: peak %.1f MiB in the first half of the steady state, %.1f MiB in the second", a/(1<<20), z/(1<<20))
	}
	if a, z := peak(first, winOf), peak(second, winOf); z > a*1.25+1<<20 {
		b.Errorf("window memory grows: peak %.1f MiB in the first half of the steady state, %.1f MiB in the second", a/(1<<20), z/(1<<20))
	}
}

func percentile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

// waitHTTP waits for the daemon's /healthz.
func waitHTTP(b *testing.B, addr string, stderr *bytes.Buffer) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("daemon did not serve %s within 60s; stderr:\n%s", addr, stderr.String())
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration like 3m", name, s)
	}
	return d
}

func envFloat(b *testing.B, name string, def float64) float64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, s)
	}
	return f
}
