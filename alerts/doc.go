// Package alerts turns matches into alert records and writes them: one
// record per match (enumerate) or periodic counts per query, with a
// deterministic match id so consumers can deduplicate across restarts, a
// per-query rate limit whose overflow is counted and summarised (never
// dropped silently), and the stdout sink; the Kafka sink (acks from all
// in-sync replicas) is kafka's.
//
// Package alerts knows nothing of windows or engines: it receives Alert
// values, and imports none of window, motif, ingest or gpu. Writes are
// synchronous: Write returns once the sink has acknowledged, which is what
// lets the daemon commit input offsets only after the alerts of everything
// before them are durable.
//
// The pieces:
//
//   - Alert, Edge, MatchID: the record and its id.
//   - Sink: what a sink implements; WriterSink (JSON lines) here, the
//     Kafka one (AlertSink) in kafka.
//   - Router: per-query modes and rate limits, count and
//     rate-limited summary records per interval, hot reload; one goroutine
//     drives it (Add and Flush per batch, Tick on a timer, Close).
//   - Incidents: a query's Grouping folds its matches that
//     share the grouped nodes within a window into one KindIncident
//     record, written when the window closes; match records stay.
//   - Read: reading the alert topic back (monitor alerts).
//   - Metrics: written, failed, counted, rate-limited and
//     routed counts per query, and write latency.
package alerts
