package estimate

import (
	"context"
	"sort"
	"sync"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Weights returns the sampling weight of each position of req's range
// (index p − req.Range.Lo): 1 plus the number of edges at the root's two
// endpoints, in either direction, that come before it within the plan's
// δ. That is where a match ending at the root finds its other edges, so
// the weight grows with the root's matches and work (hubs and bursts).
// Masked positions and self-loops (which never match) weigh 0 and are
// never sampled. The positions are shared among workers goroutines.
func Weights(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request, workers int) ([]float32, error) {
	if err := req.CheckRootMask(); err != nil {
		return nil, err
	}
	lo, hi := req.Range.Lo, req.Range.Hi
	if hi <= lo {
		return nil, ctx.Err()
	}
	out := make([]float32, hi-lo)
	first, end := w.First(), w.End()
	workers = max(workers, 1)
	const chunk = 1 << 14
	var next int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				a := lo + next
				next += chunk
				mu.Unlock()
				if a >= hi || ctx.Err() != nil {
					return
				}
				for q := a; q < min(a+chunk, hi); q++ {
					if q < first || q >= end || req.RootMask != nil && !req.RootMask[q-lo] {
						continue
					}
					out[q-lo] = weight(w, q, p.Delta)
				}
			}
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// weight is one root's weight (see Weights).
func weight(w *window.Window, q, delta int64) float32 {
	src, dst := w.Src(q), w.Dst(q)
	if src == dst {
		return 0
	}
	t, rel := w.T(q), w.RelPos(q)
	from := motif.SubTicks(t, delta)
	n := 1 + before(w.Out(src), rel, from) + before(w.In(src), rel, from) +
		before(w.Out(dst), rel, from) + before(w.In(dst), rel, from)
	return float32(n)
}

// before counts the entries of list (in (t, seq) order) before relative
// position rel and at or after time from.
func before(list []window.Adj, rel, from int64) int {
	b := sort.Search(len(list), func(i int) bool { return int64(list[i].Rel) >= rel })
	a := sort.Search(b, func(i int) bool { return list[i].T >= from })
	return b - a
}
