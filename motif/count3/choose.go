package count3

import (
	"context"
	"fmt"
	"math"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Counting or enumerating. A counting run reads the whole window — the
// static graph, every node's sequence, the triangles — whatever the
// matches, while enumeration costs what its matches' search trees do;
// where matches are few (a small δ, a sparse graph) enumerating is the
// cheaper exact answer. For a family with a cost model (countCost),
// Engine.Mine first enumerates a sample of the request's roots (every
// sampleStride-th position of its range) with a step budget
// (motif.Request.Budget) of the sample's share of the counting run's
// projected cost:
//
//   - a sample that runs past its budget projects an enumeration dearer
//     than counting: the request is counted;
//   - one that finishes projects the whole enumeration (its steps ×
//     sampleStride); below the counting cost, the rest of the roots are
//     enumerated (under twice the cost, as a backstop) and added to the
//     sample's matches — root masks partition the matches by their last
//     edge, so none is lost or counted twice — else the request is
//     counted.
//
// Budgets count steps, which depend on the window, plan and request
// alone: the sample is enumerated in full exactly when its steps are
// within its budget, and counted otherwise, whether the engine stopped at
// the budget or finished just past it (it checks at intervals), so the
// choice is the same on every run and any worker count (only the rest's
// backstop may fall either way at its margin; both answers are exact).
// The sample's matches are kept, so enumerating costs one more call of the
// wrapped engine, and counting at most 1/sampleStride of a counting run
// more than it would alone. A counting run answers every query of its family at
// once, so its cost is shared by the family's announced queries (Expect)
// and a family already counted for the window state is read from the
// cache without a sample.

// countCost is a family's projected counting cost in the wrapped engine's
// Budget steps per window edge, for the families whose counting run can
// cost more than enumerating their queries: the path pass's sequences
// and triangle pass are a fixed cost per window edge of about 16 CPU
// engine steps on CollegeMsg and tgraphgen's 1M-edge graph (a counting
// run of the paths costs 1.1–2 µs a window edge, a CPU engine step
// 80–170 ns), and the pass's own work grows with the window's wedges, as
// enumeration's does, only slower. A family absent here (SNAP's grid,
// stars, the small family) is always counted: its run costs about what
// reading the window does. A new family adds its entry.
var countCost = map[Families]int64{
	Paths: 16,
	// The four-edge passes' cost grows with the static cycles and
	// triangles whose sides meet within δ, so it rises with δ; these are
	// their cost at a wide δ (1 day on tgraphgen's 1M-edge graph: cycles
	// ≈ 60 µs with every cell, all 160 paws ≈ 13–17 µs a window edge), so
	// a narrow δ, whose enumeration is cheap, is enumerated, and a wide one
	// whose enumeration projects past them is counted.
	Cycles4: 500,
	Paws:    220,
}

// pawCellsCost is the projected cost, in the same steps, of a paw run of
// n cells (n ≤ pawSparseMaxCells), from BenchmarkPawCells against the
// dense pass on tgraphgen's 1M-edge graph at δ 1 day: through the sparse
// tables about 0.45 + 0.06·n of all 160's, the fixed part being the
// pass's listing, tail sequences and walk of every triangle; light (every
// cell one the light walk counts, pawMaskLight: M3, M9) about
// 0.23 + 0.02·n, its heavy-sided triangles walked on their light sides.
func pawCellsCost(n int, light bool) int64 {
	if light {
		return 50 + 5*int64(n)
	}
	return 100 + 13*int64(n)
}

// sampleStride: the sample enumerates every sampleStride-th root.
const sampleStride = 32

// Choice is how Engine answered a count-mode request of a counted shape.
type Choice struct {
	Cell    Cell
	Counted bool
	// Reason says why, with the rule's figures.
	Reason string
	// Projected is the counting run's projected cost in steps (0: not
	// projected); Budget the request's share of it, the break-even for
	// its enumeration; Sample the sample's steps (with SampleDone false:
	// it ran past Budget/sampleStride); Steps the enumeration's, sample
	// included, when it enumerated.
	Projected, Budget, Sample, Steps int64
	SampleDone                       bool
}

// String is the line `mine --explain` prints.
func (c Choice) String() string {
	how := "enumerated"
	if c.Counted {
		how = "counted (motif/count3)"
	}
	return fmt.Sprintf("%s, shape %v: %s", how, c.Cell, c.Reason)
}

// note writes ch to the Explain writer, if any.
func (e *Engine) note(ch Choice) {
	e.mu.Lock()
	to := e.explain
	e.mu.Unlock()
	if to != nil {
		fmt.Fprintf(to, "  %v\n", ch)
	}
}

// projection returns the projected cost of the counting run that req
// would need for cell c, its steps per window edge, and the queries it
// serves (at least 1); zero cost when no sample is worth taking (the
// family has no cost model, or is cached for this state), why saying
// why; for a paw run of a few cells, why says which run it is.
func (e *Engine) projection(w *window.Window, delta int64, req motif.Request, c Cell) (cost, per int64, shares int, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fam := Family(c)
	if e.same(w, delta, req) && (e.cache.fam&fam == fam || fam == Paws && e.cache.pawCells.Has(int(c-Paw))) {
		return 0, 0, 1, "already counted for this window state"
	}
	if e.opts.AlwaysCount {
		return 0, 0, 1, "always counted (Options.AlwaysCount)"
	}
	per = countCost[fam]
	if per == 0 {
		return 0, 0, 1, "its family is always counted (no cost model)"
	}
	if fam == Paws {
		// The run counts c and the expected paws not cached: a few
		// cells take the sparse tables.
		var run PawMask
		run.Set(int(c - Paw))
		run = run.Or(e.expectedPaws[delta])
		if e.same(w, delta, req) {
			run = run.AndNot(e.cache.pawCells)
		}
		if n := run.Len(); n <= pawSparseMaxCells {
			light := pawMaskLight(run)
			per = pawCellsCost(n, light)
			cells := "cells"
			if n == 1 {
				cells = "cell"
			}
			why = fmt.Sprintf("a paw run of %d %s through the sparse tables", n, cells)
			if light {
				why = fmt.Sprintf("a paw run of %d %s, heavy-sided triangles walked on their light sides", n, cells)
			}
		}
	}
	if w.Len() == 0 {
		return 0, 0, 1, "the window is empty"
	}
	shares = max(e.plans[delta][fam], 1)
	if int64(w.Len()) > math.MaxInt64/per {
		return math.MaxInt64, per, shares, why
	}
	return per * int64(w.Len()), per, shares, why
}

// choose decides whether req is counted and, when it enumerates, returns
// the enumeration's result.
func (e *Engine) choose(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request, c Cell) (Choice, motif.Result, error) {
	ch := Choice{Cell: c, Counted: true}
	cost, per, shares, why := e.projection(w, Delta(p), req, c)
	if cost == 0 {
		ch.Reason = why
		return ch, motif.Result{}, nil
	}
	ch.Projected, ch.Budget = cost, cost/int64(shares)
	projected := fmt.Sprintf("counting projected at %d steps (%d a window edge × %d edges", cost, per, w.Len())
	if why != "" {
		projected += ": " + why
	}
	if shares > 1 {
		projected += fmt.Sprintf(", shared by %d queries: %d each", shares, ch.Budget)
	}
	projected += ")"
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	sample, rest := sampleMasks(req, lo, hi)
	sreq := motif.Request{Range: motif.Range{Lo: lo, Hi: hi}, Horizon: req.Horizon, RootMask: sample,
		Budget: max(ch.Budget/sampleStride, 1), Deadline: req.Deadline}
	rs, err := e.next.Mine(ctx, w, p, sreq)
	if err != nil {
		return ch, rs, err
	}
	ch.Sample, ch.SampleDone = rs.Steps, !rs.Truncated
	if rs.Truncated {
		ch.Reason = fmt.Sprintf("enumerating 1/%d of the roots ran past its budget of %d steps; %s", sampleStride, sreq.Budget, projected)
		return ch, motif.Result{}, nil
	}
	if est := rs.Steps * sampleStride; est > ch.Budget {
		ch.Reason = fmt.Sprintf("1/%d of the roots took %d steps: %d projected, above %s", sampleStride, rs.Steps, est, projected)
		return ch, motif.Result{}, nil
	}
	rreq := motif.Request{Range: motif.Range{Lo: lo, Hi: hi}, Horizon: req.Horizon, RootMask: rest,
		Budget: 2 * ch.Budget, Deadline: req.Deadline, Progress: req.Progress, Found: req.Found}
	if req.Budget > 0 {
		rreq.Budget = min(rreq.Budget, max(req.Budget-rs.Steps, 1))
	}
	rr, err := e.next.Mine(ctx, w, p, rreq)
	if err != nil {
		return ch, rr, err
	}
	if rr.Truncated {
		ch.Reason = fmt.Sprintf("1/%d of the roots took %d steps, but the rest ran past %d steps; %s", sampleStride, rs.Steps, rreq.Budget, projected)
		return ch, motif.Result{}, nil
	}
	if req.Found != nil {
		req.Found.Add(rs.Matches)
	}
	rr.Add(rs)
	ch.Counted, ch.Steps = false, rr.Steps
	ch.Reason = fmt.Sprintf("1/%d of the roots took %d steps, %d projected, the whole enumeration %d, below %s", sampleStride, rs.Steps, rs.Steps*sampleStride, rr.Steps, projected)
	return ch, rr, nil
}

// sampleMasks returns the root masks over [lo, hi) of the sample (every
// sampleStride-th position) and of the rest, each within req's own mask.
func sampleMasks(req motif.Request, lo, hi int64) (sample, rest []bool) {
	n := max(hi-lo, 0)
	sample, rest = make([]bool, n), make([]bool, n)
	for i := range n {
		in := req.RootMask == nil || req.RootMask[lo+i-req.Range.Lo]
		s := (lo+i)%sampleStride == 0
		sample[i], rest[i] = in && s, in && !s
	}
	return sample, rest
}
