package daemon

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/motifwatch/motifwatch/config"
)

// TestMemoryBudgetMatchesTheFetchShare: the budget's buffered part is
// window.max_buffered_bytes plus the fetcher's bound (InFlightBytes),
// which its idle chunks may hold again (kafka.FetcherOptions): the
// formula and the code that sizes the fetcher agree, small caps (the
// 1 MiB floor) included.
func TestMemoryBudgetMatchesTheFetchShare(t *testing.T) {
	pm, err := newPipelineMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []config.ByteSize{1 << 20, 3 << 20, 4 << 20, 256 << 20} {
		cfg := config.DefaultConfig()
		cfg.Window.MaxBufferedBytes = mb
		b, ok := cfg.MemoryBudget()
		inFlight := (&pipelineParts{cfg: cfg, pm: pm}).fetchOptions().InFlightBytes
		if !ok || b.Buffered != int64(mb)+inFlight {
			t.Errorf("max_buffered_bytes %v: budget's buffered part %d (ok %v); want %d + the fetcher's bound %d", mb, b.Buffered, ok, mb, inFlight)
		}
	}
}

// TestNoteMemoryBudget: the budget is published by part and logged; a
// configuration without one (a cap off) says so and publishes nothing.
func TestNoteMemoryBudget(t *testing.T) {
	cfg := config.DefaultConfig()
	cfg.Kafka.Brokers = []string{"kafka:9092"}
	reg := prometheus.NewRegistry()
	var log bytes.Buffer
	if err := noteMemoryBudget(cfg, reg, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
		t.Fatal(err)
	}
	b, _ := cfg.MemoryBudget()
	got := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "motifwatch_memory_budget_bytes" {
			continue
		}
		for _, m := range mf.GetMetric() {
			got[labelValue(m, "part")] = m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{"window": float64(b.Window), "buffered": float64(b.Buffered), "base": float64(b.Base), "broker": 0}
	if len(got) != len(want) {
		t.Errorf("motifwatch_memory_budget_bytes = %v; want %v", got, want)
	}
	for part, v := range want {
		if got[part] != v {
			t.Errorf("motifwatch_memory_budget_bytes{part=%q} = %v; want %v", part, got[part], v)
		}
	}
	if !strings.Contains(log.String(), `msg="memory budget" budget="`+b.String()+`"`) {
		t.Errorf("log %q; want the budget %s", log.String(), b)
	}

	cfg.Window.MaxBytes = 0
	reg, log = prometheus.NewRegistry(), bytes.Buffer{}
	if err := noteMemoryBudget(cfg, reg, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
		t.Fatal(err)
	}
	if mfs, _ := reg.Gather(); len(mfs) != 0 || !strings.Contains(log.String(), "memory budget: none") {
		t.Errorf("without window.max_bytes: %d series, log %q; want none, and the log saying so", len(mfs), log.String())
	}
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
