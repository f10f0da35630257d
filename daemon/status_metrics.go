package daemon

import (
	"math"
	"slices"
	"strconv"

	dto "github.com/prometheus/client_model/go"
)

// statusMetrics are the figures the status page reads from the daemon's
// metrics registry: the counters every part already keeps (ingest,
// pipeline, alerts, stream), so that the page shows exactly what
// /metrics says and no part keeps a second tally for it.
type statusMetrics struct {
	consumed     float64            // records fetched from the edge topic
	outcomes     map[string]float64 // pipeline records by outcome
	deadLettered map[string]float64 // by reason class
	deadLost     map[string]float64 // by reason class
	late         float64
	heldNow      float64 // edges held as too far in the future, now
	// watermarkDelay is wall clock minus watermark, in seconds (absent
	// before the first watermark).
	watermarkDelay *float64
	latency        buckets // motifwatch_batch_latency_seconds
	partitions     map[int]*partitionMetrics
	queries        map[string]*queryMetrics
}

type partitionMetrics struct {
	consumed, fetchErrors float64
	lag                   *float64
	watermark             *float64 // ticks
}

type queryMetrics struct {
	written, failed, rateLimited, truncated float64
}

func (m *statusMetrics) partition(label string) *partitionMetrics {
	p, err := strconv.Atoi(label)
	if err != nil {
		return nil
	}
	pm := m.partitions[p]
	if pm == nil {
		pm = &partitionMetrics{}
		m.partitions[p] = pm
	}
	return pm
}

func (m *statusMetrics) query(name string) *queryMetrics {
	q := m.queries[name]
	if q == nil {
		q = &queryMetrics{}
		m.queries[name] = q
	}
	return q
}

// rejected is the records not mined: dead-lettered, late or lost (the
// lookout's rejected outcomes).
func (m *statusMetrics) rejected() float64 {
	n := 0.0
	for o, v := range m.outcomes {
		if rejectedOutcomes[o] {
			n += v
		}
	}
	return n
}

// lagTotal is the consumer lag summed over the partitions, if any
// partition reported one.
func (m *statusMetrics) lagTotal() (int64, bool) {
	var sum float64
	found := false
	for _, p := range m.partitions {
		if p.lag != nil {
			sum += *p.lag
			found = true
		}
	}
	return int64(sum), found
}

// readMetrics gathers the registry (an empty result without one).
func (b *statusBoard) readMetrics() *statusMetrics {
	m := &statusMetrics{outcomes: map[string]float64{}, deadLettered: map[string]float64{}, deadLost: map[string]float64{},
		partitions: map[int]*partitionMetrics{}, queries: map[string]*queryMetrics{}}
	if b.gather == nil {
		return m
	}
	mfs, err := b.gather.Gather()
	if err != nil && len(mfs) == 0 {
		return m
	}
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			m.add(mf.GetName(), s)
		}
	}
	return m
}

func label(s *dto.Metric, name string) string {
	for _, l := range s.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(s *dto.Metric) float64 {
	switch {
	case s.Counter != nil:
		return s.Counter.GetValue()
	case s.Gauge != nil:
		return s.Gauge.GetValue()
	}
	return math.NaN()
}

func (m *statusMetrics) add(name string, s *dto.Metric) {
	v := value(s)
	switch name {
	case "motifwatch_ingest_records_consumed_total":
		m.consumed += v
		if p := m.partition(label(s, "partition")); p != nil {
			p.consumed += v
		}
	case "motifwatch_pipeline_records_total":
		m.outcomes[label(s, "outcome")] += v
	case "motifwatch_ingest_records_dead_lettered_total":
		m.deadLettered[label(s, "reason")] += v
	case "motifwatch_ingest_dead_letter_lost_total":
		m.deadLost[label(s, "reason")] += v
	case "motifwatch_ingest_edges_late_total":
		m.late += v
	case "motifwatch_ingest_held_edges":
		m.heldNow = v
	case "motifwatch_ingest_watermark_delay_seconds":
		m.watermarkDelay = &v
	case "motifwatch_consumer_lag_records":
		if p := m.partition(label(s, "partition")); p != nil {
			p.lag = &v
		}
	case "motifwatch_ingest_partition_watermark_ticks":
		if p := m.partition(label(s, "partition")); p != nil {
			p.watermark = &v
		}
	case "motifwatch_kafka_fetch_errors_total":
		if p := m.partition(label(s, "partition")); p != nil {
			p.fetchErrors += v
		}
	case "motifwatch_alerts_written_total":
		m.query(label(s, "query")).written += v
	case "motifwatch_alerts_failed_total":
		m.query(label(s, "query")).failed += v
	case "motifwatch_alerts_rate_limited_total":
		m.query(label(s, "query")).rateLimited += v
	case "motifwatch_matches_truncated_total":
		m.query(label(s, "query")).truncated += v
	case "motifwatch_batch_latency_seconds":
		h := s.GetHistogram()
		if h == nil {
			return
		}
		for _, bk := range h.GetBucket() {
			m.latency.upper = append(m.latency.upper, bk.GetUpperBound())
			m.latency.count = append(m.latency.count, float64(bk.GetCumulativeCount()))
		}
		if n := len(m.latency.upper); n == 0 || !math.IsInf(m.latency.upper[n-1], 1) {
			m.latency.upper = append(m.latency.upper, math.Inf(1))
			m.latency.count = append(m.latency.count, float64(h.GetSampleCount()))
		}
		m.latency.upper, m.latency.count = slices.Clip(m.latency.upper), slices.Clip(m.latency.count)
	}
}
