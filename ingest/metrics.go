package ingest

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
)

// Dead-letter reason classes: the values of the reason label of
// motifwatch_ingest_records_dead_lettered_total.
const (
	ClassDecode   = "decode"   // the record could not be decoded
	ClassOversize = "oversize" // the record was over max_record_bytes
	ClassLate     = "late"     // the edge came after the watermark had passed it
	ClassFuture   = "future"   // the edge was dated past window.max_future
	ClassNodeCap  = "node_cap" // the edge's new node ids were over window.max_nodes
)

// Class returns the dead-letter class of the error: ClassOversize or
// ClassDecode.
func (e *DecodeError) Class() string {
	if e.Oversize {
		return ClassOversize
	}
	return ClassDecode
}

// Metrics are the ingest counters and gauges that the daemon updates. A
// nil *Metrics is valid and records nothing.
//
// Names (all prefixed motifwatch_ingest_):
//
//	records_consumed_total{partition}   records fetched from Kafka
//	edges_decoded_total                 records decoded into edges
//	edges_late_total                    edges refused by the reorder buffer
//	records_dead_lettered_total{reason} records written to the dead-letter topic (decode|oversize|late|future|node_cap)
//	dead_letter_truncated_total         of those, records cut to the dead-letter size cap
//	dead_letter_write_failures_total{kind} dead-letter record writes that failed (transient: retried; permanent: tried smaller, then lost)
//	dead_letter_lost_total{reason}      records the dead-letter topic refused in every form: only the source topic holds them
//	reorder_buffer_edges                edges waiting in the reorder buffer
//	watermark_ticks                     the last released watermark, in window ticks
//	watermark_delay_seconds             wall clock minus the watermark's time
//	partition_watermark_ticks{partition} each partition's share of the watermark (its time − lateness − 1)
//	edges_held_total                    edges that came more than window.max_jump ahead of their partition's time (held, not believed)
//	held_edges_dead_lettered_total      of those, never confirmed: dead-lettered as future
//	held_edges                          held edges waiting in the reorder buffer
//	time_jumps_total                    jumps of a partition's time that later records (or the wall clock) confirmed
//
// The consumer's lag is the daemon's motifwatch_consumer_lag_records, per
// partition.
type Metrics struct {
	consumed     *prometheus.CounterVec
	decoded      prometheus.Counter
	late         prometheus.Counter
	deadLettered *prometheus.CounterVec
	dlqTruncated prometheus.Counter
	dlqFailures  *prometheus.CounterVec
	dlqLost      *prometheus.CounterVec
	buffer       prometheus.Gauge
	watermark    prometheus.Gauge
	delay        prometheus.Gauge
	// The jump rule (JumpRule).
	partWatermark *prometheus.GaugeVec
	held          prometheus.Counter
	heldDead      prometheus.Counter
	heldNow       prometheus.Gauge
	jumps         prometheus.Counter
}

// NewMetrics creates the metrics and registers them with reg (nil: not
// registered). Registering twice with one registry shares the collectors
// registered first, so a restarted ingest keeps counting where the last
// one stopped. Any other registration error is returned.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		consumed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_ingest_records_consumed_total",
			Help: "Records fetched from the edge topic, by partition.",
		}, []string{"partition"}),
		decoded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_edges_decoded_total",
			Help: "Records decoded into edges.",
		}),
		late: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_edges_late_total",
			Help: "Edges that arrived after the watermark had passed them (sent to the dead-letter topic).",
		}),
		deadLettered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_ingest_records_dead_lettered_total",
			Help: "Records written to the dead-letter topic, by reason class (decode, oversize, late, future, node_cap).",
		}, []string{"reason"}),
		dlqTruncated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_dead_letter_truncated_total",
			Help: "Dead-letter records cut to the size cap (kafka.dead_letter_max_bytes): a prefix of the value, its size and SHA-256 in headers.",
		}),
		dlqFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_ingest_dead_letter_write_failures_total",
			Help: "Dead-letter record writes that failed, by kind: transient (broker unreachable, timeout: retried with backoff) or permanent (refused: written again smaller, else lost).",
		}, []string{"kind"}),
		dlqLost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "motifwatch_ingest_dead_letter_lost_total",
			Help: "Records the dead-letter topic refused for good, even truncated, by reason class: not dead-lettered, logged with their source topic, partition and offset (the source topic still holds them).",
		}, []string{"reason"}),
		buffer: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "motifwatch_ingest_reorder_buffer_edges",
			Help: "Edges waiting in the reorder buffer for the watermark.",
		}),
		watermark: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "motifwatch_ingest_watermark_ticks",
			Help: "The last released watermark, in window ticks since the Unix epoch.",
		}),
		delay: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "motifwatch_ingest_watermark_delay_seconds",
			Help: "Wall-clock time minus the watermark's time: how far the watermark trails the wall clock.",
		}),
		partWatermark: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "motifwatch_ingest_partition_watermark_ticks",
			Help: "Each partition's share of the watermark (its time minus the lateness, in window ticks); the watermark is the least over the partitions that are not idle.",
		}, []string{"partition"}),
		held: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_edges_held_total",
			Help: "Edges that came more than window.max_jump ahead of their partition's time: held, not believed, until confirmed, caught up or dead-lettered.",
		}),
		heldDead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_held_edges_dead_lettered_total",
			Help: "Held edges never confirmed (their partition went on at its old time): dead-lettered as future.",
		}),
		heldNow: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "motifwatch_ingest_held_edges",
			Help: "Held edges waiting in the reorder buffer.",
		}),
		jumps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "motifwatch_ingest_time_jumps_total",
			Help: "Jumps of a partition's time by more than window.max_jump that later records (or, the input quiet, the wall clock) confirmed.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.consumed = promreg.Register(reg, m.consumed, &err)
	m.decoded = promreg.Register(reg, m.decoded, &err)
	m.late = promreg.Register(reg, m.late, &err)
	m.deadLettered = promreg.Register(reg, m.deadLettered, &err)
	m.dlqTruncated = promreg.Register(reg, m.dlqTruncated, &err)
	m.dlqFailures = promreg.Register(reg, m.dlqFailures, &err)
	m.dlqLost = promreg.Register(reg, m.dlqLost, &err)
	m.buffer = promreg.Register(reg, m.buffer, &err)
	m.watermark = promreg.Register(reg, m.watermark, &err)
	m.delay = promreg.Register(reg, m.delay, &err)
	m.partWatermark = promreg.Register(reg, m.partWatermark, &err)
	m.held = promreg.Register(reg, m.held, &err)
	m.heldDead = promreg.Register(reg, m.heldDead, &err)
	m.heldNow = promreg.Register(reg, m.heldNow, &err)
	m.jumps = promreg.Register(reg, m.jumps, &err)
	if err != nil {
		return nil, err
	}
	// Present from the start at 0, so that increase() and alert rules see
	// the first failure.
	for _, k := range []string{DeadLetterTransient, DeadLetterPermanent} {
		m.dlqFailures.WithLabelValues(k)
	}
	for _, c := range []string{ClassDecode, ClassOversize, ClassLate, ClassFuture, ClassNodeCap} {
		m.dlqLost.WithLabelValues(c)
	}
	return m, nil
}

// Consumed counts n records fetched from partition.
func (m *Metrics) Consumed(partition, n int) {
	if m != nil {
		m.consumed.WithLabelValues(strconv.Itoa(partition)).Add(float64(n))
	}
}

// Decoded counts n decoded edges.
func (m *Metrics) Decoded(n int) {
	if m != nil {
		m.decoded.Add(float64(n))
	}
}

// Late counts n late edges.
func (m *Metrics) Late(n int) {
	if m != nil {
		m.late.Add(float64(n))
	}
}

// DeadLettered counts n records written to the dead-letter topic with a
// reason class (ClassDecode, ClassOversize, ClassLate).
func (m *Metrics) DeadLettered(class string, n int) {
	if m != nil {
		m.deadLettered.WithLabelValues(class).Add(float64(n))
	}
}

// Kinds of dead-letter write failure: the values of the kind label of
// motifwatch_ingest_dead_letter_write_failures_total.
const (
	DeadLetterTransient = "transient"
	DeadLetterPermanent = "permanent"
)

// DeadLetterTruncated counts n dead letters cut to the size cap.
func (m *Metrics) DeadLetterTruncated(n int) {
	if m != nil {
		m.dlqTruncated.Add(float64(n))
	}
}

// DeadLetterWriteFailed counts n dead-letter record writes that failed,
// of kind DeadLetterTransient or DeadLetterPermanent.
func (m *Metrics) DeadLetterWriteFailed(kind string, n int) {
	if m != nil && n > 0 {
		m.dlqFailures.WithLabelValues(kind).Add(float64(n))
	}
}

// DeadLetterLost counts n records of a reason class that the dead-letter
// topic refused for good.
func (m *Metrics) DeadLetterLost(class string, n int) {
	if m != nil {
		m.dlqLost.WithLabelValues(class).Add(float64(n))
	}
}

// SetBuffered sets the reorder buffer's size.
func (m *Metrics) SetBuffered(n int) {
	if m != nil {
		m.buffer.Set(float64(n))
	}
}

// SetWatermark sets the watermark (in ticks of tick since the Unix epoch)
// and its delay behind now. Before the first watermark (math.MinInt64)
// neither is set.
func (m *Metrics) SetWatermark(w int64, tick time.Duration, now time.Time) {
	if m == nil || w == minWatermark {
		return
	}
	m.watermark.Set(float64(w))
	// In float seconds: ticks times the tick may overflow a Duration.
	wall := float64(w) * tick.Seconds()
	nowS := float64(now.UnixNano()) / 1e9
	m.delay.Set(nowS - wall)
}

// Jumps counts what the jump rule did (Reorder.AppendJumpEvents): edges
// held, confirmed jumps. (Discarded edges are counted where they are
// dead-lettered: HeldDeadLettered.)
func (m *Metrics) Jumps(evs []JumpEvent) {
	if m == nil {
		return
	}
	for _, ev := range evs {
		switch ev.Kind {
		case JumpHeld:
			m.held.Add(float64(ev.Edges))
		case JumpConfirmed, JumpClock:
			m.jumps.Add(float64(ev.Edges))
		}
	}
}

// HeldDeadLettered counts n held edges, never confirmed, queued for the
// dead-letter topic (class future).
func (m *Metrics) HeldDeadLettered(n int) {
	if m != nil {
		m.heldDead.Add(float64(n))
	}
}

// SetEventTime sets the held edges and each partition's share of the
// watermark (partitions without a time yet are left out).
func (m *Metrics) SetEventTime(held int, parts []PartitionTime) {
	if m == nil {
		return
	}
	m.heldNow.Set(float64(held))
	for _, p := range parts {
		if p.Time != minWatermark {
			m.partWatermark.WithLabelValues(strconv.Itoa(p.Partition)).Set(float64(p.Watermark))
		}
	}
}
