package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/mine"
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
	rep, err := mine.Run(context.Background(), mine.Options{Graph: graph, QueryFiles: []string{queries}, Enumerate: 1 << 40})
	if err != nil {
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

// runningDaemon is a daemon run in the test's process until the test
// ends (testenv.Start); stop stops it early and returns Run's error.
type runningDaemon struct {
	*testenv.Service[daemon.Info]
	info daemon.Info
}

func (d *runningDaemon) stop() error { return d.Stop() }

func startDaemon(t *testing.T, yaml string) *runningDaemon {
	t.Helper()
	return startDaemonWith(t, yaml, nil)
}

// startDaemonWith starts the daemon in-process on config yaml, logging to
// logger (nil: the daemon's default), and stops it when the test ends.
func startDaemonWith(t *testing.T, yaml string, logger *slog.Logger) *runningDaemon {
	t.Helper()
	return runDaemon(t, yaml, daemon.Options{Logger: logger})
}

// runDaemon starts daemon.Run in-process on config yaml with opts (their
// Config and Started set here) once it has started its pipeline, and
// stops it when the test ends.
func runDaemon(t *testing.T, yaml string, opts daemon.Options) *runningDaemon {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "e2e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := testenv.Start(t, 30*time.Second, func(ctx context.Context, started func(daemon.Info)) error {
		opts.Config, opts.Started = cfg, started
		return daemon.Run(ctx, opts)
	})
	return &runningDaemon{Service: s, info: s.Info}
}

// withIdleTimeout returns cfg (e2eConfig's) with window.idle_timeout set
// to d, whatever it was. It panics if cfg has no such line: a derived
// configuration must not silently keep the base's value (a replace of
// the old literal value once did, after the base changed).
func withIdleTimeout(cfg, d string) string {
	re := regexp.MustCompile(`(?m)^  idle_timeout: .*$`)
	if len(re.FindAllStringIndex(cfg, -1)) != 1 {
		panic("e2e config: no single window.idle_timeout line to set")
	}
	return re.ReplaceAllLiteralString(cfg, "  idle_timeout: "+d)
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
  # Long enough that a producer starved by a loaded machine does not look
  # idle: an idle partition stops holding the watermark, and its next
  # records would be late (dead-lettered), changing the expected alerts.
  idle_timeout: 2s
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
	return kafkatest.Alerts(kafkatest.ReadAlerts(t, brokers, "motif-alerts"))
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
func withSentinel(w *window.Window, src iter.Seq[kafka.Record]) iter.Seq[kafka.Record] {
	return func(yield func(kafka.Record) bool) {
		for r := range src {
			if !yield(r) {
				return
			}
		}
		yield(kafka.Record{Src: "sentinel-a", Dst: "sentinel-b", T: w.LastT() + 86400, Seq: int64(w.Len())})
	}
}

func produce(t *testing.T, brokers []string, records iter.Seq[kafka.Record]) {
	t.Helper()
	produceAs(t, brokers, kafka.JSON, records)
}

func produceAs(t *testing.T, brokers []string, format kafka.Format, records iter.Seq[kafka.Record]) {
	t.Helper()
	kafkatest.Produce(t, brokers, "edges", 3, format, records)
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
		format   kafka.Format
	}{
		// Zero lateness on in-order input: CollegeMsg has 1,678 edges tied
		// in time with the one before; none may be late, whichever
		// records a release happens to fall between.
		{"in order", 0, 0, kafka.JSON},
		{"shuffled within lateness", 300 * time.Second, 250, kafka.JSON},
		{"csv records", 0, 0, kafka.CSV},
	} {
		t.Run(c.name, func(t *testing.T) {
			brokers := kafkatest.StartBroker(t)
			cfg := e2eConfig(brokers, "e2e", queries, c.lateness)
			if c.format == kafka.CSV {
				cfg = strings.Replace(cfg, "input:\n", "input:\n  format: csv\n  csv_columns: [src, dst, t, seq]\n", 1)
			}
			d := startDaemon(t, cfg)
			produceAs(t, brokers, c.format, withSentinel(w, shuffled(feed.Window(w), c.shuffle)))
			check(t, c.name, exp, waitFor(t, brokers, exp))
			if err := d.stop(); err != nil {
				t.Errorf("daemon stopped with %v", err)
			}
		})
	}
}

// shuffled displaces each record by up to maxShift seconds of its time.
func shuffled(src iter.Seq[kafka.Record], maxShift int64) iter.Seq[kafka.Record] {
	if maxShift == 0 {
		return src
	}
	type keyed struct {
		key int64
		r   kafka.Record
	}
	var all []keyed
	rng := rand.New(rand.NewPCG(7, 7))
	for r := range src {
		r.Attrs = slices.Clone(r.Attrs)
		all = append(all, keyed{r.T + rng.Int64N(maxShift), r})
	}
	slices.SortStableFunc(all, func(a, b keyed) int { return int(a.key - b.key) })
	return func(yield func(kafka.Record) bool) {
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
	brokers := kafkatest.StartBroker(t)
	cfg := e2eConfig(brokers, "restart", queries, 0)
	var first, second []kafka.Record
	cut := int64(w.Len() / 2)
	for r := range feed.Window(w) {
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
// reorder buffer is empty. The buffer's gauge is set when a batch is
// released, so it counts only from a batch started after the records
// were taken in (the counter of records moves first: an empty buffer
// seen in between is the previous batch's). Records held by
// window.max_jump leave the buffer when the input goes quiet.
func waitConsumed(t *testing.T, addr string, n int64) {
	t.Helper()
	batches := math.Inf(1)
	testenv.WaitMetrics(t, addr, 60*time.Second, 100*time.Millisecond, fmt.Sprintf("daemon consumed %d records", n), func(m map[string]float64) bool {
		if m["motifwatch_ingest_records_consumed_total"] < float64(n) {
			return false
		}
		if math.IsInf(batches, 1) {
			batches = m["motifwatch_batch_seconds_count"]
		}
		return m["motifwatch_batch_seconds_count"] >= batches+2 && m["motifwatch_ingest_reorder_buffer_edges"] == 0
	})
	time.Sleep(500 * time.Millisecond) // let the idle release and its batch finish
}

// TestDaemonLosesNothing mixes malformed JSON, missing fields, bad
// timestamps, an oversized record, a late edge and a self-loop into good
// records: every record is accounted for (records in = appended +
// self-loops + late + dead-lettered), and every bad one is on the
// dead-letter topic with its reason and source position.
func TestDaemonLosesNothing(t *testing.T) {
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, e2eQueries)
	cfg := strings.Replace(e2eConfig(brokers, "lossless", queries, 10*time.Second), "partitions: 3", "partitions: 1", 1)
	cfg = strings.Replace(cfg, "demo: false", "demo: false\ninput:\n  max_record_bytes: 300\n  fields: {src: src, dst: dst, time: t, seq: seq}", 1)
	cfg = strings.Replace(cfg, "input:\n  fields: {src: src, dst: dst, time: t, seq: seq}\nwindow:", "window:", 1)
	d := startDaemon(t, cfg)
	// The edge topic has one partition: every record goes to it, in order.
	send := func(values ...string) {
		t.Helper()
		kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{}, kafkatest.Values(values...)...)
	}
	good := []string{}
	for i := range 20 {
		good = append(good, fmt.Sprintf(`{"src":"n%d","dst":"n%d","t":%d,"seq":%d}`, i%5, (i+1)%5, 1000+10*i, i))
	}
	bad := map[string]string{
		`{"src": "a", "dst": `:                            "decoding record",
		`{"src":"a","t":1100,"seq":100}`:                  `missing field "dst"`,
		`{"src":"a","dst":"b","t":"yesterday","seq":101}`: "yesterday",
		`{"src":"a","dst":"b","t":1150,"seq":102,"pad":"` + strings.Repeat("x", 400) + `"}`: "max_record_bytes",
	}
	send(good...)
	for v := range bad {
		send(v)
	}
	send(`{"src":"z","dst":"z","t":1195,"seq":103}`) // self-loop
	waitConsumed(t, d.info.MetricsAddr, int64(len(good)+len(bad)+1))
	send(`{"src":"n1","dst":"n2","t":100,"seq":104}`) // far behind the watermark: late
	total := int64(len(good) + len(bad) + 2)
	waitConsumed(t, d.info.MetricsAddr, total)

	m := testenv.Scrape(t, d.info.MetricsAddr)
	outcome := func(o string) float64 { return m[`motifwatch_pipeline_records_total{outcome="`+o+`"}`] }
	if got := m["motifwatch_ingest_records_consumed_total"]; got != float64(total) {
		t.Errorf("consumed %v records; want %d", got, total)
	}
	sum := outcome("appended") + outcome("self_loop") + outcome("late") + outcome("dead_lettered")
	if sum != float64(total) || outcome("appended") != 20 || outcome("self_loop") != 1 || outcome("late") != 1 || outcome("dead_lettered") != 4 {
		t.Errorf("outcomes appended %v + self_loop %v + late %v + dead_lettered %v = %v; want 20+1+1+4 = %d",
			outcome("appended"), outcome("self_loop"), outcome("late"), outcome("dead_lettered"), sum, total)
	}

	reasons := map[string]string{}
	for _, msg := range kafkatest.ReadTopic(t, brokers, "edges-dlq") {
		h := map[string]string{}
		for _, x := range msg.Headers {
			h[x.Key] = string(x.Value)
		}
		if h[kafka.HeaderSourceTopic] != "edges" || h[kafka.HeaderSourcePartition] != "0" || h[kafka.HeaderSourceOffset] == "" {
			t.Errorf("dead letter %q lacks its source position: %v", msg.Value, h)
		}
		reasons[string(msg.Value)] = h[kafka.HeaderReason]
	}
	for v, want := range bad {
		if !strings.Contains(reasons[v], want) {
			t.Errorf("dead letter of %.40q: reason %q; want it to mention %q", v, reasons[v], want)
		}
	}
	late := `{"src":"n1","dst":"n2","t":100,"seq":104}`
	if !strings.Contains(reasons[late], "late") {
		t.Errorf("late edge dead-lettered with reason %q; want a late reason", reasons[late])
	}
	if len(reasons) != len(bad)+1 {
		t.Errorf("%d dead letters; want %d", len(reasons), len(bad)+1)
	}
}

// TestDaemonHotReload edits the query file under a running daemon: a
// valid change applies with the next batch, an invalid one is rejected
// and the old set stays.
func TestDaemonHotReload(t *testing.T) {
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n")
	cfg := strings.Replace(e2eConfig(brokers, "reload", queries, 0), "  per_query:\n    path-count: {mode: count}\n", "", 1)
	d := startDaemon(t, cfg)
	waitMetric := func(name string, want float64) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if testenv.Scrape(t, d.info.MetricsAddr)[name] == want {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s never became %v: %v", name, want, testenv.Scrape(t, d.info.MetricsAddr)[name])
	}
	waitMetric("motifwatch_queries", 1)
	two := "queries:\n  - {name: pair, delta: 60, edges: [A -> B, B -> A]}\n  - {name: triangle, delta: 60, edges: [A -> B, B -> C, C -> A]}\n"
	if err := os.WriteFile(queries, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	waitMetric("motifwatch_queries", 2)
	waitMetric(`motifwatch_query_reloads_total{result="applied"}`, 1)
	// A query on an attribute the running window does not have: the
	// daemon refuses it (it would need a new column) and keeps the set.
	three := two + "  - {name: big, delta: 60, edges: [A -> B], where: \"amount > 5\"}\n"
	if err := os.WriteFile(queries, []byte(three), 0o644); err != nil {
		t.Fatal(err)
	}
	waitMetric(`motifwatch_query_reloads_total{result="rejected"}`, 1)
	// Broken YAML never reaches the daemon.
	if err := os.WriteFile(queries, []byte("queries: [ {name: oops"), 0o644); err != nil {
		t.Fatal(err)
	}
	// ... but it is a rejected reload all the same: counted (before, the
	// watcher returned before the counter, so the shipped
	// MotifwatchQueryReloadRejected rule could never fire) and the daemon
	// says it is degraded until the files hold a set in effect again.
	waitMetric(`motifwatch_query_reloads_total{result="rejected"}`, 2)
	waitMetric(`motifwatch_degraded{condition="query_reload_rejected"}`, 1)
	if code, body := readyz(d.info.MetricsAddr); code != http.StatusOK || !strings.HasPrefix(body, "degraded: query_reload_rejected: ") {
		t.Errorf("/readyz after a rejected reload = %d %q; want 200 degraded: query_reload_rejected: …", code, body)
	}
	if got := testenv.Scrape(t, d.info.MetricsAddr)["motifwatch_queries"]; got != 2 {
		t.Errorf("after invalid edits %v queries registered; want the old 2", got)
	}
	if err := os.WriteFile(queries, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	waitMetric(`motifwatch_degraded{condition="query_reload_rejected"}`, 0)
	// The kept set still alerts: a triangle now.
	produce(t, brokers, slices.Values([]kafka.Record{
		{Src: "x", Dst: "y", T: 10, Seq: 0}, {Src: "y", Dst: "z", T: 20, Seq: 1}, {Src: "z", Dst: "x", T: 30, Seq: 2},
	}))
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if observe(readAlerts(t, brokers)).counts["triangle"] == 1 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("no triangle alert after the reload")
}

func TestRunBadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	os.WriteFile(path, []byte("window:\n  batch_size: 0\n  allowed_latenes: 5s\n"), 0o644)
	_, errOut, code := monitor(t, "run", "--config", path)
	if code == 0 || !strings.Contains(errOut, "allowed_latenes") {
		t.Errorf("run with an unknown key: exit %d, stderr %q; want a non-zero exit naming the key", code, errOut)
	}
	os.WriteFile(path, []byte("window:\n  batch_size: 0\n"), 0o644)
	_, errOut, code = monitor(t, "run", "--config", path)
	if code == 0 || !strings.Contains(errOut, "window.batch_size") {
		t.Errorf("run with batch_size 0: exit %d, stderr %q; want a non-zero exit naming window.batch_size", code, errOut)
	}
}

// TestRunDemoAndSIGTERM runs the README's first command as a process (on
// a free metrics port): the demo's alerts reach stdout within seconds,
// and SIGTERM stops it cleanly and promptly.
func TestRunDemoAndSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon as a process")
	}
	cfg := filepath.Join(t.TempDir(), "demo.yaml")
	os.WriteFile(cfg, []byte("metrics:\n  listen: 127.0.0.1:0\n"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS=run --config "+cfg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	firstAlert := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var got []byte
		for {
			n, err := stdout.Read(buf)
			got = append(got, buf[:n]...)
			if i := bytes.IndexByte(got, '\n'); i >= 0 {
				firstAlert <- string(got[:i])
				io.Copy(io.Discard, stdout)
				return
			}
			if err != nil {
				close(firstAlert)
				return
			}
		}
	}()
	select {
	case line, ok := <-firstAlert:
		var a alerts.Alert
		if !ok || json.Unmarshal([]byte(line), &a) != nil || a.Kind != alerts.KindMatch || a.MatchID == "" {
			t.Errorf("first stdout line is not a match alert: %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("no alert on stdout within 30s; stderr:\n%s", stderr.String())
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "pipeline stopped") {
			t.Errorf("no clean pipeline stop in the log:\n%s", stderr.String())
		}
		t.Logf("stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still running 20s after SIGTERM")
	}
}

// TestRunWithoutConfigSaysItIsTheDemo: `monitor run` with no --config
// says at once that it runs the demo and how to run on one's own Kafka
// (issue 26 item 7), then stops cleanly on SIGTERM.
func TestRunWithoutConfigSaysItIsTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the daemon as a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS=run", "MONITOR_METRICS_LISTEN=127.0.0.1:0")
	var stderr testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	want := "no --config: running the demo"
	if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool { return strings.Contains(stderr.String(), want) }) {
		t.Fatalf("no %q line within 30s:\n%s", want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "monitor run --config config.yaml") {
		t.Errorf("the demo line does not say how to run for real:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, testenv.Tail(stderr.String(), 20))
	}
}
