package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/promreg"
	"github.com/motifwatch/motifwatch/kafka"
)

// snapshotJob is the periodic static-GPM job (config gpm): every
// interval it asks the pipeline goroutine, the window's owner, for a
// snapshot graph (gpm.FromWindow, O(E log E) on that goroutine), then
// counts on its own goroutine, so mining never holds up ingest. Counts
// become gauges and, with a topic, one JSON record per snapshot. A failed
// snapshot is logged and counted; it never stops the daemon.
type snapshotJob struct {
	cfg     config.GPM
	log     *slog.Logger
	snap    func(ctx context.Context) (*gpm.Graph, error)
	engine  gpm.Engine
	m       *gpmMetrics
	out     messageWriter // nil: metrics only
	shown   map[string]bool
	labelsK string
}

// messageWriter is what the job needs of a *kafka.Writer.
type messageWriter interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
}

func newSnapshotJob(cfg config.GPM, log *slog.Logger, reg prometheus.Registerer, snap func(context.Context) (*gpm.Graph, error), out messageWriter) (*snapshotJob, error) {
	m, err := newGPMMetrics(reg)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &snapshotJob{cfg: cfg, log: log, snap: snap, m: m, out: out, shown: map[string]bool{},
		engine:  gpm.NewCPU(gpm.CPUOptions{Workers: cfg.Workers, Balance: true}),
		labelsK: strconv.Itoa(cfg.K)}, nil
}

// newGPMJob sets up the snapshot job when cfg.GPM is on (nil when off):
// the channel of its requests to the pipeline (pipelineParts.snapshots),
// the record topic and its writer.
func newGPMJob(ctx context.Context, cfg *config.Config, log *slog.Logger, reg prometheus.Registerer,
	brokers []string, transport *kafka.Transport) (*snapshotJob, chan chan<- *gpm.Graph, error) {
	if cfg.GPM.Every <= 0 {
		return nil, nil, nil
	}
	requests := make(chan chan<- *gpm.Graph)
	var out messageWriter
	if t := cfg.GPM.Topic; t != "" {
		if err := kafka.EnsureTopics(ctx, brokers, transport, []kafka.TopicSpec{{Name: t, Partitions: 1}}); err != nil {
			return nil, nil, fmt.Errorf("gpm.topic %s: %w", t, err)
		}
		out = kafka.NewWriter(brokers, t, transport)
	}
	log.Info("gpm snapshot job on", "every", cfg.GPM.Every, "app", cfg.GPM.App, "k", cfg.GPM.K, "topic", cfg.GPM.Topic)
	job, err := newSnapshotJob(cfg.GPM, log, reg, snapshotter(requests), out)
	return job, requests, err
}

// run snapshots every interval until ctx ends.
func (j *snapshotJob) run(ctx context.Context) error {
	if c, ok := j.out.(interface{ Close() error }); ok {
		defer c.Close()
	}
	return tick(ctx, j.cfg.Every, func() {
		if err := j.once(ctx); err != nil && ctx.Err() == nil {
			j.m.snapshots.WithLabelValues("error").Inc()
			j.log.Warn("gpm snapshot failed", "app", j.cfg.App, "k", j.cfg.K, "err", err)
		}
	})
}

// gpmRecord is the JSON record a snapshot writes to gpm.topic.
type gpmRecord struct {
	Time     time.Time         `json:"time"`
	App      string            `json:"app"`
	K        int               `json:"k"`
	Vertices int               `json:"vertices"`
	Edges    int64             `json:"edges"`
	Total    uint64            `json:"total"`
	Patterns []gpmRecordCounts `json:"patterns"`
	Seconds  float64           `json:"seconds"`
}

type gpmRecordCounts struct {
	Pattern string `json:"pattern"`
	Edges   string `json:"edges"`
	Count   uint64 `json:"count"`
}

// once takes one snapshot, counts it, and publishes the counts.
func (j *snapshotJob) once(ctx context.Context) error {
	start := time.Now()
	g, err := j.snap(ctx)
	if err != nil {
		return fmt.Errorf("taking the snapshot: %w", err)
	}
	res, err := j.engine.Run(ctx, g, gpm.Job{App: gpm.App(j.cfg.App), K: j.cfg.K})
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	rec := gpmRecord{Time: start.UTC(), App: j.cfg.App, K: j.cfg.K, Vertices: g.N(), Edges: g.M(), Total: res.Total, Seconds: secs}
	seen := map[string]bool{}
	for _, pc := range res.Patterns {
		name := pc.Pattern.String()
		seen[name] = true
		j.m.patterns.WithLabelValues(j.cfg.App, j.labelsK, name).Set(float64(pc.Count))
		rec.Patterns = append(rec.Patterns, gpmRecordCounts{Pattern: name, Edges: pc.Pattern.EdgeList(), Count: pc.Count})
	}
	// Patterns that vanished from the window are dropped, not left stale.
	for name := range j.shown {
		if !seen[name] {
			j.m.patterns.DeleteLabelValues(j.cfg.App, j.labelsK, name)
		}
	}
	j.shown = seen
	j.m.total.WithLabelValues(j.cfg.App, j.labelsK).Set(float64(res.Total))
	j.m.edges.Set(float64(g.M()))
	j.m.seconds.Observe(secs)
	if j.out != nil {
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		key := j.cfg.App + "/" + j.labelsK
		if err := j.out.WriteMessages(ctx, kafka.Message{Key: []byte(key), Value: b, Time: start}); err != nil {
			return fmt.Errorf("writing the snapshot record to %s: %w", j.cfg.Topic, err)
		}
	}
	j.m.snapshots.WithLabelValues("ok").Inc()
	return nil
}

// gpmMetrics are the snapshot job's series.
type gpmMetrics struct {
	patterns  *prometheus.GaugeVec
	total     *prometheus.GaugeVec
	edges     prometheus.Gauge
	seconds   prometheus.Histogram
	snapshots *prometheus.CounterVec
}

func newGPMMetrics(reg prometheus.Registerer) (*gpmMetrics, error) {
	m := &gpmMetrics{
		patterns: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_gpm_pattern_count",
			Help: "Subgraphs of each pattern in the last window snapshot (k-cliques, or connected induced k-vertex subgraphs by shape)."},
			[]string{"app", "k", "pattern"}),
		total: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_gpm_subgraphs",
			Help: "Subgraphs of all patterns in the last window snapshot."}, []string{"app", "k"}),
		edges: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_gpm_snapshot_edges",
			Help: "Undirected edges of the last window snapshot."}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "motifwatch_gpm_snapshot_seconds",
			Help: "Time to take, count and publish one snapshot.", Buckets: prometheus.ExponentialBuckets(1e-3, 4, 10)}),
		snapshots: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_gpm_snapshots_total",
			Help: "Snapshots by result (ok, error)."}, []string{"result"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.patterns = promreg.Register(reg, m.patterns, &err)
	m.total = promreg.Register(reg, m.total, &err)
	m.edges = promreg.Register(reg, m.edges, &err)
	m.seconds = promreg.Register(reg, m.seconds, &err)
	m.snapshots = promreg.Register(reg, m.snapshots, &err)
	return m, err
}

// snapshotter returns the job's view of the pipeline: a request, through
// requests, to the pipeline goroutine (which owns the window) for
// gpm.FromWindow.
func snapshotter(requests chan<- chan<- *gpm.Graph) func(context.Context) (*gpm.Graph, error) {
	return func(ctx context.Context) (*gpm.Graph, error) {
		reply := make(chan *gpm.Graph, 1)
		var send chan<- *gpm.Graph = reply
		select {
		case requests <- send:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case g := <-reply:
			return g, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
