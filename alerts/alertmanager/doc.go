// Package alertmanager posts alert records to a Prometheus Alertmanager
// (its v2 API, POST /api/v2/alerts), so that motifwatch's alerts get
// Alertmanager's routing, grouping, silences and paging. It is the
// daemon's second, optional output: the alert topic (kafka) stays the
// primary one, and nothing here may hold it back.
//
// A Notifier takes the records the alert topic has acknowledged (Send:
// it encodes them and queues them, never waiting on the network) and one
// goroutine of its own posts them in batches. A POST that fails (no
// answer, a timeout, a 5xx or 429) is retried with a growing pause; one
// that Alertmanager refuses (another 4xx) is dropped. The queue is
// bounded in bytes: while Alertmanager is away it keeps the newest
// alerts and drops the oldest. Every drop is counted by reason
// (motifwatch_alertmanager_dropped_total) and logged, at most once per
// interval.
//
// Each record becomes one Alertmanager alert: labels alertname (the
// query), severity, instance, topic, consumer_group, kind, match_id or
// incident_id, and the query's labels; annotations are the record's
// (summary and description filled in when the query sets none);
// startsAt is the detection time, endsAt EndsAfter later (a match is an
// event: it does not end by itself), generatorURL the daemon's status
// page.
//
// Package alertmanager speaks HTTP only to Alertmanager; it imports
// alerts (the record) and no Kafka, window or engine package.
package alertmanager
