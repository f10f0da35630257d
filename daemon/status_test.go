package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	stdhtml "html"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/stream"
)

// fakeClock is a settable clock for the status board.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

var statusT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testBoard(t testing.TB) (*statusBoard, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: statusT0}
	b := newStatusBoard(time.Second, EngineStatus{Backend: "cpu", Workers: 2, Devices: []string{}}, clk.now)
	qs, err := motif.ParseQueries([]byte(`queries:
  - name: ring
    description: money goes round
    delta: 10m
    edges: [A -> B, B -> C, C -> A]
    where: amount > 1000
  - name: fan
    delta: 1m
    edges: [S1 -> T, S2 -> T]
    group_by: [T]
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b.setQueries([]stream.Query{{Query: qs[0], Enumerate: true}, {Query: qs[1], Enumerate: true}},
		map[string]alerts.QueryOptions{"fan": {Group: alerts.Grouping{By: []string{"T"}, Within: time.Minute}}})
	return b, clk
}

// TestStatusLine checks the periodic status line: edges per second and
// matches per query over the span since the previous line, lag,
// watermark as an ISO time, window edges.
func TestStatusLine(t *testing.T) {
	b, clk := testBoard(t)
	var buf bytes.Buffer
	l := &statusLogger{b: b, log: slog.New(slog.NewTextHandler(&buf, nil))}
	clk.t = statusT0.Add(10 * time.Second)
	b.batch(batchStatus{records: 400, edges: 390, matches: map[string]int64{"ring": 2}, lag: 17, watermark: 1700000000, hasWatermark: true, hasWindow: true, windowEdges: 390})
	l.line()
	clk.t = statusT0.Add(40 * time.Second)
	b.batch(batchStatus{records: 600, edges: 600, matches: map[string]int64{"fan": 15}, lag: 3, watermark: 1700000030, hasWatermark: true, hasWindow: true, windowEdges: 990, windowBytes: 1 << 20})
	l.line()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines; want 2:\n%s", len(lines), buf.String())
	}
	for i, want := range [][]string{
		{"msg=status", "edges_per_s=39", "lag=17", "watermark=2023-11-14T22:13:20Z", "window_edges=390", `matches="fan=0 ring=2"`},
		{"msg=status", "edges_per_s=20", "lag=3", "watermark=2023-11-14T22:13:50Z", "window_edges=990", "window_bytes=1048576", `matches="fan=15 ring=0"`},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("status line %d = %s; want %s in it", i+1, lines[i], w)
			}
		}
	}
}

// TestStatusBoardRates checks the page's rates: over the last minute,
// from the oldest sample kept.
func TestStatusBoardRates(t *testing.T) {
	b, clk := testBoard(t)
	for i := 1; i <= 120; i++ { // one batch a second, 100 edges and one ring match each
		clk.t = statusT0.Add(time.Duration(i) * time.Second)
		b.batch(batchStatus{edges: 100, records: 100, matches: map[string]int64{"ring": 1}})
	}
	s := b.snapshot()
	if s.Ingest.Edges != 12000 || s.Ingest.EdgesPerSecond != 100 {
		t.Errorf("edges %d at %v/s; want 12000 at 100/s", s.Ingest.Edges, s.Ingest.EdgesPerSecond)
	}
	if q := s.Queries[1]; q.Name != "ring" || q.Matches != 120 || q.MatchesPerMinute != 60 || q.Text != "A -> B, B -> C, C -> A; where amount > 1000" || q.Delta != "10m" {
		t.Errorf("ring status = %+v; want 120 matches, 60/min, its text and delta", q)
	}
	if len(b.samples) > 62 {
		t.Errorf("%d samples kept; want about a minute's", len(b.samples))
	}
}

// TestStatusPageHandlers serves the console and the JSON from a board:
// the page carries the status as its first data, escaped (hostile ids
// stay text), a Content-Security-Policy that runs only the page's own
// script, and no external asset; the JSON has the queries, the last
// alerts (newest first, at most recentAlerts), the figures and the
// readiness state.
func TestStatusPageHandlers(t *testing.T) {
	b, clk := testBoard(t)
	clk.t = statusT0.Add(5 * time.Second)
	b.batch(batchStatus{records: 10, edges: 10, matches: map[string]int64{"fan": 1}, lag: 4, watermark: 5, hasWatermark: true, hasWindow: true, windowEdges: 10})
	for i := range recentAlerts + 5 {
		b.written([]alerts.Alert{{Kind: alerts.KindMatch, Query: "fan", MatchID: "id" + string(rune('A'+i)), DetectedAt: clk.t,
			Nodes: map[string]alerts.Node{"T": {ID: "acct-9", Label: "account"}}, FirstTime: "1970-01-01T00:00:00Z", LastTime: "1970-01-01T00:00:05Z"}})
	}
	const hostile = `"><img src=x onerror=alert(1)></script><script>alert(2)</script>`
	b.written([]alerts.Alert{{Kind: alerts.KindIncident, Query: "fan", IncidentID: "inc1", Count: 15, DetectedAt: clk.t,
		Nodes: map[string]alerts.Node{"T": {ID: hostile}}}})
	b.state = func() (string, string) { return stateNotReady, "connecting: kafka [h:9092] has not answered" }
	srv := statusServer(t, b)

	html, hdr := get(t, srv.URL+"/")
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Errorf("content type %q", hdr.Get("Content-Type"))
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "default-src 'none'") ||
		!strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy = %q; want only the page's script by hash, fetches to the daemon", csp)
	}
	for _, bad := range []string{"<img", "<script>alert", "onerror=alert(1)>"} {
		if strings.Contains(html, bad) {
			t.Errorf("page carries %q unescaped", bad)
		}
	}
	for _, ext := range []string{"src=\"http", "href=\"http", "<script src", "@import", "url("} {
		if strings.Contains(html, ext) {
			t.Errorf("page loads an external asset (%q)", ext)
		}
	}
	// The page's own weight, its data aside: small enough to read whole.
	if n := len(html) - len(regexp.MustCompile(`data-initial="[^"]*"`).FindString(html)); n > 24<<10 {
		t.Errorf("page without its data is %d bytes; want at most 24 KiB", n)
	}
	// The first data is the status itself, attribute-escaped.
	m := regexp.MustCompile(`data-initial="([^"]*)"`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("page has no data-initial")
	}
	var initial Status
	if err := json.Unmarshal([]byte(stdhtml.UnescapeString(m[1])), &initial); err != nil {
		t.Fatalf("data-initial: %v", err)
	}
	if initial.RecentAlerts[0].Nodes["T"].ID != hostile || len(initial.Queries) != 2 || initial.Engine.Backend != "cpu" {
		t.Errorf("data-initial = %+v; want the status with the hostile id intact", initial)
	}

	body, _ := get(t, srv.URL+"/api/status")
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("/api/status: %v\n%s", err, body)
	}
	if len(s.RecentAlerts) != recentAlerts || s.RecentAlerts[0].IncidentID != "inc1" || s.Ingest.LagRecords == nil || *s.Ingest.LagRecords != 4 ||
		s.Ingest.Watermark == nil || *s.Ingest.Watermark != 5 || s.Ingest.WatermarkTime != "1970-01-01T00:00:05Z" || len(s.Queries) != 2 || s.Ready || s.NotReady == "" ||
		s.State != stateNotReady {
		t.Errorf("/api/status = %s", body)
	}
	if s.RecentAlerts[len(s.RecentAlerts)-1].MatchID != "idG" {
		t.Errorf("oldest alert shown %q; want idG (the last %d)", s.RecentAlerts[len(s.RecentAlerts)-1].MatchID, recentAlerts)
	}
	if q := s.Queries[0]; q.Name != "fan" || q.LastMatch == nil || !q.LastMatch.Equal(clk.t) {
		t.Errorf("fan = %+v; want its last match at %v", q, clk.t)
	}

	// Degraded: consuming, so ready, but the JSON says what the daemon
	// cannot see, condition by condition.
	b.state = func() (string, string) {
		return stateDegraded, "input_rejected: 30 of the last minute's 32 records were dead-lettered"
	}
	b.conditions = func() map[string]string {
		return map[string]string{condInputRejected: "30 of the last minute's 32 records were dead-lettered", condReloadRejected: "bad file"}
	}
	body, _ = get(t, srv.URL+"/api/status")
	s = Status{}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.State != stateDegraded || !s.Ready || s.NotReady != "" || !strings.HasPrefix(s.Degraded, "input_rejected: ") || len(s.Conditions) != 2 ||
		s.Conditions[0].Name != condInputRejected || s.Conditions[1] != (ConditionStatus{condReloadRejected, "bad file"}) {
		t.Errorf("degraded /api/status = %s", body)
	}
}

func statusServer(t *testing.T, b *statusBoard) *httptest.Server {
	t.Helper()
	page, api := statusHandlers(b)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", page)
	mux.HandleFunc("GET /api/status", api)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", url, resp.Status, body.String())
	}
	return body.String(), resp.Header
}

// consoleRegistry registers the metrics the console reads, with the
// constructors the daemon uses (a renamed series fails the tests that
// read them).
type consoleRegistry struct {
	reg *prometheus.Registry
	pm  *pipelineMetrics
	im  *ingest.Metrics
	am  *alerts.Metrics
}

func newConsoleRegistry(t testing.TB) consoleRegistry {
	t.Helper()
	reg := prometheus.NewRegistry()
	pm, err := newPipelineMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	im, err := ingest.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	am, err := alerts.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return consoleRegistry{reg: reg, pm: pm, im: im, am: am}
}

// TestStatusAPIUnknownLag: while the brokers do not answer, every lag on
// /api/status is null (unknown), never 0 nor the last value fetched; the
// partitions keep their watermark and how far it trails the clock. Once
// the brokers answer again the lags are back.
func TestStatusAPIUnknownLag(t *testing.T) {
	b, clk := testBoard(t)
	r := newConsoleRegistry(t)
	h := newHealth()
	h.setRunning(true)
	b.gather, b.unreachable, b.state = r.reg, h.unreachable, h.state
	r.pm.lag.WithLabelValues("0").Set(0)
	r.pm.lag.WithLabelValues("1").Set(7)
	wm := statusT0.Add(-90 * time.Second).Unix() // the board's tick is a second
	r.im.SetEventTime(0, []ingest.PartitionTime{{Partition: 0, Time: wm, Watermark: wm}})
	b.batch(batchStatus{records: 3, edges: 3, lag: 7})
	srv := statusServer(t, b)

	read := func() (Status, string) {
		body, _ := get(t, srv.URL+"/api/status")
		var s Status
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatal(err)
		}
		return s, body
	}
	s, body := read()
	if !s.Brokers.Reachable || len(s.Partitions) != 2 || s.Partitions[0].Lag == nil || *s.Partitions[0].Lag != 0 || s.Partitions[1].Lag == nil ||
		*s.Partitions[1].Lag != 7 || s.Ingest.LagRecords == nil || *s.Ingest.LagRecords != 7 {
		t.Fatalf("brokers up: /api/status = %s", body)
	}
	h.fail(opProbe, errors.New("dial tcp 127.0.0.1:9092: connection refused"))
	clk.t = statusT0.Add(10 * time.Second)
	s, body = read()
	if s.Brokers.Reachable || !strings.Contains(s.Brokers.Problem, "connection refused") || s.Ingest.LagRecords != nil {
		t.Errorf("brokers down: brokers %+v, lag %v; want unreachable, lag unknown", s.Brokers, s.Ingest.LagRecords)
	}
	for _, p := range s.Partitions {
		if p.Lag != nil {
			t.Errorf("brokers down: partition %d lag %d; want unknown (null)", p.Partition, *p.Lag)
		}
	}
	if strings.Contains(body, `"lag": 0`) || strings.Contains(body, `"lag_records": 0`) || !strings.Contains(body, `"lag": null`) {
		t.Errorf("brokers down: the JSON must say null, never 0:\n%s", body)
	}
	if p := s.Partitions[0]; p.Watermark == nil || *p.Watermark != wm || p.TrailsSeconds == nil || *p.TrailsSeconds != 100 {
		t.Errorf("partition 0 = %+v; want watermark %d trailing by 100 s", p, wm)
	}
	b.sample()
	if h := b.hist.history(); len(h.LagRecords) != 1 || !math.IsNaN(float64(h.LagRecords[0])) {
		t.Errorf("history lag while down = %v; want one unknown sample", h.LagRecords)
	}
	h.ok(opProbe)
	if s, body = read(); !s.Brokers.Reachable || s.Partitions[1].Lag == nil || *s.Partitions[1].Lag != 7 {
		t.Errorf("brokers back: /api/status = %s", body)
	}
}

// TestStatusInputAndQueries: the input's health and each query's alert
// figures come from the daemon's counters.
func TestStatusInputAndQueries(t *testing.T) {
	b, _ := testBoard(t)
	r := newConsoleRegistry(t)
	b.gather = r.reg
	r.im.Consumed(0, 60)
	r.im.Consumed(2, 40)
	r.pm.countRecords("appended", 70)
	r.pm.countRecords("dead_lettered", 25)
	r.pm.countRecords("late", 5)
	r.im.DeadLettered("decode", 20)
	r.im.DeadLettered("future", 5)
	r.im.Late(5)
	r.am.Written.WithLabelValues("ring", "match").Add(3)
	r.am.Written.WithLabelValues("ring", "rate_limited").Add(1)
	r.am.RateLimited.WithLabelValues("ring").Add(9)
	b.reloaded(config.ReloadRejected, errors.New("q.yaml:3: bad edge"))
	s := b.snapshot()
	in := s.Input
	if in.RecordsReceived != 100 || in.EdgesAccepted != 70 || in.DeadLettered["decode"] != 20 || in.Future != 5 || in.Late != 5 || in.Outcomes["dead_lettered"] != 25 {
		t.Errorf("input = %+v", in)
	}
	if len(s.Partitions) != 2 || s.Partitions[0].Records != 60 || s.Partitions[1].Partition != 2 || s.Partitions[1].Lag != nil {
		t.Errorf("partitions = %+v; want 0 and 2 with their records, lag unknown before a fetch", s.Partitions)
	}
	if q := s.Queries[1]; q.Name != "ring" || q.AlertsWritten != 4 || q.RateLimited != 9 || q.Truncated != 0 || q.LastMatch != nil {
		t.Errorf("ring = %+v; want 4 alerts written, 9 rate-limited, never matched", q)
	}
	if s.LastReload == nil || s.LastReload.Result != config.ReloadRejected || s.LastReload.Error != "q.yaml:3: bad edge" {
		t.Errorf("last reload = %+v", s.LastReload)
	}
}

// TestHistoryRing: the ring keeps the last historyLen samples, oldest
// first, in fixed memory: a query's series appears with its first sample,
// reads null before, and goes once every sample of it has aged out; no
// more than historyMaxQueries queries have one.
func TestHistoryRing(t *testing.T) {
	r := newHistoryRing()
	for i := range historyLen + 10 {
		s := historySample{at: statusT0.Add(time.Duration(i) * historyStep), queries: map[string]float64{}}
		for k := range numSeries {
			s.values[k] = float64(i)
		}
		s.values[seriesLag] = math.NaN()
		if i >= historyLen {
			s.queries["late"] = float64(i)
		}
		if i < 5 {
			s.queries["gone"] = 1
		}
		r.push(s)
	}
	h := r.history()
	if len(h.Times) != historyLen || h.Times[0] != statusT0.Add(10*historyStep).UnixMilli() || float64(h.EdgesPerSecond[0]) != 10 ||
		float64(h.EdgesPerSecond[historyLen-1]) != historyLen+9 {
		t.Errorf("history: %d times from %v, edges/s %v … %v; want %d from the 11th sample", len(h.Times), h.Times[0], h.EdgesPerSecond[0], h.EdgesPerSecond[historyLen-1], historyLen)
	}
	if _, ok := h.MatchesPerMinute["gone"]; ok {
		t.Errorf("a query absent for %d samples still has a history", historyLen)
	}
	late := h.MatchesPerMinute["late"]
	if len(late) != historyLen || !math.IsNaN(float64(late[historyLen-11])) || float64(late[historyLen-10]) != historyLen {
		t.Errorf("late's history ends %v; want null before its first sample", late[historyLen-12:])
	}
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"lag_records":[null,null`) {
		t.Errorf("unknown lag not null in %.200s", js)
	}
	many := historySample{at: statusT0, queries: map[string]float64{}}
	for i := range historyMaxQueries + 5 {
		many.queries[fmt.Sprint("q", i)] = 1
	}
	r.push(many)
	if len(r.queries) != historyMaxQueries {
		t.Errorf("%d query series; want at most %d", len(r.queries), historyMaxQueries)
	}
}

// TestHistoryRates: samples turn the totals into rates over each step:
// edges/s, rejected/s, matches per minute per query, the batch latency's
// p99 over the step (none without a batch), the lag.
func TestHistoryRates(t *testing.T) {
	b, clk := testBoard(t)
	r := newConsoleRegistry(t)
	b.gather = r.reg
	b.sample() // the first sample has no rates
	clk.t = clk.t.Add(historyStep)
	b.batch(batchStatus{edges: 500, matches: map[string]int64{"ring": 10}})
	r.pm.countRecords("dead_lettered", 50)
	r.pm.lag.WithLabelValues("0").Set(12)
	for range 99 {
		r.pm.latencySeconds.Observe(0.003) // bucket (0.002, 0.004]
	}
	r.pm.latencySeconds.Observe(0.5)
	b.sample()
	clk.t = clk.t.Add(historyStep)
	b.sample() // no batch in this step
	h := b.hist.history()
	if len(h.Times) != 3 || !math.IsNaN(float64(h.EdgesPerSecond[0])) || h.EdgesPerSecond[1] != 100 || h.RejectedPerSecond[1] != 10 ||
		h.MatchesPerMinute["ring"][1] != 120 || h.MatchesPerMinute["fan"][1] != 0 || h.LagRecords[1] != 12 || h.EdgesPerSecond[2] != 0 {
		t.Errorf("history = %+v", h)
	}
	if p99 := float64(h.LatencyP99Seconds[1]); p99 <= 0.002 || p99 > 0.004+1e-9 { // kept as float32
		t.Errorf("p99 = %v; want within the bucket (0.002, 0.004] that holds it", p99)
	}
	if !math.IsNaN(float64(h.LatencyP99Seconds[2])) {
		t.Errorf("p99 of a step without batches = %v; want unknown", h.LatencyP99Seconds[2])
	}
}

func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		q    float64
		b    buckets
		want float64
	}{
		{0.99, buckets{[]float64{1, 2, inf}, []float64{0, 100, 100}}, 1.99},
		{0.5, buckets{[]float64{1, 2, inf}, []float64{50, 100, 100}}, 1},
		{0.99, buckets{[]float64{1, 2, inf}, []float64{0, 0, 10}}, 2}, // in +Inf: the highest finite bound
		{0.99, buckets{[]float64{1, 2, inf}, []float64{0, 0, 0}}, math.NaN()},
	} {
		got := histogramQuantile(c.q, c.b)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) && math.Abs(got-c.want) > 1e-9 {
			t.Errorf("histogramQuantile(%v, %v) = %v; want %v", c.q, c.b, got, c.want)
		}
	}
}

// TestHistoryFirstSampleSinceStart: what came in before the first sample
// is a rate since the start, not lost to the baseline.
func TestHistoryFirstSampleSinceStart(t *testing.T) {
	b, clk := testBoard(t)
	r := newConsoleRegistry(t)
	b.gather = r.reg
	clk.t = statusT0.Add(historyStep)
	b.batch(batchStatus{edges: 250, matches: map[string]int64{"fan": 5}})
	r.pm.countRecords("dead_lettered", 40)
	b.sample()
	h := b.hist.history()
	if len(h.Times) != 1 || h.EdgesPerSecond[0] != 50 || h.RejectedPerSecond[0] != 8 || h.MatchesPerMinute["fan"][0] != 60 {
		t.Errorf("first sample: edges/s %v, rejected/s %v, fan %v/min; want 50, 8, 60", h.EdgesPerSecond, h.RejectedPerSecond, h.MatchesPerMinute["fan"])
	}
}
