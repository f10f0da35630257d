package gpu

import "github.com/motifwatch/motifwatch/motif"

// order returns the plan the kernel mines for p: p itself, or p with its
// steps reordered (motif.Plan.Reordered) so that fewer of them search for
// the end of their run. A step's candidates end before the graph edge of
// its Next motif edge; when the step scans a list of one of that edge's
// endpoints, the kernel reads the run's end from the edge's precomputed
// rank in that list (S_NEXTFROM, S_NEXTTO, RK_*) instead of a binary
// search over the whole list: on a hub's list of millions of edges, a
// chain of ~20 dependent loads per partial match, which the latency-bound
// walk pays in full. A step is unanchored when its list's node is not an
// endpoint of its Next edge (a closing step: when neither of its
// endpoints is, whichever list it scans). motif's order (latest edge
// first) can leave a step unanchored where another order has none: M7
// (1->2, 1->3, 4->2, 4->3) maps 4->2 then 1->3, whose in-list of 3 ends
// before 4->2, an edge not at 3; mapping 1->3, 1->2, 4->2 anchors every
// step (tg10m, delta 3600: 29.3 -> 25.9 ms on an H100, BENCHMARKS.md).
// The orders considered keep motif's two structural rules (a closing
// edge is taken as soon as one closes, dangling edges come last), and
// motif's own order is kept unless another has strictly fewer unanchored
// steps (on ties it measured as fast or faster: M10's and M13's orders
// anchor every step already, and their other anchored orders were 8-33%
// slower there).
func order(p *motif.Plan) *motif.Plan {
	k := p.K()
	if k < 3 || k > maxK {
		return p
	}
	cur := make([]int, 0, k)
	for _, st := range p.Steps {
		cur = append(cur, st.Edge)
	}
	best, bestScore := cur, unanchored(p.Query, cur)
	if bestScore == 0 {
		return p
	}
	q := p.Query
	matched := make([]bool, k)
	mapped := make([]int, len(q.Nodes)) // how many matched edges touch each node
	walk := []int{k - 1}
	matched[k-1] = true
	mapped[q.Edges[k-1].From]++
	mapped[q.Edges[k-1].To]++
	var try func()
	try = func() {
		if len(walk) == k {
			if s := unanchored(q, walk); s < bestScore {
				best, bestScore = append([]int(nil), walk...), s
			}
			return
		}
		closing, open, dangling := []int{}, []int{}, []int{}
		for e := k - 1; e >= 0; e-- {
			if matched[e] {
				continue
			}
			f, t := mapped[q.Edges[e].From] > 0, mapped[q.Edges[e].To] > 0
			switch {
			case f && t:
				closing = append(closing, e)
			case f || t:
				n := q.Edges[e].From
				if f {
					n = q.Edges[e].To
				}
				if onOther(q, n, e, matched) {
					open = append(open, e)
				} else {
					dangling = append(dangling, e)
				}
			}
		}
		next := closing
		if len(next) == 0 {
			next = open
		}
		if len(next) == 0 {
			next = dangling
		}
		for _, e := range next {
			matched[e] = true
			mapped[q.Edges[e].From]++
			mapped[q.Edges[e].To]++
			walk = append(walk, e)
			try()
			walk = walk[:len(walk)-1]
			mapped[q.Edges[e].From]--
			mapped[q.Edges[e].To]--
			matched[e] = false
		}
	}
	try()
	if bestScore == unanchored(q, cur) {
		return p
	}
	r, err := p.Reordered(best)
	if err != nil {
		return p // not reached: try walks valid orders only
	}
	return r
}

// unanchored counts the steps of the edge order edges (root first) whose
// run's end the kernel must search for (order).
func unanchored(q *motif.Query, edges []int) int {
	k := len(q.Edges)
	matched := make([]bool, k)
	mapped := make([]bool, len(q.Nodes))
	n := 0
	for i, e := range edges {
		me := q.Edges[e]
		if i > 0 {
			next := -1
			for x := e + 1; x < k; x++ {
				if matched[x] {
					next = x
					break
				}
			}
			ne := q.Edges[next] // the root, the last edge, is matched
			at := func(v int) bool { return v == ne.From || v == ne.To }
			f, t := mapped[me.From], mapped[me.To]
			switch {
			case f && t:
				if !at(me.From) && !at(me.To) {
					n++
				}
			case f:
				if !at(me.From) {
					n++
				}
			default:
				if !at(me.To) {
					n++
				}
			}
		}
		matched[e] = true
		mapped[me.From], mapped[me.To] = true, true
	}
	return n
}

// onOther reports whether node v is an endpoint of an unmatched motif edge
// other than skip.
func onOther(q *motif.Query, v, skip int, matched []bool) bool {
	for e, me := range q.Edges {
		if e != skip && !matched[e] && (me.From == v || me.To == v) {
			return true
		}
	}
	return false
}
