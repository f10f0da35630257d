package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
)

// chromiumFlags run Debian's Chromium headless on a machine without a
// display, sandbox or network (the background-networking flags keep it
// from calling out at every start).
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
	"--hide-scrollbars"}

// chromium returns the browser to test with: $MOTIFWATCH_CHROMIUM, or
// chromium on PATH; the test skips without one (fails under CI=true,
// where .ci/run installs it).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MOTIFWATCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium for this test")
	}
	t.Skip("no chromium on PATH (Debian: apt-get install -y chromium; or set MOTIFWATCH_CHROMIUM): the status page's browser test needs a real browser")
	return ""
}

// runChromium runs the browser headless with args and returns its stdout.
func runChromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir())
	cmd := exec.CommandContext(ctx, bin, append(all, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// screenshotDir is where the tests keep their screenshots:
// $MOTIFWATCH_SCREENSHOTS if set (to look at them), else a temporary
// directory of the test.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("MOTIFWATCH_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// screenshot renders url at 1280×h once its script has run and checks
// the picture is not blank.
func screenshot(t *testing.T, bin, url, name string, h int) {
	t.Helper()
	shot := filepath.Join(screenshotDir(t), name)
	runChromium(t, bin, "--screenshot="+shot, fmt.Sprintf("--window-size=1280,%d", h), "--virtual-time-budget=3000", url)
	checkScreenshot(t, shot, 1280, h)
	t.Logf("screenshot %s", shot)
}

// dumpDOM returns the page at url as the browser holds it once its
// script has run for budget of virtual time (timers run at once; the
// fetches are real).
func dumpDOM(t *testing.T, bin, url string, budget time.Duration) string {
	t.Helper()
	return runChromium(t, bin, "--dump-dom", fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds()), url)
}

// driveConsole serves the console of the daemon at base through a proxy
// of the same origin, with a driver page that loads it in a frame and
// acts as an operator would (script), and returns what the script wrote
// as JSON into result.
func driveConsole(t *testing.T, bin, base, script string, result any) {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/driver" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, driverPage, script)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dom := dumpDOM(t, bin, srv.URL+"/driver", 120*time.Second)
	m := regexp.MustCompile(`(?s)<pre id="result">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("driver page wrote no result:\n%.3000s", dom)
	}
	if err := json.Unmarshal([]byte(stdhtml.UnescapeString(m[1])), result); err != nil {
		t.Fatalf("driver result %q: %v", m[1], err)
	}
}

// driverPage frames the console and runs a script (%%s) against it with
// helpers: d and w are the frame's document and window, wait(ms),
// until(cond, ms), refreshes() the console's refresh count; the script
// fills out, which is written as JSON into #result.
const driverPage = `<!DOCTYPE html><html><body><pre id="result">pending</pre>
<iframe id="f" src="/" style="width:1280px;height:900px"></iframe>
<script>
const out = {};
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, ms) { for (let i = 0; i < ms / 100; i++) { if (cond()) return true; await wait(100); } return cond(); }
document.getElementById('f').onload = async () => {
  const d = document.getElementById('f').contentDocument, w = document.getElementById('f').contentWindow;
  const refreshes = () => +d.getElementById('updated').dataset.refreshes;
  try {
%s
  } catch (e) { out.error = String(e.stack || e); }
  document.getElementById('result').textContent = JSON.stringify(out);
};
</script></body></html>`

// TestStatusPageInBrowser runs the daemon on the demo feed (embedded
// broker, demo queries) and drives its console in headless Chromium:
// the queries and alerts the daemon reports are on the page, the
// sparklines are drawn once samples were taken, a refresh updates the
// page in place (a selection survives it), Pause stops the refreshes,
// the filter shows one query's alerts, and an alert opens to its edges.
// The screenshot "healthy" is kept in $MOTIFWATCH_SCREENSHOTS (the docs'
// docs/status-page.png comes from it).
func TestStatusPageInBrowser(t *testing.T) {
	bin := chromium(t)
	cfg, err := config.Parse([]byte(`metrics: {listen: "127.0.0.1:0"}
log: {status_interval: 0s}
`), "browser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Queries []map[string]any `yaml:"queries"`
	}
	if err := yaml.Unmarshal([]byte(synth.DemoQueriesYAML), &doc); err != nil {
		t.Fatal(err)
	}
	cfg.Queries.Inline = doc.Queries

	d := testenv.Start(t, 60*time.Second, func(ctx context.Context, started func(Info)) error {
		return Run(ctx, Options{Config: cfg, Registry: prometheus.NewRegistry(), Stdout: io.Discard, Started: started})
	})
	base := "http://" + d.Info.MetricsAddr

	// Wait for match alerts of two queries at least (so that the filter
	// has something to hide) and three history samples.
	var st Status
	if !testenv.Poll(3*time.Minute, 200*time.Millisecond, func() bool {
		st = getStatus(t, base)
		qs := map[string]bool{}
		for _, a := range st.RecentAlerts {
			qs[a.Query] = true
		}
		return countKind(st.RecentAlerts, alerts.KindMatch) > 0 && len(qs) >= 2 && len(st.History.Times) >= 3
	}) {
		t.Fatalf("after 3 minutes: %d alerts, %d history samples", len(st.RecentAlerts), len(st.History.Times))
	}

	dom := dumpDOM(t, bin, base+"/", time.Second)
	if !strings.Contains(dom, "<title>motifwatch status</title>") {
		t.Fatalf("chromium rendered no status page:\n%.2000s", dom)
	}
	for _, q := range []string{synth.MoneyRing, synth.FanIn, synth.QuickReturn} {
		if !strings.Contains(dom, "<b>"+q+"</b>") {
			t.Errorf("rendered page lacks query %s", q)
		}
	}
	if !strings.Contains(dom, `id="banner" class="ready"`) {
		t.Errorf("healthy daemon's banner is not 'ready':\n%.3000s", dom)
	}
	// The alerts shown are ones the daemon wrote.
	ids := regexp.MustCompile(`data-kind="match" data-query="[^"]*" data-match-id="([0-9a-f]{32})"`).FindAllStringSubmatch(dom, -1)
	if len(ids) == 0 {
		t.Fatalf("rendered page shows no match alerts:\n%.4000s", dom)
	}
	known := map[string]bool{}
	for _, a := range append(st.RecentAlerts, getStatus(t, base).RecentAlerts...) {
		known[a.MatchID] = true
	}
	found := 0
	for _, m := range ids {
		if known[m[1]] {
			found++
		}
	}
	if found == 0 {
		t.Errorf("none of the %d alerts on the page is one the daemon reported", len(ids))
	}

	var got struct {
		Error               string
		Points              map[string]int
		Selected, Selection string
		Refreshed           int
		SameRow             bool
		PausedRefreshes     int
		PauseLabel          string
		ResumedRefreshes    int
		Filter              string
		Shown, Hidden       []string
		Opened, StillOpen   bool
		OpenedID            string
		EdgeRows            int
		EdgeText            string
	}
	driveConsole(t, bin, base, `
  out.points = {};
  for (const id of ['h-edges', 'h-lag', 'h-latency', 'h-rejected']) out.points[id] = +d.querySelector('#' + id + ' svg').getAttribute('data-points');
  // Select a query's name, as to copy it, and let the page refresh twice.
  const cell = d.querySelector('#queries tr td b'), row = cell.closest('tr');
  const range = d.createRange(); range.selectNodeContents(cell);
  w.getSelection().removeAllRanges(); w.getSelection().addRange(range);
  out.selected = cell.textContent;
  const r0 = refreshes();
  await until(() => refreshes() >= r0 + 2, 20000);
  out.refreshed = refreshes() - r0;
  out.selection = w.getSelection().toString();
  out.sameRow = row.isConnected && d.querySelector('#queries tr') === row;
  // Pause: no refresh for 10 s; resume: refreshes again.
  d.getElementById('pause').click();
  const p0 = refreshes();
  await wait(10000);
  out.pausedRefreshes = refreshes() - p0;
  out.pauseLabel = d.getElementById('pause').textContent;
  d.getElementById('pause').click();
  await until(() => refreshes() > p0, 10000);
  out.resumedRefreshes = refreshes() - p0;
  // Filter by the query of the first match alert.
  const first = d.querySelector('#alerts details[data-kind=match]');
  out.filter = first.dataset.query;
  const f = d.getElementById('filter'); f.value = out.filter; f.dispatchEvent(new Event('change'));
  const all = [...d.querySelectorAll('#alerts details')];
  out.shown = all.filter((x) => !x.hidden).map((x) => x.dataset.query);
  out.hidden = all.filter((x) => x.hidden).map((x) => x.dataset.query);
  // Open it: its edges.
  first.querySelector('summary').click();
  out.opened = first.open; out.openedID = first.dataset.matchId;
  out.edgeRows = first.querySelectorAll('table.edges tr').length - 1;
  out.edgeText = first.querySelector('table.edges').textContent;
  const r1 = refreshes();
  await until(() => refreshes() > r1, 10000);
  out.stillOpen = first.isConnected && first.open;
`, &got)
	if got.Error != "" {
		t.Fatalf("driving the console: %s", got.Error)
	}
	for id, n := range got.Points {
		if n < 2 && id != "h-latency" { // latency: the steps with a batch
			t.Errorf("sparkline %s has %d points; want one per sample after the first (≥ 2)", id, n)
		}
	}
	if got.Refreshed < 2 || got.Selection != got.Selected || got.Selected == "" || !got.SameRow {
		t.Errorf("in-place refresh: %d refreshes, selection %q of %q, same row %v; want the selection kept by the same row", got.Refreshed, got.Selection, got.Selected, got.SameRow)
	}
	if got.PausedRefreshes != 0 || got.PauseLabel != "Resume" || got.ResumedRefreshes < 1 {
		t.Errorf("pause: %d refreshes while paused (label %q), %d after resuming; want 0, Resume, ≥ 1", got.PausedRefreshes, got.PauseLabel, got.ResumedRefreshes)
	}
	if len(got.Shown) == 0 || len(got.Hidden) == 0 {
		t.Errorf("filter %q: shown %v, hidden %v; want both (alerts of two queries at least)", got.Filter, got.Shown, got.Hidden)
	}
	for _, q := range got.Shown {
		if q != got.Filter {
			t.Errorf("filter %q shows an alert of %q", got.Filter, q)
		}
	}
	for _, q := range got.Hidden {
		if q == got.Filter {
			t.Errorf("filter %q hides one of its alerts", got.Filter)
		}
	}
	var edges []alerts.Edge
	for _, a := range append(st.RecentAlerts, getStatus(t, base).RecentAlerts...) {
		if a.MatchID == got.OpenedID {
			edges = a.Edges
		}
	}
	if !got.Opened || !got.StillOpen || got.EdgeRows < 2 || edges != nil && got.EdgeRows != len(edges) {
		t.Errorf("alert %s: opened %v, open after a refresh %v, %d edge rows (the daemon reported %d)", got.OpenedID, got.Opened, got.StillOpen, got.EdgeRows, len(edges))
	}
	for _, e := range edges {
		if !strings.Contains(got.EdgeText, e.Src) || !strings.Contains(got.EdgeText, e.Dst) {
			t.Errorf("opened alert's edges %q lack %s → %s", got.EdgeText, e.Src, e.Dst)
		}
	}

	screenshot(t, bin, base+"/", "healthy.png", 1400)
	if keep := os.Getenv("MOTIFWATCH_SCREENSHOT"); keep != "" {
		runChromium(t, bin, "--screenshot="+keep, "--window-size=1280,1000", "--virtual-time-budget=3000", base+"/")
	}
	if err := d.Stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
}

// TestStatusPageTroubleInBrowser shows trouble on the console, over the
// Kafka protocol: input that is all undecodable (100% dead letters: the
// banner says degraded, input_rejected; the input table says so), an
// alert whose node ids are hostile markup (shown as text, never run),
// then the broker stopped (the banner says the brokers are unreachable,
// every lag reads "unknown", never 0). Screenshots "dead-letters" and
// "broker-down".
func TestStatusPageTroubleInBrowser(t *testing.T) {
	bin := chromium(t)
	broker := kafkatest.StartRestartable(t, kafkatest.BrokerOptions{})
	brokers := broker.Addrs()
	dir := t.TempDir()
	qfile := filepath.Join(dir, "queries.yaml")
	if err := os.WriteFile(qfile, []byte("queries:\n  - name: path\n    delta: 3600\n    edges: [A -> B, B -> C]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(fmt.Appendf(nil, `kafka: {brokers: [%s], partitions: 3, group: console}
demo: false
input: {fields: {src: src, dst: dst, time: t, seq: seq}}
window: {allowed_lateness: 0s, batch_max_wait: 50ms, idle_timeout: 2s}
alerts: {rate_limit: 0}
queries: {files: [%s]}
metrics: {listen: "127.0.0.1:0"}
log: {status_interval: 0s}
`, strings.Join(brokers, ", "), qfile), filepath.Join(dir, "console.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := testenv.Start(t, 60*time.Second, func(ctx context.Context, started func(Info)) error {
		return Run(ctx, Options{Config: cfg, Registry: prometheus.NewRegistry(), Stdout: io.Discard, Started: started})
	})
	base := "http://" + d.Info.MetricsAddr

	// 100% dead letters.
	var junk []kafka.Message
	for i := range 40 {
		junk = append(junk, kafka.Message{Partition: i % 3, Value: fmt.Appendf(nil, `{"src":"a%d",`, i)})
	}
	kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{}, junk...)
	var st Status
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		st = getStatus(t, base)
		return len(st.Conditions) > 0 && st.Conditions[0].Name == condInputRejected && len(st.History.Times) >= 2 &&
			st.Input.DeadLettered["decode"] == 40
	}) {
		t.Fatalf("no input_rejected condition with 40 dead letters: %+v %+v", st.Conditions, st.Input)
	}
	dom := dumpDOM(t, bin, base+"/", time.Second)
	for _, want := range []string{`id="banner" class="degraded"`, "<b>input_rejected</b>", "40 (100.0%)", "decode 40"} {
		if !strings.Contains(dom, want) {
			t.Errorf("console with all input dead-lettered lacks %q", want)
		}
	}
	screenshot(t, bin, base+"/", "dead-letters.png", 1100)

	// An alert whose ids are hostile markup.
	now := time.Now().Unix()
	hostile := []string{`<img src=x onerror="document.title='owned'">`, `</script><script>document.title='owned'</script>`, `"'&amp;<b>c</b>`}
	var path []kafka.Message
	for i := range 2 {
		v, _ := json.Marshal(map[string]any{"src": hostile[i], "dst": hostile[i+1], "t": now + int64(i), "seq": i + 1})
		path = append(path, kafka.Message{Partition: i, Value: v})
	}
	kafkatest.Send(t, brokers, "edges", kafkatest.SendOptions{}, path...)
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		st = getStatus(t, base)
		return countKind(st.RecentAlerts, alerts.KindMatch) > 0
	}) {
		t.Fatalf("no path alert for the hostile ids: %+v", st.Input)
	}
	dom = dumpDOM(t, bin, base+"/", time.Second)
	if !strings.Contains(dom, "<title>motifwatch status</title>") {
		t.Errorf("a hostile id ran as script: the page's title changed")
	}
	for _, bad := range []string{"<img src=", "<script>document", "<b>c</b>"} {
		if strings.Contains(dom, bad) {
			t.Errorf("a hostile id became markup: %q in the page", bad)
		}
	}
	if !strings.Contains(dom, "A=&lt;img src=x onerror=") {
		t.Errorf("the hostile ids are not shown as text:\n%.6000s", dom)
	}

	// The broker down: the lags are unknown, never 0.
	broker.Stop()
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		st = getStatus(t, base)
		return !st.Brokers.Reachable && st.Ingest.LagRecords == nil
	}) {
		t.Fatalf("brokers still reachable on /api/status after the broker stopped: %+v", st.Brokers)
	}
	for _, p := range st.Partitions {
		if p.Lag != nil {
			t.Errorf("broker down: partition %d lag %d on /api/status; want unknown", p.Partition, *p.Lag)
		}
	}
	dom = dumpDOM(t, bin, base+"/", time.Second)
	if !strings.Contains(dom, `id="banner" class="notready"`) || !strings.Contains(dom, "<b>brokers unreachable</b>") {
		t.Errorf("console with the broker down does not say so:\n%.3000s", dom)
	}
	lags := regexp.MustCompile(`<tr data-key="\d+"><td class="n">\d+</td><td class="n">[^<]*</td><td class="([^"]*)">([^<]*)</td>`).FindAllStringSubmatch(dom, -1)
	if len(lags) == 0 {
		t.Errorf("no partition rows on the console:\n%.6000s", dom)
	}
	for _, l := range lags {
		if l[2] != "unknown" || !strings.Contains(l[1], "unknown") {
			t.Errorf("broker down: a partition's lag reads %q (class %q); want unknown", l[2], l[1])
		}
	}
	screenshot(t, bin, base+"/", "broker-down.png", 1100)
	d.Stop() // the daemon cannot finish cleanly without its broker: its error is not the point here
}

func getStatus(t *testing.T, base string) Status {
	t.Helper()
	resp, err := http.Get(base + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("/api/status: %v", err)
	}
	return s
}

func countKind(as []alerts.Alert, k alerts.Kind) int {
	n := 0
	for _, a := range as {
		if a.Kind == k {
			n++
		}
	}
	return n
}

// checkScreenshot checks that path is a w×h PNG with something drawn on
// it: many distinct colours (text, tables), not one blank fill.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %dx%d; want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	colours := map[string]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[fmt.Sprint(r>>8, g>>8, bl>>8)] = true
		}
	}
	if len(colours) < 20 {
		t.Errorf("screenshot has %d distinct colours: a blank page?", len(colours))
	}
}
