package mine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/estimate"
	"github.com/motifwatch/motifwatch/window"
)

// Estimate is an estimated count (`mine --estimate`): Value with the
// interval [Lo, Hi] at Confidence, from Sampled of the graph's Roots
// (root edges mined: Certain of them taken with probability 1). Exact:
// every root was mined (or the shape is Counted by motif/count3), and
// Lo = Value = Hi.
type Estimate struct {
	Value      float64 `json:"value"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	Epsilon    float64 `json:"epsilon"`
	Roots      int64   `json:"roots"`
	Sampled    int64   `json:"roots_sampled"`
	Certain    int64   `json:"roots_certain,omitempty"`
	Rounds     int     `json:"rounds,omitempty"`
	Exact      bool    `json:"exact"`
	Counted    bool    `json:"counted,omitempty"`
}

func (o *Options) confidence() float64 {
	if o.Confidence == 0 {
		return estimate.DefaultConfidence
	}
	return o.Confidence
}

// epsilon is q's estimate bound: Options.Estimate, else the query's own
// (its file's estimate: key), else 0 (exact).
func (o *Options) epsilon(q *motif.Query) float64 {
	if o.Estimate > 0 {
		return o.Estimate
	}
	return q.Estimate
}

// estimateOne estimates one compiled query's count over the whole window
// within relative error eps.
func (o *Options) estimateOne(ctx context.Context, eng *engine.Selected, w *window.Window, p *motif.Plan, eps float64) (*QueryResult, error) {
	run := &QueryResult{Name: p.Query.Name, Delta: p.Query.Delta.String()}
	start := time.Now()
	round := func(e estimate.Estimate) {
		if o.Progress > 0 {
			fmt.Fprintf(o.Log, "estimating %s: round %d, %d of %d roots mined, %.4g ± %.2g%% so far; sampling more\n",
				run.Name, e.Rounds, e.Sampled, e.Roots, e.Value, 100*e.RelHalfWidth())
		}
	}
	est, err := estimate.Count(ctx, eng, w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch},
		estimate.Options{Epsilon: eps, Confidence: o.Confidence, Seed: o.EstimateSeed, Workers: o.Workers, Round: round})
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: an estimate cut short has no value to report.
			run.Partial = true
			run.Seconds = time.Since(start).Seconds()
			return run, nil
		}
		return nil, err
	}
	run.Matches = int64(math.Round(est.Value))
	run.Estimate = &Estimate{Value: est.Value, Lo: est.Lo, Hi: est.Hi, Confidence: est.Confidence, Epsilon: eps,
		Roots: est.Roots, Sampled: est.Sampled, Certain: est.Certain, Rounds: est.Rounds, Exact: est.Exact}
	run.Seconds = time.Since(start).Seconds()
	return run, nil
}
