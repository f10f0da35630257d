package gpu

import "github.com/motifwatch/motifwatch/motif"

// The kernel's anchor builds (mine6a, mine6ax: F_ANCHOR in
// kernels/temporal.cu) read two more things per step from S_PREVNODES:
//
//   - the endpoints of the step's previous matched edge (Prev). Where the
//     step's list belongs to one of them, its run starts right after that
//     edge's rank there, so the run's end, when no rank gives it (the list
//     is no endpoint's of the step's Next edge), is galloped to from the
//     start (the log of the run) instead of binary-searched over the whole
//     list (the log of a hub's list: ~20 dependent loads per partial
//     match, which the latency-bound walk pays in full).
//   - which list a counted-or-visited last step that closes the motif
//     scans: the one whose run's ends come from ranks (a list of an
//     endpoint of its Next or Prev edge) where the other one's would be
//     searched for. The other builds scan the shorter list there.
//
// The code costs registers (more stack and spills than the plain build:
// BENCHMARKS.md's ptxas figures), which slowed every plan it cannot help
// when it was in the plain build (docs/GPU.md), so it is a build of its
// own, run only for the plans with a step it anchors (anchorPays).

// Bits of S_PREVNODES above the previous edge's endpoints: a closing
// step's list (kernels/temporal.cu SCAN_OUT, SCAN_IN).
const (
	scanOut = 1 << 8
	scanIn  = 2 << 8
)

// layoutAnchor sets each step's S_PREVNODES slot (read by the anchor
// builds only: the other builds mine the same plan without it).
func layoutAnchor(p *motif.Plan, e *encodedPlan) {
	q := p.Query
	for d, st := range p.Steps {
		var v int64
		if st.Prev >= 0 && st.Prev < len(q.Edges) {
			pe := q.Edges[st.Prev]
			v = int64(pe.From+1) | int64(pe.To+1)<<4
		}
		if d == len(p.Steps)-1 && st.Bind == motif.BindBoth {
			out, in := ranked(p, d, st.From), ranked(p, d, st.To)
			switch {
			case out && !in:
				v |= scanOut
			case in && !out:
				v |= scanIn
			}
		}
		e.P[pSteps+d*stepSize+sPrevNodes] = v
	}
}

// ranked reports whether node v's lists at step d of p have a run end or
// start the kernel reads from a rank: v is an endpoint of the step's Next
// or Prev matched edge.
func ranked(p *motif.Plan, d, v int) bool {
	return endpointOf(p, p.Steps[d].Next, v) || endpointOf(p, p.Steps[d].Prev, v)
}

// anchorPays reports whether the anchor builds pay for their spills on p:
// where p has a step they mine with one whole-list search less per partial
// match than the other builds do. Either a step whose list (the bound
// endpoint's) belongs to an endpoint of its Prev edge but not of its Next
// edge: its run's end is galloped to from the previous edge's rank, not
// searched for over the whole list (M2's last step, out(0) between 0->1
// and 1->3). Or a last step that closes the motif with one of its lists
// ranked and the other not, in a plan with no closing step before it: the
// ranked list is scanned instead of the shorter (M7's 0->1: out(0) ends at
// 0->2, in(1) at no rank). After an earlier closing step few partial
// matches reach the last one (its runs are mostly empty: it drops them),
// so the searches saved there cannot pay for the build: on tg10m M10 (2->0
// closes at step 2, 0->1 last) ran 10% slower on it, the plans it leaves
// unchanged 0-11% (docs/GPU.md). A closing step before the last keeps the
// shorter list (layoutAnchor): an empty run there drops the partial match
// and everything below it before anything binds it, and the shorter list's
// run is far more often empty (M10's 2->0: 0.62 entries against 4.07).
func anchorPays(p *motif.Plan, e *encodedPlan) bool {
	closedBefore := false
	for d, st := range p.Steps {
		if d == 0 {
			continue
		}
		switch st.Bind {
		case motif.BindFrom, motif.BindTo:
			v := st.From
			if st.Bind == motif.BindTo {
				v = st.To
			}
			if endpointOf(p, st.Prev, v) && !endpointOf(p, st.Next, v) {
				return true
			}
		case motif.BindBoth:
			if !closedBefore && e.P[pSteps+d*stepSize+sPrevNodes]&(scanOut|scanIn) != 0 {
				return true
			}
			closedBefore = true
		}
	}
	return false
}

// endpointOf: motif edge e of p (none when negative) has endpoint v.
func endpointOf(p *motif.Plan, e, v int) bool {
	return e >= 0 && e < len(p.Query.Edges) && (p.Query.Edges[e].From == v || p.Query.Edges[e].To == v)
}

// anchored: the plan's one-query launches run an anchor build
// (mineKernel).
func (e *encodedPlan) anchored() bool { return e.anchor }
