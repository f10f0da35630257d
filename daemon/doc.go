// Package daemon runs motifwatch's streaming pipeline, `monitor run`:
//
//	Kafka edge topic ─▶ decode ─▶ reorder buffer ─▶ stream.Processor ─▶ alerts.Router ─▶ alert topic
//	        │ undecodable / late ─▶ dead-letter topic                        │
//	        └◀──────────── offsets committed after the alerts are acked ◀────┘
//
// A pipeline is five stages, each a type that owns its state, in the
// order a record passes them:
//
//   - intake (intake.go): the record source fetches and decodes per
//     partition; the intake goroutine hands the chunks to the pipeline
//     goroutine and rides out broker outages; partitions running ahead
//     in event time are paused through it.
//   - admission (admission.go, eventtime.go): per record, on the
//     pipeline goroutine: redelivered records dropped, the takeover
//     guard, duty, History and Replayed marks, undecodable, future and
//     late records queued as dead letters (deadletter.go), the jump
//     rule's discards after each release. Where each partition is read
//     (positions) is shared with the partitions stage (partitions.go),
//     which follows the topic's partitions changing.
//   - batcher (batcher.go): owns the reorder buffer, its caps and early
//     releases, and which partitions still have records to come; it
//     releases a batch at batch_size records or batch_max_wait.
//   - miner (miner.go): owns the stream.Processor (and its window) and
//     the alerts.Router; each released batch is appended, mined, its
//     dead letters and alerts written on a goroutine of its own, one
//     batch at a time, while the pipeline goroutine takes the next
//     records in.
//   - committer (committer.go): commits a batch's offsets once its
//     alerts are durable, through the mode's commit policy.
//
// The pipeline (pipeline.go, pipeline_batch.go) is the goroutine that
// runs them: it takes chunks through admission into the batcher, hands
// released batches to the miner, collects them in release order into
// the record accounting and batch reports, and waits for the batches in
// flight before anything else touches the processor or the router (a
// query update, a gpm snapshot, partitions changing, a full dead-letter
// queue, the end). A fetcher goroutine feeds it records, the query
// watcher sends it new query sets, and the HTTP server reads metrics,
// readiness and the status board (status.go: the status console at /,
// /api/status, and the periodic status line, fed by the pipeline after
// every batch, with the rest read from the metrics registry and a history
// sampled every 5 s: status_history.go). Every actor is started and stopped by one run group;
// SIGTERM finishes the batch in hand, flushes alerts, commits offsets
// (with the state a restart needs in the commit metadata) and exits
// within the shutdown timeout.
//
// With kafka.scale_out, several instances form one consumer group: each
// reads every partition and mines the matches whose last edge comes from
// the partitions assigned to it, with a pipeline per group generation
// handed over through fenced commits that carry the resume state (see
// scaleout.go and ARCHITECTURE.md).
//
// Run builds everything before it starts anything, in one order: metrics,
// clients, the parts every pipeline shares, then the worker, which builds
// each pipeline complete from the state its window was rebuilt to and a
// mode: how the instance takes part in its group, as one small interface
// per concern (record source, commit policy, duty policy, takeover guard)
// with one implementation per mode, never a field whose nil selects one.
//
// Package daemon is where config meets the packages that read it:
// KafkaClientOptions translates the kafka section into kafka's own
// options, and Check adds to config's checks those of the values that an
// engine owns (gpm.app, gpm.k), so that neither kafka nor config imports
// the other or an engine. Nothing imports daemon but cmd/monitor, whose
// run subcommand loads the configuration, sets the Go memory limit from
// it and calls Run.
package daemon
