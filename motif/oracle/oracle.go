package oracle

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Failure is the set of the definition's conditions that a tuple violates.
type Failure uint16

const (
	FailOrder      Failure = 1 << iota // positions not live or not strictly increasing
	FailSelfLoop                       // a graph edge is a self-loop
	FailConsistent                     // a motif node would map to two graph nodes
	FailInjective                      // two motif nodes map to one graph node
	FailDelta                          // t_k − t_1 > delta
	FailWithin                         // some t_i − t_{i−1} > Edges[i].Within
	FailPredicate                      // some predicate is false
	FailAnti                           // a forbidden edge lies in some anti-edge interval
)

// Verdict is the outcome of checking one tuple of window positions.
type Verdict struct {
	Fail Failure
	// Withins, Preds and Antis index the motif edges, Query.Where and
	// Query.AntiEdges whose condition failed.
	Withins, Preds, Antis []int
	// Open and OpenUntil say whether some anti-edge interval ends after
	// the horizon, and the latest end (set whatever Fail holds).
	Open      bool
	OpenUntil int64
	// Match is the match the tuple makes when Fail is 0.
	Match motif.Match
}

// Oracle checks tuples of one window against one query.
type Oracle struct {
	w      *window.Window
	q      *motif.Query
	delta  int64
	within []*int64 // per motif edge; nil: no limit
	antiW  []*int64 // per anti-edge: its Within, else edge After+1's, else nil
}

// Mine returns every match of q in w whose last edge lies in r; an
// anti-edge interval that ends after horizon makes a valid match Open.
func Mine(w *window.Window, q *motif.Query, r motif.Range, horizon int64) ([]motif.Match, error) {
	o, err := New(w, q)
	if err != nil {
		return nil, err
	}
	return o.Mine(r, horizon), nil
}

// New converts q's spans to w's ticks and checks that its node indices and
// predicates make sense against w's schema.
func New(w *window.Window, q *motif.Query) (*Oracle, error) {
	unit := w.Schema().TimeUnit
	o := &Oracle{w: w, q: q, within: make([]*int64, len(q.Edges))}
	ticks := func(s *motif.Span) (*int64, error) {
		if s == nil {
			return nil, nil
		}
		t, err := s.ToTicks(unit)
		return &t, err
	}
	var err error
	if o.delta, err = q.Delta.ToTicks(unit); err != nil {
		return nil, err
	}
	used := make([]bool, len(q.Nodes))
	for i, e := range q.Edges {
		if e.From < 0 || e.From >= len(q.Nodes) || e.To < 0 || e.To >= len(q.Nodes) || e.From == e.To {
			return nil, fmt.Errorf("oracle: edges[%d] %d->%d: bad nodes", i, e.From, e.To)
		}
		used[e.From], used[e.To] = true, true
		if o.within[i], err = ticks(e.Within); err != nil {
			return nil, err
		}
	}
	if len(q.Edges) == 0 || slices.Contains(used, false) {
		return nil, fmt.Errorf("oracle: a motif node is on no edge")
	}
	for i, a := range q.AntiEdges {
		if a.After < 0 || a.After >= len(q.Edges) || a.From == a.To || min(a.From, a.To) < 0 || max(a.From, a.To) >= len(q.Nodes) {
			return nil, fmt.Errorf("oracle: not[%d]: bad anti-edge", i)
		}
		w, err := ticks(a.Within)
		if err != nil {
			return nil, err
		}
		if w == nil && a.After+1 < len(q.Edges) {
			w = o.within[a.After+1]
		}
		o.antiW = append(o.antiW, w)
	}
	for i := range q.Where {
		if err := o.typecheck(&q.Where[i]); err != nil {
			return nil, fmt.Errorf("oracle: where[%d] %q: %w", i, q.Where[i].Text, err)
		}
	}
	return o, nil
}

// Delta returns the query's delta in ticks.
func (o *Oracle) Delta() int64 { return o.delta }

// Within returns motif edge i's per-hop limit in ticks, if it has one.
func (o *Oracle) Within(i int) (int64, bool) {
	if o.within[i] == nil {
		return 0, false
	}
	return *o.within[i], true
}

// Mine tries every increasing k-tuple of live positions whose last lies in r.
func (o *Oracle) Mine(r motif.Range, horizon int64) []motif.Match {
	var out []motif.Match
	Tuples(o.w, len(o.q.Edges), func(pos []int64) {
		if last := pos[len(pos)-1]; last >= r.Lo && last < r.Hi {
			if v := o.Check(pos, horizon); v.Fail == 0 {
				out = append(out, v.Match)
			}
		}
	})
	return out
}

// Tuples calls fn with every increasing k-tuple of w's live positions
// (fn must not keep the slice).
func Tuples(w *window.Window, k int, fn func(pos []int64)) {
	pos := make([]int64, k)
	var next func(i int, from int64)
	next = func(i int, from int64) {
		if i == k {
			fn(pos)
			return
		}
		for p := from; p < w.End(); p++ {
			pos[i] = p
			next(i+1, p+1)
		}
	}
	next(0, w.First())
}

// Check evaluates every condition of the definition on the tuple pos
// (pos[i] is the graph edge for motif edge i) and reports all that fail.
func (o *Oracle) Check(pos []int64, horizon int64) Verdict {
	w, q := o.w, o.q
	var v Verdict
	if len(pos) != len(q.Edges) {
		return Verdict{Fail: FailOrder}
	}
	for i, p := range pos {
		if p < w.First() || p >= w.End() {
			return Verdict{Fail: FailOrder}
		}
		if i > 0 && p <= pos[i-1] {
			v.Fail |= FailOrder
		}
	}
	node, set := make([]uint32, len(q.Nodes)), make([]bool, len(q.Nodes))
	bind := func(m int, g uint32) {
		if set[m] && node[m] != g {
			v.Fail |= FailConsistent
		}
		node[m], set[m] = g, true
	}
	for i, e := range q.Edges {
		if w.Src(pos[i]) == w.Dst(pos[i]) {
			v.Fail |= FailSelfLoop
		}
		bind(e.From, w.Src(pos[i]))
		bind(e.To, w.Dst(pos[i]))
	}
	for a := range node {
		for b := a + 1; b < len(node); b++ {
			if node[a] == node[b] {
				v.Fail |= FailInjective
			}
		}
	}
	t := func(i int) int64 { return w.T(pos[i]) }
	k := len(pos)
	if gapExceeds(t(0), t(k-1), o.delta) {
		v.Fail |= FailDelta
	}
	for i := 1; i < k; i++ {
		if o.within[i] != nil && gapExceeds(t(i-1), t(i), *o.within[i]) {
			v.Fail |= FailWithin
			v.Withins = append(v.Withins, i)
		}
	}
	for i := range q.Where {
		if !o.holds(&q.Where[i], pos, node) {
			v.Fail |= FailPredicate
			v.Preds = append(v.Preds, i)
		}
	}
	for i, a := range q.AntiEdges {
		end := intervalEnd(t(0), o.delta)
		if o.antiW[i] != nil {
			end = min(end, intervalEnd(t(a.After), *o.antiW[i]))
		}
		for p := w.First(); p < w.End(); p++ {
			if p > pos[a.After] && w.T(p) <= end && w.Src(p) == node[a.From] && w.Dst(p) == node[a.To] {
				v.Fail |= FailAnti
				v.Antis = append(v.Antis, i)
				break
			}
		}
		if end > horizon && (!v.Open || end > v.OpenUntil) {
			v.Open, v.OpenUntil = true, end
		}
	}
	if v.Fail == 0 {
		v.Match = motif.Match{Edges: slices.Clone(pos), Nodes: node, Open: v.Open, OpenUntil: v.OpenUntil}
	}
	return v
}

// gapExceeds reports t1 − t0 > limit, computed exactly (times may lie
// anywhere in the int64 range, so the difference may not fit in one).
func gapExceeds(t0, t1, limit int64) bool {
	gap := new(big.Int).Sub(big.NewInt(t1), big.NewInt(t0))
	return gap.Cmp(big.NewInt(limit)) > 0
}

// intervalEnd is t + d computed exactly, then clamped to the largest
// int64: no edge time and no horizon lies past it, so the clamped end
// admits the same edges and is past the same horizons as the true one.
func intervalEnd(t, d int64) int64 {
	end := new(big.Int).Add(big.NewInt(t), big.NewInt(d))
	if !end.IsInt64() {
		return math.MaxInt64
	}
	return end.Int64()
}

// value is an evaluated operand: a number, or a string compared by value.
type value struct {
	num   float64
	str   string
	isStr bool
}

func (o *Oracle) operand(op *motif.Operand, pos []int64, node []uint32) value {
	s := o.w.Schema()
	read := func(kind window.Kind, x float64) value {
		if kind == window.String {
			return value{str: o.w.Strings().Value(uint32(x)), isStr: true}
		}
		return value{num: x}
	}
	switch op.Kind {
	case motif.EdgeAttr:
		col, kind, _ := s.EdgeAttr(op.Attr)
		return read(kind, o.w.EdgeAttr(col, pos[op.Index]))
	case motif.NodeAttr:
		col, kind, _ := s.NodeAttr(op.Attr)
		return read(kind, o.w.NodeAttr(col, node[op.Index]))
	}
	return value{num: op.Num, str: op.Str, isStr: op.IsStr}
}

func equal(a, b value) bool {
	if a.isStr {
		return a.str == b.str
	}
	return a.num == b.num
}

func (o *Oracle) holds(pr *motif.Predicate, pos []int64, node []uint32) bool {
	l := o.operand(&pr.Left, pos, node)
	if pr.Op == motif.OpIn || pr.Op == motif.OpNotIn {
		in := false
		for i := range pr.Right.List {
			in = in || equal(l, o.operand(&pr.Right.List[i], pos, node))
		}
		return in == (pr.Op == motif.OpIn)
	}
	r := o.operand(&pr.Right, pos, node)
	switch pr.Op {
	case motif.OpEq:
		return equal(l, r)
	case motif.OpNe:
		return !equal(l, r)
	case motif.OpLt:
		return l.num < r.num
	case motif.OpLe:
		return l.num <= r.num
	case motif.OpGt:
		return l.num > r.num
	case motif.OpGe:
		return l.num >= r.num
	}
	return false
}

// typecheck rejects what holds cannot evaluate: unknown attributes, bad
// indices, strings ordered or compared with numbers, misplaced lists.
func (o *Oracle) typecheck(pr *motif.Predicate) error {
	s := o.w.Schema()
	var kindOf func(op *motif.Operand) (bool, error)
	kindOf = func(op *motif.Operand) (bool, error) {
		var kind window.Kind
		var ok bool
		switch op.Kind {
		case motif.Literal:
			return op.IsStr, nil
		case motif.List:
			return false, fmt.Errorf("a list outside in / not in")
		case motif.EdgeAttr:
			_, kind, ok = s.EdgeAttr(op.Attr)
			ok = ok && op.Index >= 0 && op.Index < len(o.q.Edges)
		case motif.NodeAttr:
			_, kind, ok = s.NodeAttr(op.Attr)
			ok = ok && op.Index >= 0 && op.Index < len(o.q.Nodes)
		}
		if !ok {
			return false, fmt.Errorf("unknown attribute %q or index %d", op.Attr, op.Index)
		}
		return kind == window.String, nil
	}
	l, err := kindOf(&pr.Left)
	if err != nil {
		return err
	}
	rights := []motif.Operand{pr.Right}
	if pr.Op == motif.OpIn || pr.Op == motif.OpNotIn {
		if pr.Right.Kind != motif.List {
			return fmt.Errorf("%v needs a list", pr.Op)
		}
		rights = pr.Right.List
	}
	for i := range rights {
		r, err := kindOf(&rights[i])
		if err != nil {
			return err
		}
		if l != r {
			return fmt.Errorf("compares a string with a number")
		}
	}
	if l && pr.Op != motif.OpEq && pr.Op != motif.OpNe && pr.Op != motif.OpIn && pr.Op != motif.OpNotIn {
		return fmt.Errorf("orders strings")
	}
	return nil
}
