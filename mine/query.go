package mine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/progress"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// mineOne mines one compiled query over the whole window.
func (o *Options) mineOne(ctx context.Context, eng *engine.Selected, w *window.Window, p *motif.Plan) (*QueryResult, error) {
	eps := o.epsilon(p.Query)
	if eps > 0 {
		if _, counted := eng.Counted(p); !counted {
			return o.estimateOne(ctx, eng, w, p, eps)
		}
	}
	run := &QueryResult{Name: p.Query.Name, Delta: p.Query.Delta.String()}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Progress: new(atomic.Int64), Found: new(atomic.Int64)}
	if o.Enumerate > 0 {
		req.Sink = motif.SinkFunc(func(m *motif.Match) error {
			if int64(len(run.Examples)) >= o.Enumerate {
				return motif.ErrStop
			}
			edges := make([]Edge, len(m.Edges))
			ids := make([]alerts.Edge, len(m.Edges))
			for i, pos := range m.Edges {
				edges[i] = Edge{Src: w.IDs().Name(w.Src(pos)), Dst: w.IDs().Name(w.Dst(pos)), T: w.T(pos)}
				// seq is the window position: what `monitor produce` writes.
				ids[i] = alerts.Edge{Src: edges[i].Src, Dst: edges[i].Dst, T: edges[i].T, Seq: pos}
			}
			run.Examples = append(run.Examples, edges)
			run.IDs = append(run.IDs, alerts.MatchID(run.Name, ids, true))
			return nil
		})
	}
	start := time.Now()
	// The CPU engine reports its running count; the GPU's comes at the end.
	counts := eng.Backend == backend.CPU
	meter := progress.Meter{What: "mining " + run.Name + " (root edges)", Noun: "matches", Total: int64(w.Len()), Input: int64(w.Len()), Counts: counts}
	stop := progress.Every(o.Progress, func() {
		line, warning := meter.Sample(req.Progress.Load(), req.Found.Load(), time.Since(start))
		fmt.Fprintln(o.Log, line)
		if warning != "" {
			fmt.Fprintln(o.Log, warning)
		}
	})
	res, err := eng.Mine(ctx, w, p, req)
	stop()
	if err != nil && ctx.Err() != nil {
		// Interrupted: keep what was counted.
		run.Matches, run.Open, run.Partial = res.Matches, res.Open, true
		run.Seconds = time.Since(start).Seconds()
		return run, nil
	}
	if err != nil {
		return nil, err
	}
	run.Matches, run.Open, run.Stopped = res.Matches, res.Open, res.Stopped
	if res.Stopped {
		// Workers run ahead of the sink; what is known is the bound reached.
		run.Matches = int64(len(run.Examples))
	}
	run.Seconds = time.Since(start).Seconds()
	if eps > 0 {
		// A counted shape: exact, faster than any sample.
		n := float64(run.Matches)
		run.Estimate = &Estimate{Value: n, Lo: n, Hi: n, Confidence: o.confidence(), Epsilon: eps,
			Roots: int64(w.Len()), Sampled: int64(w.Len()), Exact: true, Counted: true}
	}
	return run, nil
}
