package gpu

import (
	"sort"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// fanoutSamples is how many roots, evenly spaced over a launch's range,
// firstRunMean looks at (two binary searches each: ≈ 0.1–0.3 ms on a
// 10M-edge window whose hubs hold millions of edges, less on light ones).
const fanoutSamples = 64

// firstRunMean estimates the mean length of p's step-1 run per root over
// the roots [lo, hi) of w: for fanoutSamples roots evenly spaced there, the
// edges of the list step 1 scans (the mapped root endpoint's out- or
// in-list; for a closing step 1, the root source's or target's list it
// names by From) that lie within delta before the root (times in
// [t − delta, t), ties and the plan's hop limits left out: an estimate).
// It tells a light window (few partial matches get past step 1) from a
// heavy one cheaply, on the host (expand2Dense).
func firstRunMean(w *window.Window, p *motif.Plan, lo, hi int64) float64 {
	if p.K() < 2 || hi <= lo {
		return 0
	}
	root := p.Query.Edges[p.Steps[0].Edge]
	s := p.Steps[1]
	n := int64(fanoutSamples)
	if hi-lo < n {
		n = hi - lo
	}
	var sum int64
	for i := int64(0); i < n; i++ {
		pos := lo + (2*i+1)*(hi-lo)/(2*n)
		node := func(q int) uint32 {
			if q == root.From {
				return w.Src(pos)
			}
			return w.Dst(pos)
		}
		var list []window.Adj
		switch s.Bind {
		case motif.BindTo:
			list = w.In(node(s.To))
		default: // BindFrom, BindBoth: From is mapped
			list = w.Out(node(s.From))
		}
		t := w.T(pos)
		a := sort.Search(len(list), func(j int) bool { return list[j].T >= t-p.Delta })
		b := sort.Search(len(list), func(j int) bool { return list[j].T >= t })
		sum += int64(b - a)
	}
	return float64(sum) / float64(n)
}

// expand2Light reports whether a one-query launch over the roots [lo, hi)
// of w should mine p without the expand2 its encoding switched on (and
// with encodeLight's encoding instead): p has
// five edges or more (its expanded step, two above the counted last,
// is step 2 or deeper) and the launch's mean step-1 run is below
// Expand2Fanout. Launches below Expand2Roots never run expand2 (no
// estimate is taken for them), nor does a negative Expand2Fanout stop it.
// Why: where partial matches rarely reach the expanded step (a light
// graph's mean step-1 run well below 1), the expand2 build's heavier
// common path is paid for every root and gains nothing; on heavy-tailed
// graphs (mean run of several) it pays (BENCHMARKS.md). Plans of four
// edges (expanded step 1, the root's own runs) gain on both, so they are
// left alone.
func (o tuning) expand2Light(w *window.Window, p *motif.Plan, lo, hi int64) bool {
	if o.Expand2Fanout < 0 || p.K() < 5 || hi-lo < o.Expand2Roots {
		return false
	}
	return firstRunMean(w, p, lo, hi) < float64(o.Expand2Fanout)
}

// encodeLaunch is the encoding of a one-query launch over the roots
// [lo, hi) of p: encode's, or encodeLight's where the plan's light
// encoding differs from it (expand2 dropped, or a pruning added) and
// expand2Light finds the launch light (tuning.Expand2Fanout).
func (o tuning) encodeLaunch(w *window.Window, p *motif.Plan, lo, hi int64, count bool) (*encodedPlan, error) {
	enc, err := o.encode(p, count)
	if err != nil {
		return nil, err
	}
	light, err := o.encodeLight(p, count)
	if err != nil {
		return nil, err
	}
	if (enc.expanded2() || light.pruned() != enc.pruned()) && o.expand2Light(w, p, lo, hi) {
		return light, nil
	}
	return enc, nil
}

// encodeLight is encode for a launch expand2Light finds light: without
// expand2, and with the closing-edge pruning kept wherever its anchor is
// an endpoint of the root (closePays's first condition: M13 as well as
// M11 and M12 of the built-in motifs; never with NoClosePrune), on such a
// closing edge where the plan has another (ClosePruneRoot: M10's triangle
// edge 3->1, whose anchor the root maps, not its later 1->2): z06's M10
// 4.00 → 2.52 ms, while tg10m's (heavy, not light) lost 3% to it (H100,
// BENCHMARKS.md). closePays
// leaves M13 unpruned because on a heavy window its anchor has usually
// sent another edge within delta before the root, so the pruning cuts
// little and its build costs more (tg10m: 82 → 91 ms); on a light one the
// anchor's run of possible closing edges is mostly empty and the pruning
// cuts most roots at their first step: z06's M13 3.85 → 3.01 ms, g100's
// (mean step-1 run 1.5) 13.13 → 12.75 (H200, main 275701b,
// ClosePruneAll, BENCHMARKS.md), whose mine6 and mine6p
// compile to the instructions of this tree's but for register numbers and
// one instruction.
func (o tuning) encodeLight(p *motif.Plan, count bool) (*encodedPlan, error) {
	o.Expand2Run = -1
	enc, err := o.encode(p, count)
	if err != nil || o.NoClosePrune || enc.pruned() {
		return enc, err
	}
	o.ClosePruneAll, o.ClosePruneRoot = true, true
	all, err := o.encode(p, count)
	if err != nil {
		return nil, err
	}
	if all.pruned() && all.P[pSteps+sClose] == closeAnchor {
		return all, nil
	}
	return enc, nil
}

// chunkClaim returns the claim, in roots, of a one-query launch over the
// roots [lo, hi) of a four-edge plan p that takes its claims in whole
// chunks of 32 roots (no guided shrinking: P_GUIDE 0), or 0 where the
// claims stay guided (they shrink to single roots as the roots run out):
// a launch of at least ChunkRoots roots. On 10M-edge windows the last
// claims' single roots cost more (a claim's atomic, 31 idle lanes at the
// root chunk) than they spread: with chunks, M3-M9 gained 5-17% on z06,
// z08, z10 and g100 and up to 7% on tg10m (H100; BENCHMARKS.md,
// "Claims"). Three-edge plans stay guided: claims of 32 cost z06's M1
// 30%, and of 64, which gained 6-17% on the light graphs, cost tg10m's M1
// 0.4-2.8%. Five-edge plans and smaller launches (a streaming batch,
// CollegeMsg) stay guided too: claims of 32 left most warps idle there
// (tg10m's 100k-root batch 10% slower, CollegeMsg's rows 2-4x); on
// five-edge plans chunks were mixed (z06 gained, z10 and g100 lost up to
// 2%).
func (o tuning) chunkClaim(p *motif.Plan, lo, hi int64) int64 {
	if o.ChunkRoots < 0 || hi-lo < o.ChunkRoots || p.K() != 4 {
		return 0
	}
	return 32
}
