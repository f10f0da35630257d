package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/alerts/alertmanager"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/buildinfo"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka"
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
	// in or released edges, from the pipeline goroutine once the batch is
	// committed (monitor bench); it must return quickly.
	OnBatch func(BatchReport)
}

// Info describes a running daemon.
type Info struct {
	MetricsAddr string
	Brokers     []string
}

// Run runs the daemon until ctx is done (SIGTERM), then shuts down
// within the configured deadline: see the package doc.
func Run(ctx context.Context, o Options) (err error) {
	cfg, log := o.Config, o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Stopped (SIGTERM) while starting: whatever step the stop cut short
	// (topics, the committed offsets, the window's rebuild) failed because
	// of it. That is a clean stop, not a failed run (exit status 0; a
	// supervisor takes 1 for a crash): nothing was consumed, nothing is
	// owed. The error is logged, not lost.
	starting, stopped := true, "stopped before connecting to the kafka brokers"
	defer func() {
		if starting && err != nil && ctx.Err() != nil {
			log.Warn(stopped, "brokers", cfg.Kafka.Brokers, "err", err)
			err = nil
		}
	}()
	queries, schema, err := Check(cfg)
	if err != nil {
		return err
	}
	reg := o.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	for _, w := range append(cfg.Warnings(), cfg.QueryWarnings(queries)...) {
		log.Warn("configuration: " + w.Error())
	}

	// HTTP first: /healthz, /readyz and /metrics answer while the rest
	// starts, above all while the brokers do not (connect).
	ready := newHealth()
	ready.setConnecting(true)
	mc := &cfg.Metrics
	maxConns, nofile, lowered := httpConnCap(mc.MaxConnections)
	httpSrv, err := newHTTPServer(mc.Listen, httpOptions{maxConns: maxConns, readHeaderTimeout: mc.ReadHeaderTimeout, writeTimeout: mc.WriteTimeout,
		idleTimeout: mc.IdleTimeout, log: log}, reg, reg, ready.state)
	if err != nil {
		return fmt.Errorf("metrics.listen %s: %w", mc.Listen, err)
	}
	if lowered {
		log.Warn("metrics.max_connections lowered to half the open-files limit: HTTP clients must leave descriptors for Kafka",
			"configured", mc.MaxConnections, "max_connections", maxConns, "open_files_limit", nofile)
	}
	log.Info("HTTP connections capped", "max_connections", maxConns, "open_files_limit", nofile, "read_header_timeout", mc.ReadHeaderTimeout,
		"write_timeout", mc.WriteTimeout, "idle_timeout", mc.IdleTimeout)
	build := buildinfo.Read()
	board := newStatusBoard(schema.TimeUnit, EngineStatus{}, nil)
	board.state, board.conditions, board.unreachable = ready.state, ready.conditions, ready.unreachable
	board.gather, board.header = reg, headerStatus(cfg, build)
	httpSrv.handleStatus(board)
	httpSrv.start()
	defer httpSrv.stop(time.Second)
	log.Info("motifwatch starting", "version", build.String(), "metrics", httpSrv.Addr(), "brokers", cfg.Kafka.Brokers)
	if o.Listening != nil {
		o.Listening(httpSrv.Addr())
	}
	// Metrics.
	pm, err := newPipelineMetrics(reg)
	if err != nil {
		return err
	}
	if err := noteMemoryBudget(cfg, reg, log); err != nil {
		return err
	}
	am, err := alerts.NewMetrics(reg)
	if err != nil {
		return err
	}
	im, err := ingest.NewMetrics(reg)
	if err != nil {
		return err
	}
	lookout, err := newLookout(ready, log, reg, cfg.Health.MaxRejectedRatio, cfg.Health.MaxWatermarkDelay)
	if err != nil {
		return err
	}
	lookout.watermark = board.watermarkTime
	pm.lookout = lookout
	engine, err := newEngine(cfg, reg, log)
	if err != nil {
		return err
	}
	defer engine.Close()
	backend := engine.Backend
	board.setEngine(engineStatus(engine, cfg))
	pm.queries.Set(float64(len(queries)))
	pm.info.WithLabelValues(backend.String(), strconv.Itoa(engineWorkers(engine, cfg))).Set(1)
	pm.build.WithLabelValues(build.Version, build.Revision, strconv.FormatBool(build.Modified), build.GoVersion).Set(1)

	// Clients: Kafka (the embedded broker or the configured cluster, and
	// topics), the alert sink, the dead-letter writer.
	k, err := connectKafka(ctx, cfg, log, ready, pm)
	if err != nil {
		return err
	}
	stopped = "stopped while starting: nothing was consumed"
	defer k.close()
	brokers, transport := k.brokers, k.transport
	board.setBrokers(brokers)
	alertRetry := newRetrier(opAlertWrite, log, ready, pm) // the sink reports its retries to it
	sink, err := newSink(cfg, o.Stdout, brokers, transport, log, alertRetry)
	if err != nil {
		return err
	}
	defer sink.Close()
	notifier, err := newNotifier(cfg, log, reg)
	if err != nil {
		return err
	}
	if notifier != nil {
		defer func() {
			// What Alertmanager has not taken within a POST's timeout after
			// the pipeline stopped is dropped (counted): it is on the topic.
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Alerts.Alertmanager.Timeout)
			defer cancel()
			notifier.Close(ctx)
		}()
	}
	dlq, err := kafka.NewDeadLetter(kafka.DeadLetterOptions{Brokers: brokers, Topic: cfg.Kafka.DeadLetterTopic, Transport: transport,
		MaxBytes: int(cfg.Kafka.DeadLetterMaxBytes)})
	if err != nil {
		return err
	}
	defer dlq.Close()
	// The edge topic's partitions, looked at every metadata_refresh.
	watchAdmin, err := kafka.NewWatchAdmin(brokers, transport, cfg.Kafka.MetadataRefresh)
	if err != nil {
		return err
	}
	defer watchAdmin.Close()
	topic := newTopicWatch(cfg.Kafka.EdgeTopic, cfg.Kafka.MetadataRefresh, watchAdmin, log, pm, lookout)
	topic.refresh(ctx) // the partitions at start, before any pipeline
	dec, err := ingest.NewDecoder(decodeOptions(cfg, &schema))
	if err != nil {
		return err
	}
	gpmJob, snapshots, err := newGPMJob(ctx, cfg, log, reg, brokers, transport)
	if err != nil {
		return err
	}

	// The pipeline: one, or a scaled-out instance's per generation of the
	// group, from the parts every pipeline shares.
	parts := &pipelineParts{cfg: cfg, log: log, reg: reg, engine: engine, backend: backend, schema: schema, sink: sink,
		dec: dec, dlq: dlq, am: am, im: im, pm: pm, health: ready, alertRetry: alertRetry, times: newEventTimes(),
		probe:      func(ctx context.Context) error { return kafka.WaitReady(ctx, brokers, transport) },
		endOffsets: func(ctx context.Context) (map[int]int64, error) { return k.admin.EndOffsets(ctx, cfg.Kafka.EdgeTopic) },
		updates:    make(chan querySet), snapshots: snapshots, onBatch: o.OnBatch, board: board, topic: topic,
		notifier: notifier, source: alertSource(cfg), statusURL: statusURL(cfg, httpSrv.Addr())}
	// The query watcher hands new query sets to whichever pipeline runs.
	watcher, err := config.NewQueryWatcher(cfg, log, func(qs []*motif.Query) error {
		s, a := querySets(cfg, qs)
		done := make(chan error, 1)
		select {
		case parts.updates <- querySet{stream: s, alerts: a, done: done}:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := <-done
		if err == nil {
			pm.queries.Set(float64(len(qs)))
		}
		return err
	})
	if err != nil {
		return err
	}
	// Every refused set is counted and keeps the daemon degraded until the
	// files hold a set in effect again: an operator's change that did not
	// take must not pass unseen.
	watcher.Settled = func(result string, err error) {
		board.reloaded(result, err)
		if result != config.ReloadRestored {
			pm.reloads.WithLabelValues(result).Inc()
		}
		if err != nil {
			lookout.set(condReloadRejected, "the query files' new set was refused, the previous queries stay in effect: "+err.Error())
		} else {
			lookout.lift(condReloadRejected)
		}
	}

	streamQs, alertQs := querySets(cfg, queries)
	board.setQueries(streamQs, alertQs)
	qs := querySet{stream: streamQs, alerts: alertQs}
	// Nothing fails between the worker's start (the consumer or member
	// joins the group) and the run group, which stops it.
	var work worker
	if cfg.Kafka.ScaleOut.Enabled {
		so, err := newScaleOut(parts, k, qs)
		if err != nil {
			return err
		}
		defer so.member.Close() // the member joins at once; run closes it too, after the last hand-over
		work = so
	} else {
		if work, err = newStandalone(ctx, parts, k, qs, cfg.WindowSpan(queries)); err != nil {
			return err
		}
	}

	var g run.Group
	// run.Group returns only the first actor's error; the pipeline's, which
	// carries shutdown failures, is kept apart so it is never lost.
	var pipeErr error
	{
		pctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { pipeErr = work.run(pctx); return pipeErr }, func(error) { cancel() })
	}
	{
		hctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return httpSrv.wait(hctx) }, func(error) { cancel() })
	}
	{
		bctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return watchBrokers(bctx, newRetrier(opProbe, log, ready, pm), parts.probe) }, func(error) { cancel() })
	}
	{
		wctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return watcher.Run(wctx) }, func(error) { cancel() })
	}
	{
		tctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return topic.run(tctx) }, func(error) { cancel() })
	}
	{
		lctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return lookout.watch(lctx) }, func(error) { cancel() })
	}
	{
		hctx, cancel := context.WithCancel(ctx)
		g.Add(func() error { return board.sampleEvery(hctx, historyStep) }, func(error) { cancel() })
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
		"queries", queryNames(queries), "backend", backend, "demo", cfg.DemoEnabled(), "scale_out", cfg.Kafka.ScaleOut.Enabled)
	if o.Started != nil {
		o.Started(Info{MetricsAddr: httpSrv.Addr(), Brokers: brokers})
	}
	// The pipeline finishes its last batch and commit (with the resume
	// state: through the group scaled out, else in resumeGroup) and leaves
	// the group before its actor returns.
	starting = false
	runErr := g.Run()
	if pipeErr != nil && !errors.Is(runErr, pipeErr) {
		runErr = errors.Join(runErr, pipeErr)
	}
	st := work.totals()
	log.Info("motifwatch stopped", "records", st.Records, "appended", st.Appended, "late", st.Late,
		"dead_lettered", st.DeadLettered, "dead_letter_lost", st.DeadLetterLost, "skipped", st.Skipped,
		"alerts", st.Alerts, "rate_limited", st.RateLimited)
	return runErr
}

// worker is the run group's pipeline actor: a standalone instance's
// pipeline, or a scaled-out member's pipeline per generation.
type worker interface {
	run(ctx context.Context) error
	// totals is the record accounting, once run has returned.
	totals() pipelineStats
}

func queryNames(qs []*motif.Query) []string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return names
}

// kafkaClients are the daemon's connection to Kafka: the brokers it
// reached (the embedded one's addresses, if it runs), the transport
// (writers, admin calls) and dialer (readers) with the configured TLS
// and SASL, and the admin client (metadata, offsets, commits) over the
// transport.
type kafkaClients struct {
	brokers   []string
	transport *kafka.Transport
	dialer    *kafka.Dialer
	admin     *kafka.Admin
	embedded  *kafka.Embedded // nil: the configured cluster
}

func (k kafkaClients) close() {
	if k.admin != nil {
		k.admin.Close()
	}
	if k.transport != nil {
		// Its pooled connections (two goroutines each) would outlive Run:
		// a daemon run in-process (tests, embedding) must stop whole.
		k.transport.CloseIdleConnections()
	}
	if k.embedded != nil {
		k.embedded.Close()
	}
}

// connectKafka starts the embedded broker if configured, waits until the
// brokers answer (connect.go) and creates the topics.
func connectKafka(ctx context.Context, cfg *config.Config, log *slog.Logger, ready *health, pm *pipelineMetrics) (kafkaClients, error) {
	transport, dialer, err := kafka.Clients(KafkaClientOptions(&cfg.Kafka))
	if err != nil {
		return kafkaClients{}, fmt.Errorf("kafka.tls, kafka.sasl: %w", err)
	}
	k := kafkaClients{brokers: cfg.Kafka.Brokers, transport: transport, dialer: dialer}
	if cfg.Embedded() {
		ec := &cfg.Kafka.Embedded
		emb, err := kafka.StartEmbedded(ctx, kafka.EmbeddedOptions{Logger: log, Port: ec.Port, DataDir: ec.Dir, RetentionBytes: int64(ec.RetentionBytes),
			OnStorageError: func(error) { pm.embeddedStorage.Inc() }})
		if err != nil {
			return kafkaClients{}, fmt.Errorf("kafka.embedded {dir: %q, port: %d, retention_bytes: %s}: starting the embedded broker: %w", ec.Dir, ec.Port, ec.RetentionBytes, err)
		}
		k.brokers, k.embedded = emb.Addrs(), emb
		retention := "unlimited"
		if ec.RetentionBytes > 0 {
			retention = ec.RetentionBytes.String()
		}
		if dir := ec.Dir; dir != "" {
			log.Info("embedded Kafka broker started", "addrs", k.brokers, "dir", dir, "retention_per_partition", retention)
		} else {
			log.Info("embedded Kafka broker started, in memory only: its topics, offsets and alerts are lost at exit (kafka.embedded.dir keeps them)", "addrs", k.brokers, "retention_per_partition", retention)
		}
	}
	brokers := k.brokers
	conn := &connector{brokers: brokers, ping: func(ctx context.Context) error { return kafka.Ping(ctx, brokers, dialer) },
		retry: newRetrier(opProbe, log, ready, pm), health: ready, log: log, limit: ratelog.New(connectLogEvery, nil), sleep: sleep}
	if m := cfg.Kafka.SASL.Mechanism; m != "" {
		conn.mechanism, conn.user = "SASL "+strings.ToUpper(m), cfg.Kafka.SASL.Username
	}
	if err := conn.run(ctx); err != nil {
		k.close()
		return kafkaClients{}, err
	}
	parts := max(cfg.Kafka.Partitions, 1)
	if err := kafka.EnsureTopics(ctx, brokers, transport, []kafka.TopicSpec{
		{Name: cfg.Kafka.EdgeTopic, Partitions: parts},
		{Name: cfg.Kafka.AlertTopic, Partitions: parts},
		{Name: cfg.Kafka.DeadLetterTopic, Partitions: parts},
	}); err != nil {
		k.close()
		return kafkaClients{}, err
	}
	if k.admin, err = kafka.NewAdmin(brokers, transport); err != nil {
		k.close()
		return kafkaClients{}, err
	}
	return k, nil
}

// newSink returns the alert sink (alerts.sink): stdout, or the alert
// topic, whose retries it reports to retry (readiness and metrics; the
// sink logs them itself). The demo's alerts go to the (embedded) alert
// topic and to stdout, so the first run shows them.
func newSink(cfg *config.Config, stdout io.Writer, brokers []string, transport *kafka.Transport, log *slog.Logger, retry *retrier) (alerts.Sink, error) {
	if cfg.Alerts.Sink == config.SinkStdout {
		return alerts.NewWriterSink(stdout), nil
	}
	sink, err := kafka.NewAlertSink(kafka.AlertSinkOptions{Brokers: brokers, Topic: cfg.Kafka.AlertTopic, Transport: transport, Logger: log,
		OnRetry: func(_ int, err error) { retry.failed(err, false) }})
	if err != nil {
		return nil, err
	}
	if cfg.DemoEnabled() {
		return teeSink{sink, alerts.NewWriterSink(stdout)}, nil
	}
	return sink, nil
}

// newNotifier returns the Alertmanager notifier (alerts.alertmanager),
// or nil when no URL is set (its metrics are registered either way).
func newNotifier(cfg *config.Config, log *slog.Logger, reg prometheus.Registerer) (*alertmanager.Notifier, error) {
	am := &cfg.Alerts.Alertmanager
	if am.URL == "" {
		return nil, alertmanager.RegisterMetrics(reg)
	}
	n, err := alertmanager.New(alertmanager.Options{URL: am.URL, Timeout: am.Timeout, QueueBytes: int64(am.QueueBytes),
		EndsAfter: am.EndsAfter, Logger: log, Registerer: reg})
	if err != nil {
		return nil, fmt.Errorf("alerts.alertmanager: %w", err)
	}
	log.Info("alerts also go to Alertmanager", "url", am.URL, "queue_bytes", am.QueueBytes)
	return n, nil
}

// alertSource is what every record says of the daemon that wrote it:
// alerts.instance (default: the host name), the edge topic, the group.
func alertSource(cfg *config.Config) alerts.Source {
	inst := cfg.Alerts.Instance
	if inst == "" {
		inst, _ = os.Hostname()
	}
	return alerts.Source{Instance: inst, Topic: cfg.Kafka.EdgeTopic, Group: cfg.Kafka.Group}
}

// statusURL is the status page's address in records: metrics.external_url,
// else http://<host name>:<port of addr>/ (addr: where HTTP listens).
func statusURL(cfg *config.Config, addr string) string {
	if u := cfg.Metrics.ExternalURL; u != "" {
		return strings.TrimSuffix(u, "/") + "/"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// GPUOptions are the GPU engine's options of the config's engine section
// (engine.devices and engine.gpu.*), for the daemon and monitor mine.
func GPUOptions(e config.Engine) gpu.Options {
	return gpu.Options{Devices: e.Devices, Chunks: e.GPU.Chunks, PartitionEdges: e.GPU.PartitionEdges,
		MemoryFraction: e.GPU.MemoryFraction, Count3Device: e.GPU.Count3OnDevice, CountSmallOnHost: e.GPU.CountSmallOnHost}
}

// newEngine picks the mining backend (engine.backend): cpu, gpu (an error
// when no device is usable) or auto (the GPU when usable, else the CPU
// with a warning). Device metrics are registered either way.
func newEngine(cfg *config.Config, reg prometheus.Registerer, log *slog.Logger) (*engine.Selected, error) {
	sel, err := engine.Select(cfg.Engine.Backend, cfg.Engine.Workers, GPUOptions(cfg.Engine), log)
	if err != nil {
		return nil, fmt.Errorf("engine.backend: %s: %w", cfg.Engine.Backend, err)
	}
	if err := reg.Register(gpu.NewCollector(sel.GPU)); err != nil {
		sel.Close()
		return nil, err
	}
	return sel, nil
}

func engineWorkers(sel *engine.Selected, cfg *config.Config) int {
	if sel.Backend == backend.GPU {
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
		sq[i] = stream.Query{Query: q, Enumerate: pol.Mode != alerts.ModeCount}
		meta, _ := config.AlertMeta(q) // checked when the queries loaded
		nodes := make([]string, len(q.Nodes))
		for j, n := range q.Nodes {
			nodes[j] = n.Name
		}
		aq[q.Name] = alerts.QueryOptions{Mode: pol.Mode, RateLimit: pol.RateLimit, Burst: pol.RateBurst, Group: grouping(q, cfg.Input.TimeUnit),
			Meta: meta, Nodes: nodes}
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
		Attrs: schema.EdgeAttrs, MaxRecordBytes: in.MaxRecordBytes, NodeKeys: window.NewKeys()}
}

// demo streams the synthetic feed with planted patterns into the edge
// topic until ctx ends.
func demo(ctx context.Context, log *slog.Logger, brokers []string, tr *kafka.Transport, cfg *config.Config, unit time.Duration) error {
	feedCfg := synth.DefaultFeed(uint64(time.Now().UnixNano()))
	feedCfg.Start = time.Now().Truncate(unit)
	src, err := synth.NewFeed(feedCfg)
	if err != nil {
		return err
	}
	log.Info("demo feed producing", "topic", cfg.Kafka.EdgeTopic)
	_, err = kafka.Produce(ctx, feed.Demo(src, unit), kafka.ProduceOptions{Brokers: brokers, Transport: tr,
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
