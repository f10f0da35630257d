package estimate

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Defaults of Options.
const (
	DefaultConfidence  = 0.95
	DefaultFirstSample = 2000
	DefaultMinHits     = 30
)

// Options configure Count.
type Options struct {
	// Epsilon is the target relative half-width of the interval: Count
	// stops once half-width ≤ Epsilon × value. In (0, 1).
	Epsilon float64
	// Confidence is the interval's nominal coverage, in (0, 1); 0 means
	// DefaultConfidence.
	Confidence float64
	// Seed makes the sample reproducible.
	Seed uint64
	// Workers is how many roots are mined at once (0: GOMAXPROCS).
	Workers int
	// FirstSample is the expected number of roots of the first round
	// (0: DefaultFirstSample); each later round at least doubles it.
	FirstSample int
	// MinHits is the least number of sampled roots with matches before
	// the interval is trusted (0: DefaultMinHits): a normal interval
	// from fewer is too often narrow by luck.
	MinHits int
	// Round, if set, is called after each round of Count with the
	// estimate so far (a progress line for a long run).
	Round func(Estimate)
}

// Validate checks the options' ranges.
func (o *Options) Validate() error {
	if !(o.Epsilon > 0 && o.Epsilon < 1) {
		return fmt.Errorf("estimate: epsilon %v: want a relative error in (0, 1)", o.Epsilon)
	}
	if o.Confidence != 0 && !(o.Confidence > 0 && o.Confidence < 1) {
		return fmt.Errorf("estimate: confidence %v: want a value in (0, 1)", o.Confidence)
	}
	if o.FirstSample < 0 || o.MinHits < 0 || o.Workers < 0 {
		return fmt.Errorf("estimate: first sample %d, min hits %d, workers %d: none may be negative", o.FirstSample, o.MinHits, o.Workers)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if o.FirstSample == 0 {
		o.FirstSample = DefaultFirstSample
	}
	if o.MinHits == 0 {
		o.MinHits = DefaultMinHits
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Z returns the two-sided normal quantile of a confidence level: the
// interval value ± Z·√variance covers with that probability.
func Z(confidence float64) float64 { return math.Sqrt2 * math.Erfinv(confidence) }

// Estimate is an estimated count and its interval.
type Estimate struct {
	// Value is the estimate; [Lo, Hi] the interval at Confidence (Lo is
	// never below the matches actually counted); Variance the estimated
	// variance of Value.
	Value, Lo, Hi float64
	Variance      float64
	Confidence    float64
	// Roots is the number of roots of the request (self-loops and masked
	// positions aside); Sampled how many were mined; Certain how many of
	// those were taken with probability 1 (counted exhaustively).
	Roots, Sampled, Certain int64
	// Exact: every root was mined; Value is the exact count, Lo = Hi.
	Exact bool
	// Rounds is the number of sample sizes tried; Steps the engine's work.
	Rounds int
	Steps  int64
}

// RelHalfWidth is the interval's half-width over the value (0 when exact,
// +Inf when the value is 0 but not exact).
func (e *Estimate) RelHalfWidth() float64 {
	hw := (e.Hi - e.Lo) / 2
	if hw == 0 {
		return 0
	}
	return hw / e.Value
}

// Count estimates the number of final matches of p that req would count
// (its Range, RootMask and Horizon; not its Sink, Budget or Deadline),
// growing the sample until the interval's relative half-width is at most
// o.Epsilon (with o.MinHits matching sampled roots) or every root is
// mined. Use a count-only engine request: a Sink is an error (ErrSink).
func Count(ctx context.Context, eng motif.Engine, w *window.Window, p *motif.Plan, req motif.Request, o Options) (Estimate, error) {
	if err := o.Validate(); err != nil {
		return Estimate{}, err
	}
	o = o.withDefaults()
	s, err := newSampler(ctx, eng, w, p, req, o.Workers, o.Seed)
	if err != nil {
		return Estimate{}, err
	}
	z := Z(o.Confidence)
	var rounds int
	r := 0.0
	if s.sumW > 0 {
		r = float64(o.FirstSample) / s.sumW
	}
	for {
		rounds++
		if s.expected(r) > float64(s.roots)/2 {
			r = math.Inf(1) // half the roots or more: mine them all, exactly
		}
		if err := s.grow(ctx, r); err != nil {
			return Estimate{}, err
		}
		value, variance, hits := s.stats()
		hw := z * math.Sqrt(variance)
		if s.exhaustive(s.scale) || hits >= int64(o.MinHits) && hw <= o.Epsilon*value {
			return s.estimate(o.Confidence, z, rounds), nil
		}
		if o.Round != nil {
			o.Round(s.estimate(o.Confidence, z, rounds))
		}
		// Next scale: what the variance so far asks for (variance falls
		// about as 1/r), at least double, at most 16 times.
		f := 4.0
		if hits >= int64(o.MinHits) && value > 0 {
			need := variance * z * z / (o.Epsilon * o.Epsilon * value * value)
			f = min(max(1.2*need, 2), 16)
		}
		r = s.scale * f
	}
}

// estimate reports the sampler's current state.
func (s *sampler) estimate(confidence, z float64, rounds int) Estimate {
	value, variance, _ := s.stats()
	e := Estimate{Value: value, Variance: variance, Confidence: confidence, Roots: s.roots,
		Sampled: s.mined, Certain: s.nCert, Rounds: rounds, Steps: s.steps}
	e.Exact = s.exhaustive(s.scale)
	if e.Exact {
		e.Variance = 0
		e.Lo, e.Hi = value, value
		return e
	}
	hw := z * math.Sqrt(variance)
	e.Lo, e.Hi = max(value-hw, float64(s.counted())), value+hw
	return e
}

// counted is the number of matches actually found: a floor of the count.
func (s *sampler) counted() int64 {
	n := s.certain
	for _, rc := range s.samp {
		n += rc.y
	}
	return n
}
