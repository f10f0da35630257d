package motif

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Summary renders q on one line, in the query language's terms, for
// people (the daemon's status page, logs): its edges in temporal order,
// per-hop limits, anti-edges, predicates as written (each once) and the
// incident grouping. Delta is left to the caller, who shows it apart.
//
//	A -> B, B -> C (within 5m), C -> A; not B -> A; where amount > 1000; group by B
func (q *Query) Summary() string {
	node := func(i int) string { return q.nodeLabel(i) }
	var b strings.Builder
	for i, e := range q.Edges {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s -> %s", node(e.From), node(e.To))
		if e.Within != nil {
			fmt.Fprintf(&b, " (within %s)", e.Within)
		}
	}
	if len(q.AntiEdges) > 0 {
		b.WriteString("; not ")
		for i, a := range q.AntiEdges {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s -> %s after edge %d", node(a.From), node(a.To), a.After+1)
			if a.Within != nil {
				fmt.Fprintf(&b, " within %s", a.Within)
			}
		}
	}
	var where []string
	for i := range q.Where {
		t := q.Where[i].Text
		if t == "" {
			t = q.predicateText(&q.Where[i])
		}
		if !slices.Contains(where, t) {
			where = append(where, t)
		}
	}
	if len(where) > 0 {
		b.WriteString("; where ")
		b.WriteString(strings.Join(where, " and "))
	}
	if len(q.GroupBy) > 0 {
		names := make([]string, len(q.GroupBy))
		for i, n := range q.GroupBy {
			names[i] = node(n)
		}
		b.WriteString("; group by ")
		b.WriteString(strings.Join(names, ", "))
		if q.GroupWithin != nil {
			fmt.Fprintf(&b, " within %s", q.GroupWithin)
		}
	}
	return b.String()
}

// predicateText renders a predicate built in code (no source text).
func (q *Query) predicateText(p *Predicate) string {
	return q.operandText(&p.Left) + " " + p.Op.String() + " " + q.operandText(&p.Right)
}

func (q *Query) operandText(o *Operand) string {
	switch o.Kind {
	case EdgeAttr:
		return fmt.Sprintf("e%d.%s", o.Index+1, o.Attr)
	case NodeAttr:
		return q.nodeLabel(o.Index) + "." + o.Attr
	case List:
		items := make([]string, len(o.List))
		for i := range o.List {
			items[i] = q.operandText(&o.List[i])
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	if o.IsStr {
		return strconv.Quote(o.Str)
	}
	return strconv.FormatFloat(o.Num, 'g', -1, 64)
}
