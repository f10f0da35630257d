package motif

import (
	"fmt"
	"strings"
	"time"
)

// Query is a temporal motif: k edges over named nodes, in temporal order.
// It is the parsed, validated form; Compile turns it into a Plan for a
// window.
type Query struct {
	Name        string
	Description string
	// Nodes are the motif nodes; edges and predicates refer to them by index.
	Nodes []Node
	// Edges are the motif edges in temporal order: Edges[i] must match a
	// graph edge strictly later in (t, seq) order than Edges[i-1]'s.
	Edges []Edge
	// Delta bounds t_k − t_1 (inclusive). Required, positive.
	Delta Span
	// AntiEdges forbid edges between mapped nodes in an interval.
	AntiEdges []AntiEdge
	// Where holds every predicate of the query (per-edge, per-node, node
	// labels, and cross-edge comparisons), each with resolved operands.
	Where []Predicate
	// GroupBy lists motif nodes (indices) whose graph nodes key incidents:
	// the daemon folds the matches that map them to the same graph nodes
	// within GroupWithin into one incident record. Engines ignore it: it
	// changes how matches are reported, never which match.
	GroupBy []int
	// GroupWithin is an incident's length, from its first match; nil
	// means Delta. Set only with GroupBy.
	GroupWithin *Span
	// Severity, Labels and Annotations are what the query's alerts carry
	// for routing (alerts.Meta): engines ignore them. Label and annotation
	// names are label names ([a-zA-Z_][a-zA-Z0-9_]*); annotations are
	// templates over the alert, which the alerts package checks (the
	// query file names no template language of its own).
	Severity    string
	Labels      map[string]string
	Annotations []Annotation
	// Estimate, if positive, asks for an estimated count instead of an
	// exact one: the interval's half-width at most Estimate of the value
	// (motif/estimate). Only count-mode queries estimate, and an estimate
	// never raises alerts; engines ignore it. In (0, 1).
	Estimate float64
}

// Annotation is one annotation template of a query, with where it was
// written, for errors found when the template is compiled.
type Annotation struct {
	Name, Text string
	// Field is its path in the file ("queries[2].annotations.summary"),
	// Line its line (0 if unknown).
	Field string
	Line  int
}

// Node is a motif node.
type Node struct {
	Name string
}

// Edge is a motif edge From → To (node indices).
type Edge struct {
	From, To int
	// Within, if set, bounds the time from the previous motif edge to this
	// one: t_i − t_{i−1} ≤ Within. Meaningless (and rejected) on edge 0.
	Within *Span
}

// AntiEdge forbids, for a match, any graph edge From → To (both mapped by
// motif edges 0..After) that comes after the graph edge matched to motif
// edge After in (t, seq) order with time ≤ min(t_After + W, t_1 + Delta),
// where W is Within if set, else the Within of motif edge After+1 if set,
// else unbounded. This is Everest's anti-edge: "no B→A in between".
type AntiEdge struct {
	From, To int
	After    int
	Within   *Span
}

// Span is a time span: a duration ("10m", converted with the graph's time
// unit) or a raw count of timestamp ticks (bare numbers, Everest files).
type Span struct {
	Ticks      int64
	Duration   time.Duration
	IsDuration bool
}

// TicksSpan returns a Span of n timestamp ticks.
func TicksSpan(n int64) Span { return Span{Ticks: n} }

// DurationSpan returns a Span of duration d.
func DurationSpan(d time.Duration) Span { return Span{Duration: d, IsDuration: true} }

// ToTicks converts the span to timestamp ticks of the given unit. A
// duration that is not a whole number of ticks is an error rather than a
// silent rounding.
func (s Span) ToTicks(unit time.Duration) (int64, error) {
	if !s.IsDuration {
		return s.Ticks, nil
	}
	if unit <= 0 {
		return 0, fmt.Errorf("time unit %v must be positive", unit)
	}
	if s.Duration%unit != 0 {
		return 0, fmt.Errorf("%v is not a whole number of %v timestamp ticks", s.Duration, unit)
	}
	return int64(s.Duration / unit), nil
}

func (s Span) String() string {
	if s.IsDuration {
		// "1h" rather than Go's "1h0m0s": the form people write in YAML.
		d := s.Duration.String()
		if strings.HasSuffix(d, "m0s") {
			d = strings.TrimSuffix(d, "0s")
		}
		if strings.HasSuffix(d, "h0m") {
			d = strings.TrimSuffix(d, "0m")
		}
		return d
	}
	return fmt.Sprintf("%d", s.Ticks)
}

// CmpOp is a comparison operator.
type CmpOp uint8

const (
	OpEq CmpOp = iota
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn    // Right is a list of literals
	OpNotIn // Right is a list of literals
)

var opText = [...]string{"==", "!=", "<", "<=", ">", ">=", "in", "not in"}

func (o CmpOp) String() string { return opText[o] }

// OperandKind says what an Operand reads.
type OperandKind uint8

const (
	// Literal is a number or a quoted string.
	Literal OperandKind = iota
	// EdgeAttr reads attribute Attr of the graph edge matched to motif edge Index.
	EdgeAttr
	// NodeAttr reads attribute Attr of the graph node mapped to motif node
	// Index ("label" is the node label).
	NodeAttr
	// List is a list of literals, the right side of in / not in.
	List
)

// Operand is one side of a comparison.
type Operand struct {
	Kind  OperandKind
	Index int
	Attr  string
	Num   float64
	Str   string
	IsStr bool
	List  []Operand
}

// Predicate is a comparison Left Op Right. Every predicate of a query
// must hold for a match.
type Predicate struct {
	Left  Operand
	Op    CmpOp
	Right Operand
	// Field and Text locate the predicate in its source, for errors:
	// Field like `queries[0].edges[1].where`, Text the expression as written.
	Field string
	Text  string
}

// K returns the number of motif edges.
func (q *Query) K() int { return len(q.Edges) }

// NodeIndex returns the index of the named node, or -1.
func (q *Query) NodeIndex(name string) int {
	for i, n := range q.Nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}
