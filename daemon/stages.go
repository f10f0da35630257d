package daemon

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The stages of the streaming path, in the order a record passes them.
// Per batch, each is the time spent on that batch's work:
//
//   - fetch: the fetches of the batch's records (kafka.Fetcher), waiting
//     for the brokers included, waiting for room in the in-flight bound
//     not; summed over the partitions, which fetch in parallel;
//   - decode: decoding them, in each partition's goroutine (summed over
//     the partitions too);
//   - reorder: taking them in on the pipeline goroutine (offset checks,
//     the reorder buffer, dead letters) and releasing the batch;
//   - window: appending the batch to the window, settling held matches,
//     evicting;
//   - device_sync: mirroring the window on the GPU (0 on the CPU);
//   - mine: mining every query;
//   - alert_write: writing the batch's dead letters and alerts until
//     acknowledged;
//   - commit: committing the offsets;
//   - mine_wait: the pipeline goroutine waiting, while it took the
//     batch's records in or before releasing it, for the previous batch
//     to be mined (pipeline_batch.go): the part of the mining that did
//     not overlap the intake. A query update, a gpm snapshot, a full
//     dead-letter queue and the reorder buffer's caps wait too.
//
// fetch and decode run in goroutines ahead of the pipeline, and the
// batch's records are taken in (reorder) while the previous batch is in
// window..commit on its own goroutine, so the stages can add up to more
// than the batch's wall time; without overlap the wall time is about
// reorder + mine_wait + window..commit.
const (
	stageFetch = iota
	stageDecode
	stageReorder
	stageWindow
	stageDeviceSync
	stageMine
	stageAlertWrite
	stageCommit
	stageMineWait
	numStages
)

// StageNames names the stages, as motifwatch_stage_seconds{stage} labels
// them and BatchReport.Stages orders them.
var StageNames = [numStages]string{"fetch", "decode", "reorder", "window", "device_sync", "mine", "alert_write", "commit", "mine_wait"}

// BatchReport describes one batch that took records in or released
// edges: for monitor bench (Options.OnBatch).
type BatchReport struct {
	// Records were taken in since the previous batch; Edges released to
	// the window; Late and DeadLettered records went to the dead-letter
	// topic since the previous batch (never released).
	Records, Edges, Late, DeadLettered int
	// ReleasedEarly are edges of Edges that a reorder buffer cap
	// (window.max_buffered, max_buffered_bytes) let go before the
	// watermark passed them: later edges at or below it are late.
	ReleasedEarly int
	// Latency is from fetching the batch's first record to its alerts
	// acknowledged and offsets committed (0 without records).
	Latency time.Duration
	// FirstFetched is when the batch's first record was fetched (zero
	// without records); Done when the batch was committed.
	FirstFetched, Done time.Time
	// Stages is the time of each stage (StageNames order).
	Stages [numStages]time.Duration
}

func newStageSeconds() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "motifwatch_stage_seconds",
		Help:    "Time per batch in each stage of the streaming path: fetch, decode, reorder, window (append, settle, evict), device_sync, mine, alert_write, commit, mine_wait (taking in waiting for the previous batch's mining). fetch, decode and reorder (taking the records in) overlap the previous batch's window..commit.",
		Buckets: prometheus.ExponentialBuckets(1e-5, 4, 12)}, []string{"stage"})
}
