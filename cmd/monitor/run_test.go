package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/broker"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/window"
)

// e2eQueries are mined by both `monitor mine` and the daemon: a cyclic
// triangle and a 4-cycle with an anti-edge (enumerate), a reply that must
// stay unanswered (anti-edge after the LAST edge: every match is held
// until the watermark passes), and a path counted only (count mode).
const e2eQueries = `queries:
  - name: tri-cycle
    delta: 3600
    edges: [A -> B, B -> C, C -> A]
  - name: square-no-shortcut
    delta: 3600
    edges: [A -> B, B -> C, C -> D, D -> A]
    not:
      - {from: C, to: A, after: 2}
  - name: unanswered-twice
    delta: 600
    edges: [A -> B, A -> B]
    not:
      - {from: B, to: A, after: 2}
  - name: path-count
    delta: 1200
    edges: [A -> B, B -> C, C -> D]
`

var enumerated = []string{"tri-cycle", "square-no-shortcut", "unanswered-twice"}

// expectation is what `monitor mine` reports for the file: ids of the
// enumerate-mode queries, counts of the count-mode one.
type expectation struct {
	ids    map[string]bool // query/id
	counts map[string]int64
}

func mineExpectation(t *testing.T, graph, queries string) expectation {
	t.Helper()
	var out bytes.Buffer
	o := mineOptions{graph: graph, queries: []string{queries}, enumerate: 1 << 40, format: "json", timeUnit: time.Second}
	if err := runMine(context.Background(), o, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var rep mineReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	exp := expectation{ids: map[string]bool{}, counts: map[string]int64{}}
	for _, q := range rep.Queries {
		exp.counts[q.Name] = q.Matches
		if slices.Contains(enumerated, q.Name) {
			for _, id := range q.IDs {
				exp.ids[q.Name+"/"+id] = true
			}
		}
	}
	return exp
}

func startBroker(t *testing.T) []string {
	t.Helper()
	emb, err := broker.StartEmbedded(context.Background(), broker.EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	return emb.Addrs()
}

type runningDaemon struct {
	info daemon.Info
	stop func() error
}

func startDaemon(t *testing.T, yaml string) *runningDaemon {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "e2e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan daemon.Info, 1)
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Options{Config: cfg, Started: func(i daemon.Info) { started <- i }})
	}()
	select {
	case info := <-started:
		d := &runningDaemon{info: info}
		var once sync.Once
		var stopErr error
		d.stop = func() error {
			once.Do(func() { cancel(); stopErr = <-done })
			return stopErr
		}
		t.Cleanup(func() { d.stop() })
		return d
	case err := <-done:
		cancel()
		t.Fatalf("daemon did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("daemon did not start within 30s")
	}
	return nil
}

func e2eConfig(brokers []string, group, queryFile string, lateness time.Duration) string {
	return fmt.Sprintf(`kafka:
  brokers: [%s]
  partitions: 3
  group: %s
demo: false
input:
  fields: {src: src, dst: dst, time: t, seq: seq}
window:
  allowed_lateness: %s
  batch_size: 4000
  batch_max_wait: 50ms
  idle_timeout: 300ms
alerts:
  count_interval: 300ms
  rate_limit: 0
  per_query:
    path-count: {mode: count}
queries:
  files: [%s]
  reload_interval: 100ms
metrics:
  listen: 127.0.0.1:0
shutdown_timeout: 10s
`, strings.Join(brokers, ", "), group, lateness, queryFile)
}

// readAlerts reads the whole alert topic.
func readAlerts(t *testing.T, brokers []string) []alerts.Alert {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin, err := ingest.NewAdmin(brokers, nil)
	if err != nil {
		t.Fatal(err)
	}
	end, err := admin.EndOffsets(ctx, "motif-alerts")
	if err != nil {
		t.Fatal(err)
	}
	from := map[int]int64{}
	for p := range end {
		from[p] = 0
	}
	var out []alerts.Alert
	err = ingest.Replay(ctx, brokers, nil, "motif-alerts", from, end, func(m kafka.Message) error {
		var a alerts.Alert
		if err := json.Unmarshal(m.Value, &a); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type observed struct {
	ids    map[string]int
	counts map[string]int64
}

func observe(as []alerts.Alert) observed {
	o := observed{ids: map[string]int{}, counts: map[string]int64{}}
	for _, a := range as {
		switch a.Kind {
		case alerts.KindMatch:
			o.ids[a.Query+"/"+a.MatchID]++
			o.counts[a.Query]++
		case alerts.KindCount:
			o.counts[a.Query] += a.Count
		}
	}
	return o
}

// waitFor polls the alert topic until it holds what exp expects (then a
// little longer, so extras would show) or the deadline passes.
func waitFor(t *testing.T, brokers []string, exp expectation) observed {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		o := observe(readAlerts(t, brokers))
		complete := true
		for q, c := range exp.counts {
			if o.counts[q] < c {
				complete = false
			}
		}
		if complete || time.Now().After(deadline) {
			time.Sleep(500 * time.Millisecond)
			return observe(readAlerts(t, brokers))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func check(t *testing.T, label string, exp expectation, o observed) {
	t.Helper()
	var missing, extra, dup []string
	for id := range exp.ids {
		if o.ids[id] == 0 {
			missing = append(missing, id)
		}
	}
	for id, n := range o.ids {
		if !exp.ids[id] {
			extra = append(extra, id)
		}
		if n > 1 {
			dup = append(dup, id)
		}
	}
	if len(missing)+len(extra)+len(dup) > 0 {
		t.Errorf("%s: %d alerts missing (e.g. %.2v), %d extra (e.g. %.2v), %d duplicated (e.g. %.2v)", label,
			len(missing), missing, len(extra), extra, len(dup), dup)
	}
	for q, c := range exp.counts {
		if o.counts[q] != c {
			t.Errorf("%s: %s: daemon reported %d matches; monitor mine %d", label, q, o.counts[q], c)
		}
	}
}

func loadCollege(t *testing.T) (*window.Window, string) {
	t.Helper()
	if _, err := os.Stat(collegeMsg); err != nil {
		t.Skipf("CollegeMsg not found at %s (../shared/data is absent on a user's clone)", collegeMsg)
	}
	if testing.Short() {
		t.Skip("end-to-end replay of CollegeMsg skipped in -short mode")
	}
	w, _, err := ingest.LoadFile(collegeMsg, ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, collegeMsg
}

func writeQueries(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "queries.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// withSentinel appends one edge a day after the last, between two nodes
// of its own: it moves the watermark past every anti-edge interval, as
// the passing of time does in a live stream (a batch file is complete by
// definition; a stream is complete only when time has moved on).
func withSentinel(w *window.Window, src iter.Seq[broker.Record]) iter.Seq[broker.Record] {
	return func(yield func(broker.Record) bool) {
		for r := range src {
			if !yield(r) {
				return
			}
		}
		yield(broker.Record{Src: "sentinel-a", Dst: "sentinel-b", T: w.LastT() + 86400, Seq: int64(w.Len())})
	}
}

func produce(t *testing.T, brokers []string, records iter.Seq[broker.Record]) {
	t.Helper()
	if err := broker.EnsureTopics(context.Background(), brokers, nil, []broker.TopicSpec{{Name: "edges", Partitions: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := broker.Produce(context.Background(), records, broker.ProduceOptions{Brokers: brokers, Topic: "edges", TimeUnit: time.Second}); err != nil {
		t.Fatal(err)
	}
}

// TestDaemonEqualsMine replays CollegeMsg into a 3-partition topic over
// the Kafka protocol and checks the daemon's alerts against `monitor
// mine` on the same file: the same match ids, once each, and the same
// counts — in file order, and shuffled within the allowed lateness.
func TestDaemonEqualsMine(t *testing.T) {
	w, graph := loadCollege(t)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	if len(exp.ids) == 0 || exp.counts["path-count"] == 0 || exp.counts["unanswered-twice"] == 0 {
		t.Fatalf("expectation has nothing to compare: %v", exp.counts)
	}
	for _, c := range []struct {
		name     string
		lateness time.Duration
		shuffle  int64 // max displacement in seconds
	}{{"in order", 0, 0}, {"shuffled within lateness", 300 * time.Second, 250}} {
		t.Run(c.name, func(t *testing.T) {
			brokers := startBroker(t)
			d := startDaemon(t, e2eConfig(brokers, "e2e", queries, c.lateness))
			produce(t, brokers, withSentinel(w, shuffled(broker.WindowRecords(w), c.shuffle)))
			check(t, c.name, exp, waitFor(t, brokers, exp))
			if err := d.stop(); err != nil {
				t.Errorf("daemon stopped with %v", err)
			}
		})
	}
}

// shuffled displaces each record by up to maxShift seconds of its time.
func shuffled(src iter.Seq[broker.Record], maxShift int64) iter.Seq[broker.Record] {
	if maxShift == 0 {
		return src
	}
	type keyed struct {
		key int64
		r   broker.Record
	}
	var all []keyed
	rng := rand.New(rand.NewPCG(7, 7))
	for r := range src {
		r.Attrs = slices.Clone(r.Attrs)
		all = append(all, keyed{r.T + rng.Int64N(maxShift), r})
	}
	slices.SortStableFunc(all, func(a, b keyed) int { return int(a.key - b.key) })
	return func(yield func(broker.Record) bool) {
		for _, k := range all {
			if !yield(k.r) {
				return
			}
		}
	}
}

// TestDaemonRestartIsExactlyOnce stops the daemon cleanly in the middle
// of the replay and starts a new one: alerts over both runs equal an
// uninterrupted run's (`monitor mine`): none missing, none doubled.
func TestDaemonRestartIsExactlyOnce(t *testing.T) {
	w, graph := loadCollege(t)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	brokers := startBroker(t)
	cfg := e2eConfig(brokers, "restart", queries, 0)
	var first, second []broker.Record
	cut := int64(w.Len() / 2)
	for r := range broker.WindowRecords(w) {
		r.Attrs = slices.Clone(r.Attrs)
		if r.Seq < cut {
			first = append(first, r)
		} else {
			second = append(second, r)
		}
	}
	d := startDaemon(t, cfg)
	produce(t, brokers, slices.Values(first))
	waitConsumed(t, d.info.MetricsAddr, int64(len(first)))
	if err := d.stop(); err != nil {
		t.Fatalf("first daemon: %v", err)
	}
	d2 := startDaemon(t, cfg)
	produce(t, brokers, withSentinel(w, slices.Values(second)))
	check(t, "restart", exp, waitFor(t, brokers, exp))
	if err := d2.stop(); err != nil {
		t.Errorf("second daemon: %v", err)
	}
}

// waitConsumed waits until the daemon has taken in n records and the
// reorder buffer is empty.
func waitConsumed(t *testing.T, addr string, n int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		m := scrape(t, addr)
		if m["motifwatch_ingest_records_consumed_total"] >= float64(n) && m["motifwatch_ingest_reorder_buffer_edges"] == 0 {
			time.Sleep(500 * time.Millisecond) // let the idle release and its batch finish
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("daemon did not consume %d records in time: %v", n, scrape(t, addr))
}

// scrape reads /metrics, summing series of the same name.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		base, labels, _ := strings.Cut(name, "{")
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			continue
		}
		out[base] += v
		if labels != "" {
			out[name] = v
		}
	}
	return out
}
