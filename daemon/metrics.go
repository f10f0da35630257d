package daemon

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
)

// pipelineMetrics are the daemon's own series; ingest, stream and alerts
// register theirs.
type pipelineMetrics struct {
	batchSeconds   prometheus.Histogram
	latencySeconds prometheus.Histogram
	batchEdges     prometheus.Histogram
	records        *prometheus.CounterVec
	queries        prometheus.Gauge
	reloads        *prometheus.CounterVec
	info           *prometheus.GaugeVec
	build          *prometheus.GaugeVec
	lag            *prometheus.GaugeVec
	// pausedPartitions counts the partitions not fetched for now because
	// they run ahead in event time (intake.pauseAhead).
	pausedPartitions prometheus.Gauge
	// kafkaErrors and kafkaReconnects follow broker outages by operation
	// (fetch, commit, alert_write, dead_letter): failed attempts, and
	// recoveries after them. redelivered counts records a rejoined group
	// handed out again (they are already in hand and skipped).
	kafkaErrors     *prometheus.CounterVec
	kafkaReconnects *prometheus.CounterVec
	redelivered     prometheus.Counter
	// The edge topic's partitions (topic.go, partitions.go): how many the
	// topic has, how many this instance should read and does not, how
	// many fail to fetch; fetch errors per partition, offsets reset
	// (out of the log's range), and offsets of partitions gone dropped
	// instead of committed.
	topicPartitions   prometheus.Gauge
	unreadPartitions  prometheus.Gauge
	failingPartitions prometheus.Gauge
	fetchErrors       *prometheus.CounterVec
	offsetResets      *prometheus.CounterVec
	commitsDropped    *prometheus.CounterVec
	// embeddedStorage counts the embedded broker's failures to write
	// kafka.embedded.dir (its producers, the daemon's writers included,
	// get an unexpected server error meanwhile).
	embeddedStorage prometheus.Counter
	// stageSeconds splits each batch's time by stage (stages.go).
	stageSeconds *prometheus.HistogramVec
	stages       [numStages]prometheus.Observer
	// lookout, if set, is told of every record's outcome (countRecords),
	// for the share of the input rejected (degraded.go).
	lookout *lookout
}

// Record outcomes (the outcome label of motifwatch_pipeline_records_total)
// that take no part in mining: the input the lookout calls rejected.
var rejectedOutcomes = map[string]bool{"late": true, "dead_lettered": true, outcomeDeadLetterLost: true}

// countRecords counts n records with outcome.
func (m *pipelineMetrics) countRecords(outcome string, n int) {
	if n == 0 {
		return
	}
	m.records.WithLabelValues(outcome).Add(float64(n))
	if outcome == "skipped" {
		return // another instance's records (scale-out): its lookout judges them
	}
	rejected := 0
	if rejectedOutcomes[outcome] {
		rejected = n
	}
	m.lookout.records(n, rejected)
}

func newPipelineMetrics(reg prometheus.Registerer) (*pipelineMetrics, error) {
	m := &pipelineMetrics{
		batchSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "motifwatch_batch_seconds",
			Help: "Time to process one batch: release, mine every query, write alerts, commit.", Buckets: prometheus.ExponentialBuckets(1e-4, 2, 18)}),
		latencySeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "motifwatch_batch_latency_seconds",
			Help: "End-to-end latency: from fetching a batch's first record to its alerts being acknowledged and offsets committed.", Buckets: prometheus.ExponentialBuckets(1e-3, 2, 16)}),
		batchEdges: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "motifwatch_batch_released_edges",
			Help: "Edges released by the reorder buffer per batch.", Buckets: prometheus.ExponentialBuckets(1, 4, 10)}),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_pipeline_records_total",
			Help: "Records by outcome: appended, self_loop, late, dead_lettered, dead_letter_lost (refused by the dead-letter topic even truncated), skipped (scale-out: undecodable or late here, and another instance's or history, so not dead-lettered here); records in = the sum, once the reorder buffer is empty."}, []string{"outcome"}),
		queries: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_queries", Help: "Registered queries."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_query_reloads_total",
			Help: "Query hot reloads by result (applied, rejected)."}, []string{"result"}),
		build: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_build_info",
			Help: "The running build (value 1): version, VCS revision (\"\" when unknown), whether its tree was modified, Go version."},
			[]string{"version", "revision", "modified", "goversion"}),
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_engine_info",
			Help: "The mining backend in use (value 1) and its worker count."}, []string{"backend", "workers"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_consumer_lag_records",
			Help: "Records behind the end of each edge-topic partition, as of the last record fetched from it."}, []string{"partition"}),
		pausedPartitions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_consumer_paused_partitions",
			Help: "Edge-topic partitions not fetched for now: they run ahead of the others in event time and hold their share of the reorder buffer (window.max_buffered, max_buffered_bytes)."}),
		kafkaErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_kafka_errors_total",
			Help: "Failed broker operations, retried with backoff, by operation (fetch, commit, alert_write, dead_letter, probe)."}, []string{"operation"}),
		kafkaReconnects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_kafka_reconnects_total",
			Help: "Broker operations that succeeded again after failing: the ends of outages, by operation."}, []string{"operation"}),
		redelivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_kafka_redelivered_records_total",
			Help: "Records delivered again after the consumer rejoined its group, below offsets already taken in; skipped."}),
		topicPartitions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_edge_topic_partitions",
			Help: "Partitions of the edge topic, as of the last metadata refresh (kafka.metadata_refresh); 0 while the topic does not exist."}),
		unreadPartitions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_edge_partitions_unread",
			Help: "Partitions of the edge topic that no member of the consumer group holds, or that this instance should read and does not fetch (an instance standing by, or scaled out and owning nothing, fetches none by design): their records are not mined."}),
		failingPartitions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_edge_partitions_fetch_failing",
			Help: "Edge-topic partitions read by this instance whose last fetch failed (each retries by itself)."}),
		fetchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_kafka_fetch_errors_total",
			Help: "Failed fetches and offset lookups of the edge topic, by partition (retried with backoff)."}, []string{"partition"}),
		offsetResets: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_offset_resets_total",
			Help: "Times reading a partition of the edge topic resumed elsewhere than asked (kafka.offset_reset), by partition and reason: before_start (retention deleted records before they were read), past_end (the log is shorter than the offset: the topic created again, a truncated log, a restored broker), recreated (a partition that was gone is read again, from its new log)."}, []string{"partition", "reason"}),
		commitsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_kafka_commits_dropped_total",
			Help: "Offsets of edge-topic partitions that no longer exist (deleted with the topic, or the topic created again with fewer) dropped instead of committed, by partition."}, []string{"partition"}),
		embeddedStorage: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_embedded_broker_storage_errors_total",
			Help: "Failed writes of the embedded broker (kafka.brokers: embedded) to kafka.embedded.dir, such as a full disk: the records or state of each were not stored, and their producer got an error."}),
		stageSeconds: newStageSeconds(),
	}
	if reg == nil {
		m.stageObservers()
		return m, nil
	}
	var err error
	m.batchSeconds = promreg.Register(reg, m.batchSeconds, &err)
	m.latencySeconds = promreg.Register(reg, m.latencySeconds, &err)
	m.batchEdges = promreg.Register(reg, m.batchEdges, &err)
	m.records = promreg.Register(reg, m.records, &err)
	m.queries = promreg.Register(reg, m.queries, &err)
	m.reloads = promreg.Register(reg, m.reloads, &err)
	m.info = promreg.Register(reg, m.info, &err)
	m.build = promreg.Register(reg, m.build, &err)
	m.lag = promreg.Register(reg, m.lag, &err)
	m.pausedPartitions = promreg.Register(reg, m.pausedPartitions, &err)
	m.kafkaErrors = promreg.Register(reg, m.kafkaErrors, &err)
	m.kafkaReconnects = promreg.Register(reg, m.kafkaReconnects, &err)
	m.redelivered = promreg.Register(reg, m.redelivered, &err)
	m.topicPartitions = promreg.Register(reg, m.topicPartitions, &err)
	m.unreadPartitions = promreg.Register(reg, m.unreadPartitions, &err)
	m.failingPartitions = promreg.Register(reg, m.failingPartitions, &err)
	m.fetchErrors = promreg.Register(reg, m.fetchErrors, &err)
	m.offsetResets = promreg.Register(reg, m.offsetResets, &err)
	m.commitsDropped = promreg.Register(reg, m.commitsDropped, &err)
	m.embeddedStorage = promreg.Register(reg, m.embeddedStorage, &err)
	m.stageSeconds = promreg.Register(reg, m.stageSeconds, &err)
	m.stageObservers()
	for _, op := range []string{opFetch, opCommit, opAlertWrite, opDeadLetter, opProbe} {
		// Present from the start at 0, so rates and alert rules see them.
		m.kafkaErrors.WithLabelValues(op)
		m.kafkaReconnects.WithLabelValues(op)
	}
	return m, err
}

// stageObservers creates every stage's series (present from the start)
// and keeps them at hand for the per-batch observations.
func (m *pipelineMetrics) stageObservers() {
	for i, s := range StageNames {
		m.stages[i] = m.stageSeconds.WithLabelValues(s)
	}
}

func (m *pipelineMetrics) batch(edges int, d time.Duration) {
	m.batchSeconds.Observe(d.Seconds())
	m.batchEdges.Observe(float64(edges))
}
