package motif

import (
	"fmt"
	"strings"

	"github.com/motifwatch/motifwatch/window"
)

// NoLimit marks an absent per-hop or anti-edge time limit in a Plan.
const NoLimit int64 = -1

// Bind says which endpoints of a step's motif edge are already mapped
// when the step runs, and so where its candidates come from.
type Bind uint8

const (
	// BindRoot: the first step; candidates are the root edges of the range.
	BindRoot Bind = iota
	// BindFrom: From is mapped; scan From's out-edges, To becomes mapped.
	BindFrom
	// BindTo: To is mapped; scan To's in-edges, From becomes mapped.
	BindTo
	// BindBoth: both mapped; scan the shorter of From's out-edges and To's
	// in-edges for edges between the two.
	BindBoth
)

var bindText = [...]string{"root", "out-edges of from", "in-edges of to", "edges between from and to"}

func (b Bind) String() string { return bindText[b] }

// Step is one level of the backtracking search.
type Step struct {
	// Edge is the motif edge (temporal index) this step matches.
	Edge     int
	From, To int
	Bind     Bind
	// Prev and Next are the nearest motif edges before and after Edge in
	// temporal order that earlier steps matched (-1 when none). A candidate
	// must lie strictly between their graph edges in (t, seq) order.
	Prev, Next int
	// HopPrev bounds t − t[Edge−1] when Prev == Edge−1, and HopNext bounds
	// t[Edge+1] − t when Next == Edge+1 (NoLimit otherwise).
	HopPrev, HopNext int64
	// Preds and Antis index Plan.Preds and Plan.Antis: the checks that
	// become decidable once this step has bound its edge.
	Preds []int
	Antis []int
}

// PlanAnti is a compiled anti-edge.
type PlanAnti struct {
	From, To, After int
	// Within bounds the interval after edge After (NoLimit: only Delta).
	Within int64
}

// PlanPred is a compiled predicate: attribute names resolved to columns,
// string literals to codes.
type PlanPred struct {
	Left, Right planOperand
	Op          CmpOp
	Source      *Predicate
}

type planOperand struct {
	kind  OperandKind
	index int  // motif edge or node
	col   int  // attribute column
	str   bool // string-kind value (codes)
	val   float64
	list  []float64
}

// Plan is a query compiled against a window's schema: the matching order
// and every check placed at the earliest step that can decide it.
// Plans are immutable and safe for concurrent use by many miners.
type Plan struct {
	Query *Query
	// Delta is the motif window in timestamp ticks.
	Delta int64
	// Hop[i] bounds t_i − t_{i−1} in ticks (NoLimit when absent; Hop[0] unused).
	Hop   []int64
	Steps []Step
	Antis []PlanAnti
	Preds []PlanPred
	// NodeOrder lists motif nodes in the order the steps map them.
	NodeOrder []int
}

// K returns the number of motif edges.
func (p *Plan) K() int { return len(p.Query.Edges) }

// N returns the number of motif nodes.
func (p *Plan) N() int { return len(p.Query.Nodes) }

// Compile validates q and compiles it against w's schema (attribute
// names, string dictionary, time unit). String literals are interned into
// w's dictionary so values that arrive later still compare equal.
func Compile(q *Query, w *window.Window) (*Plan, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	unit := w.Schema().TimeUnit
	p := &Plan{Query: q}
	var err error
	if p.Delta, err = q.Delta.ToTicks(unit); err != nil {
		return nil, fmt.Errorf("query %q: delta %v: %w", q.Name, q.Delta, err)
	}
	k := len(q.Edges)
	p.Hop = make([]int64, k)
	for i := range q.Edges {
		p.Hop[i] = NoLimit
		if q.Edges[i].Within != nil && i > 0 {
			if p.Hop[i], err = q.Edges[i].Within.ToTicks(unit); err != nil {
				return nil, fmt.Errorf("query %q: edges[%d].within %v: %w", q.Name, i, *q.Edges[i].Within, err)
			}
			if p.Hop[i] > p.Delta {
				return nil, fmt.Errorf("query %q: edges[%d].within: gap %d (%v) exceeds delta (%v)", q.Name, i, i, q.Edges[i].Within, q.Delta)
			}
		}
	}
	for i, a := range q.AntiEdges {
		pa := PlanAnti{From: a.From, To: a.To, After: a.After, Within: NoLimit}
		switch {
		case a.Within != nil:
			if pa.Within, err = a.Within.ToTicks(unit); err != nil {
				return nil, fmt.Errorf("query %q: not[%d].within %v: %w", q.Name, i, *a.Within, err)
			}
		case a.After+1 < k:
			pa.Within = p.Hop[a.After+1]
		}
		p.Antis = append(p.Antis, pa)
	}
	for i := range q.Where {
		pp, err := compilePred(&q.Where[i], w)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Name, err)
		}
		p.Preds = append(p.Preds, pp)
	}
	p.order()
	return p, nil
}

// order chooses the matching order. The last motif edge is the root, so
// the search is anchored on the edges of the range being mined (streaming
// mines only matches that end in the new batch). Each next step is an
// unmatched edge that touches a mapped node: a closing edge (both ends
// mapped, a cheap filter) first, otherwise the temporally latest one that
// is not dangling (which keeps the candidate position range tight), and
// dangling edges last.
func (p *Plan) order() {
	q := p.Query
	k := len(q.Edges)
	matched := make([]bool, k)
	mapped := make([]bool, len(q.Nodes))
	edges := make([]int, 0, k)
	for len(edges) < k {
		pick := -1
		if len(edges) == 0 {
			pick = k - 1
		} else {
			dangling := false
			for e := k - 1; e >= 0; e-- {
				if matched[e] {
					continue
				}
				f, t := mapped[q.Edges[e].From], mapped[q.Edges[e].To]
				if f && t {
					pick = e
					break
				}
				if !f && !t {
					continue
				}
				// A dangling edge (its new node is on no other unmatched
				// edge) constrains nothing after it: keep it for last, where
				// count mode tallies it instead of visiting its candidates.
				newNode := q.Edges[e].To
				if t {
					newNode = q.Edges[e].From
				}
				d := !p.onOtherEdge(newNode, e, matched)
				if pick < 0 || (dangling && !d) {
					pick, dangling = e, d
				}
			}
		}
		matched[pick] = true
		mapped[q.Edges[pick].From], mapped[q.Edges[pick].To] = true, true
		edges = append(edges, pick)
	}
	p.build(edges)
}

// Reordered returns a copy of p whose steps match the motif edges in the
// order edges gives (a permutation of the edge indices starting with the
// root, the last edge, each next edge touching a node mapped before it),
// with every check placed at the first step that can decide it. Engines
// whose cost differs from the CPU's by step kind use it to pick their own
// order; the matches are the same in any order.
func (p *Plan) Reordered(edges []int) (*Plan, error) {
	q := p.Query
	k := len(q.Edges)
	if len(edges) != k || edges[0] != k-1 {
		return nil, fmt.Errorf("query %q: order %v: want %d edges starting with the root %d", q.Name, edges, k, k-1)
	}
	seen := make([]bool, k)
	mapped := make([]bool, len(q.Nodes))
	for i, e := range edges {
		if e < 0 || e >= k || seen[e] {
			return nil, fmt.Errorf("query %q: order %v: edge %d repeated or out of range", q.Name, edges, e)
		}
		f, t := q.Edges[e].From, q.Edges[e].To
		if i > 0 && !mapped[f] && !mapped[t] {
			return nil, fmt.Errorf("query %q: order %v: edge %d touches no node mapped before it", q.Name, edges, e)
		}
		seen[e], mapped[f], mapped[t] = true, true, true
	}
	r := &Plan{Query: q, Delta: p.Delta, Hop: p.Hop, Antis: p.Antis, Preds: p.Preds}
	r.build(edges)
	return r, nil
}

// build lays the steps out in the order edges gives (valid: order,
// Reordered) and places each check at the first step after which it is
// decidable.
func (p *Plan) build(edges []int) {
	q := p.Query
	k := len(q.Edges)
	matched := make([]bool, k)
	mapped := make([]bool, len(q.Nodes))
	for _, pick := range edges {
		bind := BindRoot
		if len(p.Steps) > 0 {
			f, t := mapped[q.Edges[pick].From], mapped[q.Edges[pick].To]
			switch {
			case f && t:
				bind = BindBoth
			case f:
				bind = BindFrom
			default:
				bind = BindTo
			}
		}
		s := Step{Edge: pick, From: q.Edges[pick].From, To: q.Edges[pick].To, Bind: bind, Prev: -1, Next: -1, HopPrev: NoLimit, HopNext: NoLimit}
		for e := pick - 1; e >= 0; e-- {
			if matched[e] {
				s.Prev = e
				break
			}
		}
		for e := pick + 1; e < k; e++ {
			if matched[e] {
				s.Next = e
				break
			}
		}
		if s.Prev == pick-1 && s.Prev >= 0 {
			s.HopPrev = p.Hop[pick]
		}
		if s.Next == pick+1 {
			s.HopNext = p.Hop[pick+1]
		}
		matched[pick] = true
		for _, n := range [2]int{s.From, s.To} {
			if !mapped[n] {
				mapped[n] = true
				p.NodeOrder = append(p.NodeOrder, n)
			}
		}
		p.Steps = append(p.Steps, s)
	}
	// Place each check at the first step after which it is decidable.
	stepOf := make([]int, k)
	for i, s := range p.Steps {
		stepOf[s.Edge] = i
	}
	first := make([]int, len(q.Nodes)) // the first step mapping each node
	for n := range first {
		first[n] = k
	}
	for i, s := range p.Steps {
		first[s.From] = min(first[s.From], i)
		first[s.To] = min(first[s.To], i)
	}
	for pi := range p.Preds {
		at := 0
		for _, o := range [2]*planOperand{&p.Preds[pi].Left, &p.Preds[pi].Right} {
			switch o.kind {
			case EdgeAttr:
				at = max(at, stepOf[o.index])
			case NodeAttr:
				at = max(at, first[o.index])
			}
		}
		p.Steps[at].Preds = append(p.Steps[at].Preds, pi)
	}
	for ai, a := range p.Antis {
		at := max(stepOf[0], stepOf[a.After], first[a.From], first[a.To])
		p.Steps[at].Antis = append(p.Steps[at].Antis, ai)
	}
}

// onOtherEdge reports whether node n is an endpoint of an unmatched motif
// edge other than skip.
func (p *Plan) onOtherEdge(n, skip int, matched []bool) bool {
	for e, me := range p.Query.Edges {
		if e != skip && !matched[e] && (me.From == n || me.To == n) {
			return true
		}
	}
	return false
}

func compilePred(pr *Predicate, w *window.Window) (PlanPred, error) {
	pp := PlanPred{Op: pr.Op, Source: pr}
	var err error
	if pp.Left, err = compileOperand(pr, &pr.Left, w); err != nil {
		return pp, err
	}
	if pp.Right, err = compileOperand(pr, &pr.Right, w); err != nil {
		return pp, err
	}
	l, r := pp.Left, pp.Right
	if l.kind == Literal && r.kind != Literal && r.kind != List {
		// keep references on the left: literal op ref  →  ref op' literal
		pp.Left, pp.Right = r, l
		pp.Op = flipCmp(pp.Op)
		l, r = pp.Left, pp.Right
	}
	if l.str != r.str {
		return pp, fmt.Errorf("%s: %q compares a %s with a %s", pr.Field, pr.Text, kindName(l.str), kindName(r.str))
	}
	if l.str && pp.Op != OpEq && pp.Op != OpNe && pp.Op != OpIn && pp.Op != OpNotIn {
		return pp, fmt.Errorf("%s: %q orders strings; only ==, !=, in and not in apply to strings", pr.Field, pr.Text)
	}
	return pp, nil
}

func kindName(str bool) string {
	if str {
		return "string"
	}
	return "number"
}

func compileOperand(pr *Predicate, o *Operand, w *window.Window) (planOperand, error) {
	po := planOperand{kind: o.Kind, index: o.Index}
	s := w.Schema()
	switch o.Kind {
	case Literal:
		po.str = o.IsStr
		if o.IsStr {
			po.val = float64(w.Strings().Intern(o.Str))
		} else {
			po.val = o.Num
		}
	case List:
		for i, it := range o.List {
			if i == 0 {
				po.str = it.IsStr
			} else if it.IsStr != po.str {
				return po, fmt.Errorf("%s: %q mixes strings and numbers in a list", pr.Field, pr.Text)
			}
			if it.IsStr {
				po.list = append(po.list, float64(w.Strings().Intern(it.Str)))
			} else {
				po.list = append(po.list, it.Num)
			}
		}
	case EdgeAttr:
		col, kind, ok := s.EdgeAttr(o.Attr)
		if !ok {
			return po, fmt.Errorf("%s: %q: the graph has no edge attribute %q (it has: %s)", pr.Field, pr.Text, o.Attr, attrNames(s.EdgeAttrs))
		}
		po.col, po.str = col, kind == window.String
	case NodeAttr:
		col, kind, ok := s.NodeAttr(o.Attr)
		if !ok {
			return po, fmt.Errorf("%s: %q: the graph has no node attribute %q (it has: %s)", pr.Field, pr.Text, o.Attr, attrNames(s.NodeAttrs))
		}
		po.col, po.str = col, kind == window.String
	}
	return po, nil
}

func attrNames(as []window.Attr) string {
	if len(as) == 0 {
		return "none"
	}
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// String renders the plan for `monitor mine --explain` and for tests.
func (p *Plan) String() string {
	var b strings.Builder
	q := p.Query
	fmt.Fprintf(&b, "plan %s: %d edges, %d nodes, delta %d ticks\n", q.Name, p.K(), p.N(), p.Delta)
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "  step %d: edge %d %s->%s via %s", i, s.Edge+1, q.Nodes[s.From].Name, q.Nodes[s.To].Name, s.Bind)
		if s.Prev >= 0 {
			fmt.Fprintf(&b, ", after edge %d", s.Prev+1)
		}
		if s.Next >= 0 {
			fmt.Fprintf(&b, ", before edge %d", s.Next+1)
		}
		if s.HopPrev != NoLimit {
			fmt.Fprintf(&b, ", within %d of edge %d", s.HopPrev, s.Edge)
		}
		if s.HopNext != NoLimit {
			fmt.Fprintf(&b, ", within %d before edge %d", s.HopNext, s.Edge+2)
		}
		for _, pi := range s.Preds {
			fmt.Fprintf(&b, ", check %q", p.Preds[pi].Source.Text)
		}
		for _, ai := range s.Antis {
			a := p.Antis[ai]
			fmt.Fprintf(&b, ", no %s->%s after edge %d", q.Nodes[a.From].Name, q.Nodes[a.To].Name, a.After+1)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
