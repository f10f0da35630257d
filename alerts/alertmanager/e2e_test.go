package alertmanager_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
)

// alertmanagerBinary finds Alertmanager (Debian's package installs it
// as prometheus-alertmanager). Without one the test skips, except in CI
// (CI=true), where .ci/run installs it and its absence is a failure.
func alertmanagerBinary(t *testing.T) string {
	for _, name := range []string{"alertmanager", "prometheus-alertmanager"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no alertmanager binary on PATH in CI: .ci/run installs Debian's prometheus-alertmanager")
	}
	t.Skip("no alertmanager binary on PATH (apt-get install prometheus-alertmanager); skipping the end-to-end Alertmanager test")
	return ""
}

// startAlertmanager runs a real Alertmanager on a free loopback port,
// with one receiver that notifies nobody, until the test ends; it
// returns its base URL once it answers ready.
func startAlertmanager(t *testing.T) string {
	bin := alertmanagerBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(cfg, []byte("route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--cluster.listen-address=", "--log.level=warn")
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
	ready := testenv.Poll(30*time.Second, 100*time.Millisecond, func() bool {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("alertmanager exited: %v\n%s", err, log.String())
		default:
		}
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if !ready {
		t.Fatalf("alertmanager not ready after 30s\n%s", log.String())
	}
	return base
}

// amAlert is an alert as Alertmanager's GET /api/v2/alerts gives it.
type amAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Status       struct {
		State string `json:"state"`
	} `json:"status"`
}

func amAlerts(base, filter string) ([]amAlert, error) {
	resp, err := http.Get(base + "/api/v2/alerts?filter=" + url.QueryEscape(filter))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/v2/alerts: %s: %s", resp.Status, body)
	}
	var out []amAlert
	return out, json.Unmarshal(body, &out)
}

// TestDaemonAlertsReachAlertmanager runs the daemon on the embedded
// broker with the demo feed, its money-ring query carrying a severity,
// labels and annotations, and alerts.alertmanager.url pointing at a real
// Alertmanager; it reads the alerts back from Alertmanager's API and
// checks each against the record of the same match on the alert topic.
func TestDaemonAlertsReachAlertmanager(t *testing.T) {
	am := startAlertmanager(t)
	if testing.Short() {
		t.Skip("starts the daemon and an Alertmanager")
	}
	// The demo's money-ring query routes its alerts (severity, labels,
	// annotations): the test checks those reach Alertmanager.
	const routed = "    severity: page\n    labels: {team: fraud}\n"
	if !strings.Contains(synth.DemoQueriesYAML, routed) {
		t.Fatal("the demo queries changed: money-ring no longer pages team fraud")
	}
	queries := synth.DemoQueriesYAML
	qfile := filepath.Join(t.TempDir(), "queries.yaml")
	if err := os.WriteFile(qfile, []byte(queries), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(fmt.Appendf(nil, `metrics:
  listen: 127.0.0.1:0
  external_url: http://motifwatch.example:9464
queries:
  files: [%s]
alerts:
  instance: mw-test-0
  alertmanager:
    url: %s
`, qfile, am), "am.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := testenv.Start(t, 30*time.Second, func(ctx context.Context, started func(daemon.Info)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, Registry: prometheus.NewRegistry(), Stdout: io.Discard, Started: started})
	})
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Errorf("daemon stopped with %v", err)
		}
	})

	var got []amAlert
	if !testenv.Poll(60*time.Second, 200*time.Millisecond, func() bool {
		got, err = amAlerts(am, `alertname="money-ring"`)
		return err == nil && len(got) > 0
	}) {
		t.Fatalf("after 60s Alertmanager has no money-ring alert (last error %v)", err)
	}
	onTopic := map[string]alerts.Alert{}
	for _, a := range kafkatest.Alerts(kafkatest.ReadAlerts(t, d.Info.Brokers, cfg.Kafka.AlertTopic)) {
		if a.Kind == alerts.KindMatch {
			onTopic[a.MatchID] = a
		}
	}
	for _, g := range got {
		id := g.Labels["match_id"]
		rec, ok := onTopic[id]
		if !ok {
			t.Errorf("Alertmanager has match %s, which the alert topic does not: the topic is the primary output", id)
			continue
		}
		wantLabels := map[string]string{"alertname": "money-ring", "severity": "page", "team": "fraud", "instance": "mw-test-0",
			"topic": "edges", "consumer_group": "motifwatch", "kind": "match", "match_id": id}
		for k, v := range wantLabels {
			if g.Labels[k] != v {
				t.Errorf("alert %s: label %s = %q; want %q (labels %v)", id, k, g.Labels[k], v, g.Labels)
			}
		}
		summary := fmt.Sprintf("money-ring: %s → %s → %s from %s", rec.Nodes["A"].ID, rec.Nodes["B"].ID, rec.Nodes["C"].ID, rec.FirstTime)
		if g.Annotations["summary"] != summary || rec.Annotations["summary"] != summary {
			t.Errorf("alert %s: summary %q in Alertmanager, %q on the topic; want %q", id, g.Annotations["summary"], rec.Annotations["summary"], summary)
		}
		if g.Annotations["runbook_url"] != "https://runbooks.example/money-ring" || g.Annotations["description"] != rec.Description {
			t.Errorf("alert %s: annotations %v", id, g.Annotations)
		}
		if g.GeneratorURL != "http://motifwatch.example:9464/" || rec.StatusURL != g.GeneratorURL {
			t.Errorf("alert %s: generatorURL %q, record's status_url %q; want http://motifwatch.example:9464/", id, g.GeneratorURL, rec.StatusURL)
		}
		at := rec.DetectedAt.Truncate(time.Millisecond) // Alertmanager keeps milliseconds
		if !g.StartsAt.Equal(at) || !g.EndsAt.Equal(at.Add(time.Hour)) || g.Status.State != "active" {
			t.Errorf("alert %s: startsAt %v endsAt %v state %q; want the detection time %v, an hour later, active", id, g.StartsAt, g.EndsAt, g.Status.State, rec.DetectedAt)
		}
	}
	t.Logf("Alertmanager holds %d money-ring alerts, each as on the alert topic", len(got))
}
