package estimate

import (
	"context"
	"math"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Running is an estimate over a stream of batches: the streaming form of
// Count. Each Add samples one request's roots (a batch's) at the current
// scale, fixed before the batch, so each batch's estimate is unbiased and
// the running value, their sum, is too; the variances add.
//
// It mines every root, exactly, until the count so far reaches (z/ε)²
// (the matches a bound of ε needs even if they came one per root: below
// it no sample could meet ε, and a small sample's variance estimate is
// too often zero by luck); then it samples, starting at FirstSample
// roots' worth of the last batch's weights. Between sampled batches the
// scale doubles while the running interval is wider than Epsilon of the
// value (or fewer than MinHits sampled roots matched), and halves while
// it is narrower than a quarter of that, so the work per batch follows
// what the bound needs. A Running is used by one goroutine.
type Running struct {
	o     Options
	z     float64
	scale float64 // 0 until the first batch with roots sets it

	value, variance float64
	roots, sampled  int64
	hits            int64
	batches         int64
}

// NewRunning returns an empty running estimate with o's bound.
func NewRunning(o Options) (*Running, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	return &Running{o: o, z: Z(o.Confidence)}, nil
}

// maxScale is where every root of positive weight is certain.
const maxScale = 1e30

// Add samples req's roots (Range, RootMask, Horizon; see Count) and adds
// their estimate.
func (r *Running) Add(ctx context.Context, eng motif.Engine, w *window.Window, p *motif.Plan, req motif.Request) error {
	s, err := newSampler(ctx, eng, w, p, req, r.o.Workers, r.o.Seed^uint64(r.batches)*0x2545f4914f6cdd1d)
	if err != nil {
		return err
	}
	r.batches++
	if s.roots == 0 {
		return nil
	}
	scale := r.scale
	if scale == 0 {
		scale = math.Inf(1) // not sampling yet: every root
	}
	if err := s.grow(ctx, scale); err != nil {
		return err
	}
	v, vr, hits := s.stats()
	if s.exhaustive(s.scale) {
		vr = 0
	}
	r.value += v
	r.variance += vr
	r.hits += hits
	r.roots += s.roots
	r.sampled += s.mined
	hw := r.z * math.Sqrt(r.variance)
	switch {
	case r.scale == 0:
		if need := r.z / r.o.Epsilon; r.value >= need*need {
			r.scale = float64(r.o.FirstSample) / s.sumW
		}
	case r.hits < int64(r.o.MinHits) || hw > r.o.Epsilon*r.value:
		r.scale = min(2*r.scale, maxScale)
	case hw < r.o.Epsilon*r.value/4:
		r.scale /= 2
	}
	return nil
}

// Total returns the running estimate: the value so far with its interval
// (Exact while every root so far was mined).
func (r *Running) Total() Estimate {
	e := Estimate{Value: r.value, Variance: r.variance, Confidence: r.o.Confidence, Roots: r.roots, Sampled: r.sampled,
		Exact: r.sampled == r.roots, Rounds: int(r.batches)}
	hw := r.z * math.Sqrt(r.variance)
	e.Lo, e.Hi = max(r.value-hw, 0), r.value+hw
	if e.Exact {
		e.Lo, e.Hi, e.Variance = r.value, r.value, 0
	}
	return e
}
