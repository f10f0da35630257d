package motif

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/internal/yamldoc"
)

// The YAML query format. A file holds one query (a mapping) or a list of
// them under "queries:".
//
//	queries:
//	  - name: cycle3                # required, [A-Za-z0-9_.-]+, unique in the file
//	    description: money goes round
//	    delta: 10m                  # required: t_k − t_1 ≤ delta; a Go duration or integer ticks
//	    hop_within: 5m              # optional default bound on every gap t_i − t_{i−1}
//	    nodes:                      # optional; if present, lists every node
//	      A: {label: account}       # label: a string or a list of strings
//	      B: {where: "risk > 0.5"}  # a bare attribute is this node's
//	    edges:                      # required, in temporal order
//	      - A -> B
//	      - {from: B, to: C, within: 5m, where: "amount > 1000"}
//	      - C -> A
//	    not:                        # anti-edges
//	      - B -> A                  # after: the first edge after which both are mapped
//	      - {from: B, to: A, after: 2, within: 3m}  # after: 1-based motif edge
//	    where:                      # a string or a list; bare attributes mean every edge's
//	      - amount > 1000
//	      - e1.amount >= e3.amount
//	    group_by: [B]               # optional: fold matches sharing B's graph node into incidents
//	    group_within: 30m           # optional: an incident's length from its first match (default delta)
//	    severity: page              # optional: alert routing (engines ignore these three)
//	    labels: {team: fraud}       # optional: label name → value
//	    annotations:                # optional: name → template over the alert (alerts.ParseAnnotations)
//	      summary: "{{ .Query }}: {{ .A }} → {{ .B }}"
//	    estimate: 0.05              # optional: estimate the count within this relative error (count mode; no alerts)
//
// Motif nodes are numbered in order of first appearance in edges (nodes
// declared but unused come last and fail validation).

// FileError locates an error in a query file.
type FileError struct {
	Source string // the file name as given; "" if none
	Line   int    // 1-based line; 0 if unknown
	Err    error  // typically a *FieldError or *ExprError
}

func (e *FileError) Error() string {
	switch {
	case e.Source != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.Source, e.Line, e.Err)
	case e.Source != "":
		return fmt.Sprintf("%s: %v", e.Source, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// LoadQueries reads and parses the query file at path.
func LoadQueries(path string) ([]*Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseQueries(data, path)
}

// ParseQueries parses a YAML query file and validates every query in it.
// source names the file in errors (it may be ""). Errors are *FileError.
func ParseQueries(data []byte, source string) ([]*Query, error) {
	fp := &fileParser{source: source}
	root, err := fp.decode(data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fp.errf(0, "", "no queries: the file is empty")
	}
	if root.Kind != yaml.MappingNode {
		return nil, fp.errf(root.Line, "", "expected a query (a mapping) or queries: [...], found %s", yamldoc.Kind(root))
	}
	var items []*yaml.Node
	var prefixes []string
	if list, ok := mappingValue(root, "queries"); ok {
		for i := 0; i < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Value != "queries" {
				return nil, fp.errf(k.Line, "", "key %q beside queries: a file holds one query or a queries list", k.Value)
			}
		}
		list = yamldoc.Resolve(list)
		if list.Kind != yaml.SequenceNode {
			return nil, fp.errf(list.Line, "queries", "expected a list of queries, found %s", yamldoc.Kind(list))
		}
		if len(list.Content) == 0 {
			return nil, fp.errf(list.Line, "queries", "no queries: the list is empty")
		}
		for i, it := range list.Content {
			items = append(items, yamldoc.Resolve(it))
			prefixes = append(prefixes, fmt.Sprintf("queries[%d]", i))
		}
	} else {
		items, prefixes = []*yaml.Node{root}, []string{"query"}
	}
	out := make([]*Query, 0, len(items))
	names := map[string]int{}
	for i, it := range items {
		qd := &queryDecoder{fp: fp, prefix: prefixes[i], lines: map[string]int{}}
		q, err := qd.decode(it)
		if err != nil {
			return nil, err
		}
		if j, dup := names[q.Name]; dup {
			return nil, fp.errf(qd.lineOf("name"), prefixes[i]+".name", "duplicate query name %q (also %s)", q.Name, prefixes[j])
		}
		names[q.Name] = i
		out = append(out, q)
	}
	return out, nil
}

type fileParser struct {
	source string
}

// decode parses data into its single YAML document's root node (nil for
// an empty file).
func (fp *fileParser) decode(data []byte) (*yaml.Node, error) {
	root, err := yamldoc.Root(data)
	var ye *yamldoc.Error
	switch {
	case errors.As(err, &ye) && ye.SecondDocument:
		return nil, fp.errf(ye.Line, "", "a second YAML document: put several queries under queries: instead")
	case errors.As(err, &ye):
		return nil, &FileError{Source: fp.source, Line: ye.Line, Err: errors.New(ye.Msg)}
	}
	return root, nil
}

func (fp *fileParser) errf(line int, field, format string, args ...any) error {
	return &FileError{Source: fp.source, Line: line, Err: &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}}
}

// resolveAlias follows YAML aliases (*name) to the anchored node.

// mappingValue returns the value of key in mapping m.
func mappingValue(m *yaml.Node, key string) (*yaml.Node, bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1], true
		}
	}
	return nil, false
}

// queryDecoder decodes one query mapping.
type queryDecoder struct {
	fp     *fileParser
	prefix string // "queries[2]" or "query"
	line   int    // the query's line
	lines  map[string]int
	q      *Query
}

func (d *queryDecoder) path(field string) string {
	if field == "" || d.prefix == "" {
		return d.prefix + field
	}
	if field[0] == '[' {
		return d.prefix + field
	}
	return d.prefix + "." + field
}

func (d *queryDecoder) errf(n *yaml.Node, field, format string, args ...any) error {
	line := d.line
	if n != nil {
		line = n.Line
	}
	return d.fp.errf(line, d.path(field), format, args...)
}

// lineOf returns the line of field, or of its nearest recorded parent.
func (d *queryDecoder) lineOf(field string) int {
	for field != "" {
		if l, ok := d.lines[field]; ok {
			return l
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return d.line
}

// fields reads mapping m, with keys from known; it rejects other keys,
// duplicates and non-mappings. It records each key's line under
// field + "." + key.
func (d *queryDecoder) fields(m *yaml.Node, field string, known ...string) (map[string]*yaml.Node, error) {
	m = yamldoc.Resolve(m)
	if m.Kind != yaml.MappingNode {
		return nil, d.errf(m, field, "expected a mapping, found %s", yamldoc.Kind(m))
	}
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], yamldoc.Resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, d.errf(k, field, "keys must be plain words, found %s", yamldoc.Kind(k))
		}
		if !slices.Contains(known, k.Value) {
			return nil, d.errf(k, field, "unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, d.errf(k, field, "duplicate key %q", k.Value)
		}
		out[k.Value] = v
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		d.lines[sub] = k.Line
	}
	return out, nil
}

func (d *queryDecoder) scalar(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", d.errf(n, field, "expected a single value, found %s", yamldoc.Kind(n))
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

// ParseSpan parses a time span as written in query files: a Go duration
// ("10m", "1h30m", "90s") or a whole number of timestamp ticks ("600").
func ParseSpan(s string) (Span, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return TicksSpan(n), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || s == "" {
		return Span{}, fmt.Errorf("%q is neither a duration (like 10m, 1h30m, 90s) nor a whole number of timestamp ticks", s)
	}
	return DurationSpan(d), nil
}

func (d *queryDecoder) span(n *yaml.Node, field string) (*Span, error) {
	s, err := d.scalar(n, field)
	if err != nil {
		return nil, err
	}
	sp, err := ParseSpan(s)
	if err != nil {
		return nil, d.errf(n, field, "%v", err)
	}
	return &sp, nil
}

// exprs reads a where value: one string or a list of strings. It returns
// each text with its field path and node.
func (d *queryDecoder) exprs(n *yaml.Node, field string) ([]exprSrc, error) {
	if n.Kind == yaml.SequenceNode {
		out := make([]exprSrc, 0, len(n.Content))
		for i, it := range n.Content {
			it = yamldoc.Resolve(it)
			f := fmt.Sprintf("%s[%d]", field, i)
			s, err := d.scalar(it, f)
			if err != nil {
				return nil, err
			}
			out = append(out, exprSrc{text: s, field: f, node: it})
		}
		return out, nil
	}
	s, err := d.scalar(n, field)
	if err != nil {
		return nil, err
	}
	return []exprSrc{{text: s, field: field, node: n}}, nil
}

type exprSrc struct {
	text, field string
	node        *yaml.Node
	scope       Scope
}

// nodeDecl is a node from the nodes: mapping.
type nodeDecl struct {
	name  string
	key   *yaml.Node
	label *yaml.Node
	where []exprSrc
}

var queryKeys = []string{"name", "description", "delta", "hop_within", "nodes", "edges", "not", "where", "group_by", "group_within",
	"severity", "labels", "annotations", "estimate"}

func (d *queryDecoder) decode(m *yaml.Node) (*Query, error) {
	d.line = m.Line
	f, err := d.fields(m, "", queryKeys...)
	if err != nil {
		return nil, err
	}
	q := &Query{}
	d.q = q
	if n, ok := f["name"]; ok {
		if q.Name, err = d.scalar(n, "name"); err != nil {
			return nil, err
		}
	}
	if n, ok := f["description"]; ok {
		if q.Description, err = d.scalar(n, "description"); err != nil {
			return nil, err
		}
	}
	n, ok := f["delta"]
	if !ok || yamldoc.IsNull(n) {
		return nil, d.errf(nil, "delta", "is required: the longest time from the first to the last edge (e.g. delta: 10m)")
	}
	delta, err := d.span(n, "delta")
	if err != nil {
		return nil, err
	}
	q.Delta = *delta

	var hop *Span
	if n, ok := f["hop_within"]; ok && !yamldoc.IsNull(n) {
		if hop, err = d.span(n, "hop_within"); err != nil {
			return nil, err
		}
		if hop.IsDuration == q.Delta.IsDuration && hop.exceeds(q.Delta) {
			return nil, d.errf(n, "hop_within", "%s exceeds delta (%s)", spanText(*hop), spanText(q.Delta))
		}
	}

	decls, err := d.nodeDecls(f["nodes"])
	if err != nil {
		return nil, err
	}
	var preds []exprSrc
	if preds, err = d.edges(f["edges"], decls, hop); err != nil {
		return nil, err
	}
	if err := d.antiEdges(f["not"]); err != nil {
		return nil, err
	}

	// Predicates, now that nodes and edges are known: node labels, node
	// wheres, edge wheres, then the query's where.
	for _, nd := range decls {
		i := q.NodeIndex(nd.name)
		if nd.label != nil {
			if err := d.label(nd, i); err != nil {
				return nil, err
			}
		}
		for _, w := range nd.where {
			w.scope = NodeScope(i)
			if err := d.where(w); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range preds {
		if err := d.where(w); err != nil {
			return nil, err
		}
	}
	if n, ok := f["where"]; ok && !yamldoc.IsNull(n) {
		ws, err := d.exprs(n, "where")
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			w.scope = QueryScope()
			if err := d.where(w); err != nil {
				return nil, err
			}
		}
	}

	if err := d.groupBy(f["group_by"], f["group_within"]); err != nil {
		return nil, err
	}
	if err := d.routing(f["severity"], f["labels"], f["annotations"]); err != nil {
		return nil, err
	}
	if n, ok := f["estimate"]; ok && !yamldoc.IsNull(n) {
		s, err := d.scalar(n, "estimate")
		if err != nil {
			return nil, err
		}
		eps, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, d.errf(n, "estimate", "%q: want a relative error, a number in (0, 1) such as 0.05", s)
		}
		q.Estimate = eps
		d.lines["estimate"] = n.Line
	}

	if err := q.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			field := fe.Field
			if !strings.HasPrefix(field, d.prefix) {
				field = d.path(fe.Field)
			}
			return nil, d.fp.errf(d.lineOf(fe.Field), field, "%s", fe.Msg)
		}
		return nil, &FileError{Source: d.fp.source, Line: d.line, Err: err}
	}
	return q, nil
}

// where parses one where expression into the query's predicates.
func (d *queryDecoder) where(w exprSrc) error {
	ps, err := ParseWhere(w.text, d.path(w.field), d.q, w.scope)
	if err != nil {
		return &FileError{Source: d.fp.source, Line: w.node.Line, Err: err}
	}
	d.q.Where = append(d.q.Where, ps...)
	return nil
}

func (d *queryDecoder) nodeDecls(n *yaml.Node) ([]*nodeDecl, error) {
	if yamldoc.IsNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.errf(n, "nodes", "expected a mapping of node names (A: {label: x}), found %s", yamldoc.Kind(n))
	}
	var out []*nodeDecl
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamldoc.Resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || !nodeNameRE.MatchString(k.Value) {
			return nil, d.errf(k, "nodes", "node name %s must match [A-Za-z0-9_]+", yamldoc.Kind(k))
		}
		field := "nodes." + k.Value
		if seen[k.Value] {
			return nil, d.errf(k, "nodes", "duplicate node %q", k.Value)
		}
		seen[k.Value] = true
		d.lines[field] = k.Line
		nd := &nodeDecl{name: k.Value, key: k}
		if !yamldoc.IsNull(v) {
			f, err := d.fields(v, field, "label", "where")
			if err != nil {
				return nil, err
			}
			if l, ok := f["label"]; ok && !yamldoc.IsNull(l) {
				nd.label = l
			}
			if w, ok := f["where"]; ok && !yamldoc.IsNull(w) {
				if nd.where, err = d.exprs(w, field+".where"); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, nd)
	}
	return out, nil
}

// label turns a node's label: value into a predicate on node i.
func (d *queryDecoder) label(nd *nodeDecl, i int) error {
	field := "nodes." + nd.name + ".label"
	n := nd.label
	p := Predicate{Left: Operand{Kind: NodeAttr, Index: i, Attr: "label"}, Field: d.path(field)}
	switch n.Kind {
	case yaml.ScalarNode:
		p.Op, p.Right = OpEq, Operand{Kind: Literal, Str: n.Value, IsStr: true}
		p.Text = fmt.Sprintf("%s.label == %q", nd.name, n.Value)
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return d.errf(n, field, "empty list of labels")
		}
		p.Op, p.Right = OpIn, Operand{Kind: List}
		quoted := make([]string, 0, len(n.Content))
		for j, it := range n.Content {
			it = yamldoc.Resolve(it)
			if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
				return d.errf(it, fmt.Sprintf("%s[%d]", field, j), "expected a label, found %s", yamldoc.Kind(it))
			}
			p.Right.List = append(p.Right.List, Operand{Kind: Literal, Str: it.Value, IsStr: true})
			quoted = append(quoted, strconv.Quote(it.Value))
		}
		p.Text = fmt.Sprintf("%s.label in [%s]", nd.name, strings.Join(quoted, ", "))
	default:
		return d.errf(n, field, "expected a label or a list of labels, found %s", yamldoc.Kind(n))
	}
	d.q.Where = append(d.q.Where, p)
	return nil
}

var edgeKeys = []string{"from", "to", "within", "where"}

// edges decodes the edges: list, creating nodes in order of first
// appearance, and returns the edges' where expressions.
func (d *queryDecoder) edges(n *yaml.Node, decls []*nodeDecl, hop *Span) ([]exprSrc, error) {
	q := d.q
	if yamldoc.IsNull(n) {
		return nil, d.errf(nil, "edges", "is required: the motif edges in temporal order (e.g. - A -> B)")
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, "edges", "expected a list of edges, found %s", yamldoc.Kind(n))
	}
	if len(n.Content) > MaxEdges {
		return nil, d.errf(n, "edges", "a motif has 1 to %d edges, not %d", MaxEdges, len(n.Content))
	}
	declared := map[string]bool{}
	for _, nd := range decls {
		declared[nd.name] = true
	}
	node := func(name string, at *yaml.Node, field string) (int, error) {
		if i := q.NodeIndex(name); i >= 0 {
			return i, nil
		}
		if len(decls) > 0 && !declared[name] {
			names := make([]string, len(decls))
			for i, nd := range decls {
				names[i] = nd.name
			}
			return 0, d.errf(at, field, "unknown node %q (nodes: %s)", name, strings.Join(names, ", "))
		}
		if !nodeNameRE.MatchString(name) {
			return 0, d.errf(at, field, "node name %q must match [A-Za-z0-9_]+", name)
		}
		q.Nodes = append(q.Nodes, Node{Name: name})
		return len(q.Nodes) - 1, nil
	}
	var wheres []exprSrc
	for j, it := range n.Content {
		it = yamldoc.Resolve(it)
		field := fmt.Sprintf("edges[%d]", j)
		d.lines[field] = it.Line
		from, to, f, err := d.arrow(it, field, edgeKeys)
		if err != nil {
			return nil, err
		}
		var e Edge
		if e.From, err = node(from, it, field); err != nil {
			return nil, err
		}
		if e.To, err = node(to, it, field); err != nil {
			return nil, err
		}
		if w, ok := f["within"]; ok && !yamldoc.IsNull(w) {
			if e.Within, err = d.span(w, field+".within"); err != nil {
				return nil, err
			}
		} else if hop != nil && j > 0 {
			h := *hop
			e.Within = &h
			d.lines[field+".within"] = d.lines["hop_within"]
		}
		if w, ok := f["where"]; ok && !yamldoc.IsNull(w) {
			ws, err := d.exprs(w, field+".where")
			if err != nil {
				return nil, err
			}
			for _, w := range ws {
				w.scope = EdgeScope(j)
				wheres = append(wheres, w)
			}
		}
		q.Edges = append(q.Edges, e)
	}
	// Declared but unused nodes go last; Validate reports them.
	for _, nd := range decls {
		if q.NodeIndex(nd.name) < 0 {
			q.Nodes = append(q.Nodes, Node{Name: nd.name})
		}
	}
	return wheres, nil
}

// arrow reads an edge or anti-edge: "A -> B" or a mapping with from and
// to (and other keys from known). It returns the mapping's fields.
func (d *queryDecoder) arrow(n *yaml.Node, field string, known []string) (from, to string, f map[string]*yaml.Node, err error) {
	switch n.Kind {
	case yaml.ScalarNode:
		var ok bool
		if from, to, ok = splitArrow(n.Value); !ok {
			return "", "", nil, d.errf(n, field, "%q is not an edge: write \"A -> B\" or {from: A, to: B}", n.Value)
		}
		return from, to, nil, nil
	case yaml.MappingNode:
		if f, err = d.fields(n, field, known...); err != nil {
			return "", "", nil, err
		}
		for _, k := range []string{"from", "to"} {
			v, ok := f[k]
			if !ok || yamldoc.IsNull(v) {
				return "", "", nil, d.errf(n, field, "%s is required", k)
			}
			s, err := d.scalar(v, field+"."+k)
			if err != nil {
				return "", "", nil, err
			}
			if k == "from" {
				from = s
			} else {
				to = s
			}
		}
		return from, to, f, nil
	}
	return "", "", nil, d.errf(n, field, "expected \"A -> B\" or {from: A, to: B}, found %s", yamldoc.Kind(n))
}

// splitArrow splits "A -> B" (or "A->B", "A → B").
func splitArrow(s string) (from, to string, ok bool) {
	for _, arrow := range []string{"->", "→"} {
		if a, b, found := strings.Cut(s, arrow); found {
			a, b = strings.TrimSpace(a), strings.TrimSpace(b)
			if a == "" || b == "" || strings.Contains(b, "->") || strings.Contains(b, "→") {
				return "", "", false
			}
			return a, b, true
		}
	}
	return "", "", false
}

var antiKeys = []string{"from", "to", "after", "within"}

// groupBy reads group_by (a node name or a list of them: nodes of the
// motif's edges) and group_within (a span; only with group_by).
func (d *queryDecoder) groupBy(n, within *yaml.Node) error {
	q := d.q
	if yamldoc.IsNull(n) {
		if !yamldoc.IsNull(within) {
			return d.errf(within, "group_within", "is set without group_by: name the motif nodes that key an incident (group_by: [B])")
		}
		return nil
	}
	items := []*yaml.Node{n}
	field := func(int) string { return "group_by" }
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		field = func(i int) string { return fmt.Sprintf("group_by[%d]", i) }
		if len(items) == 0 {
			return d.errf(n, "group_by", "is empty: name the motif nodes that key an incident (group_by: [B]), or leave it out")
		}
	}
	for i, it := range items {
		it = yamldoc.Resolve(it)
		name, err := d.scalar(it, field(i))
		if err != nil {
			return err
		}
		idx := q.NodeIndex(name)
		if idx < 0 || q.firstEdgeOf(idx) == len(q.Edges) {
			return d.errf(it, field(i), "unknown node %q: group_by names nodes of the motif's edges (%s)", name, queryNodeNames(q))
		}
		if slices.Contains(q.GroupBy, idx) {
			return d.errf(it, field(i), "node %q is listed twice", name)
		}
		q.GroupBy = append(q.GroupBy, idx)
	}
	if !yamldoc.IsNull(within) {
		sp, err := d.span(within, "group_within")
		if err != nil {
			return err
		}
		q.GroupWithin = sp
		d.lines["group_within"] = within.Line
	}
	return nil
}

func (d *queryDecoder) antiEdges(n *yaml.Node) error {
	q := d.q
	if yamldoc.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, "not", "expected a list of anti-edges, found %s", yamldoc.Kind(n))
	}
	for j, it := range n.Content {
		it = yamldoc.Resolve(it)
		field := fmt.Sprintf("not[%d]", j)
		d.lines[field] = it.Line
		from, to, f, err := d.arrow(it, field, antiKeys)
		if err != nil {
			return err
		}
		var a AntiEdge
		for i, name := range []string{from, to} {
			idx := q.NodeIndex(name)
			if idx < 0 || q.firstEdgeOf(idx) == len(q.Edges) {
				return d.errf(it, field, "unknown node %q: an anti-edge joins nodes of the motif's edges (%s)", name, queryNodeNames(q))
			}
			if i == 0 {
				a.From = idx
			} else {
				a.To = idx
			}
		}
		if v, ok := f["after"]; ok && !yamldoc.IsNull(v) {
			s, err := d.scalar(v, field+".after")
			if err != nil {
				return err
			}
			after, err := strconv.Atoi(s)
			if err != nil {
				return d.errf(v, field+".after", "%q is not a motif edge number (1..%d)", s, len(q.Edges))
			}
			a.After = after - 1
		} else {
			a.After = max(q.firstEdgeOf(a.From), q.firstEdgeOf(a.To))
		}
		if w, ok := f["within"]; ok && !yamldoc.IsNull(w) {
			if a.Within, err = d.span(w, field+".within"); err != nil {
				return err
			}
		}
		q.AntiEdges = append(q.AntiEdges, a)
	}
	return nil
}

// labelNameRE is a Prometheus label name (Alertmanager refuses others).
var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// routing reads severity (a word), labels (a mapping of label names to
// values) and annotations (a mapping of label names to templates, kept
// as text with their place in the file).
func (d *queryDecoder) routing(severity, labels, annotations *yaml.Node) error {
	q := d.q
	if !yamldoc.IsNull(severity) {
		s, err := d.scalar(severity, "severity")
		if err != nil {
			return err
		}
		q.Severity = s
	}
	names := func(n *yaml.Node, field string, each func(k, v *yaml.Node, sub string) error) error {
		if yamldoc.IsNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return d.errf(n, field, "expected a mapping of names to values, found %s", yamldoc.Kind(n))
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], yamldoc.Resolve(n.Content[i+1])
			sub := field + "." + k.Value
			if k.Kind != yaml.ScalarNode || !labelNameRE.MatchString(k.Value) || strings.HasPrefix(k.Value, "__") {
				return d.errf(k, field, "name %q: want a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", k.Value)
			}
			if seen[k.Value] {
				return d.errf(k, field, "duplicate name %q", k.Value)
			}
			seen[k.Value] = true
			if err := each(k, v, sub); err != nil {
				return err
			}
		}
		return nil
	}
	err := names(labels, "labels", func(k, v *yaml.Node, sub string) error {
		s, err := d.scalar(v, sub)
		if err != nil {
			return err
		}
		if s == "" {
			return d.errf(v, sub, "is empty: a label needs a value (leave the label out instead)")
		}
		if q.Labels == nil {
			q.Labels = map[string]string{}
		}
		q.Labels[k.Value] = s
		return nil
	})
	if err != nil {
		return err
	}
	return names(annotations, "annotations", func(k, v *yaml.Node, sub string) error {
		s, err := d.scalar(v, sub)
		if err != nil {
			return err
		}
		q.Annotations = append(q.Annotations, Annotation{Name: k.Value, Text: s, Field: d.path(sub), Line: v.Line})
		return nil
	})
}
