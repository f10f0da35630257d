package estimate

import (
	"context"
	"errors"
	"math"
	"sync"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// ErrSink is returned for a request with a Sink: an estimate counts, it
// never enumerates.
var ErrSink = errors.New("estimate: a request with a sink enumerates; an estimate only counts")

// sampler is one request's sampling design and what its rounds mined so
// far: the certain roots' sum (π = 1) and each sampled root's count.
type sampler struct {
	eng     motif.Engine
	w       *window.Window
	p       *motif.Plan
	req     motif.Request
	workers int
	seed    uint64

	wt    []float32 // weight per range position (Weights)
	sumW  float64
	minW  float32 // least positive weight: at scale 1/minW every root is certain
	roots int64   // positions of positive weight

	scale   float64
	certain int64 // Σ y over the roots with π = 1
	nCert   int64
	samp    []rootCount // sampled roots with π < 1
	mined   int64       // roots mined (certain and sampled)
	steps   int64
}

// rootCount is a sampled root's position, weight and count.
type rootCount struct {
	pos int64
	w   float32
	y   int64
}

func newSampler(ctx context.Context, eng motif.Engine, w *window.Window, p *motif.Plan, req motif.Request, workers int, seed uint64) (*sampler, error) {
	if req.Sink != nil {
		return nil, ErrSink
	}
	if err := req.CheckRootMask(); err != nil {
		return nil, err
	}
	// Clip the range to the window, keeping the mask aligned with it.
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	switch {
	case hi <= lo:
		lo, hi, req.RootMask = 0, 0, nil
	case req.RootMask != nil:
		req.RootMask = req.RootMask[lo-req.Range.Lo : hi-req.Range.Lo]
	}
	req.Range = motif.Range{Lo: lo, Hi: hi}
	wt, err := Weights(ctx, w, p, req, workers)
	if err != nil {
		return nil, err
	}
	s := &sampler{eng: eng, w: w, p: p, req: req, workers: workers, seed: seed, wt: wt, minW: float32(math.Inf(1))}
	for _, x := range wt {
		if x > 0 {
			s.sumW += float64(x)
			s.minW = min(s.minW, x)
			s.roots++
		}
	}
	return s, nil
}

// pi is the inclusion probability of a root of weight x at scale r.
func pi(r float64, x float32) float64 { return min(1, r*float64(x)) }

// exhaustive reports whether every root is certain at scale r.
func (s *sampler) exhaustive(r float64) bool { return s.roots == 0 || r*float64(s.minW) >= 1 }

// expected returns the expected number of roots sampled at scale r.
func (s *sampler) expected(r float64) float64 {
	var n float64
	for _, x := range s.wt {
		if x > 0 {
			n += pi(r, x)
		}
	}
	return n
}

// uniform is root q's fixed uniform draw in [0, 1): the sample at scale r
// is {q : uniform(q) < π_q(r)}, nested in r.
func (s *sampler) uniform(q int64) float64 {
	z := s.seed + uint64(q)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// grow raises the scale to r (≥ the current one; +Inf: every root) and
// mines the roots that enter the sample: those that become certain in
// one call, the others one call each.
func (s *sampler) grow(ctx context.Context, r float64) error {
	if s.exhaustive(r) {
		r = math.Inf(1)
	}
	lo := s.req.Range.Lo
	var certLo, certHi int64 = -1, -1
	var fresh []rootCount
	// First pass: find the span of new certain roots and the new sampled ones.
	for i, x := range s.wt {
		if x == 0 {
			continue
		}
		q := lo + int64(i)
		pn := pi(r, x)
		u := s.uniform(q)
		if u >= pn || u < pi(s.scale, x) {
			continue // out of the sample, or in it already
		}
		if pn == 1 {
			if certLo < 0 {
				certLo = q
			}
			certHi = q + 1
			continue
		}
		fresh = append(fresh, rootCount{pos: q, w: x})
	}
	if certLo >= 0 {
		mask := make([]bool, certHi-certLo)
		n := 0
		for q := certLo; q < certHi; q++ {
			x := s.wt[q-lo]
			if x == 0 {
				continue
			}
			if u := s.uniform(q); u < 1 && u >= pi(s.scale, x) && pi(r, x) == 1 {
				mask[q-certLo] = true
				n++
			}
		}
		res, err := s.eng.Mine(ctx, s.w, s.p, motif.Request{Range: motif.Range{Lo: certLo, Hi: certHi}, Horizon: s.req.Horizon, RootMask: mask})
		if err != nil {
			return err
		}
		if res.Truncated || res.Stopped {
			return errors.New("estimate: mining stopped early")
		}
		s.certain += res.Matches
		s.nCert += int64(n)
		s.mined += int64(n)
		s.steps += res.Steps
	}
	if err := s.mineEach(ctx, fresh); err != nil {
		return err
	}
	// Sampled roots that are now certain move to the certain sum.
	kept := s.samp[:0]
	for _, rc := range append(s.samp, fresh...) {
		if pi(r, rc.w) == 1 {
			s.certain += rc.y
			s.nCert++
			continue
		}
		kept = append(kept, rc)
	}
	s.samp = kept
	s.scale = r
	return nil
}

// mineEach mines each root of rs alone (its count y), workers at a time.
func (s *sampler) mineEach(ctx context.Context, rs []rootCount) error {
	if len(rs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var next int
	var firstErr error
	var steps int64
	var wg sync.WaitGroup
	for range min(s.workers, len(rs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mySteps int64
			defer func() { mu.Lock(); steps += mySteps; mu.Unlock() }()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(rs) || ctx.Err() != nil {
					return
				}
				q := rs[i].pos
				res, err := s.eng.Mine(ctx, s.w, s.p, motif.Request{Range: motif.Range{Lo: q, Hi: q + 1}, Horizon: s.req.Horizon})
				if err == nil && (res.Truncated || res.Stopped) {
					err = errors.New("estimate: mining stopped early")
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				rs[i].y = res.Matches
				mySteps += res.Steps
			}
		}()
	}
	wg.Wait()
	s.mined += int64(len(rs))
	s.steps += steps
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// stats returns the Horvitz–Thompson estimate at the current scale, its
// variance estimate, and how many sampled (uncertain) roots matched.
func (s *sampler) stats() (value, variance float64, hits int64) {
	value = float64(s.certain)
	for _, rc := range s.samp {
		if rc.y == 0 {
			continue
		}
		p := pi(s.scale, rc.w)
		y := float64(rc.y)
		value += y / p
		variance += (1 - p) * y * y / (p * p)
		hits++
	}
	return value, variance, hits
}
