package gpu

import (
	"fmt"

	"github.com/motifwatch/motifwatch/motif"
)

// The kernels read a compiled plan from constant memory as int64 slots
// (P) and float64 literals (PF). The offsets below mirror the #defines of
// kernels/temporal.cu; TestPlanLayoutMatchesKernel checks them against the
// source so the two cannot drift apart.
const (
	maxK    = 8
	maxN    = 9
	maxPred = 16
	maxAnti = 8
	maxList = 96
	pfList  = 32
	pfSize  = 128
	// maxQueries plans fit in constant memory side by side (MAXQ): one
	// launch mines up to this many queries (Engine.MineBatch).
	maxQueries = 16
	stepSize   = 16
	predSize   = 10
	antiSize   = 4

	pK     = 0
	pN     = 1
	pDelta = 2
	pTally = 3
	// pRankPick: tuning.RankPick (0: never); slot 5 is unused (the
	// kernel's layout says why). pGallop: 1 unless tuning.NoGallop.
	pRankPick = 4
	pGallop   = 6
	// pExpand: see tuning.ExpandRun; pSplitTail: tuning.SplitTail;
	// pSplitRun: tuning.SplitRun; pGuide: tuning.RootGuide (0: never,
	// all four).
	pExpand    = 7
	pSteps     = 8
	pPreds     = pSteps + stepSize*maxK
	pAntis     = pPreds + predSize*maxPred
	pNodes     = pAntis + antiSize*maxAnti
	pSplitTail = pNodes + 16
	pSplitRun  = pSplitTail + 1
	pGuide     = pSplitTail + 2
	// pClose: the closing-edge pruning (closePrune); pcEdge… its slots.
	pClose = pSplitTail + 3
	// pCompact: 1 unless tuning.NoCompact.
	pCompact = pSplitTail + 9
	// pClaim: tuning.RootClaim.
	pClaim = pSplitTail + 10
	// pExpand2: tuning.Expand2Run where expand2 applies (expands2), else 0.
	pExpand2 = pSplitTail + 11
	// pPreScan: tuning.PreScan (0: never).
	pPreScan = pSplitTail + 12
	planLen  = pSplitTail + 13

	pcEdge, pcNode, pcSel, pcPrev, pcNext, pcRank = 0, 1, 2, 3, 4, 5

	sEdge, sFrom, sTo, sBind, sPrev, sNext, sHopPrev, sHopNext = 0, 1, 2, 3, 4, 5, 6, 7
	sPredMask, sAntiMask, sNewNode, sNMapped                   = 8, 9, 10, 11
	sNextFrom, sNextTo                                         = 12, 13
	sClose                                                     = 14
	// sPrevNodes: the anchor builds' slot (layoutAnchor).
	sPrevNodes = 15

	prOp, prLKind, prLIndex, prLCol, prRKind, prRIndex, prRCol, prListOff, prListLen = 0, 1, 2, 3, 4, 5, 6, 7, 8
)

// Operand kinds as the kernel numbers them.
const (
	opkLit, opkList, opkEdge, opkNode = 0, 1, 2, 3
)

// ErrUnsupported wraps the reason a plan cannot run on the GPU engine
// (too many edges, nodes, predicates or anti-edges for the kernel's fixed
// per-warp state). Callers fall back to the CPU engine.
type ErrUnsupported struct{ Query, Reason string }

func (e *ErrUnsupported) Error() string {
	return fmt.Sprintf("gpu: query %q cannot run on the GPU engine: %s", e.Query, e.Reason)
}

// encodedPlan is a plan in the kernel's constant-memory layout.
type encodedPlan struct {
	P  [planLen]int64
	PF [pfSize]float64
	K  int
	// anchor: its one-query launches run an anchor build (anchorPays).
	anchor bool
	// prescan: its plain one-query launches run the prescan's build
	// (prescans).
	prescan bool
}

// encodePlan lays p out for the kernel. tally says the last step may be
// counted without visiting its candidates (count mode and no check at the
// last step), exactly as the CPU engine decides.
func encodePlan(p *motif.Plan, count bool) (*encodedPlan, error) {
	return encodePlanPruning(p, count, false)
}

// encodePlanPruning is encodePlan with closePrune's choice of closing
// edge: rootFirst prefers one anchored at the root (tuning.ClosePruneRoot).
func encodePlanPruning(p *motif.Plan, count, rootFirst bool) (*encodedPlan, error) {
	q := p.Query
	k, n := p.K(), p.N()
	unsupported := func(format string, a ...any) error {
		return &ErrUnsupported{Query: q.Name, Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case k > maxK:
		return nil, unsupported("%d edges (the kernel holds at most %d)", k, maxK)
	case n > maxN:
		return nil, unsupported("%d nodes (at most %d)", n, maxN)
	case len(p.Preds) > maxPred:
		return nil, unsupported("%d predicates (at most %d)", len(p.Preds), maxPred)
	case len(p.Antis) > maxAnti:
		return nil, unsupported("%d anti-edges (at most %d)", len(p.Antis), maxAnti)
	}
	e := &encodedPlan{K: k}
	e.P[pK], e.P[pN], e.P[pDelta] = int64(k), int64(n), p.Delta
	last := p.Steps[k-1]
	if count && k > 1 && len(last.Preds) == 0 && len(last.Antis) == 0 {
		e.P[pTally] = 1
	}
	mapped := make([]bool, n)
	nMapped := 0
	for d, st := range p.Steps {
		b := pSteps + d*stepSize
		e.P[b+sEdge], e.P[b+sFrom], e.P[b+sTo] = int64(st.Edge), int64(st.From), int64(st.To)
		e.P[b+sBind], e.P[b+sPrev], e.P[b+sNext] = int64(st.Bind), int64(st.Prev), int64(st.Next)
		e.P[b+sHopPrev], e.P[b+sHopNext] = st.HopPrev, st.HopNext
		// The endpoints of the next edge in time: when the step's list
		// belongs to one of them, the run's end is that edge's rank there.
		e.P[b+sNextFrom], e.P[b+sNextTo] = -1, -1
		if st.Next >= 0 && st.Next < len(q.Edges) {
			e.P[b+sNextFrom], e.P[b+sNextTo] = int64(q.Edges[st.Next].From), int64(q.Edges[st.Next].To)
		}
		for _, pi := range st.Preds {
			e.P[b+sPredMask] |= 1 << pi
		}
		for _, ai := range st.Antis {
			e.P[b+sAntiMask] |= 1 << ai
		}
		e.P[b+sNMapped] = int64(nMapped)
		e.P[b+sNewNode] = -1
		for _, v := range [2]int{st.From, st.To} {
			if !mapped[v] {
				mapped[v] = true
				nMapped++
				if d > 0 {
					e.P[b+sNewNode] = int64(v)
				}
			}
		}
	}
	for i, v := range p.NodeOrder {
		e.P[pNodes+i] = int64(v)
	}
	closePrune(p, e, rootFirst)
	listAt := 0
	for i := range p.Preds {
		pp := &p.Preds[i]
		l, r := pp.Operands()
		b := pPreds + i*predSize
		e.P[b+prOp] = int64(pp.Op)
		e.P[b+prLKind], e.P[b+prLIndex], e.P[b+prLCol] = kernelKind(l.Kind), int64(l.Index), int64(l.Col)
		e.P[b+prRKind], e.P[b+prRIndex], e.P[b+prRCol] = kernelKind(r.Kind), int64(r.Index), int64(r.Col)
		e.PF[2*i], e.PF[2*i+1] = l.Value, r.Value
		if r.Kind == motif.List {
			if listAt+len(r.List) > maxList {
				return nil, unsupported("predicate lists hold %d values in all (at most %d)", listAt+len(r.List), maxList)
			}
			e.P[b+prListOff], e.P[b+prListLen] = int64(listAt), int64(len(r.List))
			copy(e.PF[pfList+listAt:], r.List)
			listAt += len(r.List)
		}
	}
	for i, a := range p.Antis {
		b := pAntis + i*antiSize
		e.P[b], e.P[b+1], e.P[b+2], e.P[b+3] = int64(a.From), int64(a.To), int64(a.After), a.Within
	}
	layoutAnchor(p, e)
	return e, nil
}

// Codes of a step's sClose slot (kernels/temporal.cu, S_CLOSE).
const (
	closeNone   = 0
	closeAnchor = 1 // the step maps the anchor: find its run of possible closing edges
	closeAfter  = 2 // the step's edge is after the closing edge: the run's first entry must precede it
	closeBefore = 3 // before it: the run's last entry must follow it
)

// List ranks as the kernel numbers them (RK_*): entries of a list before
// an edge u->v.
const (
	rkOutSrc, rkInDst, rkInSrc, rkOutDst = 0, 1, 2, 3
)

// closePrune lays out the closing-edge pruning: of the plan's closing
// steps (both endpoints mapped) whose first-mapped endpoint (the anchor)
// was mapped two or more steps before, the one whose anchor was mapped
// longest before it; with rootFirst, one whose anchor is an endpoint of
// the root with the closing edge in its other list where there is one
// (M10's triangle edge 3->1 rather than its later 1->2: encodeLight). The
// anchor's step finds, per candidate, the anchor's edges that could still
// be that closing edge (in the list the closing edge lies in, between the
// matched edges around it, not before the root's time less delta); each
// step between drops a candidate that leaves none of them on the right
// side of its own edge. A necessary condition only (hop limits,
// injectivity and the other endpoint are left to the closing step), so
// counts do not change; the partial matches that cannot close are cut
// levels before the closing step (M11 on a 10M-edge graph: 3.4x fewer
// last-step searches, BENCHMARKS.md). Without such a step, pcEdge is -1.
func closePrune(p *motif.Plan, e *encodedPlan, rootFirst bool) {
	q := p.Query
	e.P[pClose+pcEdge] = -1
	first := make([]int, p.N())
	for i := range first {
		first[i] = len(p.Steps)
	}
	for i, st := range p.Steps {
		first[st.From] = min(first[st.From], i)
		first[st.To] = min(first[st.To], i)
	}
	// anchorOf: the closing edge's first-mapped endpoint, and which of its
	// lists (0 out, 1 in) holds the closing edge.
	anchorOf := func(ce int) (int, int64) {
		if first[q.Edges[ce].To] < first[q.Edges[ce].From] {
			return q.Edges[ce].To, 1
		}
		return q.Edges[ce].From, 0
	}
	root := q.Edges[p.Steps[0].Edge]
	sc, sa, scPays := -1, -1, false
	for i, st := range p.Steps {
		if st.Bind != motif.BindBoth {
			continue
		}
		a := min(first[st.From], first[st.To])
		if i-a < 2 {
			continue
		}
		anchor, sel := anchorOf(st.Edge)
		pays := rootFirst && a == 0 && rootOtherList(root, anchor, sel)
		if sc < 0 || (pays && !scPays) || (pays == scPays && i-a > sc-sa) {
			sc, sa, scPays = i, a, pays
		}
	}
	if sc < 0 {
		return
	}
	ce := p.Steps[sc].Edge
	anchor, sel := anchorOf(ce)
	prev, next := -1, len(q.Edges)
	for _, st := range p.Steps[:sa+1] {
		if st.Edge < ce {
			prev = max(prev, st.Edge)
		} else {
			next = min(next, st.Edge)
		}
	}
	rank := int64(-1)
	nf, nt := q.Edges[next].From, q.Edges[next].To
	switch {
	case sel == 0 && anchor == nf:
		rank = rkOutSrc
	case sel == 0 && anchor == nt:
		rank = rkOutDst
	case sel == 1 && anchor == nt:
		rank = rkInDst
	case sel == 1 && anchor == nf:
		rank = rkInSrc
	}
	e.P[pClose+pcEdge], e.P[pClose+pcNode], e.P[pClose+pcSel] = int64(ce), int64(anchor), sel
	e.P[pClose+pcPrev], e.P[pClose+pcNext], e.P[pClose+pcRank] = int64(prev), int64(next), rank
	e.P[pSteps+sa*stepSize+sClose] = closeAnchor
	for d := sa + 1; d < sc; d++ {
		code := int64(closeBefore)
		if p.Steps[d].Edge > ce {
			code = closeAfter
		}
		e.P[pSteps+d*stepSize+sClose] = code
	}
}

// closePays reports whether the closing-edge pruning that closePrune laid
// out for p pays for its kernel build (the …p kernels: the pruning's and
// the gathering's code slow the plans mined with them by a tenth or more
// where they cut nothing). It does when the anchor is an endpoint of the
// root (the anchor's run is found once per root, not once per candidate of
// a step that fans out) and the closing edge lies in the anchor's other
// list than the root's (the anchor received the root and the closing edge
// leaves it, or the reverse): the run is then often empty. Where the anchor
// is mapped later (M7, M10: one more search per candidate of its step, as
// many as the pruning saves) or the closing edge shares the root's list
// (M13: the anchor just sent the root and has usually sent another edge
// within delta before it, so few partial matches are cut), the plain build
// is faster: on tg10m, delta 3600 (BENCHMARKS.md, "Closing-edge pruning")
// the pruning cut M3, M4, M9, M11 and M12 by 22-58% on the same build and
// M7, M13 by 3-6%; M10 lost 4%.
func closePays(p *motif.Plan, e *encodedPlan) bool {
	if e.P[pClose+pcEdge] < 0 || e.P[pSteps+sClose] != closeAnchor {
		return false // no pruning, or the anchor is mapped after the root
	}
	root := p.Query.Edges[p.Steps[0].Edge]
	return rootOtherList(root, int(e.P[pClose+pcNode]), e.P[pClose+pcSel])
}

// rootOtherList: the anchor is an endpoint of the root and the closing
// edge lies in its other list than the root's (sel: 0 out, 1 in).
func rootOtherList(root motif.Edge, anchor int, sel int64) bool {
	return (anchor == root.To && sel == 0) || (anchor == root.From && sel == 1)
}

// pruned: the plan has the closing-edge pruning laid out (its launches run
// a kernel build with it, mineKernel).
func (e *encodedPlan) pruned() bool { return e.P[pClose+pcEdge] >= 0 }

// noClosePrune turns the closing-edge pruning off (tuning.NoClosePrune).
func (e *encodedPlan) noClosePrune() {
	e.P[pClose+pcEdge] = -1
	for d := 0; d < e.K; d++ {
		e.P[pSteps+d*stepSize+sClose] = closeNone
	}
}

func kernelKind(k motif.OperandKind) int64 {
	switch k {
	case motif.List:
		return opkList
	case motif.EdgeAttr:
		return opkEdge
	case motif.NodeAttr:
		return opkNode
	}
	return opkLit
}

// encode lays p out for the kernel with the thresholds o (defaults applied;
// the same option slots in every plan: the kernel reads them from query
// 0's) and keeps the closing-edge pruning only where it pays (closePays),
// or everywhere (ClosePruneAll), or nowhere (NoClosePrune).
func (o tuning) encode(p *motif.Plan, count bool) (*encodedPlan, error) {
	enc, err := encodePlanPruning(p, count, o.ClosePruneRoot)
	if err != nil {
		return nil, err
	}
	enc.P[pGallop] = boolInt(!o.NoGallop)
	enc.P[pExpand], enc.P[pSplitTail] = max(int64(o.ExpandRun), 0), max(int64(o.SplitTail), 0)
	enc.P[pSplitRun], enc.P[pGuide] = max(int64(o.SplitRun), 0), max(int64(o.RootGuide), 0)
	enc.P[pCompact] = boolInt(!o.NoCompact)
	enc.P[pClaim] = int64(o.RootClaim)
	enc.P[pPreScan] = max(int64(o.PreScan), 0)
	enc.P[pRankPick] = max(int64(o.RankPick), 0)
	if o.NoClosePrune || (!o.ClosePruneAll && !closePays(p, enc)) {
		enc.noClosePrune()
	}
	enc.anchor = !o.NoAnchor && !enc.pruned() && (o.AnchorAll || anchorPays(p, enc))
	if o.Expand2Run > 0 && expands2(enc) && (o.Expand2All || expand2Pays(p)) {
		enc.P[pExpand2] = int64(o.Expand2Run)
	}
	enc.prescan = enc.P[pPreScan] > 0 && prescans(p, enc)
	return enc, nil
}

// prescans reports whether the kernel's closing-run prescan (F_PRESCAN,
// tuning.PreScan) has a step of p to act on: a closing step (both
// endpoints mapped) that the walk takes depth-first, one below the step
// above a counted last step (or any, where the last step is not counted).
// Of the built-in motifs only M10's triangle edge 3->1 is one; every other
// plan runs the build without the prescan's code, which cost them 1-4%
// on tg10m where every build had it (BENCHMARKS.md).
func prescans(p *motif.Plan, e *encodedPlan) bool {
	k := p.K()
	for d := 1; d < k; d++ {
		if p.Steps[d].Bind == motif.BindBoth && (d < k-2 || e.P[pTally] == 0) {
			return true
		}
	}
	return false
}

// prescanned: the plan's plain one-query launches run the prescan's build
// (mineKernel).
func (e *encodedPlan) prescanned() bool { return e.prescan }

// expands2 reports whether the kernel's expand2 applies to the plan: its
// last step is counted (count mode, no check there) and it has a step two
// above it that is not the root (four edges or more). expand2 then takes
// that step and the next across a warp's lanes for a chunk's short runs,
// the last counted, instead of binding that step's candidates one at a
// time (kernels/temporal.cu, F_EXP2).
func expands2(e *encodedPlan) bool {
	return e.P[pTally] != 0 && e.K >= 4
}

// expand2Pays reports whether expand2 pays for its kernel build on p
// (where expands2 applies): it does unless the step it expands, two above
// the counted last one, is a closing edge (BindBoth: its run is the few
// edges between two mapped nodes). On tg10m (10M edges, delta 3600, H200,
// BENCHMARKS.md) expand2 cut M3-M9 by 16-23%, M13 by 10%, M11 by 8%, left
// M12 level and cost M10, the one motif whose expanded step closes a
// triangle (3->1), 16%: its few survivors gain little from sharing a warp,
// and the step after, the in-edges of a node, already fills the lanes
// through expand (the step above the last). The window's mean list length
// does not tell CollegeMsg at delta 86400, where expand2 cost M3-M6 and
// M9 10-19%, from tg10m (7.3 edges within delta in the root's source's
// in-list, per root, on both): its size does (60k roots against 10M), so
// small launches run without it (tuning.Expand2Roots).
func expand2Pays(p *motif.Plan) bool {
	k := p.K()
	return k >= 4 && p.Steps[k-3].Bind != motif.BindBoth
}

// checked: a step of the plan has a predicate or an anti-edge (its
// launches run a build with F_CHECKS, checkedKernel).
func (e *encodedPlan) checked() bool {
	for d := 0; d < e.K; d++ {
		b := pSteps + d*stepSize
		if e.P[b+sPredMask] != 0 || e.P[b+sAntiMask] != 0 {
			return true
		}
	}
	return false
}

// expanded2: the plan has expand2 switched on (its launches run a kernel
// build with it, mineKernel).
func (e *encodedPlan) expanded2() bool { return e.P[pExpand2] > 0 }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Supports reports why the GPU engine cannot mine p (an *ErrUnsupported),
// or nil when it can: callers batching plans send the others elsewhere.
func Supports(p *motif.Plan) error {
	_, err := encodePlan(p, true)
	return err
}
