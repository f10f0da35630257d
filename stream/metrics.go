package stream

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
	"github.com/motifwatch/motifwatch/motif/estimate"
)

type metrics struct {
	windowEdges prometheus.Gauge
	windowBytes prometheus.Gauge
	windowSpan  prometheus.Gauge
	windowNodes prometheus.Gauge
	held        prometheus.Gauge
	discarded   prometheus.Counter
	provisional prometheus.Counter
	selfLoops   prometheus.Counter
	appended    prometheus.Counter
	evicted     prometheus.Counter
	matches     *prometheus.CounterVec
	mineSeconds *prometheus.HistogramVec
	batchEdges  prometheus.Histogram

	capActions   *prometheus.CounterVec
	capLimit     *prometheus.GaugeVec
	evictedEarly prometheus.Counter
	truncated    *prometheus.CounterVec
	attrMissing  *prometheus.GaugeVec
	estimate     *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		windowEdges: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_window_edges", Help: "Edges in the sliding window."}),
		windowBytes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_window_bytes", Help: "Host memory held by the sliding window."}),
		windowSpan:  prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_window_span_ticks", Help: "History the window keeps: the largest query delta, in timestamp ticks."}),
		windowNodes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_window_nodes", Help: "Distinct nodes with edges in the window."}),
		held:        prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_held_matches", Help: "Matches held until the watermark passes their anti-edge intervals."}),
		discarded:   prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_held_matches_discarded_total", Help: "Held matches invalidated by a forbidden edge that arrived later."}),
		provisional: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_held_matches_provisional_total", Help: "Open matches reported before their intervals closed because max_held_matches was reached."}),
		selfLoops:   prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_window_self_loops_total", Help: "Self-loop edges skipped (they never match a motif edge)."}),
		appended:    prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_window_appended_total", Help: "Edges appended to the window."}),
		evicted:     prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_window_evicted_total", Help: "Edges evicted from the window."}),
		matches:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_mined_matches_total", Help: "Final matches mined, by query and backend (open matches count when confirmed through alerts)."}, []string{"query", "backend"}),
		mineSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "motifwatch_mine_seconds", Help: "Time to mine one batch for one query.", Buckets: prometheus.ExponentialBuckets(1e-5, 4, 12)}, []string{"query", "backend"}),
		batchEdges:  prometheus.NewHistogram(prometheus.HistogramOpts{Name: "motifwatch_batch_edges", Help: "Edges per mined batch.", Buckets: prometheus.ExponentialBuckets(1, 4, 10)}),
		capActions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_cap_actions_total",
			Help: "Times a cap acted, by cap: window_bytes (an early eviction), nodes (an edge refused), matches_per_batch, mine_steps and mine_time (a query's batch truncated), future (a record refused)."}, []string{"cap"}),
		capLimit: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_cap_limit",
			Help: "Configured caps (0 = off): window_bytes in bytes, nodes in node ids, matches_per_batch in matches, mine_steps in engine steps, mine_time and future in seconds."}, []string{"cap"}),
		evictedEarly: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_window_evicted_early_total",
			Help: "Edges evicted before their time by the window memory cap (window.max_bytes); matches needing them are missed."}),
		truncated: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_matches_truncated_total",
			Help: "Batches in which a query stopped mining at window.max_matches_per_batch, max_mine_steps or max_mine_time; its further matches in the batch were not reported."}, []string{"query"}),
		attrMissing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_query_attribute_missing",
			Help: "1 for a query and an edge attribute its conditions read that none of the first 1000 or more edges carried: the query cannot match (the series goes when a record carries it)."}, []string{"query", "attribute"}),
		estimate: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_query_estimate",
			Help: "Estimated matches of an estimated count-mode query (estimate: in its YAML) since it was registered: bound=value, and lo and hi of its interval (bound=confidence: the interval's confidence). Never alerted."}, []string{"query", "bound"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	for _, g := range []*prometheus.Gauge{&m.windowEdges, &m.windowBytes, &m.windowSpan, &m.windowNodes, &m.held} {
		*g = promreg.Register(reg, *g, &err)
	}
	for _, c := range []*prometheus.Counter{&m.discarded, &m.provisional, &m.selfLoops, &m.appended, &m.evicted} {
		*c = promreg.Register(reg, *c, &err)
	}
	m.matches = promreg.Register(reg, m.matches, &err)
	m.mineSeconds = promreg.Register(reg, m.mineSeconds, &err)
	m.batchEdges = promreg.Register(reg, m.batchEdges, &err)
	m.capActions = promreg.Register(reg, m.capActions, &err)
	m.capLimit = promreg.Register(reg, m.capLimit, &err)
	m.evictedEarly = promreg.Register(reg, m.evictedEarly, &err)
	m.truncated = promreg.Register(reg, m.truncated, &err)
	m.attrMissing = promreg.Register(reg, m.attrMissing, &err)
	m.estimate = promreg.Register(reg, m.estimate, &err)
	return m, err
}

// estimated sets an estimated query's gauges to its running estimate.
func (m *metrics) estimated(query string, e estimate.Estimate) {
	m.estimate.WithLabelValues(query, "value").Set(e.Value)
	m.estimate.WithLabelValues(query, "lo").Set(e.Lo)
	m.estimate.WithLabelValues(query, "hi").Set(e.Hi)
	m.estimate.WithLabelValues(query, "confidence").Set(e.Confidence)
}

// forgetEstimate drops the gauges of a query no longer registered.
func (m *metrics) forgetEstimate(query string) {
	m.estimate.DeletePartialMatch(prometheus.Labels{"query": query})
}

func (m *metrics) mined(query, backend string, matches int64, d time.Duration) {
	m.matches.WithLabelValues(query, backend).Add(float64(matches))
	m.mineSeconds.WithLabelValues(query, backend).Observe(d.Seconds())
}

func (m *metrics) observe(p *Processor, out *Output) {
	m.windowEdges.Set(float64(p.w.Len()))
	m.windowBytes.Set(float64(out.WindowBytes))
	m.windowSpan.Set(float64(p.mine.span))
	m.windowNodes.Set(float64(p.w.IDs().Len()))
	m.held.Set(float64(len(p.held.list)))
	m.selfLoops.Add(float64(out.SelfLoops))
	m.appended.Add(float64(out.Appended))
	m.evicted.Add(float64(out.Evicted))
	m.batchEdges.Observe(float64(out.Appended + out.SelfLoops))
}

// limits publishes the configured caps, and creates their action series
// at 0 so that rates and alerts see them before the first action.
func (m *metrics) limits(o *Options) {
	m.capLimit.WithLabelValues(capWindowBytes).Set(float64(o.MaxBytes))
	m.capLimit.WithLabelValues(capNodes).Set(float64(o.MaxNodes))
	m.capLimit.WithLabelValues(capMatches).Set(float64(o.MaxMatchesPerBatch))
	m.capLimit.WithLabelValues(capMineSteps).Set(float64(o.MaxMineSteps))
	m.capLimit.WithLabelValues(capMineTime).Set(o.MaxMineTime.Seconds())
	for _, c := range []string{capWindowBytes, capNodes, capMatches, capMineSteps, capMineTime} {
		m.capActions.WithLabelValues(c)
	}
}
