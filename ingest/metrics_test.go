package ingest

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gather returns "name{label=value,...} value" for every sample in reg.
func gather(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out = append(out, mf.GetName()+"{"+strings.Join(labels, ",")+"} "+value(m))
		}
	}
	sort.Strings(out)
	return out
}

func value(m *dto.Metric) string {
	switch {
	case m.Counter != nil:
		return strconv.FormatFloat(m.Counter.GetValue(), 'g', -1, 64)
	case m.Gauge != nil:
		return strconv.FormatFloat(m.Gauge.GetValue(), 'g', -1, 64)
	}
	return "?"
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Consumed(0, 5)
	m.Consumed(3, 2)
	m.Consumed(0, 1)
	m.Decoded(7)
	m.Late(1)
	m.DeadLettered(ClassLate, 1)
	m.DeadLettered((&DecodeError{Oversize: true}).Class(), 2)
	m.DeadLettered((&DecodeError{}).Class(), 3)
	m.SetBuffered(42)
	m.SetWatermark(1000, time.Second, time.Unix(1030, 500_000_000))
	m.DeadLetterTruncated(2)
	m.DeadLetterWriteFailed(DeadLetterTransient, 4)
	m.DeadLetterWriteFailed(DeadLetterPermanent, 0) // present from the start anyway
	m.DeadLetterLost(ClassDecode, 1)
	m.Jumps([]JumpEvent{{Kind: JumpHeld, Edges: 3}, {Kind: JumpDiscarded, Edges: 5}, {Kind: JumpConfirmed, Edges: 1}, {Kind: JumpClock, Edges: 1}})
	m.HeldDeadLettered(2)
	m.SetEventTime(1, []PartitionTime{{Partition: 0, Time: 1001, Watermark: 1000}, {Partition: 2, Time: minWatermark, Watermark: minWatermark}})

	// A second Metrics on the same registry shares the counters.
	m2, err := NewMetrics(reg)
	if err != nil {
		t.Fatalf("second NewMetrics: %v", err)
	}
	m2.Decoded(1)
	m2.SetWatermark(minWatermark, time.Second, time.Now()) // no watermark yet: unchanged

	want := []string{
		"motifwatch_ingest_dead_letter_lost_total{reason=decode} 1",
		"motifwatch_ingest_dead_letter_lost_total{reason=future} 0",
		"motifwatch_ingest_dead_letter_lost_total{reason=late} 0",
		"motifwatch_ingest_dead_letter_lost_total{reason=node_cap} 0",
		"motifwatch_ingest_dead_letter_lost_total{reason=oversize} 0",
		"motifwatch_ingest_dead_letter_truncated_total{} 2",
		"motifwatch_ingest_dead_letter_write_failures_total{kind=permanent} 0",
		"motifwatch_ingest_dead_letter_write_failures_total{kind=transient} 4",
		"motifwatch_ingest_edges_decoded_total{} 8",
		"motifwatch_ingest_edges_held_total{} 3",
		"motifwatch_ingest_edges_late_total{} 1",
		"motifwatch_ingest_held_edges_dead_lettered_total{} 2",
		"motifwatch_ingest_held_edges{} 1",
		"motifwatch_ingest_partition_watermark_ticks{partition=0} 1000",
		"motifwatch_ingest_records_consumed_total{partition=0} 6",
		"motifwatch_ingest_records_consumed_total{partition=3} 2",
		"motifwatch_ingest_records_dead_lettered_total{reason=decode} 3",
		"motifwatch_ingest_records_dead_lettered_total{reason=late} 1",
		"motifwatch_ingest_records_dead_lettered_total{reason=oversize} 2",
		"motifwatch_ingest_reorder_buffer_edges{} 42",
		"motifwatch_ingest_time_jumps_total{} 2",
		"motifwatch_ingest_watermark_delay_seconds{} 30.5",
		"motifwatch_ingest_watermark_ticks{} 1000",
	}
	got := gather(t, reg)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("metrics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMetricsNil(t *testing.T) {
	var m *Metrics // records nothing, panics on nothing
	m.Consumed(0, 1)
	m.Decoded(1)
	m.Late(1)
	m.DeadLettered(ClassDecode, 1)
	m.DeadLetterTruncated(1)
	m.DeadLetterWriteFailed(DeadLetterTransient, 1)
	m.DeadLetterLost(ClassLate, 1)
	m.SetBuffered(1)
	m.SetWatermark(1, time.Second, time.Now())
	m.Jumps([]JumpEvent{{Kind: JumpHeld, Edges: 1}})
	m.HeldDeadLettered(1)
	m.SetEventTime(1, []PartitionTime{{Partition: 1}})

	m, err := NewMetrics(nil) // unregistered but working
	if err != nil || m == nil {
		t.Fatalf("NewMetrics(nil) = %v, %v", m, err)
	}
	m.Decoded(1)
	m.SetWatermark(math.MaxInt64, time.Hour, time.Now()) // no overflow
}
