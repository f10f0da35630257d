package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Schema is the schema of random windows: one tick is a second; edges
// carry a number "amount" and a string "kind"; nodes a string "label" and
// a number "risk".
func Schema() window.Schema {
	return window.Schema{
		TimeUnit:  time.Second,
		EdgeAttrs: []window.Attr{{Name: "amount", Kind: window.Number}, {Name: "kind", Kind: window.String}},
		NodeAttrs: []window.Attr{{Name: window.LabelAttr, Kind: window.String}, {Name: "risk", Kind: window.Number}},
	}
}

// WindowConfig shapes RandomWindow.
type WindowConfig struct {
	MinNodes, MaxNodes int     // node count, uniform in [MinNodes, MaxNodes]
	MaxEdges           int     // live edge count, uniform in [0, MaxEdges]
	MaxTime            int64   // timestamps span at most MaxTime ticks: small, so ties are frequent
	SelfLoop           float64 // probability that an edge is a self-loop
	Missing            float64 // probability that an attribute is unset (NaN or "")
	Evict              float64 // probability of a few evicted edges before the live ones, so First() > 0
	// Extreme is the probability that the times lie at an end of the
	// int64 range (just above its minimum, just below its maximum, or
	// both), around 0, or at both ends and around 0: interval ends and
	// gaps computed naively would overflow there, at the ends for any δ,
	// around 0 for a δ near 2^63 − 1.
	Extreme float64
}

// ExtremeWindowConfig is DefaultWindowConfig with every window's times at
// the ends of the int64 range.
func ExtremeWindowConfig() WindowConfig {
	c := DefaultWindowConfig()
	c.Extreme = 1
	return c
}

// DefaultWindowConfig is the configuration the differential tests use.
func DefaultWindowConfig() WindowConfig {
	return WindowConfig{MinNodes: 3, MaxNodes: 8, MaxEdges: 14, MaxTime: 12, SelfLoop: 0.06, Missing: 0.05, Evict: 0.2}
}

// RandomWindow builds a small window with the Schema of this package.
func RandomWindow(rng *rand.Rand, cfg WindowConfig) *window.Window {
	w, err := window.New(Schema())
	if err != nil {
		panic(err) // the schema is a constant
	}
	n := cfg.MinNodes + rng.IntN(cfg.MaxNodes-cfg.MinNodes+1)
	for i := range n {
		w.IDs().Intern(fmt.Sprintf("n%d", i))
	}
	evict := 0
	if rng.Float64() < cfg.Evict {
		evict = 1 + rng.IntN(3)
	}
	m := evict + rng.IntN(cfg.MaxEdges+1)
	span := 1 + rng.Int64N(max(cfg.MaxTime, 1))
	base := rng.Int64N(100)
	ts := make([]int64, m)
	for i := range ts {
		ts[i] = base + rng.Int64N(span)
	}
	if cfg.Extreme > 0 && rng.Float64() < cfg.Extreme {
		// Times counted from an end of the int64 range or centred on 0;
		// "both" puts each edge at either end at random, "all" at either
		// end or around 0.
		const low, high, both, zero, all = 0, 1, 2, 3, 4
		at := rng.IntN(5)
		for i := range ts {
			off := ts[i] - base
			where := at
			switch at {
			case both:
				where = rng.IntN(2)
			case all:
				where = []int{low, high, zero}[rng.IntN(3)]
			}
			switch where {
			case low:
				ts[i] = math.MinInt64 + off
			case high:
				ts[i] = math.MaxInt64 - off
			default:
				ts[i] = off - span/2
			}
		}
	}
	slices.Sort(ts)
	a, b := w.Strings().Intern("a"), w.Strings().Intern("b")
	for _, t := range ts {
		src := uint32(rng.IntN(n))
		dst := src
		if rng.Float64() >= cfg.SelfLoop {
			dst = uint32((int(src) + 1 + rng.IntN(n-1)) % n)
		}
		amount, kind := float64(rng.IntN(5)), float64(a)
		if rng.IntN(2) == 0 {
			kind = float64(b)
		}
		if rng.Float64() < cfg.Missing {
			amount = math.NaN()
		}
		if rng.Float64() < cfg.Missing {
			kind = 0
		}
		if _, err := w.Append(window.Edge{Src: src, Dst: dst, T: t, Attrs: []float64{amount, kind}}); err != nil {
			panic(err) // times are sorted and ids interned
		}
	}
	w.EvictTo(w.First() + int64(evict))
	x, y := w.Strings().Intern("x"), w.Strings().Intern("y")
	for v := range uint32(n) {
		switch rng.IntN(3) {
		case 0:
			w.SetNodeAttr(0, v, float64(x))
		case 1:
			w.SetNodeAttr(0, v, float64(y))
		}
		if rng.Float64() >= cfg.Missing*2 {
			w.SetNodeAttr(1, v, float64(rng.IntN(4)))
		}
	}
	return w
}

// QueryConfig shapes RandomQuery.
type QueryConfig struct {
	MaxEdges int     // motif edges, uniform in [1, MaxEdges]
	MaxNodes int     // at most this many motif nodes (2..MaxEdges+1)
	MaxDelta int64   // delta in ticks, uniform in [1, MaxDelta]
	Within   float64 // probability that an edge after the first has a Within
	Anti     float64 // probability of anti-edges (one or two)
	Pred     float64 // probability of predicates (one to three)
	// Extreme is the probability that delta is within a few ticks of the
	// largest int64 (per-hop and anti-edge limits then range up to it).
	Extreme float64
}

// ExtremeQueryConfig is DefaultQueryConfig with delta near the largest
// int64 half of the time.
func ExtremeQueryConfig() QueryConfig {
	c := DefaultQueryConfig()
	c.Extreme = 0.5
	return c
}

// DefaultQueryConfig is the configuration the differential tests use.
func DefaultQueryConfig() QueryConfig {
	return QueryConfig{MaxEdges: 4, MaxNodes: 5, MaxDelta: 8, Within: 0.3, Anti: 0.35, Pred: 0.5}
}

// RandomQuery builds a valid query over the Schema of this package: edges
// in temporal order, each after the first touching an earlier node
// (repeated and reversed pairs included), sometimes with per-hop limits,
// anti-edges and predicates of every kind. Spans are ticks or, at random,
// whole seconds.
func RandomQuery(rng *rand.Rand, cfg QueryConfig) *motif.Query {
	q := &motif.Query{Name: "random"}
	delta := 1 + rng.Int64N(cfg.MaxDelta)
	span := span
	if cfg.Extreme > 0 && rng.Float64() < cfg.Extreme {
		delta = math.MaxInt64 - rng.Int64N(3)
		span = func(_ *rand.Rand, n int64) motif.Span { return motif.TicksSpan(n) } // seconds would overflow a Duration
	}
	q.Delta = span(rng, delta)
	k := 1 + rng.IntN(cfg.MaxEdges)
	nodes := 2
	q.Edges = append(q.Edges, motif.Edge{From: 0, To: 1})
	for i := 1; i < k; i++ {
		a := rng.IntN(nodes)
		b := (a + 1 + rng.IntN(nodes-1)) % nodes
		if nodes < cfg.MaxNodes && rng.IntN(2) == 0 {
			b = nodes
			nodes++
		}
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		e := motif.Edge{From: a, To: b}
		if rng.Float64() < cfg.Within {
			s := span(rng, upTo(rng, delta))
			e.Within = &s
		}
		q.Edges = append(q.Edges, e)
	}
	for i := range nodes {
		q.Nodes = append(q.Nodes, motif.Node{Name: string(rune('A' + i))})
	}
	if rng.Float64() < cfg.Anti {
		for range 1 + rng.IntN(2) {
			after := rng.IntN(k)
			var mapped []int
			for _, e := range q.Edges[:after+1] {
				mapped = append(mapped, e.From, e.To)
			}
			slices.Sort(mapped)
			mapped = slices.Compact(mapped)
			f := rng.IntN(len(mapped))
			t := (f + 1 + rng.IntN(len(mapped)-1)) % len(mapped)
			a := motif.AntiEdge{From: mapped[f], To: mapped[t], After: after}
			if rng.IntN(3) == 0 {
				s := span(rng, upTo(rng, min(delta, math.MaxInt64-1)+1))
				a.Within = &s
			}
			q.AntiEdges = append(q.AntiEdges, a)
		}
	}
	if rng.Float64() < cfg.Pred {
		for range 1 + rng.IntN(3) {
			p := randomPredicate(rng, k, nodes)
			p.Text = FormatPredicate(q, &p)
			q.Where = append(q.Where, p)
		}
	}
	return q
}

// upTo returns a random int64 in [0, n]; near the top of the range, in
// [0, 8) or (n-8, n] half the time each, so that limits of both sizes occur.
func upTo(rng *rand.Rand, n int64) int64 {
	if n < math.MaxInt64/2 {
		return rng.Int64N(n + 1)
	}
	if rng.IntN(2) == 0 {
		return rng.Int64N(8)
	}
	return n - rng.Int64N(8)
}

// span returns n ticks, as a tick count or (half the time) as seconds.
func span(rng *rand.Rand, n int64) motif.Span {
	if rng.IntN(2) == 0 {
		return motif.DurationSpan(time.Duration(n) * time.Second)
	}
	return motif.TicksSpan(n)
}

var numOps = []motif.CmpOp{motif.OpEq, motif.OpNe, motif.OpLt, motif.OpLe, motif.OpGt, motif.OpGe}

func num(x float64) motif.Operand            { return motif.Operand{Kind: motif.Literal, Num: x} }
func str(s string) motif.Operand             { return motif.Operand{Kind: motif.Literal, Str: s, IsStr: true} }
func list(xs ...motif.Operand) motif.Operand { return motif.Operand{Kind: motif.List, List: xs} }

func randomPredicate(rng *rand.Rand, k, nodes int) motif.Predicate {
	edge := func(attr string) motif.Operand {
		return motif.Operand{Kind: motif.EdgeAttr, Index: rng.IntN(k), Attr: attr}
	}
	node := func(attr string) motif.Operand {
		return motif.Operand{Kind: motif.NodeAttr, Index: rng.IntN(nodes), Attr: attr}
	}
	other := func(o motif.Operand) motif.Operand { // the same attribute of another edge
		if k > 1 {
			o.Index = (o.Index + 1 + rng.IntN(k-1)) % k
		}
		return o
	}
	strOp := func() motif.CmpOp { return numOps[rng.IntN(2)] }
	inOp := func() motif.CmpOp { return []motif.CmpOp{motif.OpIn, motif.OpNotIn}[rng.IntN(2)] }
	kinds := []string{"a", "b", "c"}
	var p motif.Predicate
	switch rng.IntN(8) {
	case 0: // edge number vs literal, either side
		p = motif.Predicate{Left: edge("amount"), Op: numOps[rng.IntN(6)], Right: num(float64(rng.IntN(5)))}
		if rng.IntN(2) == 0 {
			p.Left, p.Right = p.Right, p.Left
		}
	case 1: // edge number in a list
		p = motif.Predicate{Left: edge("amount"), Op: inOp(), Right: list(num(float64(rng.IntN(5))), num(float64(rng.IntN(5))))}
	case 2: // edge string == / !=
		p = motif.Predicate{Left: edge("kind"), Op: strOp(), Right: str(kinds[rng.IntN(3)])}
		if rng.IntN(3) == 0 {
			p.Left, p.Right = p.Right, p.Left
		}
	case 3: // edge string in a list
		r := list(str(kinds[rng.IntN(3)]))
		if rng.IntN(2) == 0 {
			r.List = append(r.List, str(kinds[rng.IntN(3)]))
		}
		p = motif.Predicate{Left: edge("kind"), Op: inOp(), Right: r}
	case 4: // node label
		p = motif.Predicate{Left: node(window.LabelAttr), Op: strOp(), Right: str([]string{"x", "y", ""}[rng.IntN(3)])}
		if rng.IntN(3) == 0 {
			p.Op, p.Right = inOp(), list(str("x"), str(""))
		}
	case 5: // node risk
		p = motif.Predicate{Left: node("risk"), Op: numOps[rng.IntN(6)], Right: num(float64(rng.IntN(4)))}
	case 6: // cross-edge numbers, two distinct edges when there are two
		l := edge("amount")
		p = motif.Predicate{Left: l, Op: numOps[rng.IntN(6)], Right: other(l)}
	case 7: // cross-edge strings, or edge vs node
		l := edge("kind")
		p = motif.Predicate{Left: l, Op: strOp(), Right: other(l)}
		if rng.IntN(2) == 0 {
			p = motif.Predicate{Left: edge("amount"), Op: numOps[rng.IntN(6)], Right: node("risk")}
		}
	}
	p.Field = "where"
	return p
}

// FormatPredicate renders p in the where-expression syntax, naming
// nodes as in q.
func FormatPredicate(q *motif.Query, p *motif.Predicate) string {
	return formatOperand(q, &p.Left) + " " + p.Op.String() + " " + formatOperand(q, &p.Right)
}

func formatOperand(q *motif.Query, o *motif.Operand) string {
	switch o.Kind {
	case motif.EdgeAttr:
		return fmt.Sprintf("e%d.%s", o.Index+1, o.Attr)
	case motif.NodeAttr:
		if o.Index >= 0 && o.Index < len(q.Nodes) {
			return q.Nodes[o.Index].Name + "." + o.Attr
		}
		return fmt.Sprintf("#%d.%s", o.Index, o.Attr)
	case motif.List:
		items := make([]string, len(o.List))
		for i := range o.List {
			items[i] = formatOperand(q, &o.List[i])
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	if o.IsStr {
		return strconv.Quote(o.Str)
	}
	return strconv.FormatFloat(o.Num, 'g', -1, 64)
}

// FormatQuery renders q on a few lines, for failing tests.
func FormatQuery(q *motif.Query) string {
	var b strings.Builder
	name := func(i int) string { return q.Nodes[i].Name }
	fmt.Fprintf(&b, "query %s: delta %v\n", q.Name, q.Delta)
	for i, e := range q.Edges {
		fmt.Fprintf(&b, "  e%d %s->%s", i+1, name(e.From), name(e.To))
		if e.Within != nil {
			fmt.Fprintf(&b, " within %v", *e.Within)
		}
		b.WriteByte('\n')
	}
	for _, a := range q.AntiEdges {
		fmt.Fprintf(&b, "  not %s->%s after e%d", name(a.From), name(a.To), a.After+1)
		if a.Within != nil {
			fmt.Fprintf(&b, " within %v", *a.Within)
		}
		b.WriteByte('\n')
	}
	for i := range q.Where {
		fmt.Fprintf(&b, "  where %s\n", FormatPredicate(q, &q.Where[i]))
	}
	return b.String()
}

// LineWindow builds a window of Schema from "src dst t" lines over named
// nodes, in line order (attributes zero): small hand-written cases, such
// as times at the ends of int64.
func LineWindow(lines ...string) (*window.Window, error) {
	w, err := window.New(Schema())
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		var s, d string
		var tm int64
		if _, err := fmt.Sscan(l, &s, &d, &tm); err != nil {
			return nil, fmt.Errorf("edge %q: %w", l, err)
		}
		u, _ := w.IDs().Intern(s)
		v, _ := w.IDs().Intern(d)
		if _, err := w.Append(window.Edge{Src: u, Dst: v, T: tm, Attrs: []float64{0, 0}}); err != nil {
			return nil, fmt.Errorf("edge %q: %w", l, err)
		}
	}
	return w, nil
}

// FormatWindow renders w's live edges and its nodes' attributes (strings
// by value), for failing tests.
func FormatWindow(w *window.Window) string {
	var b strings.Builder
	s := w.Schema()
	attr := func(a window.Attr, x float64) string {
		if a.Kind == window.String {
			return fmt.Sprintf(" %s=%q", a.Name, w.Strings().Value(uint32(x)))
		}
		return fmt.Sprintf(" %s=%v", a.Name, x)
	}
	fmt.Fprintf(&b, "window: positions [%d, %d), time unit %v\n", w.First(), w.End(), s.TimeUnit)
	for p := w.First(); p < w.End(); p++ {
		fmt.Fprintf(&b, "  %3d: %d->%d t=%d", p, w.Src(p), w.Dst(p), w.T(p))
		for c, a := range s.EdgeAttrs {
			b.WriteString(attr(a, w.EdgeAttr(c, p)))
		}
		b.WriteByte('\n')
	}
	for v := range uint32(w.IDs().Cap()) {
		fmt.Fprintf(&b, "  node %d", v)
		for c, a := range s.NodeAttrs {
			b.WriteString(attr(a, w.NodeAttr(c, v)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
