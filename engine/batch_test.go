package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/stream"
	"github.com/motifwatch/motifwatch/synth"
)

// The streaming processor batches a Selected engine's count queries.
var _ stream.BatchMiner = (*engine.Selected)(nil)

// selectedEngines are the CPU backend and, where a device is usable, the
// GPU one.
func selectedEngines(t *testing.T) map[string]*engine.Selected {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	out := map[string]*engine.Selected{}
	cpu, err := engine.Select(backend.CPU, 2, gpu.Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	out["cpu"] = cpu
	g, err := engine.Select(backend.GPU, 2, gpu.Options{Devices: []int{0}}, log)
	switch {
	case errors.Is(err, gpu.ErrNoDevice):
		t.Logf("no GPU: %v", err)
	case err != nil:
		t.Fatal(err)
	default:
		out["gpu"] = g
	}
	t.Cleanup(func() {
		for _, s := range out {
			s.Close()
		}
	})
	return out
}

// TestMineBatchEqualsMine: Selected.MineBatch counts what the CPU engine
// counts plan by plan, for plans of every route (the GPU kernel, SNAP
// shapes that motif/count3 counts when the range covers the window,
// anti-edges), over the whole window, a tail batch and a root mask.
func TestMineBatchEqualsMine(t *testing.T) {
	w, err := synth.Window(synth.Default(20000, 3))
	if err != nil {
		t.Fatal(err)
	}
	var plans []*motif.Plan
	for _, name := range []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10", "M11", "M12", "M13", "M4-A", "snap-1-1", "snap-4-2"} {
		q, err := motif.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(time.Hour)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	tail := motif.Range{Lo: w.End() - 1500, Hi: w.End()}
	mask := make([]bool, tail.Hi-tail.Lo)
	for i := range mask {
		mask[i] = i%3 != 1
	}
	reqs := []motif.Request{
		{Range: motif.WholeWindow(w), Horizon: motif.Batch},
		{Range: tail, Horizon: w.LastT()},
		{Range: tail, Horizon: w.T(w.End() - 700), RootMask: mask},
	}
	cpu := cpu.New(2)
	for name, s := range selectedEngines(t) {
		for ri, req := range reqs {
			got, err := s.MineBatch(context.Background(), w, plans, req)
			if err != nil {
				t.Fatalf("%s request %d: %v", name, ri, err)
			}
			total := int64(0)
			for i, p := range plans {
				want, err := cpu.Mine(context.Background(), w, p, req)
				if err != nil {
					t.Fatal(err)
				}
				total += want.Matches
				if got[i].Matches != want.Matches || got[i].Open != want.Open {
					t.Errorf("%s request %d %s: batch %d (open %d), CPU %d (open %d)", name, ri, p.Query.Name, got[i].Matches, got[i].Open,
						want.Matches, want.Open)
				}
			}
			if total == 0 {
				t.Errorf("request %d: no matches at all: the test compares nothing", ri)
			}
		}
	}
}

// TestStreamBatchedEqualsCPU: a processor over a Selected engine (its
// count queries mined together) counts and alerts what one over the
// plain CPU engine does, batch after batch.
func TestStreamBatchedEqualsCPU(t *testing.T) {
	w, err := synth.Window(synth.Default(20000, 5))
	if err != nil {
		t.Fatal(err)
	}
	var qs []stream.Query
	for _, c := range []struct {
		name      string
		enumerate bool
	}{{"M1", false}, {"M3", false}, {"M5", false}, {"M7", false}, {"M4-A", false}, {"M4", true}, {"snap-2-3", false}} {
		q, err := motif.Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(time.Hour)
		if !c.enumerate {
			q.Name += "-count"
		}
		qs = append(qs, stream.Query{Query: q, Enumerate: c.enumerate})
	}
	var edges []ingest.Edge
	for p := w.First(); p < w.End(); p++ {
		edges = append(edges, ingest.Edge{Src: w.IDs().Name(w.Src(p)), Dst: w.IDs().Name(w.Dst(p)), T: w.T(p), Seq: p, HasSeq: true})
	}
	run := func(e motif.Engine) (counts map[string]int64, alerts int) {
		p, err := stream.New(stream.Options{Engine: e, Schema: *w.Schema()})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetQueries(qs); err != nil {
			t.Fatal(err)
		}
		counts = map[string]int64{}
		for i := 0; i <= len(edges); i += 1000 {
			batch, wm := edges[i:min(i+1000, len(edges))], int64(motif.Batch)
			if i+1000 < len(edges) {
				wm = edges[i+1000].T - 1
			}
			out, err := p.Process(context.Background(), batch, wm)
			if err != nil {
				t.Fatal(err)
			}
			for q, n := range out.Counts {
				counts[q] += n
			}
			alerts += len(out.Alerts)
		}
		return counts, alerts
	}
	wantCounts, wantAlerts := run(cpu.New(2))
	if wantCounts["M1-count"] == 0 || wantAlerts == 0 {
		t.Fatalf("counts %v, %d alerts: the test compares too little", wantCounts, wantAlerts)
	}
	for name, s := range selectedEngines(t) {
		counts, alerts := run(s)
		for q, n := range wantCounts {
			if counts[q] != n {
				t.Errorf("%s: %s counted %d, CPU %d", name, q, counts[q], n)
			}
		}
		if alerts != wantAlerts {
			t.Errorf("%s: %d alerts, CPU %d", name, alerts, wantAlerts)
		}
	}
}
