package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/testenv"
)

// promQuery evaluates an instant query on the Prometheus at base and
// returns the value of its single sample, or ok=false when it has none.
func promQuery(base, q string) (v float64, ok bool, err error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, false, err
	}
	if r.Status != "success" {
		return 0, false, fmt.Errorf("query %q: %s", q, r.Error)
	}
	if len(r.Data.Result) != 1 {
		return 0, false, nil
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err = strconv.ParseFloat(s, 64)
	return v, err == nil, err
}

// TestPrometheusScrapesDaemon starts the daemon on its embedded default
// (demo feed) and a real Prometheus scraping it every second on loopback,
// with deploy/prometheus/rules.yaml loaded, and polls Prometheus's HTTP
// API until the ingest and match series have positive values. It skips
// when no prometheus binary is on PATH (.ci/run installs Debian's).
func TestPrometheusScrapesDaemon(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary on PATH (apt-get install prometheus); skipping the end-to-end scrape test")
	}
	if testing.Short() {
		t.Skip("starts the daemon and a Prometheus server")
	}
	rules, err := filepath.Abs("prometheus/rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	metrics := startDaemon(t, prometheus.NewRegistry())

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: motifwatch
    static_configs:
      - targets: [%q]
`, rules, metrics), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+listen, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	base := "http://" + listen
	want := []string{
		"sum(motifwatch_ingest_records_consumed_total)",
		"sum(motifwatch_matches_total)",
		`up{job="motifwatch"}`,
	}
	got := map[string]float64{}
	deadline := time.Now().Add(50 * time.Second)
	for len(got) < len(want) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("prometheus exited: %v\n%s", err, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 50s Prometheus has %v; want positive values for %v\nprometheus log:\n%s", got, want, log.String())
		}
		for _, q := range want {
			if v, ok, err := promQuery(base, q); err == nil && ok && v > 0 {
				got[q] = v
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("Prometheus scraped %v", got)

	// The rules loaded, and none failed to evaluate.
	resp, err := http.Get(base + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range r.Data.Groups {
		for _, rule := range g.Rules {
			n++
			if rule.Health == "err" {
				t.Errorf("rule %s/%s: %s", g.Name, rule.Name, rule.LastError)
			}
		}
	}
	if exprs, _ := ruleExpressions(t, "prometheus/rules.yaml"); n != len(exprs) {
		t.Errorf("Prometheus loaded %d rules from %s; want %d", n, rules, len(exprs))
	}
}
