package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/broker"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// Options are what Run needs besides the configuration.
type Options struct {
	Config *config.Config
	Logger *slog.Logger
	// Registry receives every metric; nil: a new one with the Go and
	// process collectors.
	Registry *prometheus.Registry
	// Stdout is where the stdout alert sink writes (default os.Stdout).
	Stdout io.Writer
	// Started, if set, is called once the pipeline consumes, with the
	// addresses a test or a log line needs.
	Started func(Info)
}

// Info describes a running daemon.
type Info struct {
	MetricsAddr string
	Brokers     []string
}

// Run runs the daemon until ctx is done (SIGTERM), then shuts down
// within the configured deadline: see the package doc.
func Run(ctx context.Context, o Options) error {
	cfg, log := o.Config, o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	queries, schema, err := cfg.Check()
	if err != nil {
		return err
	}
	reg := o.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	engine, backend, err := newEngine(cfg, log)
	if err != nil {
		return err
	}

	// Kafka: the embedded broker or the configured cluster, and topics.
	transport, dialer, err := clients(&cfg.Kafka)
	if err != nil {
		return err
	}
	brokers := cfg.Kafka.Brokers
	if cfg.Embedded() {
		emb, err := broker.StartEmbedded(ctx, broker.EmbeddedOptions{Logger: log})
		if err != nil {
			return fmt.Errorf("starting the embedded broker: %w", err)
		}
		defer emb.Close()
		brokers = emb.Addrs()
		log.Info("embedded Kafka broker started", "addrs", brokers)
	}
	if err := broker.WaitReady(ctx, brokers, transport); err != nil {
		return fmt.Errorf("kafka %v: %w", brokers, err)
	}
	parts := max(cfg.Kafka.Partitions, 1)
	if err := broker.EnsureTopics(ctx, brokers, transport, []broker.TopicSpec{
		{Name: cfg.Kafka.EdgeTopic, Partitions: parts},
		{Name: cfg.Kafka.AlertTopic, Partitions: parts},
		{Name: cfg.Kafka.DeadLetterTopic, Partitions: parts},
	}); err != nil {
		return err
	}

	// The pipeline's parts.
	proc, err := stream.New(stream.Options{Engine: engine, Schema: schema, MaxHeld: cfg.Window.MaxHeldMatches,
		MaxBytes: int64(cfg.Window.MaxBytes), MaxNodes: cfg.Window.MaxNodes, MaxMatchesPerBatch: cfg.Window.MaxMatchesPerBatch,
		Logger: log, Registerer: reg, Backend: backend})
	if err != nil {
		return err
	}
	proc.SetCapLimit(stream.CapFuture, cfg.Window.MaxFuture.Seconds())
	streamQs, alertQs := querySets(cfg, queries)
	if err := proc.SetQueries(streamQs); err != nil {
		return err
	}
	var sink alerts.Sink
	if cfg.Alerts.Sink == config.SinkStdout {
		sink = alerts.NewWriterSink(o.Stdout)
	} else if sink, err = alerts.NewKafkaSink(alerts.KafkaOptions{Brokers: brokers, Topic: cfg.Kafka.AlertTopic, Transport: transport, Logger: log}); err != nil {
		return err
	}
	if cfg.DemoEnabled() && cfg.Alerts.Sink != config.SinkStdout {
		// The demo's alerts go to the (embedded) alert topic and to stdout,
		// so the first run shows them.
		sink = teeSink{sink, alerts.NewWriterSink(o.Stdout)}
	}
	defer sink.Close()
	am, err := alerts.NewMetrics(reg)
	if err != nil {
		return err
	}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: cfg.Alerts.CountInterval, Logger: log}, sink, am, nil)
	if err != nil {
		return err
	}
	if err := router.SetQueries(alertQs); err != nil {
		return err
	}
	dec, err := ingest.NewDecoder(decodeOptions(cfg, &schema))
	if err != nil {
		return err
	}
	im, err := ingest.NewMetrics(reg)
	if err != nil {
		return err
	}
	lateness := int64(cfg.Window.AllowedLateness / schema.TimeUnit)
	dlq, err := ingest.NewDeadLetter(brokers, cfg.Kafka.DeadLetterTopic, transport)
	if err != nil {
		return err
	}
	defer dlq.Close()
	pm, err := newPipelineMetrics(reg)
	if err != nil {
		return err
	}
	pm.queries.Set(float64(len(queries)))
	pm.info.WithLabelValues(backend, strconv.Itoa(engineWorkers(engine))).Set(1)
	ready := new(atomic.Bool)
	p := &pipeline{log: log, dlq: dlq, dec: dec, reorder: ingest.NewReorder(lateness, cfg.Window.IdleTimeout, time.Now),
		proc: proc, router: router, im: im, pm: pm, tick: schema.TimeUnit, batchSize: cfg.Window.BatchSize,
		maxWait: cfg.Window.BatchMaxWait, ready: ready, queryUpdates: make(chan querySet),
		next: map[int]int64{}, shutdownTimeout: cfg.ShutdownTimeout,
		future: newFutureCap(cfg.Window.MaxFuture, schema.TimeUnit, time.Now)}

	// Restart: rebuild the window from the history before the committed
	// offsets, and learn what a clean shutdown left to report.
	admin, err := ingest.NewAdmin(brokers, transport)
	if err != nil {
		return err
	}
	if err := rebuild(ctx, log, cfg, admin, brokers, transport, dialer, p, cfg.WindowSpan(queries)); err != nil {
		return err
	}
	consumer, err := ingest.NewConsumer(ingest.ConsumerOptions{Brokers: brokers, Topic: cfg.Kafka.EdgeTopic,
		Group: cfg.Kafka.Group, ClientID: cfg.Kafka.ClientID, Dialer: dialer, MaxWait: min(cfg.Window.BatchMaxWait, 250*time.Millisecond), Logger: log})
	if err != nil {
		return err
	}
	p.src = consumer

	httpSrv, err := newHTTPServer(cfg.Metrics.Listen, reg, ready)
	if err != nil {
		return fmt.Errorf("metrics.listen %s: %w", cfg.Metrics.Listen, err)
	}
	watcher, err := config.NewQueryWatcher(cfg, log, func(qs []*motif.Query) error {
		s, a := querySets(cfg, qs)
		done := make(chan error, 1)
		select {
		case p.queryUpdates <- querySet{stream: s, alerts: a, done: done}:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := <-done
		result := "applied"
		if err != nil {
			result = "rejected"
		} else {
			pm.queries.Set(float64(len(qs)))
		}
		pm.reloads.WithLabelValues(result).Inc()
		return err
	})
	if err != nil {
		return err
	}

	var g run.Group
	// run.Group returns only the first actor's error; the pipeline's, which
	// carries shutdown failures, is kept apart so it is never lost.
	var pipeErr error
	{
		pctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { pipeErr = p.run(pctx); return pipeErr }, func(error) { cancel() })
	}
	g.Add(httpSrv.run, func(error) { httpSrv.stop(time.Second) })
	{
		wctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return watcher.Run(wctx) }, func(error) { cancel() })
	}
	if cfg.DemoEnabled() {
		dctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return demo(dctx, log, brokers, transport, cfg, schema.TimeUnit) }, func(error) { cancel() })
	}
	{
		done := make(chan struct{})
		g.Add(func() error {
			select {
			case <-ctx.Done():
			case <-done:
			}
			return nil
		}, func(error) { close(done) })
	}
	log.Info("motifwatch running", "metrics", httpSrv.Addr(), "brokers", brokers, "topic", cfg.Kafka.EdgeTopic,
		"queries", proc.Queries(), "backend", backend, "demo", cfg.DemoEnabled())
	if o.Started != nil {
		o.Started(Info{MetricsAddr: httpSrv.Addr(), Brokers: brokers})
	}
	runErr := g.Run()
	if pipeErr != nil && !errors.Is(runErr, pipeErr) {
		runErr = errors.Join(runErr, pipeErr)
	}

	// The pipeline has finished its last batch and commit. Leave the group,
	// then record where a restart resumes and what it must not repeat.
	closeErr := consumer.Close()
	fctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if runErr == nil {
		client := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: transport, Timeout: 10 * time.Second}
		if err := commitFinal(fctx, client, cfg.Kafka.Group, cfg.Kafka.EdgeTopic, p.committable(), p.next, p.shutdownWatermark()); err != nil {
			log.Warn("final commit with resume state failed: a restart may repeat alerts", "err", err)
		}
	}
	log.Info("motifwatch stopped", "records", p.stats.Records, "appended", p.stats.Appended, "late", p.stats.Late,
		"dead_lettered", p.stats.DeadLettered, "alerts", p.stats.Alerts)
	return errors.Join(runErr, closeErr)
}

// newEngine picks the mining backend: the GPU engine is not built yet, so
// gpu is an error and auto falls back to the CPU with a warning.
func newEngine(cfg *config.Config, log *slog.Logger) (motif.Engine, string, error) {
	switch cfg.Engine.Backend {
	case config.BackendGPU:
		return nil, "", fmt.Errorf("engine.backend: gpu: this build has no GPU engine (use cpu or auto)")
	case config.BackendAuto:
		log.Warn("engine.backend auto: no GPU engine in this build; mining on the CPU")
	}
	return motif.NewCPU(cfg.Engine.Workers), config.BackendCPU, nil
}

func engineWorkers(e motif.Engine) int {
	if c, ok := e.(*motif.CPU); ok {
		return c.Workers()
	}
	return 0
}

// querySets splits queries into the processor's and the router's views.
func querySets(cfg *config.Config, qs []*motif.Query) ([]stream.Query, map[string]alerts.QueryOptions) {
	sq := make([]stream.Query, len(qs))
	aq := make(map[string]alerts.QueryOptions, len(qs))
	for i, q := range qs {
		pol := cfg.Alerts.For(q.Name)
		mode := alerts.ModeEnumerate
		if pol.Mode == config.ModeCount {
			mode = alerts.ModeCount
		}
		sq[i] = stream.Query{Query: q, Enumerate: mode == alerts.ModeEnumerate}
		aq[q.Name] = alerts.QueryOptions{Mode: mode, RateLimit: pol.RateLimit, Burst: pol.RateBurst}
	}
	return sq, aq
}

func decodeOptions(cfg *config.Config, schema *window.Schema) ingest.DecodeOptions {
	in := &cfg.Input
	return ingest.DecodeOptions{Format: in.Format, Src: in.Fields.Src, Dst: in.Fields.Dst, Time: in.Fields.Time,
		Seq: in.Fields.Seq, SrcLabel: in.Fields.SrcLabel, DstLabel: in.Fields.DstLabel, CSVColumns: in.CSVColumns,
		TimestampUnit: in.Timestamp.Unit, TimestampLayout: in.Timestamp.Layout, Tick: schema.TimeUnit,
		Attrs: schema.EdgeAttrs, MaxRecordBytes: in.MaxRecordBytes}
}

// rebuild refills the window after a restart: the records within the
// window span before the committed offsets are read back as History (in
// the window, never alerted), and a clean shutdown's metadata marks the
// records it had already handled as Replayed.
func rebuild(ctx context.Context, log *slog.Logger, cfg *config.Config, admin *ingest.Admin, brokers []string, transport *kafka.Transport, dialer *kafka.Dialer, p *pipeline, span time.Duration) error {
	client := &kafka.Client{Addr: kafka.TCP(brokers...), Transport: transport, Timeout: 10 * time.Second}
	parts, err := admin.Partitions(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return err
	}
	offsets, states, err := committed(ctx, client, cfg.Kafka.Group, cfg.Kafka.EdgeTopic, parts)
	if err != nil {
		return err
	}
	// Partitions with records the consumer will read hold the watermark
	// until it has reached them (see ingest.Reorder.SetPending).
	first, err := admin.StartOffsets(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return err
	}
	end, err := admin.EndOffsets(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return err
	}
	for part, e := range end {
		start := first[part]
		if off, ok := offsets[part]; ok {
			start = max(start, off)
		}
		p.reorder.SetPending(part, e > start)
	}
	if len(offsets) == 0 {
		return nil // first start of this group
	}
	// The oldest committed position's message time, minus the span, is
	// where history starts (message times are edge times for records
	// `monitor produce` wrote; a margin of the lateness covers producers
	// whose clocks lag).
	last := map[int]int64{}
	for part, off := range offsets {
		if off > 0 {
			last[part] = off - 1
		}
	}
	oldest := time.Time{}
	if err := ingest.Replay(ctx, brokers, dialer, cfg.Kafka.EdgeTopic, last, offsets, func(m kafka.Message) error {
		if oldest.IsZero() || m.Time.Before(oldest) {
			oldest = m.Time
		}
		return nil
	}); err != nil {
		return fmt.Errorf("reading the committed positions: %w", err)
	}
	if oldest.IsZero() {
		return nil
	}
	from, err := admin.OffsetsForTime(ctx, cfg.Kafka.EdgeTopic, oldest.Add(-span-cfg.Window.AllowedLateness))
	if err != nil {
		return err
	}
	n := 0
	if err := ingest.Replay(ctx, brokers, dialer, cfg.Kafka.EdgeTopic, from, offsets, func(m kafka.Message) error {
		e, err := p.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
		if err != nil {
			return nil // dead-lettered when it was first read
		}
		e.History = true
		p.reorder.Add(e)
		n++
		return nil
	}); err != nil {
		return fmt.Errorf("rebuilding the window: %w", err)
	}
	wm := int64(math.MaxInt64)
	clean := len(states) == len(offsets)
	p.processedBefore = map[int]int64{}
	for part, st := range states {
		p.processedBefore[part] = st.Processed
		wm = min(wm, st.Watermark)
	}
	if clean {
		p.proc.Resume(wm)
	} else {
		p.processedBefore = nil // after a crash: at least once, duplicates possible
	}
	log.Info("window rebuilt from history", "records", n, "from", from, "to", offsets, "clean_shutdown", clean)
	return nil
}

// demo streams the synthetic feed with planted patterns into the edge
// topic until ctx ends.
func demo(ctx context.Context, log *slog.Logger, brokers []string, tr *kafka.Transport, cfg *config.Config, unit time.Duration) error {
	feedCfg := synth.DefaultFeed(uint64(time.Now().UnixNano()))
	feedCfg.Start = time.Now().Truncate(unit)
	feed, err := synth.NewFeed(feedCfg)
	if err != nil {
		return err
	}
	log.Info("demo feed producing", "topic", cfg.Kafka.EdgeTopic)
	_, err = broker.Produce(ctx, broker.FeedRecords(feed, unit), broker.ProduceOptions{Brokers: brokers, Transport: tr,
		Topic: cfg.Kafka.EdgeTopic, TimeUnit: unit, Speedup: 240, BatchSize: 100})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// teeSink writes to its first sink, then (once acknowledged) its second.
type teeSink [2]alerts.Sink

func (t teeSink) Write(ctx context.Context, as []alerts.Alert) error {
	if err := t[0].Write(ctx, as); err != nil {
		return err
	}
	return t[1].Write(ctx, as)
}

func (t teeSink) Close() error { return errors.Join(t[0].Close(), t[1].Close()) }
