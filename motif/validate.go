package motif

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxEdges is the largest number of motif edges a query may have.
const MaxEdges = 16

var (
	queryNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	nodeNameRE  = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
)

// FieldError is an invalid value in a query. Field is the path of the
// value inside the query in the YAML format's terms ("delta",
// "edges[3].within", "not[0].after", "nodes.A"; indices 0-based).
type FieldError struct {
	Query string // the query's name; "" if unnamed or not relevant
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	s := e.Msg
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	if e.Query != "" {
		s = fmt.Sprintf("query %q: %s", e.Query, s)
	}
	return s
}

// Validate reports the first rule q breaks, as a *FieldError naming the
// query, the field and the value:
//
//   - Name is set and matches [A-Za-z0-9_.-]+.
//   - 1 to MaxEdges edges; every edge's nodes exist; no self-loops; every
//     edge after the first touches a node used by an earlier edge.
//   - Node names are set and unique; every node is used by some edge.
//   - Delta is positive. An edge's Within is unset on the first edge, not
//     negative, and not above Delta when both are durations or both ticks.
//   - Anti-edges: After is a motif edge, From != To, and both nodes are
//     mapped by edges 0..After; Within is not negative.
//   - GroupBy: distinct motif nodes; GroupWithin positive, and only with
//     GroupBy.
//   - Estimate is 0 (exact) or a relative error in (0, 1).
//   - Predicates: operands are well formed and their indices in range;
//     <, <=, >, >= do not take strings; in and not in take a list.
func (q *Query) Validate() error {
	fail := func(field, format string, args ...any) error {
		return &FieldError{Query: q.Name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case q.Name == "":
		return fail("name", "must be set")
	case !queryNameRE.MatchString(q.Name):
		return fail("name", "%q must match [A-Za-z0-9_.-]+", q.Name)
	}
	if !q.Delta.positive() {
		return fail("delta", "%s must be positive", spanText(q.Delta))
	}
	if err := q.validateNodes(fail); err != nil {
		return err
	}
	if err := q.validateEdges(fail); err != nil {
		return err
	}
	if err := q.validateAntiEdges(fail); err != nil {
		return err
	}
	if err := q.validateGroupBy(fail); err != nil {
		return err
	}
	if q.Estimate != 0 && !(q.Estimate > 0 && q.Estimate < 1) {
		return fail("estimate", "%v: want a relative error in (0, 1), such as 0.05 (or none: exact)", q.Estimate)
	}
	for i := range q.Where {
		if msg := q.checkPredicate(&q.Where[i]); msg != "" {
			p := &q.Where[i]
			if p.Text != "" {
				msg = fmt.Sprintf("%q: %s", p.Text, msg)
			}
			field := fmt.Sprintf("where[%d]", i)
			if p.Field != "" {
				field = p.Field
			}
			return fail(field, "%s", msg)
		}
	}
	return nil
}

type failFunc func(field, format string, args ...any) error

// validateGroupBy checks the incident grouping: distinct nodes of the
// motif, and a positive group_within only beside them.
func (q *Query) validateGroupBy(fail failFunc) error {
	if q.GroupWithin != nil {
		if len(q.GroupBy) == 0 {
			return fail("group_within", "is set without group_by")
		}
		if !q.GroupWithin.positive() {
			return fail("group_within", "%s must be positive", spanText(*q.GroupWithin))
		}
	}
	for i, n := range q.GroupBy {
		if n < 0 || n >= len(q.Nodes) {
			return fail(fmt.Sprintf("group_by[%d]", i), "node index %d out of range (the query has %d nodes)", n, len(q.Nodes))
		}
		for j := range i {
			if q.GroupBy[j] == n {
				return fail(fmt.Sprintf("group_by[%d]", i), "node %q is listed twice", q.Nodes[n].Name)
			}
		}
	}
	return nil
}

// nodeField names node i in field paths: "nodes.A", or "nodes[i]" when the
// name is not a plain word.
func (q *Query) nodeField(i int) string {
	if n := q.Nodes[i].Name; nodeNameRE.MatchString(n) {
		return "nodes." + n
	}
	return fmt.Sprintf("nodes[%d]", i)
}

func (q *Query) validateNodes(fail failFunc) error {
	seen := make(map[string]int, len(q.Nodes))
	for i, n := range q.Nodes {
		if n.Name == "" {
			return fail(fmt.Sprintf("nodes[%d]", i), "name must be set")
		}
		if j, dup := seen[n.Name]; dup {
			return fail(fmt.Sprintf("nodes[%d]", i), "duplicate node name %q (also nodes[%d])", n.Name, j)
		}
		seen[n.Name] = i
	}
	return nil
}

// nodeLabel renders node index i for messages, tolerating bad indices.
func (q *Query) nodeLabel(i int) string {
	if i >= 0 && i < len(q.Nodes) {
		return q.Nodes[i].Name
	}
	return fmt.Sprintf("#%d", i)
}

func (q *Query) validateEdges(fail failFunc) error {
	k := len(q.Edges)
	if k < 1 || k > MaxEdges {
		return fail("edges", "a motif has 1 to %d edges, not %d", MaxEdges, k)
	}
	used := make([]bool, len(q.Nodes))
	for i, e := range q.Edges {
		field := fmt.Sprintf("edges[%d]", i)
		for _, n := range [2]int{e.From, e.To} {
			if n < 0 || n >= len(q.Nodes) {
				return fail(field, "node index %d out of range (the query has %d nodes)", n, len(q.Nodes))
			}
		}
		if e.From == e.To {
			return fail(field, "self-loop %s -> %s never matches", q.nodeLabel(e.From), q.nodeLabel(e.To))
		}
		if i > 0 && !used[e.From] && !used[e.To] {
			return fail(field, "%s -> %s touches no node of an earlier edge", q.nodeLabel(e.From), q.nodeLabel(e.To))
		}
		used[e.From], used[e.To] = true, true
		if e.Within == nil {
			continue
		}
		w := *e.Within
		switch {
		case i == 0:
			return fail(field+".within", "%s on the first edge: within bounds the gap from the previous edge", spanText(w))
		case w.negative():
			return fail(field+".within", "%s must not be negative", spanText(w))
		case w.IsDuration == q.Delta.IsDuration && w.exceeds(q.Delta):
			return fail(field+".within", "gap %d (%s) exceeds delta (%s)", i, spanText(w), spanText(q.Delta))
		}
	}
	for i, u := range used {
		if !u {
			return fail(q.nodeField(i), "node %q is not used by any edge", q.Nodes[i].Name)
		}
	}
	return nil
}

func (q *Query) validateAntiEdges(fail failFunc) error {
	k := len(q.Edges)
	for i, a := range q.AntiEdges {
		field := fmt.Sprintf("not[%d]", i)
		if a.After < 0 || a.After >= k {
			return fail(field+".after", "%d is not a motif edge (1..%d)", a.After+1, k)
		}
		for _, n := range [2]int{a.From, a.To} {
			if n < 0 || n >= len(q.Nodes) {
				return fail(field, "node index %d out of range (the query has %d nodes)", n, len(q.Nodes))
			}
		}
		if a.From == a.To {
			return fail(field, "anti-edge %s -> %s has the same node at both ends", q.nodeLabel(a.From), q.nodeLabel(a.To))
		}
		for _, n := range [2]int{a.From, a.To} {
			if first := q.firstEdgeOf(n); first > a.After {
				return fail(field, "anti-edge %s -> %s after edge %d: node %s is first mapped by edge %d",
					q.nodeLabel(a.From), q.nodeLabel(a.To), a.After+1, q.nodeLabel(n), first+1)
			}
		}
		if a.Within != nil && a.Within.negative() {
			return fail(field+".within", "%s must not be negative", spanText(*a.Within))
		}
	}
	return nil
}

// firstEdgeOf returns the first motif edge that touches node n, or
// len(q.Edges) if none does.
func (q *Query) firstEdgeOf(n int) int {
	for i, e := range q.Edges {
		if e.From == n || e.To == n {
			return i
		}
	}
	return len(q.Edges)
}

// checkPredicate returns what is wrong with p, or "".
func (q *Query) checkPredicate(p *Predicate) string {
	if p.Op > OpNotIn {
		return fmt.Sprintf("unknown operator %d", p.Op)
	}
	for _, o := range [2]*Operand{&p.Left, &p.Right} {
		switch o.Kind {
		case EdgeAttr:
			if o.Index < 0 || o.Index >= len(q.Edges) {
				return fmt.Sprintf("edge index %d out of range (the query has %d edges)", o.Index, len(q.Edges))
			}
			if o.Attr == "" {
				return "edge attribute name is empty"
			}
		case NodeAttr:
			if o.Index < 0 || o.Index >= len(q.Nodes) {
				return fmt.Sprintf("node index %d out of range (the query has %d nodes)", o.Index, len(q.Nodes))
			}
			if o.Attr == "" {
				return "node attribute name is empty"
			}
		case Literal:
		case List:
			if o != &p.Right || (p.Op != OpIn && p.Op != OpNotIn) {
				return "a list may only be the right side of in / not in"
			}
			if len(o.List) == 0 {
				return "empty list"
			}
			for _, it := range o.List {
				if it.Kind != Literal {
					return "a list holds literals only"
				}
				if it.IsStr != o.List[0].IsStr {
					return "list mixes strings and numbers"
				}
			}
		default:
			return fmt.Sprintf("unknown operand kind %d", o.Kind)
		}
	}
	switch p.Op {
	case OpIn, OpNotIn:
		if p.Right.Kind != List {
			return p.Op.String() + " needs a list on the right"
		}
		if p.Left.Kind == Literal || p.Left.Kind == List {
			return "the left side of " + p.Op.String() + " must be an attribute"
		}
	case OpLt, OpLe, OpGt, OpGe:
		if p.Left.Kind == Literal && p.Left.IsStr || p.Right.Kind == Literal && p.Right.IsStr {
			return p.Op.String() + " needs numbers, not strings"
		}
	}
	if p.Left.Kind == Literal && p.Right.Kind == Literal {
		return "compares two literals; one side must be an attribute"
	}
	return ""
}

// spanText renders s for messages, more compactly than Span.String:
// "20m" rather than "20m0s".
func spanText(s Span) string {
	t := s.String()
	if s.IsDuration {
		if u, ok := strings.CutSuffix(t, "m0s"); ok {
			t = u + "m"
		}
		if u, ok := strings.CutSuffix(t, "h0m"); ok {
			t = u + "h"
		}
	}
	return t
}

func (s Span) positive() bool {
	if s.IsDuration {
		return s.Duration > 0
	}
	return s.Ticks > 0
}

func (s Span) negative() bool {
	if s.IsDuration {
		return s.Duration < 0
	}
	return s.Ticks < 0
}

// exceeds reports whether s is longer than t; both must be of one kind.
func (s Span) exceeds(t Span) bool {
	if s.IsDuration {
		return s.Duration > t.Duration
	}
	return s.Ticks > t.Ticks
}
