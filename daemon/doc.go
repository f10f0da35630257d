// Package daemon runs motifwatch's streaming pipeline, `monitor run`:
//
//	Kafka edge topic ─▶ decode ─▶ reorder buffer ─▶ stream.Processor ─▶ alerts.Router ─▶ alert topic
//	        │ undecodable / late ─▶ dead-letter topic                        │
//	        └◀──────────── offsets committed after the alerts are acked ◀────┘
//
// One goroutine (the pipeline) owns the decoder and the reorder buffer,
// and hands each released batch to a goroutine of its own that appends it
// to the window, mines it, writes its alerts and commits, while the
// pipeline takes the next batch's records in; one batch is mined at a
// time, so the window, the processor and the router need no lock either
// (pipeline_batch.go). A fetcher goroutine feeds it records, the query watcher sends it new query sets, and the
// HTTP server reads metrics, readiness and the status board (status.go:
// the status console at /, /api/status, and the periodic status line, fed
// by the pipeline after every batch, with the rest read from the metrics
// registry and a history sampled every 5 s: status_history.go). Every actor is started and
// stopped by one run group; SIGTERM finishes the batch in hand, flushes
// alerts, commits offsets (with the state a restart needs in the commit
// metadata) and exits within the shutdown timeout.
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
// per concern (record source, committer, duty policy, takeover guard)
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
