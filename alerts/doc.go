// Package alerts turns matches into alert records and writes them: one
// record per match (enumerate) or periodic counts per query, with a
// deterministic match id so consumers can deduplicate across restarts, a
// per-query rate limit whose overflow is counted and summarised (never
// dropped silently), and sinks for Kafka (acks from all in-sync replicas)
// and stdout.
//
// Package alerts knows nothing of windows or engines: it receives Alert
// values. Writes are synchronous: Write returns once the sink has
// acknowledged, which is what lets the daemon commit input offsets only
// after the alerts of everything before them are durable.
package alerts
