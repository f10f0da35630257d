package alerts

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
)

// Metrics are the alert path's Prometheus metrics. Every match routed
// through a Router is counted once in MatchesTotal and ends in exactly one
// of three places, so that, whenever nothing is pending,
//
//	matches_total{query} = alerts_written_total{query,kind="match"}
//	                     + alerts_counted_total{query}
//	                     + alerts_rate_limited_total{query}
//
// Label values of queries removed by a reload stay until the process ends.
type Metrics struct {
	// Written counts records acknowledged by the sink, by query and kind.
	Written *prometheus.CounterVec
	// Failed counts records whose write failed; a record retried after a
	// failure counts once per failed attempt.
	Failed *prometheus.CounterVec
	// RateLimited counts match alerts a rate limit held back (each is
	// reported in a KindRateLimited record).
	RateLimited *prometheus.CounterVec
	// Counted counts matches of count-mode queries (each is reported in a
	// KindCount record instead of an alert of its own).
	Counted *prometheus.CounterVec
	// Matches counts every match routed.
	Matches *prometheus.CounterVec
	// WriteSeconds observes the duration of each sink write.
	WriteSeconds prometheus.Histogram
}

// NewMetrics creates the alert metrics and registers them with reg; a nil
// reg leaves them unregistered (tests, or a caller that does not export
// them). Metrics already registered with reg by an earlier NewMetrics are
// reused, so two routers on one registry share their series. Any other
// registration failure (a different collector under one of these names)
// is returned.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Written: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_alerts_written_total",
			Help: "Alert records acknowledged by the alert sink, by query and kind (match, count, rate_limited).",
		}, []string{"query", "kind"}),
		Failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_alerts_failed_total",
			Help: "Alert records whose write to the sink failed (a retried record counts once per failed attempt).",
		}, []string{"query"}),
		RateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_alerts_rate_limited_total",
			Help: "Match alerts held back by the query's rate limit and summarised in rate_limited records.",
		}, []string{"query"}),
		Counted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_alerts_counted_total",
			Help: "Matches of count-mode queries, reported in periodic count records.",
		}, []string{"query"}),
		Matches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_matches_total",
			Help: "Matches routed to the alert path, by query.",
		}, []string{"query"}),
		WriteSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "motifwatch_alert_write_seconds",
			Help:    "Duration of synchronous alert sink writes, until acknowledged or failed.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16), // 0.5 ms … 16 s
		}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.Written = promreg.Register(reg, m.Written, &err)
	m.Failed = promreg.Register(reg, m.Failed, &err)
	m.RateLimited = promreg.Register(reg, m.RateLimited, &err)
	m.Counted = promreg.Register(reg, m.Counted, &err)
	m.Matches = promreg.Register(reg, m.Matches, &err)
	m.WriteSeconds = promreg.Register(reg, m.WriteSeconds, &err)
	if err != nil {
		return nil, err
	}
	return m, nil
}
