package deploy

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/synth"
)

// startDaemon runs the daemon in-process on its embedded default (broker,
// demo feed, demo queries) with metrics on a free loopback port, and
// returns its metrics address. reg gets the Go and process collectors, as
// the registry Run makes when given none. The daemon stops at cleanup.
func startDaemon(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	// The demo's queries, as `monitor run` gives them to a configuration
	// without any.
	queries := filepath.Join(t.TempDir(), "demo-queries.yaml")
	if err := os.WriteFile(queries, []byte(synth.DemoQueriesYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("metrics:\n  listen: 127.0.0.1:0\nqueries:\n  files: ["+queries+"]\n"), "deploy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	d := testenv.Start(t, 30*time.Second, func(ctx context.Context, started func(daemon.Info)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, Registry: reg, Stdout: io.Discard, Started: started})
	})
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Errorf("daemon stopped with %v", err)
		}
	})
	return d.Info.MetricsAddr
}
