package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/alerts/alertmanager"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/window"
)

// pipelineParts is what every pipeline of the process shares, built once
// by Run before any pipeline: metrics, clients, and the channels through
// which the other actors reach whichever pipeline runs. A single instance
// builds one pipeline from them, a scaled-out one a pipeline per
// generation of the group.
type pipelineParts struct {
	cfg     *config.Config
	log     *slog.Logger
	reg     prometheus.Registerer
	engine  motif.Engine
	backend backend.Backend
	schema  window.Schema
	sink    alerts.Sink
	dec     *ingest.Decoder
	dlq     deadLetter
	am      *alerts.Metrics
	im      *ingest.Metrics
	pm      *pipelineMetrics
	// health is what /readyz reports; alertRetry (shared with the sink's
	// retry hook) and each pipeline's retriers report to it, and probe
	// asks the brokers whether they answer (nil: do not wait for them).
	health     *health
	alertRetry *retrier
	probe      func(context.Context) error
	// endOffsets reads the edge topic's log-end offsets (nil: pending
	// partitions are known from fetched records alone; see
	// batcher.refreshPending).
	endOffsets func(context.Context) (map[int]int64, error)
	// topic follows the edge topic's partitions (topic.go; nil: the
	// partitions known at start, and those the source delivers).
	topic *topicWatch
	// updates delivers new query sets from the watcher, snapshots the gpm
	// job's requests (gpm.go; nil when the job is off), to whichever
	// pipeline runs.
	updates   chan querySet
	snapshots chan chan<- *gpm.Graph
	// onBatch receives every pipeline's batch reports (Options.OnBatch).
	onBatch func(BatchReport)
	// board is what the status page and the status line show (nil: none).
	board *statusBoard
	// times is the event time as of the last batch (eventtime.go; nil:
	// not kept).
	times *eventTimes
	// notifier gets every record the sink acknowledged, for Alertmanager
	// (nil: none); source and statusURL are set on every record.
	notifier  *alertmanager.Notifier
	source    alerts.Source
	statusURL string
}

// nodeKeys is the decoder's node dictionary, which the processor shares.
func (s *pipelineParts) nodeKeys() *window.Keys {
	if s.dec == nil {
		return nil
	}
	return s.dec.Options().NodeKeys
}

// newMiner returns the processor and router mining qs, their metrics
// registered with reg (nil: a scratch pair that only checks qs).
func (s *pipelineParts) newMiner(qs querySet, reg prometheus.Registerer) (*stream.Processor, *alerts.Router, error) {
	w := &s.cfg.Window
	proc, err := stream.New(stream.Options{Engine: s.engine, Schema: s.schema, MaxHeld: w.MaxHeldMatches,
		MaxBytes: int64(w.MaxBytes), MaxNodes: w.MaxNodes, MaxMatchesPerBatch: w.MaxMatchesPerBatch,
		MaxMineSteps: w.MaxMineSteps, MaxMineTime: w.MaxMineTime,
		Logger: s.log, Registerer: reg, Backend: s.backend, NodeKeys: s.nodeKeys()})
	if err != nil {
		return nil, nil, err
	}
	proc.SetCapLimit(stream.CapFuture, w.MaxFuture.Seconds())
	proc.SetCapLimit(stream.CapReorder, float64(w.MaxBuffered))
	if err := proc.SetQueries(qs.stream); err != nil {
		return nil, nil, err
	}
	ropts := alerts.RouterOptions{Interval: s.cfg.Alerts.CountInterval, Logger: s.log, Source: s.source, StatusURL: s.statusURL}
	switch board, notifier := s.board, s.notifier; {
	case board != nil && notifier != nil:
		ropts.Written = func(as []alerts.Alert) { board.written(as); notifier.Send(as) }
	case board != nil:
		ropts.Written = board.written
	case notifier != nil:
		ropts.Written = notifier.Send
	}
	router, err := alerts.NewRouter(ropts, s.sink, s.am, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := router.SetQueries(qs.alerts); err != nil {
		return nil, nil, err
	}
	return proc, router, nil
}

// newReorder returns an empty reorder buffer for a new pipeline.
func (s *pipelineParts) newReorder() *ingest.Reorder {
	w := &s.cfg.Window
	reorder := ingest.NewReorder(int64(w.AllowedLateness/s.schema.TimeUnit), w.IdleTimeout, time.Now)
	reorder.SetMaxBuffered(w.MaxBuffered)
	reorder.SetMaxBytes(int64(w.MaxBufferedBytes) - s.fetchQueueBytes())
	reorder.SetJumpRule(ingest.JumpRule{MaxJump: int64(w.MaxJump / s.schema.TimeUnit), Confirmations: w.JumpConfirmations,
		Tick: s.schema.TimeUnit})
	return reorder
}

// fetchQueueBytes is the share of window.max_buffered_bytes for records
// fetched and not yet taken in: a quarter; the rest is the reorder
// buffer's (0: no cap on the buffer, the least in flight).
func (s *pipelineParts) fetchQueueBytes() int64 { return int64(s.cfg.Window.MaxBufferedBytes) / 4 }

// fetchOptions configures the fetcher of a pipeline's records (brokers,
// topic and transport aside). A fetch is kept small against the reorder
// buffer's caps: a partition that runs ahead is paused only once its
// edges are buffered (intake.pauseAhead), and up to two more of its
// fetches may be under way by then; an edge in the buffer weighs about
// 4-5 times its JSON record, and a record can be as small as ~30 bytes.
func (s *pipelineParts) fetchOptions() kafka.FetcherOptions {
	w := &s.cfg.Window
	inFlight := max(s.fetchQueueBytes(), minInFlightBytes)
	fetch := inFlight / 2
	if reorderBytes := int64(w.MaxBufferedBytes) - s.fetchQueueBytes(); reorderBytes > 0 {
		fetch = min(fetch, reorderBytes/20)
	}
	if w.MaxBuffered > 0 {
		fetch = min(fetch, int64(w.MaxBuffered)*30/4)
	}
	fetchErrors := s.pm.kafkaErrors.WithLabelValues(opFetch)
	return kafka.FetcherOptions{Decoder: s.dec, MaxWait: min(w.BatchMaxWait, 250*time.Millisecond),
		InFlightBytes: inFlight, FetchBytes: fetch, OffsetReset: resetPolicy(s.cfg), HoldGone: true,
		OnFetchError: func(partition int, err error) {
			fetchErrors.Inc()
			if s.topic != nil {
				s.topic.fetchFailed(partition, err)
			}
		},
		OnFetchOK: func(partition int) {
			if s.topic != nil {
				s.topic.fetchRecovered(partition)
			}
		}}
}
