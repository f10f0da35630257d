package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/kafka"
	"github.com/motifwatch/motifwatch/internal/ratelog"
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
	// Listening, if set, is called with the HTTP server's address as soon
	// as it listens: before the brokers are reached.
	Listening func(metricsAddr string)
	// Started, if set, is called once the pipeline consumes, with the
	// addresses a test or a log line needs.
	Started func(Info)
	// OnBatch, if set, receives a report of every batch that took records
	// in or released edges, from the pipeline goroutine (monitor bench);
	// it must return quickly.
	OnBatch func(BatchReport)
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
	for _, w := range cfg.Warnings() {
		log.Warn("configuration: " + w.Error())
	}

	// HTTP first: /healthz, /readyz and /metrics answer while the rest
	// starts, above all while the brokers do not (connect).
	ready := newHealth()
	ready.setConnecting(true)
	httpSrv, err := newHTTPServer(cfg.Metrics.Listen, reg, ready.status)
	if err != nil {
		return fmt.Errorf("metrics.listen %s: %w", cfg.Metrics.Listen, err)
	}
	board := newStatusBoard(schema.TimeUnit, EngineStatus{}, nil)
	board.ready = ready.status
	httpSrv.handleStatus(board)
	httpSrv.start()
	defer httpSrv.stop(time.Second)
	log.Info("motifwatch starting", "metrics", httpSrv.Addr(), "brokers", cfg.Kafka.Brokers)
	if o.Listening != nil {
		o.Listening(httpSrv.Addr())
	}
	pm, err := newPipelineMetrics(reg)
	if err != nil {
		return err
	}

	engine, err := newEngine(cfg, reg, log)
	if err != nil {
		return err
	}
	defer engine.Close()
	backend := engine.Backend
	board.setEngine(engineStatus(engine, cfg))

	// Kafka: the embedded broker or the configured cluster, and topics.
	transport, dialer, err := kafka.Clients(&cfg.Kafka)
	if err != nil {
		return err
	}
	brokers := cfg.Kafka.Brokers
	if cfg.Embedded() {
		ec := &cfg.Kafka.Embedded
		emb, err := kafka.StartEmbedded(ctx, kafka.EmbeddedOptions{Logger: log, Port: ec.Port, DataDir: ec.Dir, RetentionBytes: int64(ec.RetentionBytes)})
		if err != nil {
			return fmt.Errorf("kafka.embedded {dir: %q, port: %d, retention_bytes: %s}: starting the embedded broker: %w", ec.Dir, ec.Port, ec.RetentionBytes, err)
		}
		defer emb.Close()
		brokers = emb.Addrs()
		retention := "unlimited"
		if ec.RetentionBytes > 0 {
			retention = ec.RetentionBytes.String()
		}
		if dir := ec.Dir; dir != "" {
			log.Info("embedded Kafka broker started", "addrs", brokers, "dir", dir, "retention_per_partition", retention)
		} else {
			log.Info("embedded Kafka broker started, in memory only: its topics, offsets and alerts are lost at exit (kafka.embedded.dir keeps them)", "addrs", brokers, "retention_per_partition", retention)
		}
	}
	conn := &connector{brokers: brokers, ping: func(ctx context.Context) error { return kafka.Ping(ctx, brokers, dialer) },
		retry: newRetrier(opProbe, log, ready, pm), health: ready, log: log, limit: ratelog.New(connectLogEvery, nil), sleep: sleep}
	if m := cfg.Kafka.SASL.Mechanism; m != "" {
		conn.mechanism, conn.user = "SASL "+strings.ToUpper(m), cfg.Kafka.SASL.Username
	}
	if err := conn.run(ctx); err != nil {
		return err
	}
	parts := max(cfg.Kafka.Partitions, 1)
	if err := kafka.EnsureTopics(ctx, brokers, transport, []kafka.TopicSpec{
		{Name: cfg.Kafka.EdgeTopic, Partitions: parts},
		{Name: cfg.Kafka.AlertTopic, Partitions: parts},
		{Name: cfg.Kafka.DeadLetterTopic, Partitions: parts},
	}); err != nil {
		return err
	}

	// The pipeline's parts. A scaled-out instance builds a pipeline (window,
	// reorder buffer, router) per generation of the group from them.
	var alertRetry *retrier // set once the metrics exist; the sink reports its retries to it
	var sink alerts.Sink
	if cfg.Alerts.Sink == config.SinkStdout {
		sink = alerts.NewWriterSink(o.Stdout)
	} else if sink, err = kafka.NewAlertSink(kafka.AlertSinkOptions{Brokers: brokers, Topic: cfg.Kafka.AlertTopic, Transport: transport, Logger: log,
		// The sink logs its retries itself; readiness and metrics learn of them here.
		OnRetry: func(_ int, err error) { alertRetry.failed(err, false) }}); err != nil {
		return err
	}
	if cfg.DemoEnabled() && cfg.Alerts.Sink != config.SinkStdout {
		// The demo's alerts go to the (embedded) alert topic and to stdout,
		// so the first run shows them.
		sink = teeSink{sink, alerts.NewWriterSink(o.Stdout)}
	}
	defer sink.Close()
	mk := &pipelineMaker{cfg: cfg, log: log, reg: reg, engine: engine, backend: backend, schema: schema, sink: sink,
		health: ready, updates: make(chan querySet), onBatch: o.OnBatch, board: board,
		probe: func(ctx context.Context) error { return kafka.WaitReady(ctx, brokers, transport) }}
	if mk.am, err = alerts.NewMetrics(reg); err != nil {
		return err
	}
	if mk.dec, err = ingest.NewDecoder(decodeOptions(cfg, &schema)); err != nil {
		return err
	}
	if mk.im, err = ingest.NewMetrics(reg); err != nil {
		return err
	}
	dlq, err := kafka.NewDeadLetter(kafka.DeadLetterOptions{Brokers: brokers, Topic: cfg.Kafka.DeadLetterTopic, Transport: transport,
		MaxBytes: int(cfg.Kafka.DeadLetterMaxBytes)})
	if err != nil {
		return err
	}
	defer dlq.Close()
	mk.dlq = dlq
	mk.pm = pm
	alertRetry = newRetrier(opAlertWrite, log, ready, pm)
	mk.alertRetry = alertRetry
	pm.queries.Set(float64(len(queries)))
	pm.info.WithLabelValues(backend, strconv.Itoa(engineWorkers(engine, cfg))).Set(1)
	streamQs, alertQs := querySets(cfg, queries)
	board.setQueries(streamQs, alertQs)
	p, err := mk.new(querySet{stream: streamQs, alerts: alertQs})
	if err != nil {
		return err
	}
	admin, err := kafka.NewAdmin(brokers, transport)
	if err != nil {
		return err
	}
	defer admin.Close()
	// p was made above, before the admin: it gets the end-offset lookup
	// here; scale-out's pipelines get it from mk.
	mk.endOffsets = func(ctx context.Context) (map[int]int64, error) { return admin.EndOffsets(ctx, cfg.Kafka.EdgeTopic) }
	p.endOffsets = mk.endOffsets

	// work is the run group's pipeline actor; stats reports its records.
	var work func(context.Context) error
	var consumer *kafka.Consumer
	stats := func() pipelineStats { return p.stats }
	if cfg.Kafka.ScaleOut.Enabled {
		so, err := newScaleOut(cfg, mk, admin, brokers, transport, dialer, p.queries)
		if err != nil {
			return err
		}
		defer so.member.Close() // the member joins at once; run closes it too, after the last hand-over
		work, stats = so.run, so.totals
	} else {
		// Restart: rebuild the window from the history before the committed
		// offsets, and learn what a clean shutdown left to report.
		if err := rebuild(ctx, log, cfg, admin, brokers, transport, dialer, p, cfg.WindowSpan(queries)); err != nil {
			return err
		}
		consumer, err = kafka.NewConsumer(kafka.ConsumerOptions{Brokers: brokers, Topic: cfg.Kafka.EdgeTopic,
			Group: cfg.Kafka.Group, ClientID: cfg.Kafka.ClientID, Dialer: dialer, MaxWait: min(cfg.Window.BatchMaxWait, 250*time.Millisecond), Logger: log,
			SessionTimeout: cfg.Kafka.SessionTimeout,
			// kafka-go retries these itself (a fetch's i/o timeout, a lost
			// connection): counted as fetch errors, as Fetch never sees them.
			OnClientError: pm.kafkaErrors.WithLabelValues(opFetch).Inc})
		if err != nil {
			return err
		}
		p.src = consumer
		// Several instances without scale-out stand by for one another
		// (ingest's whole-topic group protocol): one that is handed the
		// partitions later must not mine on from a stale window.
		p.committed = func(ctx context.Context) (map[int]int64, error) {
			return admin.Committed(ctx, cfg.Kafka.Group, cfg.Kafka.EdgeTopic)
		}
		work = p.run
	}

	watcher, err := config.NewQueryWatcher(cfg, log, func(qs []*motif.Query) error {
		s, a := querySets(cfg, qs)
		done := make(chan error, 1)
		select {
		case mk.updates <- querySet{stream: s, alerts: a, done: done}:
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

	gpmJob, err := newGPMJob(ctx, cfg, log, reg, brokers, transport, p)
	if err != nil {
		return err
	}

	var g run.Group
	// run.Group returns only the first actor's error; the pipeline's, which
	// carries shutdown failures, is kept apart so it is never lost.
	var pipeErr error
	{
		pctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { pipeErr = work(pctx); return pipeErr }, func(error) { cancel() })
	}
	{
		hctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return httpSrv.wait(hctx) }, func(error) { cancel() })
	}
	{
		bctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return watchBrokers(bctx, newRetrier(opProbe, log, ready, pm), mk.probe) }, func(error) { cancel() })
	}
	{
		wctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return watcher.Run(wctx) }, func(error) { cancel() })
	}
	if every := cfg.Log.StatusInterval; every > 0 {
		sctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return logStatus(sctx, &statusLogger{b: board, log: log}, every) }, func(error) { cancel() })
	}
	if gpmJob != nil {
		jctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return gpmJob.run(jctx) }, func(error) { cancel() })
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
		"queries", p.proc.Queries(), "backend", backend, "demo", cfg.DemoEnabled(), "scale_out", cfg.Kafka.ScaleOut.Enabled)
	if o.Started != nil {
		o.Started(Info{MetricsAddr: httpSrv.Addr(), Brokers: brokers})
	}
	runErr := g.Run()
	if pipeErr != nil && !errors.Is(runErr, pipeErr) {
		runErr = errors.Join(runErr, pipeErr)
	}

	// The pipeline has finished its last batch and commit (scaled out: with
	// the resume state, through the group). Leave the group, then record
	// where a restart resumes and what it must not repeat.
	var closeErr error
	if consumer != nil {
		closeErr = consumer.Close()
		fctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if runErr == nil {
			client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: transport, Timeout: 10 * time.Second}
			if err := commitFinal(fctx, client, cfg.Kafka.Group, cfg.Kafka.EdgeTopic, p.committable(), p.next, p.resume, p.shutdownWatermark()); err != nil {
				log.Warn("final commit with resume state failed: a restart may repeat alerts", "err", err)
			}
		}
	}
	st := stats()
	log.Info("motifwatch stopped", "records", st.Records, "appended", st.Appended, "late", st.Late,
		"dead_lettered", st.DeadLettered, "dead_letter_lost", st.DeadLetterLost, "skipped", st.Skipped,
		"alerts", st.Alerts, "rate_limited", st.RateLimited)
	return errors.Join(runErr, closeErr)
}

// newEngine picks the mining backend (engine.backend): cpu, gpu (an error
// when no device is usable) or auto (the GPU when usable, else the CPU
// with a warning). Device metrics are registered either way.
func newEngine(cfg *config.Config, reg prometheus.Registerer, log *slog.Logger) (*gpu.Selected, error) {
	sel, err := gpu.Select(cfg.Engine.Backend, cfg.Engine.Workers, gpu.Options{Devices: cfg.Engine.Devices}, log)
	if err != nil {
		return nil, fmt.Errorf("engine.backend: %s: %w", cfg.Engine.Backend, err)
	}
	if err := reg.Register(gpu.NewCollector(sel.GPU)); err != nil {
		sel.Close()
		return nil, err
	}
	return sel, nil
}

func engineWorkers(sel *gpu.Selected, cfg *config.Config) int {
	if sel.Backend == gpu.BackendGPU {
		return len(sel.GPU.Devices())
	}
	if c, ok := sel.Engine.(interface{ Workers() int }); ok {
		return c.Workers()
	}
	return cfg.Engine.Workers
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
		aq[q.Name] = alerts.QueryOptions{Mode: mode, RateLimit: pol.RateLimit, Burst: pol.RateBurst, Group: grouping(q, cfg.Input.TimeUnit)}
	}
	return sq, aq
}

// grouping is q's incident grouping for the router: group_by's node
// names, and group_within (default delta) as a duration (a span of bare
// ticks counts ticks of unit).
func grouping(q *motif.Query, unit time.Duration) alerts.Grouping {
	if len(q.GroupBy) == 0 {
		return alerts.Grouping{}
	}
	g := alerts.Grouping{By: make([]string, len(q.GroupBy))}
	for i, n := range q.GroupBy {
		g.By[i] = q.Nodes[n].Name
	}
	within := q.Delta
	if q.GroupWithin != nil {
		within = *q.GroupWithin
	}
	if within.IsDuration {
		g.Within = within.Duration
	} else {
		g.Within = time.Duration(math.MaxInt64) // validated positive; longer than Duration: never closes by time
		if within.Ticks <= math.MaxInt64/int64(unit) {
			g.Within = time.Duration(within.Ticks) * unit
		}
	}
	return g
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
func rebuild(ctx context.Context, log *slog.Logger, cfg *config.Config, admin *kafka.Admin, brokers []string, transport *kafka.Transport, dialer *kafka.Dialer, p *pipeline, span time.Duration) error {
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: transport, Timeout: 10 * time.Second}
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
	p.builtTo = make(map[int]int64, len(end))
	for part, e := range end {
		start := first[part]
		if off, ok := offsets[part]; ok {
			start = max(start, off)
		}
		p.builtTo[part] = start
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
	if err := kafka.Replay(ctx, brokers, dialer, cfg.Kafka.EdgeTopic, last, offsets, func(m kafka.Message) error {
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
	if err := kafka.Replay(ctx, brokers, dialer, cfg.Kafka.EdgeTopic, from, offsets, func(m kafka.Message) error {
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
	// Commits below these offsets would re-read history as new.
	p.historyBefore = offsets
	clean := len(states) == len(offsets)
	if clean {
		p.resumeFrom(states)
	} // else after a crash: at least once, duplicates possible
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
	_, err = kafka.Produce(ctx, kafka.FeedRecords(feed, unit), kafka.ProduceOptions{Brokers: brokers, Transport: tr,
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
