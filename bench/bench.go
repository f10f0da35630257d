package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/kafka"
)

// Options say what to produce and how to run the daemon on it.
type Options struct {
	// Config is the daemon's configuration (window, engine, caps,
	// queries; nil: the defaults); Run works on a copy whose Kafka topics
	// and group are fresh, with the demo off, JSON records as Run writes
	// them and count-mode alerts. Without queries it mines the built-in
	// M1–M10 at δ 3600 (EverestQueries).
	Config *config.Config

	// The edges: File (an edge file), else Edges synthetic ones of Seed.
	File  string
	Edges int
	Seed  uint64

	// Brokers to use (nil: an embedded broker started for the run), the
	// edge topic's Partitions, the records per produce request
	// (ProduceBatch, 0: 10,000).
	Brokers      []string
	Partitions   int
	ProduceBatch int

	// Rate > 0 produces at that many edges/s while the daemon consumes
	// (the latency at that load); 0 produces the whole backlog first
	// (throughput).
	Rate float64

	// Timeout cuts the run short (0: none); CPUProfile, when set, is a
	// file for a CPU profile of the consuming phase. Log gets the run's
	// notes and the daemon's errors; nil discards them.
	Timeout    time.Duration
	CPUProfile string
	Log        io.Writer
}

// Report is what a run measured (`monitor bench --format json` prints it).
type Report struct {
	Edges      int     `json:"edges"`
	Partitions int     `json:"partitions"`
	Queries    int     `json:"queries"`
	Backend    string  `json:"backend"`
	Rate       float64 `json:"rate,omitempty"`
	// ProduceSeconds is the backlog's production, before consuming
	// started (0 with Rate: production runs alongside).
	ProduceSeconds float64 `json:"produce_seconds"`
	// StartSeconds is from starting the daemon to its first record
	// fetched (broker connections, group join).
	StartSeconds float64 `json:"start_seconds"`
	// Seconds is from the first record fetched to the last edge's batch
	// committed; EdgesPerSecond is Edges over it.
	Seconds        float64 `json:"seconds"`
	EdgesPerSecond float64 `json:"edges_per_second"`
	Batches        int     `json:"batches"`
	// Latency percentiles of the batches that took records in, in
	// seconds: first record fetched → alerts acknowledged → committed.
	LatencyP50 float64 `json:"latency_p50_seconds"`
	LatencyP90 float64 `json:"latency_p90_seconds"`
	LatencyP99 float64 `json:"latency_p99_seconds"`
	LatencyMax float64 `json:"latency_max_seconds"`
	// Stages is each stage's total seconds over the run, and its share
	// of Seconds; Lanes sums them by where they run (Lanes): fetch and
	// decode run on every partition at once, so their shares are busy
	// time and can pass 1; each serial lane's is at most 1.
	Stages []Stage    `json:"stages"`
	Lanes  []LaneTime `json:"lanes"`
	// Late and DeadLettered records were not mined (a loaded machine can
	// stall a partition past idle_timeout): the counts then differ from
	// monitor mine's.
	Late         int `json:"late"`
	DeadLettered int `json:"dead_lettered"`
	// ReleasedEarly edges were let go by a cap of the reorder buffer
	// (window.max_buffered, max_buffered_bytes) before the watermark
	// passed them: the buffer was full (later edges at or below them are
	// late). Partitions that run ahead in event time are paused instead,
	// so a skewed backlog should show none.
	ReleasedEarly int `json:"released_early"`
	// Partial marks a run cut short (Timeout, ctx): only Released of
	// Edges were mined, and EdgesPerSecond is over those.
	Partial  bool `json:"partial,omitempty"`
	Released int  `json:"released,omitempty"`
	// Matches counts each query's matches (count mode), as mined.
	Matches map[string]float64 `json:"matches"`
}

// Stage is one pipeline stage's time over a run.
type Stage struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
	Share   float64 `json:"share"`
}

// ErrCutShort: the run ended (Timeout, ctx) before every edge was mined;
// Run's Report then covers the edges that were.
var ErrCutShort = errors.New("cut short")

// Run produces the edges and runs the daemon on them. A run cut short
// returns its Report, Partial set, with an error wrapping ErrCutShort: a
// slow configuration is what sizing must show.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.ProduceBatch <= 0 {
		o.ProduceBatch = 10_000
	}
	switch {
	case o.File == "" && o.Edges <= 0:
		return nil, fmt.Errorf("bench: %d edges: want a positive number or an edge file", o.Edges)
	case o.Partitions <= 0:
		return nil, fmt.Errorf("bench: %d partitions: want a positive number", o.Partitions)
	case o.Rate < 0:
		return nil, fmt.Errorf("bench: rate %v must not be negative", o.Rate)
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	dir, err := os.MkdirTemp("", "motifwatch-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	records, err := Records(o)
	if err != nil {
		return nil, err
	}
	brokers := o.Brokers
	if len(brokers) == 0 {
		emb, err := kafka.StartEmbedded(ctx, kafka.EmbeddedOptions{})
		if err != nil {
			return nil, fmt.Errorf("bench: starting the embedded broker: %w", err)
		}
		defer emb.Close()
		brokers = emb.Addrs()
	}
	cfg, err := runConfig(o, brokers, dir)
	if err != nil {
		return nil, err
	}
	if err := kafka.EnsureTopics(ctx, brokers, nil, []kafka.TopicSpec{
		{Name: cfg.Kafka.EdgeTopic, Partitions: o.Partitions},
		{Name: cfg.Kafka.AlertTopic, Partitions: o.Partitions},
		{Name: cfg.Kafka.DeadLetterTopic, Partitions: o.Partitions},
	}); err != nil {
		return nil, fmt.Errorf("bench: creating topics on %v: %w", brokers, err)
	}
	lateness := int64(cfg.Window.AllowedLateness / cfg.Input.TimeUnit)
	prod := func(ctx context.Context, rate float64) error {
		return produceSplit(ctx, brokers, cfg.Kafka.EdgeTopic, records, o.Partitions, rate, o.ProduceBatch, lateness)
	}

	rep := &Report{Edges: len(records), Partitions: o.Partitions, Rate: o.Rate, Matches: map[string]float64{}}
	if o.Rate == 0 {
		fmt.Fprintf(o.Log, "bench: producing %d edges into %d partitions…\n", len(records), o.Partitions)
		t0 := time.Now()
		if err := prod(ctx, 0); err != nil {
			return nil, err
		}
		rep.ProduceSeconds = time.Since(t0).Seconds()
		fmt.Fprintf(o.Log, "bench: produced in %.1fs; consuming\n", rep.ProduceSeconds)
	}

	// The daemon, with a report of every batch.
	var (
		mu        sync.Mutex
		batches   []daemon.BatchReport
		released  int
		first     time.Time
		last      time.Time
		allIn     = make(chan struct{})
		closeOnce sync.Once
	)
	onBatch := func(r daemon.BatchReport) {
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, r)
		released += r.Edges
		rep.Late += r.Late
		rep.DeadLettered += r.DeadLettered
		rep.ReleasedEarly += r.ReleasedEarly
		if r.Records > 0 && (first.IsZero() || r.FirstFetched.Before(first)) {
			first = r.FirstFetched
		}
		last = r.Done
		if released+rep.Late+rep.DeadLettered >= len(records) {
			closeOnce.Do(func() { close(allIn) })
		}
	}
	reg := prometheus.NewRegistry()
	dctx, stopDaemon := context.WithCancel(ctx)
	defer stopDaemon()
	started := make(chan struct{})
	done := make(chan error, 1)
	// Errors only: a consumer that outruns the pipeline makes kafka-go's
	// partition readers time out and reconnect, a warning per stall.
	log := slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelError}))
	t0 := time.Now()
	go func() {
		done <- daemon.Run(dctx, daemon.Options{Config: cfg, Logger: log, Registry: reg, OnBatch: onBatch,
			Started: func(daemon.Info) { close(started) }})
	}()
	select {
	case <-started:
	case err := <-done:
		return nil, fmt.Errorf("bench: the daemon did not start: %w", err)
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, fmt.Errorf("bench: CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("bench: CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var g errgroup.Group
	if o.Rate > 0 {
		pctx, stopProducing := context.WithCancel(ctx)
		defer stopProducing()
		g.Go(func() error { return prod(pctx, o.Rate) })
	}
	var cutShort error
	select {
	case <-allIn:
	case err := <-done:
		return nil, fmt.Errorf("bench: the daemon stopped: %w", err)
	case <-ctx.Done():
		mu.Lock()
		n := released
		mu.Unlock()
		cutShort = fmt.Errorf("bench: %d of %d edges released after %v (timeout %v): %w; the report covers those",
			n, len(records), time.Since(t0).Round(time.Millisecond), o.Timeout, ErrCutShort)
	}
	if cutShort == nil {
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	stopDaemon()
	if err := <-done; err != nil && cutShort == nil {
		return nil, fmt.Errorf("bench: the daemon stopped: %w", err)
	}

	mu.Lock()
	defer mu.Unlock()
	rep.StartSeconds = first.Sub(t0).Seconds()
	rep.Seconds = last.Sub(first).Seconds()
	rep.EdgesPerSecond = float64(len(records)) / rep.Seconds
	if cutShort != nil {
		rep.Partial, rep.Released = true, released
		rep.EdgesPerSecond = float64(released) / rep.Seconds
	}
	rep.Batches = len(batches)
	var lat []time.Duration
	var stages [len(daemon.StageNames)]time.Duration
	for _, b := range batches {
		if b.Records > 0 {
			lat = append(lat, b.Latency)
		}
		for i, d := range b.Stages {
			stages[i] += d
		}
	}
	slices.Sort(lat)
	rep.LatencyP50, rep.LatencyP90, rep.LatencyP99 = latencyQuantile(lat, 0.5), latencyQuantile(lat, 0.9), latencyQuantile(lat, 0.99)
	if len(lat) > 0 {
		rep.LatencyMax = lat[len(lat)-1].Seconds()
	}
	for i, d := range stages {
		rep.Stages = append(rep.Stages, Stage{Stage: daemon.StageNames[i], Seconds: d.Seconds(), Share: d.Seconds() / rep.Seconds})
	}
	rep.Lanes = LaneTimes(rep.Stages, rep.Partitions, rep.Seconds)
	rep.Backend = engineBackend(reg)
	for _, m := range metricSeries(reg, "motifwatch_mined_matches_total") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "query" {
				rep.Matches[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	rep.Queries = len(rep.Matches)
	return rep, cutShort
}

// latencyQuantile returns the p-quantile of sorted durations (nearest rank),
// in seconds.
func latencyQuantile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)].Seconds()
}
