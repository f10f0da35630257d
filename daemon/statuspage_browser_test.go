package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
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

// TestStatusPageInBrowser runs the daemon on the demo feed (embedded
// broker, demo queries), waits for its first alerts, and loads the status
// page in headless Chromium: the rendered page lists the demo queries and
// shows alerts the daemon wrote; a screenshot renders at the size asked
// for and is not blank. MOTIFWATCH_SCREENSHOT=FILE keeps the screenshot
// (the README's docs/status-page.png comes from it).
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
	info := d.Info
	base := "http://" + info.MetricsAddr

	// Wait for the demo's first match records (polled, no timing assumed
	// beyond a generous deadline).
	var st Status
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st = getStatus(t, base)
		if countKind(st.RecentAlerts, alerts.KindMatch) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no match alerts on /api/status after 3 minutes: %+v", st.Ingest)
		}
		time.Sleep(200 * time.Millisecond)
	}

	dom := runChromium(t, bin, "--dump-dom", base+"/")
	if !strings.Contains(dom, "<title>motifwatch status</title>") {
		t.Fatalf("chromium rendered no status page:\n%.2000s", dom)
	}
	for _, q := range []string{synth.MoneyRing, synth.FanIn, synth.QuickReturn} {
		if !strings.Contains(dom, "<b>"+q+"</b>") {
			t.Errorf("rendered page lacks query %s", q)
		}
	}
	// The page shows the newest alerts; the ids it shows must be alerts
	// the daemon wrote (they are on /api/status now, or were before).
	ids := regexp.MustCompile(`data-kind="match" data-match-id="([0-9a-f]{32})"`).FindAllStringSubmatch(dom, -1)
	if len(ids) == 0 {
		t.Fatalf("rendered page shows no match alerts:\n%.4000s", dom)
	}
	after := getStatus(t, base)
	known := map[string]bool{}
	for _, a := range append(st.RecentAlerts, after.RecentAlerts...) {
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

	shot := filepath.Join(t.TempDir(), "status.png")
	runChromium(t, bin, "--screenshot="+shot, "--window-size=1280,1000", base+"/")
	checkScreenshot(t, shot, 1280, 1000)
	if keep := os.Getenv("MOTIFWATCH_SCREENSHOT"); keep != "" {
		data, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(keep, data, 0o644)
		}
		if err != nil {
			t.Errorf("keeping the screenshot: %v", err)
		}
	}

	if err := d.Stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
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
