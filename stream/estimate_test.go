package stream

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
)

// TestStreamingEstimate: an estimated count-mode query (Query.Estimate),
// mined per batch over a sliding window, reports its running estimate
// in Output.Estimates and never in Output.Counts or Alerts; its interval
// holds the value, its roots are the batches' edges, and with an ε no
// sample meets it is the exact count of the same query counted beside
// it. A reload that leaves it unchanged keeps its running total; an
// enumerate-mode or anti-edge query with an estimate is refused.
func TestStreamingEstimate(t *testing.T) {
	w := loadGraph(t)
	query := func(name string, eps float64) Query {
		q, err := motif.Builtin("M4")
		if err != nil {
			t.Fatal(err)
		}
		q.Name, q.Delta, q.Estimate = name, motif.DurationSpan(time.Hour), eps
		return Query{Query: q}
	}
	qs := []Query{query("m4-est", 0.1), query("m4-exact-est", 1e-9), query("m4", 0)}
	p, err := New(Options{Engine: cpu.New(2), Schema: *w.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetQueries(qs); err != nil {
		t.Fatal(err)
	}
	edges := edgesOf(w)
	counts := map[string]int64{}
	half := len(edges) / 2
	for i := 0; i < len(edges); i += 1000 {
		j := min(i+1000, len(edges))
		if i == half/1000*1000 {
			// A reload with the same queries (fresh copies): totals go on.
			if err := p.SetQueries([]Query{query("m4-est", 0.1), query("m4-exact-est", 1e-9), query("m4", 0)}); err != nil {
				t.Fatal(err)
			}
		}
		out, err := p.Process(context.Background(), edges[i:j], batchWatermark(edges, j))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range out.Alerts {
			t.Fatalf("an alert of %s; want none", a.Query)
		}
		for q, c := range out.Counts {
			counts[q] += c
		}
	}
	out, err := p.Process(context.Background(), nil, motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	if counts["m4-est"] != 0 || counts["m4-exact-est"] != 0 || counts["m4"] == 0 {
		t.Fatalf("counts %v; want only m4 counted", counts)
	}
	exact, est := out.Estimates["m4-exact-est"], out.Estimates["m4-est"]
	if !exact.Exact || exact.Value != float64(counts["m4"]) || exact.Roots != int64(len(edges)) {
		t.Errorf("m4-exact-est: %+v; want exact %d over %d roots", exact, counts["m4"], len(edges))
	}
	if est.Roots != int64(len(edges)) || !(est.Lo <= est.Value && est.Value <= est.Hi) || est.Value <= 0 {
		t.Errorf("m4-est: %+v; want an interval around a positive value over %d roots", est, len(edges))
	}
	t.Logf("m4-est %.0f [%.0f, %.0f] from %d of %d roots; exact %d", est.Value, est.Lo, est.Hi, est.Sampled, est.Roots, counts["m4"])

	enum := query("m4-enum", 0.1)
	enum.Enumerate = true
	anti, err := motif.Builtin("M4-A")
	if err != nil {
		t.Fatal(err)
	}
	anti.Delta, anti.Estimate = motif.DurationSpan(time.Hour), 0.1
	for _, bad := range []Query{enum, {Query: anti}} {
		if err := p.SetQueries([]Query{bad}); err == nil {
			t.Errorf("SetQueries(%s, enumerate %v, estimate) = nil; want an error", bad.Query.Name, bad.Enumerate)
		}
	}
}
