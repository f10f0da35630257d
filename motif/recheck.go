package motif

import (
	"math"
	"sort"

	"github.com/motifwatch/motifwatch/window"
)

// Recheck re-evaluates the anti-edges of a match that Mine reported Open,
// now that the window may hold more edges: the streaming daemon holds open
// matches and calls it once the watermark passes OpenUntil. It returns
// valid=false when a forbidden edge has arrived; otherwise open tells
// whether some interval still reaches past horizon (until is its end).
//
// The match's edges must still be in the window (the daemon never evicts
// edges younger than the oldest held match's first edge, so node ids stay
// bound).
func (p *Plan) Recheck(w *window.Window, edges []int64, nodes []uint32, horizon int64) (valid, open bool, until int64) {
	until = math.MinInt64
	t0 := w.T(edges[0])
	for i := range p.Antis {
		a := &p.Antis[i]
		limit := AddTicks(t0, p.Delta)
		if a.Within != NoLimit {
			limit = min(limit, AddTicks(w.T(edges[a.After]), a.Within))
		}
		pair := w.Between(nodes[a.From], nodes[a.To])
		// The first edge From→To after the anti-edge's anchor decides it.
		after := w.RelPos(edges[a.After])
		if j := sort.Search(len(pair), func(i int) bool { return int64(pair[i].Rel) > after }); j < len(pair) && pair[j].T <= limit {
			return false, false, 0
		}
		if limit > horizon {
			open, until = true, max(until, limit)
		}
	}
	if !open {
		until = 0
	}
	return true, open, until
}
