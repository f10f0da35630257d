package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
)

// runConfig is the daemon's configuration for a run: a copy of o.Config
// (or the defaults) with fresh topics and group on brokers, the demo off,
// JSON records as produceSplit writes them, count mode, and the default
// queries (written into dir) where it has none.
func runConfig(o Options, brokers []string, dir string) (*config.Config, error) {
	cfg := config.DefaultConfig()
	if o.Config != nil {
		c := *o.Config
		cfg = &c
	}
	run := "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg.Kafka.Brokers = brokers
	cfg.Kafka.EdgeTopic, cfg.Kafka.AlertTopic, cfg.Kafka.DeadLetterTopic = run+"-edges", run+"-alerts", run+"-dlq"
	cfg.Kafka.Group = run
	cfg.Kafka.Partitions = o.Partitions
	cfg.Kafka.ScaleOut.Enabled = false
	demo := false
	cfg.Demo = &demo
	cfg.Metrics.Listen = "127.0.0.1:0"
	cfg.Input.Format = "json"
	f := kafka.DefaultFields()
	cfg.Input.Fields.Src, cfg.Input.Fields.Dst, cfg.Input.Fields.Time, cfg.Input.Fields.Seq = f.Src, f.Dst, f.T, f.Seq
	cfg.Input.Fields.SrcLabel, cfg.Input.Fields.DstLabel = "", ""
	cfg.Input.Timestamp.Unit, cfg.Input.Timestamp.Layout = "s", ""
	cfg.Input.TimeUnit = time.Second
	cfg.Window.MaxFuture = 0 // the synthetic and file edges are dated from the epoch on
	cfg.Alerts.Sink, cfg.Alerts.Mode, cfg.Alerts.PerQuery = config.SinkKafka, alerts.ModeCount, nil
	if len(cfg.Queries.Files) == 0 && len(cfg.Queries.Inline) == 0 {
		path := filepath.Join(dir, "queries.yaml")
		text, err := EverestQueries(3600)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			return nil, err
		}
		cfg.Queries.Files = []string{path}
	}
	if _, _, err := daemon.Check(cfg); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return cfg, nil
}

// EverestQueries writes the built-in M1…M10 at δ delta as a query file:
// Everest's ten, the bench's default.
func EverestQueries(delta int64) (string, error) {
	var b strings.Builder
	b.WriteString("queries:\n")
	for i := 1; i <= 10; i++ {
		name := "M" + strconv.Itoa(i)
		q, err := motif.Builtin(name)
		if err != nil {
			return "", err
		}
		edges := make([]string, len(q.Edges))
		for j, e := range q.Edges {
			edges[j] = "N" + q.Nodes[e.From].Name + " -> N" + q.Nodes[e.To].Name
		}
		fmt.Fprintf(&b, "  - {name: %s, delta: %d, edges: [%s]}\n", name, delta, strings.Join(edges, ", "))
	}
	return b.String(), nil
}

// metricSeries returns the series of the named metric family.
func metricSeries(reg *prometheus.Registry, name string) []*dto.Metric {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	return nil
}

// engineBackend reads the backend in use from motifwatch_engine_info.
func engineBackend(reg *prometheus.Registry) string {
	for _, m := range metricSeries(reg, "motifwatch_engine_info") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "backend" {
				return l.GetValue()
			}
		}
	}
	return "?"
}
