package alerts

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// value reads a counter's value, or a histogram's sample count.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var pb dto.Metric
	if err := m.Write(&pb); err != nil {
		t.Fatal(err)
	}
	switch {
	case pb.Counter != nil:
		return pb.Counter.GetValue()
	case pb.Histogram != nil:
		return float64(pb.Histogram.GetSampleCount())
	}
	t.Fatalf("metric %v is neither a counter nor a histogram", m.Desc())
	return 0
}

func TestNewMetricsRegisters(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	// A second NewMetrics on the same registry shares the first's series.
	m2, err := NewMetrics(reg)
	if err != nil {
		t.Fatalf("second NewMetrics on one registry: %v", err)
	}
	m.Matches.WithLabelValues("q").Inc()
	m2.Matches.WithLabelValues("q").Inc()
	if got := value(t, m.Matches.WithLabelValues("q")); got != 2 {
		t.Errorf("matches_total{query=q} = %v after one Inc through each Metrics; want 2", got)
	}
	m.Written.WithLabelValues("q", "match").Inc()
	m.Failed.WithLabelValues("q").Inc()
	m.RateLimited.WithLabelValues("q").Inc()
	m.Counted.WithLabelValues("q").Inc()
	m.WriteSeconds.Observe(0.01)

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	want := []string{
		"motifwatch_alert_write_seconds",
		"motifwatch_alerts_counted_total",
		"motifwatch_alerts_failed_total",
		"motifwatch_alerts_rate_limited_total",
		"motifwatch_alerts_written_total",
		"motifwatch_matches_total",
	}
	if !slices.Equal(names, want) {
		t.Errorf("gathered %v; want %v", names, want)
	}
}

func TestNewMetricsConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	// Same name, other labels: not ours to reuse.
	reg.MustRegister(prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "motifwatch_matches_total", Help: "Matches routed to the alert path, by query.",
	}, []string{"other"}))
	if _, err := NewMetrics(reg); err == nil {
		t.Error("NewMetrics with a conflicting collector registered: nil error; want one")
	}
}

func TestRouterMetrics(t *testing.T) {
	clk := &clock{t0}
	sink := &memSink{}
	m, err := NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRouter(RouterOptions{Interval: time.Minute}, sink, m, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	err = r.SetQueries(map[string]QueryOptions{
		"e": enumerate, "c": count, "r": {RateLimit: 1, Burst: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.Add(matches("e", "e", "c", "c", "c", "r", "r", "r"))
	sink.fail = 1
	if err := r.Flush(ctx); err == nil {
		t.Fatal("Flush with a failing sink: nil error")
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(ctx, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    prometheus.Metric
		want float64
	}{
		{"matches_total{e}", m.Matches.WithLabelValues("e"), 2},
		{"matches_total{c}", m.Matches.WithLabelValues("c"), 3},
		{"matches_total{r}", m.Matches.WithLabelValues("r"), 3},
		{"written_total{e,match}", m.Written.WithLabelValues("e", "match"), 2},
		{"written_total{r,match}", m.Written.WithLabelValues("r", "match"), 1},
		{"written_total{c,count}", m.Written.WithLabelValues("c", "count"), 1},
		{"written_total{r,rate_limited}", m.Written.WithLabelValues("r", "rate_limited"), 1},
		{"written_total{c,match}", m.Written.WithLabelValues("c", "match"), 0},
		{"counted_total{c}", m.Counted.WithLabelValues("c"), 3},
		{"rate_limited_total{r}", m.RateLimited.WithLabelValues("r"), 2},
		{"failed_total{e}", m.Failed.WithLabelValues("e"), 2},
		{"failed_total{r}", m.Failed.WithLabelValues("r"), 1},
		{"failed_total{c}", m.Failed.WithLabelValues("c"), 0},
		{"write_seconds count", m.WriteSeconds, 3},
	}
	for _, tt := range tests {
		if got := value(t, tt.m); got != tt.want {
			t.Errorf("%s = %v; want %v", tt.name, got, tt.want)
		}
	}
}
