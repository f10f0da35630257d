package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/gcfloor"
	"github.com/motifwatch/motifwatch/synth"
)

func newRunCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "run [--config FILE]",
		Short: "Run the streaming daemon (Kafka in, alerts and metrics out)",
		Long: `Run the streaming daemon: consume timestamped edges from Kafka, mine every
registered query incrementally per batch, write each match as an alert and
serve Prometheus metrics on /metrics with /healthz and /readyz, a status
console at / (degraded conditions, 16 minutes of history, input health,
partitions, queries, the last alerts with their edges) and its JSON at
/api/status. Every log.status_interval (30s) a status line
goes to the log. Alerts go to the alert topic only unless alerts.sink is
stdout (the demo also prints them); 'monitor alerts' prints the topic.

Without --config (or with kafka.brokers: embedded, the default) it starts an
in-process Kafka-protocol broker and a demo producer that streams synthetic
transfers with planted patterns, and mines the demo queries: alerts appear on
stdout within seconds; that broker keeps everything in memory unless
kafka.embedded.dir is set. Environment variables MONITOR_<SECTION>_<KEY>
override the file (e.g. MONITOR_KAFKA_BROKERS=host:9092). 'monitor config
--defaults' prints every key with its default; docs/CONFIG.md describes them.

The HTTP endpoints answer from the start: until a broker answers, /readyz
is 503 "connecting: <last error>" and each failed attempt is logged
(at most one line per kind of failure every 10 s).`,
		Example: `  monitor run
  monitor run --config config.yaml
  MONITOR_KAFKA_BROKERS=kafka-1:9092 monitor run --config config.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadRunConfig(path)
			if err != nil {
				return err
			}
			log := newLogger(cfg, cmd.ErrOrStderr())
			if path == "" && cfg.DemoEnabled() {
				log.Info("no --config: running the demo (an in-process broker, a synthetic feed with planted patterns, three demo queries); " +
					"for your own Kafka: monitor config --defaults > config.yaml, set kafka.brokers and queries, then monitor run --config config.yaml")
			}
			// The Go runtime's memory limit is the caps' budget (the daemon
			// logs both): without it the collector lets the heap reach
			// twice what is live before collecting.
			if b, ok := cfg.MemoryBudget(); ok {
				undo, _ := gcfloor.Limit(b.Total())
				defer undo()
			}
			return daemon.Run(cmd.Context(), daemon.Options{Config: cfg, Logger: log, Stdout: cmd.OutOrStdout()})
		},
	}
	cmd.Flags().StringVar(&path, "config", "", "configuration file (YAML); default: the embedded demo")
	return cmd
}

// loadRunConfig loads a configuration the way `monitor run` takes it:
// `monitor validate` calls it too, so the two accept exactly the same
// files (a file with the demo on and no queries runs the demo's).
func loadRunConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	if err := demoDefaults(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// demoDefaults gives the demo its queries when the configuration has
// none: the built-in producer plants the patterns they find.
func demoDefaults(cfg *config.Config) error {
	if !cfg.DemoEnabled() || len(cfg.Queries.Files) > 0 || len(cfg.Queries.Inline) > 0 {
		return nil
	}
	var doc struct {
		Queries []map[string]any `yaml:"queries"`
	}
	if err := yaml.Unmarshal([]byte(synth.DemoQueriesYAML), &doc); err != nil {
		return fmt.Errorf("demo queries: %w", err)
	}
	cfg.Queries.Inline = doc.Queries
	return nil
}

func newLogger(cfg *config.Config, w interface{ Write([]byte) (int, error) }) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.Log.Level)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(cfg.Log.Format, "json") {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
