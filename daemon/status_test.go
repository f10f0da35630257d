package daemon

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/stream"
)

// fakeClock is a settable clock for the status board.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

var statusT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testBoard(t *testing.T) (*statusBoard, *fakeClock) {
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

// TestStatusPageHandlers renders the page and the JSON from a board: the
// queries, the last alerts (newest first, at most recentAlerts), the
// figures; and no external asset in the page.
func TestStatusPageHandlers(t *testing.T) {
	b, clk := testBoard(t)
	clk.t = statusT0.Add(5 * time.Second)
	b.batch(batchStatus{records: 10, edges: 10, matches: map[string]int64{"fan": 1}, lag: 4, watermark: 5, hasWatermark: true, hasWindow: true, windowEdges: 10})
	for i := range recentAlerts + 5 {
		b.written([]alerts.Alert{{Kind: alerts.KindMatch, Query: "fan", MatchID: "id" + string(rune('A'+i)), DetectedAt: clk.t,
			Nodes: map[string]alerts.Node{"T": {ID: "acct-9", Label: "account"}}, FirstTime: "1970-01-01T00:00:00Z", LastTime: "1970-01-01T00:00:05Z"}})
	}
	b.written([]alerts.Alert{{Kind: alerts.KindIncident, Query: "fan", IncidentID: "inc1", Count: 15, DetectedAt: clk.t}})
	b.state = func() (string, string) { return stateNotReady, "connecting: kafka [h:9092] has not answered" }
	page, api := statusHandlers(b)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", page)
	mux.HandleFunc("GET /api/status", api)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	get := func(path string) (string, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %s", path, resp.Status, body.String())
		}
		return body.String(), resp.Header.Get("Content-Type")
	}
	html, ctype := get("/")
	if !strings.HasPrefix(ctype, "text/html") {
		t.Errorf("content type %q", ctype)
	}
	for _, want := range []string{`<meta http-equiv="refresh"`, "money goes round", "ring", "incidents by T",
		`data-match-id="idG"`, "T=acct-9 (account)", "incident ×15", "inc1", "engine <b id=\"engine\">cpu</b>",
		`<span class="bad" id="ready">not ready: connecting: kafka [h:9092] has not answered</span>`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(html, `<tr class="alert"`); n != recentAlerts {
		t.Errorf("page shows %d alerts; want the last %d", n, recentAlerts)
	}
	if strings.Contains(html, `data-match-id="idF"`) {
		t.Errorf("page shows an alert older than the last %d", recentAlerts)
	}
	for _, ext := range []string{"src=\"http", "href=\"http", "<script src", "@import"} {
		if strings.Contains(html, ext) {
			t.Errorf("page loads an external asset (%q)", ext)
		}
	}
	body, _ := get("/api/status")
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("/api/status: %v\n%s", err, body)
	}
	if len(s.RecentAlerts) != recentAlerts || s.RecentAlerts[0].IncidentID != "inc1" || s.Ingest.LagRecords != 4 ||
		s.Ingest.Watermark == nil || *s.Ingest.Watermark != 5 || s.Ingest.WatermarkTime != "1970-01-01T00:00:05Z" || len(s.Queries) != 2 || s.Ready || s.NotReady == "" ||
		s.State != stateNotReady {
		t.Errorf("/api/status = %s", body)
	}

	// Degraded: consuming, so ready, but the page and the JSON say what
	// the daemon cannot see.
	b.state = func() (string, string) {
		return stateDegraded, "input_rejected: 30 of the last minute's 32 records were dead-lettered"
	}
	html, _ = get("/")
	if want := `<span class="bad" id="ready">degraded: input_rejected: 30 of the last minute&#39;s 32 records were dead-lettered</span>`; !strings.Contains(html, want) {
		t.Errorf("degraded page lacks %q", want)
	}
	body, _ = get("/api/status")
	s = Status{}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.State != stateDegraded || !s.Ready || s.NotReady != "" || !strings.HasPrefix(s.Degraded, "input_rejected: ") {
		t.Errorf("degraded /api/status = %s", body)
	}
}
