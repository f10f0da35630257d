package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/window"
)

// startLoggedDaemon is startDaemon with the daemon's log kept in logs.
func startLoggedDaemon(t *testing.T, yaml string, logs io.Writer) *runningDaemon {
	t.Helper()
	return startDaemonWith(t, yaml, newTestLogger(logs))
}

// newTestLogger logs everything, debug included, as text to w.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// readyz returns /readyz's status code and body (0 if unreachable).
func readyz(addr string) (int, string) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// snapshots polls the committed offsets and the alert topic's ends until
// stop is closed; reads that fail (the broker is down) are skipped.
func snapshots(brokers []string, group string, stop <-chan struct{}) <-chan []snapshot {
	out := make(chan []snapshot, 1)
	go func() {
		var snaps []snapshot
		defer func() { out <- snaps }()
		for {
			if s, err := takeSnapshot(brokers, group, time.Now().Format("15:04:05.000")); err == nil {
				snaps = append(snaps, s)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return out
}

// TestBrokerFaults runs the daemon through two broker faults in one
// replay: the broker stops for a while in the middle of ingest (and of
// the alert writes and commits that go with it) and restarts on the same
// port with its data, and later every alert write fails
// (NOT_ENOUGH_REPLICAS) for a while as fetches and commits go on. The
// daemon must report not ready with the reason meanwhile, back off (the
// log says so), recover by itself, and lose nothing: the deduplicated
// alert set equals an uninterrupted run's, and no committed offset ever
// passed a match whose alert was not yet on the topic.
func TestBrokerFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("stops and restarts a broker")
	}
	w, graph := syntheticGraph(t, 20000, 3)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	b := startTestBroker(t, true)
	var first, second []kafka.Record
	for r := range feed.Window(w) {
		if r.Seq < int64(w.Len()/2) {
			first = append(first, r)
		} else {
			second = append(second, r)
		}
	}
	produce(t, b.Addrs(), slices.Values(first))
	half := kafkatest.Sum(kafkatest.EndOffsets(t, b.Addrs(), "edges"))

	logs := &testenv.SyncBuffer{}
	// Partitions go idle only after a minute: the stream pauses between
	// its halves and during the outage, and an idle partition's next
	// records could come after the watermark others moved (late, as in
	// an uninterrupted run with the same pauses). Sentinels in every
	// partition end the stream instead.
	//
	// The sentinels stand for the passing of time: one record a day after
	// the stream, which the default window.max_jump (10m) holds as an
	// outlier until the input has been quiet for the idle timeout
	// (docs/EVENT-TIME.md); a max_jump of two days believes them at once.
	cfg := withIdleTimeout(reliabilityConfig(b.Addrs(), "faults", queries), "1m")
	cfg = strings.Replace(cfg, "window:\n", "window:\n  max_jump: 48h\n", 1)
	d := startLoggedDaemon(t, cfg, logs)
	stopSnaps := make(chan struct{})
	snapsDone := snapshots(b.Addrs(), "faults", stopSnaps)

	// Fault 1: the broker goes away in the middle of ingest.
	if !testenv.Poll(60*time.Second, 10*time.Millisecond, func() bool {
		c, err := tryCommitted(b.Addrs(), "faults")
		return err == nil && kafkatest.Sum(c) >= half/3
	}) {
		t.Fatalf("a third of the first half not committed within 60s; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	down := time.Now()
	b.Stop()
	notReady := waitReadiness(t, d.info.MetricsAddr, false, "kafka probe failing")
	t.Logf("broker stopped: /readyz 503 after %v", notReady.Round(time.Millisecond))
	time.Sleep(3*time.Second - time.Since(down))
	b.Start()
	back := waitReadiness(t, d.info.MetricsAddr, true, "")
	t.Logf("broker restarted after %v down: /readyz 200 again %v later", time.Since(down).Round(time.Millisecond)-back, back.Round(time.Millisecond))

	// Fault 2: alert writes fail while everything else works.
	fault := b.Cluster().Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "motif-alerts", Err: kerr.NotEnoughReplicas, Count: -1})
	produce(t, b.Addrs(), slices.Values(second))
	produceSentinels(t, b.Addrs(), w)
	notReady = waitReadiness(t, d.info.MetricsAddr, false, "kafka alert_write failing")
	t.Logf("alert writes failing: /readyz 503 after %v", notReady.Round(time.Millisecond))
	// Keep it failing a while: the snapshots taken meanwhile show whether
	// a commit passed an alert not written.
	time.Sleep(2 * time.Second)
	fault.Remove()
	back = waitReadiness(t, d.info.MetricsAddr, true, "")
	t.Logf("alert writes allowed again: /readyz 200 %v later", back.Round(time.Millisecond))

	// Everything but the three sentinels gets committed: each is the
	// newest edge of its partition, which the reorder buffer holds (ties
	// may follow) until a later edge or the idle timeout.
	total := kafkatest.Sum(kafkatest.EndOffsets(t, b.Addrs(), "edges"))
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		c, err := tryCommitted(b.Addrs(), "faults")
		return err == nil && kafkatest.Sum(c) == total-3
	}) {
		c, _ := tryCommitted(b.Addrs(), "faults")
		t.Fatalf("not all %d records but the 3 sentinels committed within 90s after the faults (committed %v); log:\n%s", total, c, testenv.Tail(logs.String(), 30))
	}
	m := testenv.Scrape(t, d.info.MetricsAddr)
	// Each record taken in once: a group rejoined after the outage hands
	// out records again from the last commit, and taking them twice would
	// put duplicate edges in the window (spurious matches) or dead-letter
	// them as late.
	if got := m["motifwatch_ingest_records_consumed_total"]; got != float64(total) || m[`motifwatch_pipeline_records_total{outcome="late"}`] != 0 {
		t.Errorf("records taken in %v (late %v); want each of the %d once, none late", got, m[`motifwatch_pipeline_records_total{outcome="late"}`], total)
	}
	if err := d.stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
	close(stopSnaps)
	snaps := <-snapsDone

	log := readAlertLog(t, b.Addrs())
	dups := checkSameMatches(t, "after the broker faults", exp, log)
	checkCommitsCovered(t, snaps, log)
	n := 0
	for _, c := range dups {
		n += c
	}
	t.Logf("%d duplicate alert records (writes the broker appended but whose acknowledgement was lost)", n)
	// Whether a fetch fails before the broker is back depends on timing
	// (kafka-go's reader retries a while first); the probe always does.
	for _, series := range []string{
		`motifwatch_kafka_errors_total{operation="probe"}`, `motifwatch_kafka_reconnects_total{operation="probe"}`,
		`motifwatch_kafka_errors_total{operation="alert_write"}`, `motifwatch_kafka_reconnects_total{operation="alert_write"}`,
	} {
		if m[series] == 0 {
			t.Errorf("%s = 0 after the faults; want > 0", series)
		}
	}
	t.Logf("kafka errors by operation: probe %v, fetch %v, commit %v, alert_write %v; records redelivered after rejoining %v",
		m[`motifwatch_kafka_errors_total{operation="probe"}`], m[`motifwatch_kafka_errors_total{operation="fetch"}`], m[`motifwatch_kafka_errors_total{operation="commit"}`],
		m[`motifwatch_kafka_errors_total{operation="alert_write"}`], m["motifwatch_kafka_redelivered_records_total"])
	for _, want := range []string{`msg="kafka probe failed; retrying"`, `msg="kafka probe recovered"`, `msg="alert write failed; retrying"`, "backoff="} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not mention %s:\n%s", want, testenv.Tail(logs.String(), 30))
		}
	}
}

// waitReadiness polls /readyz until it answers ready (200) or not ready
// (503 with a reason containing why), and returns how long that took.
func waitReadiness(t *testing.T, addr string, ready bool, why string) time.Duration {
	t.Helper()
	start := time.Now()
	var code int
	var body string
	ok := testenv.Poll(30*time.Second, 20*time.Millisecond, func() bool {
		code, body = readyz(addr)
		if ready {
			return code == http.StatusOK
		}
		return code == http.StatusServiceUnavailable && strings.Contains(body, why)
	})
	if !ok {
		t.Fatalf("/readyz did not become ready=%v (%q) within 30s: last %d %q", ready, why, code, body)
	}
	return time.Since(start)
}

// produceSentinels writes one edge a day after the last into each of the
// three partitions, between nodes of their own: with no partition idle,
// they move the watermark past every anti-edge interval.
func produceSentinels(t *testing.T, brokers []string, w *window.Window) {
	t.Helper()
	var recs []kafka.Record
	for i := range 3 {
		recs = append(recs, kafka.Record{Src: fmt.Sprintf("sentinel-%d-a", i), Dst: fmt.Sprintf("sentinel-%d-b", i),
			T: w.LastT() + 86400, Seq: int64(w.Len() + i)})
	}
	_, err := kafka.Produce(context.Background(), slices.Values(recs), kafka.ProduceOptions{Brokers: brokers, Topic: "edges",
		TimeUnit: time.Second, Partitioning: kafka.RoundRobin, BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	parts := map[int]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	end := kafkatest.EndOffsets(t, brokers, "edges")
	from := map[int]int64{}
	for p, e := range end {
		from[p] = max(e-3, 0)
	}
	kafka.Replay(ctx, brokers, nil, "edges", from, end, func(m kafka.Message) error {
		if strings.Contains(string(m.Value), "sentinel-") {
			parts[m.Partition] = true
		}
		return nil
	})
	if len(parts) != 3 {
		t.Fatalf("sentinels landed in partitions %v; want all 3", parts)
	}
}
