package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/synth"
)

// benchOptions are the flags of `monitor bench`.
type benchOptions struct {
	config, queries, file string
	brokers               []string
	edges                 int
	seed                  uint64
	partitions            int
	rate                  float64
	format                string
	backend               string
	workers               int
	batchSize             int
	batchWait             time.Duration
	produceBatch          int
	timeout               time.Duration
	cpuProfile            string
	gpu                   *gpuFlags
}

func newBenchCmd() *cobra.Command {
	o := benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure the streaming path: edges/s, batch latency and where the time goes",
		Long: `Size a deployment: produce N edges into a fresh topic of P partitions (on
an embedded broker, or --brokers), then run the daemon's own pipeline on
them (monitor run's code, with the config's window, engine and caps) and
report the edges per second, the batch latency percentiles (a batch's
first record fetched → its alerts acknowledged → its offsets committed)
and the time per stage (fetch, decode, reorder, window, device_sync, mine,
alert_write, commit, and mine_wait: taking records in waiting for the
previous batch's mining).

The edges come from --file (an edge file, as for mine) or the synthetic
generator (--edges, --seed: a tgraphgen-like bursty messaging graph). The
queries are --queries, else the config's, else the built-in M1–M10 at
δ = 3600 (Everest's ten), all in count mode.

Without --rate the whole backlog is produced first and consumed as fast as
the pipeline goes (throughput). With --rate R it is produced while the
daemon consumes, at R edges/s (one producer per partition): the latency
figure at that load.`,
		Example: `  monitor bench --edges 1000000 --partitions 8
  monitor bench --edges 1000000 --partitions 8 --rate 200000
  monitor bench --file graph.txt --config motifwatch.yaml --backend gpu --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return benchRun(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{fmt.Errorf("bench: %w", err)} })
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "daemon configuration (window, engine, caps; its Kafka topics are replaced by fresh ones)")
	f.StringVar(&o.queries, "queries", "", "query file (default: the config's queries, else M1–M10 at δ 3600)")
	f.StringVar(&o.file, "file", "", "edge file to produce (default: synthetic edges)")
	f.StringSliceVar(&o.brokers, "brokers", nil, "Kafka brokers, host:port[,...] (default: an embedded broker)")
	f.IntVar(&o.edges, "edges", 1_000_000, "synthetic edges to produce (without --file)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic edges")
	f.IntVar(&o.partitions, "partitions", 8, "partitions of the edge topic")
	f.Float64Var(&o.rate, "rate", 0, "produce at this many edges/s while consuming (0: produce the backlog first)")
	f.StringVar(&o.format, "format", "table", "report format: table or json")
	f.StringVar(&o.backend, "backend", "", "engine.backend override: cpu, gpu or auto")
	f.IntVar(&o.workers, "workers", -1, "engine.workers override (0: one per CPU)")
	f.IntVar(&o.batchSize, "batch-size", 0, "window.batch_size override")
	f.DurationVar(&o.batchWait, "batch-wait", 0, "window.batch_max_wait override")
	f.IntVar(&o.produceBatch, "produce-batch", 10_000, "records per produce request")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the consuming phase (pprof) to this file")
	o.gpu = addGPUFlags(f)
	return cmd
}

func (o *benchOptions) check() error {
	usage := func(format string, args ...any) error { return usageError{fmt.Errorf("bench: "+format, args...)} }
	switch {
	case o.file == "" && o.edges <= 0:
		return usage("--edges %d must be positive", o.edges)
	case o.partitions <= 0:
		return usage("--partitions %d must be positive", o.partitions)
	case o.rate < 0:
		return usage("--rate %v must not be negative", o.rate)
	case o.format != "table" && o.format != "json":
		return usage("--format %q: want table or json", o.format)
	case o.batchSize < 0:
		return usage("--batch-size %d must not be negative", o.batchSize)
	case o.batchWait < 0:
		return usage("--batch-wait %v must not be negative", o.batchWait)
	case o.produceBatch <= 0:
		return usage("--produce-batch %d must be positive", o.produceBatch)
	case o.timeout <= 0:
		return usage("--timeout %v must be positive", o.timeout)
	}
	return o.gpu.check("bench")
}

// benchReport is what bench prints (--format json: this, as JSON).
type benchReport struct {
	Edges      int     `json:"edges"`
	Partitions int     `json:"partitions"`
	Queries    int     `json:"queries"`
	Backend    string  `json:"backend"`
	Rate       float64 `json:"rate,omitempty"`
	// ProduceSeconds is the backlog's production, before consuming
	// started (0 with --rate: production runs alongside).
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
	// of Seconds (fetch and decode overlap the other stages).
	Stages []benchStage `json:"stages"`
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
	// Partial marks a run cut short (--timeout, Ctrl-C): only Released
	// of Edges were mined, and EdgesPerSecond is over those.
	Partial  bool `json:"partial,omitempty"`
	Released int  `json:"released,omitempty"`
	// Matches counts each query's matches (count mode), as mined.
	Matches map[string]float64 `json:"matches"`
}

type benchStage struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
	Share   float64 `json:"share"`
}

func benchRun(ctx context.Context, o benchOptions, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "motifwatch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	records, err := benchRecords(o, stderr)
	if err != nil {
		return err
	}
	brokers := o.brokers
	if len(brokers) == 0 {
		emb, err := kafka.StartEmbedded(ctx, kafka.EmbeddedOptions{})
		if err != nil {
			return fmt.Errorf("bench: starting the embedded broker: %w", err)
		}
		defer emb.Close()
		brokers = emb.Addrs()
	}
	cfg, err := benchConfig(o, brokers, dir)
	if err != nil {
		return err
	}
	if err := kafka.EnsureTopics(ctx, brokers, nil, []kafka.TopicSpec{
		{Name: cfg.Kafka.EdgeTopic, Partitions: o.partitions},
		{Name: cfg.Kafka.AlertTopic, Partitions: o.partitions},
		{Name: cfg.Kafka.DeadLetterTopic, Partitions: o.partitions},
	}); err != nil {
		return fmt.Errorf("bench: creating topics on %v: %w", brokers, err)
	}
	lateness := int64(cfg.Window.AllowedLateness / cfg.Input.TimeUnit)
	prod := func(ctx context.Context, rate float64) error {
		return produceSplit(ctx, brokers, cfg.Kafka.EdgeTopic, records, o.partitions, rate, o.produceBatch, lateness)
	}

	rep := benchReport{Edges: len(records), Partitions: o.partitions, Rate: o.rate, Matches: map[string]float64{}}
	if o.rate == 0 {
		fmt.Fprintf(stderr, "bench: producing %d edges into %d partitions…\n", len(records), o.partitions)
		t0 := time.Now()
		if err := prod(ctx, 0); err != nil {
			return err
		}
		rep.ProduceSeconds = time.Since(t0).Seconds()
		fmt.Fprintf(stderr, "bench: produced in %.1fs; consuming\n", rep.ProduceSeconds)
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
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	t0 := time.Now()
	go func() {
		done <- daemon.Run(dctx, daemon.Options{Config: cfg, Logger: log, Registry: reg, OnBatch: onBatch,
			Started: func(daemon.Info) { close(started) }})
	}()
	select {
	case <-started:
	case err := <-done:
		return fmt.Errorf("bench: the daemon did not start: %w", err)
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fmt.Errorf("bench: --cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("bench: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var g errgroup.Group
	if o.rate > 0 {
		pctx, stopProducing := context.WithCancel(ctx)
		defer stopProducing()
		g.Go(func() error { return prod(pctx, o.rate) })
	}
	// A run cut short (--timeout, Ctrl-C) still reports what it measured,
	// marked partial: a slow configuration is what sizing must show.
	var cutShort error
	select {
	case <-allIn:
	case err := <-done:
		return fmt.Errorf("bench: the daemon stopped: %w", err)
	case <-ctx.Done():
		mu.Lock()
		n := released
		mu.Unlock()
		cutShort = fmt.Errorf("bench: %d of %d edges released after %v (--timeout %v); the report covers those", n, len(records), time.Since(t0).Round(time.Millisecond), o.timeout)
	}
	if cutShort == nil {
		if err := g.Wait(); err != nil {
			return err
		}
	}
	stopDaemon()
	if err := <-done; err != nil && cutShort == nil {
		return fmt.Errorf("bench: the daemon stopped: %w", err)
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
		rep.Stages = append(rep.Stages, benchStage{Stage: daemon.StageNames[i], Seconds: d.Seconds(), Share: d.Seconds() / rep.Seconds})
	}
	rep.Backend = benchBackend(reg)
	for _, m := range benchMetrics(reg, "motifwatch_mined_matches_total") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "query" {
				rep.Matches[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	rep.Queries = len(rep.Matches)
	if err := printBench(stdout, o.format, &rep); err != nil {
		return err
	}
	return cutShort
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

func printBench(w io.Writer, format string, r *benchReport) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "edges\t%d\t\n", r.Edges)
	if r.Partial {
		fmt.Fprintf(tw, "PARTIAL: edges mined before the cut\t%d\t\n", r.Released)
	}
	fmt.Fprintf(tw, "partitions\t%d\t\n", r.Partitions)
	fmt.Fprintf(tw, "queries\t%d\t\n", r.Queries)
	fmt.Fprintf(tw, "backend\t%s\t\n", r.Backend)
	if r.Rate > 0 {
		fmt.Fprintf(tw, "paced at (edges/s)\t%.0f\t\n", r.Rate)
	} else {
		fmt.Fprintf(tw, "backlog produced in (s)\t%.2f\t\n", r.ProduceSeconds)
	}
	fmt.Fprintf(tw, "start to first record (s)\t%.2f\t\n", r.StartSeconds)
	fmt.Fprintf(tw, "first record to last commit (s)\t%.3f\t\n", r.Seconds)
	fmt.Fprintf(tw, "edges/s\t%.0f\t\n", r.EdgesPerSecond)
	fmt.Fprintf(tw, "batches\t%d\t\n", r.Batches)
	if r.Late+r.DeadLettered > 0 {
		fmt.Fprintf(tw, "late / dead-lettered (not mined)\t%d / %d\t\n", r.Late, r.DeadLettered)
	}
	if r.ReleasedEarly > 0 {
		fmt.Fprintf(tw, "released early (reorder buffer full)\t%d\t\n", r.ReleasedEarly)
	}
	fmt.Fprintf(tw, "batch latency p50 / p90 / p99 / max (ms)\t%.1f / %.1f / %.1f / %.1f\t\n",
		r.LatencyP50*1e3, r.LatencyP90*1e3, r.LatencyP99*1e3, r.LatencyMax*1e3)
	fmt.Fprintf(tw, "\t\t\n")
	fmt.Fprintf(tw, "stage\tseconds\tshare\t\n")
	for _, s := range r.Stages {
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f%%\t\n", s.Stage, s.Seconds, 100*s.Share)
	}
	return tw.Flush()
}

// benchRecords loads --file or generates the synthetic edges, as records
// in time order (seq = index, so the daemon orders ties as mine does).
func benchRecords(o benchOptions, stderr io.Writer) ([]kafka.Record, error) {
	if o.file != "" {
		w, st, err := ingest.LoadFile(o.file, ingest.FileOptions{})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "bench: loaded %s: %d edges (%d self-loops dropped)\n", o.file, w.Len(), st.SelfLoops)
		return slices.Collect(feed.Window(w)), nil
	}
	// tgraphgen's defaults: ~8 edges per node, a mean gap of 25 s, Zipf
	// 1.2, replies 0.3, closures 0.1, bursts 0.2.
	c := synth.Default(o.edges, o.seed)
	c.Nodes, c.MeanGap, c.Zipf, c.Burst = max(o.edges/8, 2), 25, 1.2, 0.2
	edges, err := synth.Generate(c)
	if err != nil {
		return nil, err
	}
	recs := make([]kafka.Record, len(edges))
	for i, e := range edges {
		recs[i] = kafka.Record{Src: strconv.FormatUint(uint64(e.Src), 10), Dst: strconv.FormatUint(uint64(e.Dst), 10), T: e.T, Seq: int64(i)}
	}
	return recs, nil
}

// produceSplit produces records with one producer per partition (each
// partition's records in time order, keyed by source like monitor
// produce), at rate edges/s in all (0: unpaced), then a sentinel per
// partition past the allowed lateness, so that the watermark releases
// every edge without waiting for the partitions to go idle (the
// sentinels are self-loops: never appended, never matched).
func produceSplit(ctx context.Context, brokers []string, topic string, records []kafka.Record, parts int, rate float64, batch int, lateness int64) error {
	partition := kafka.SrcPartitioner(parts)
	byPart := make([][]kafka.Record, parts)
	for _, r := range records {
		p := partition(r.Src)
		byPart[p] = append(byPart[p], r)
	}
	var lastT int64
	if len(records) > 0 {
		lastT = records[len(records)-1].T
	}
	g, gctx := errgroup.WithContext(ctx)
	for p := range parts {
		recs := byPart[p]
		g.Go(func() error {
			seq := func(yield func(kafka.Record) bool) {
				for _, r := range recs {
					if !yield(r) {
						return
					}
				}
			}
			opts := kafka.ProduceOptions{Brokers: brokers, Topic: topic, TimeUnit: time.Second, BatchSize: batch}
			if rate > 0 && len(recs) > 0 {
				opts.Rate = rate * float64(len(recs)) / float64(len(records))
			}
			if _, err := kafka.Produce(gctx, iter.Seq[kafka.Record](seq), opts); err != nil {
				return fmt.Errorf("bench: producing partition %d: %w", p, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// The sentinels: one record per partition, round robin over them.
	sentinel := func(yield func(kafka.Record) bool) {
		for i := range parts {
			name := "bench-sentinel-" + strconv.Itoa(i)
			if !yield(kafka.Record{Src: name, Dst: name, T: lastT + lateness + 2, Seq: int64(len(records) + i)}) {
				return
			}
		}
	}
	_, err := kafka.Produce(ctx, sentinel, kafka.ProduceOptions{Brokers: brokers, Topic: topic, TimeUnit: time.Second,
		Partitioning: kafka.RoundRobin, BatchSize: 1})
	return err
}

// benchConfig is the daemon's configuration for a bench run: --config (or
// the defaults) with fresh topics and group on brokers, the demo off,
// JSON records as produceSplit writes them, count mode, and the flags'
// overrides.
func benchConfig(o benchOptions, brokers []string, dir string) (*config.Config, error) {
	cfg := config.DefaultConfig()
	if o.config != "" {
		var err error
		if cfg, err = config.Load(o.config); err != nil {
			return nil, err
		}
	}
	run := "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg.Kafka.Brokers = brokers
	cfg.Kafka.EdgeTopic, cfg.Kafka.AlertTopic, cfg.Kafka.DeadLetterTopic = run+"-edges", run+"-alerts", run+"-dlq"
	cfg.Kafka.Group = run
	cfg.Kafka.Partitions = o.partitions
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
	if o.backend != "" {
		cfg.Engine.Backend = backend.Backend(o.backend)
	}
	if o.workers >= 0 {
		cfg.Engine.Workers = o.workers
	}
	if o.gpu != nil {
		o.gpu.apply(&cfg.Engine.GPU)
	}
	if o.batchSize > 0 {
		cfg.Window.BatchSize = o.batchSize
	}
	if o.batchWait > 0 {
		cfg.Window.BatchMaxWait = o.batchWait
	}
	switch {
	case o.queries != "":
		cfg.Queries.Files, cfg.Queries.Inline = []string{o.queries}, nil
	case len(cfg.Queries.Files) == 0 && len(cfg.Queries.Inline) == 0:
		path := filepath.Join(dir, "queries.yaml")
		text, err := everestQueries(3600)
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

// everestQueries writes the built-in M1…M10 at δ delta as a query file:
// Everest's ten, the bench's default.
func everestQueries(delta int64) (string, error) {
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

// benchMetrics returns the series of the named metric family.
func benchMetrics(reg *prometheus.Registry, name string) []*dto.Metric {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	return nil
}

// benchBackend reads the backend in use from motifwatch_engine_info.
func benchBackend(reg *prometheus.Registry) string {
	for _, m := range benchMetrics(reg, "motifwatch_engine_info") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "backend" {
				return l.GetValue()
			}
		}
	}
	return "?"
}
