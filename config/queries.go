package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"

	"github.com/motifwatch/motifwatch/internal/yamldoc"
)

// LoadQueries reads the queries of queries.files (motif.LoadQueries format)
// and queries.inline, in that order, and checks that their names are unique
// across all of them. Errors name file and line (inline queries: the config
// file's line and queries.inline[i]); all of them are reported, joined.
func (c *Config) LoadQueries() ([]*motif.Query, error) {
	qs, _, err := c.parseQueries(c.readQueryFiles())
	return qs, err
}

// queryFile is the content of one query file as read at one moment.
type queryFile struct {
	path string
	data []byte
	err  error
}

func (c *Config) readQueryFiles() []queryFile {
	files := make([]queryFile, len(c.Queries.Files))
	for i, path := range c.Queries.Files {
		data, err := os.ReadFile(path)
		files[i] = queryFile{path: path, data: data, err: err}
	}
	return files
}

// parseQueries parses files and the inline queries into one set. It
// returns where each query is defined ("file:line", by name) for errors
// found later.
func (c *Config) parseQueries(files []queryFile) ([]*motif.Query, map[string]string, error) {
	var (
		out   []*motif.Query
		errs  []error
		where = map[string]string{}
	)
	add := func(q *motif.Query, loc, field string) {
		if prev, dup := where[q.Name]; dup {
			if field != "" {
				loc += ": " + field
			}
			errs = append(errs, fmt.Errorf("%s: duplicate query name %q (also %s)", loc, q.Name, prev))
			return
		}
		where[q.Name] = loc
		out = append(out, q)
	}
	parsed := map[string]bool{}
	for i, f := range files {
		if parsed[f.path] { // Validate reports the repetition
			continue
		}
		parsed[f.path] = true
		if f.err != nil {
			errs = append(errs, c.fieldErr(fmt.Sprintf("queries.files[%d]", i), "%v", f.err))
			continue
		}
		qs, err := motif.ParseQueries(f.data, f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines := nameLines(f.data)
		for _, q := range qs {
			loc := f.path
			if l, ok := lines[q.Name]; ok {
				loc = fmt.Sprintf("%s:%d", f.path, l)
			}
			if err := checkAlertMeta(q, f.path, loc); err != nil {
				errs = append(errs, err)
				continue
			}
			add(q, loc, "")
		}
	}
	for i := range c.Queries.Inline {
		q, loc, err := c.inlineQuery(i)
		if err == nil {
			err = checkAlertMeta(q, c.Source, loc)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		add(q, loc, fmt.Sprintf("queries.inline[%d]", i))
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	c.queryLocs = where
	return out, where, nil
}

// QueryWarnings lists what is allowed in queries but cannot work with
// c's input: an edge attribute a query reads that no record can carry
// (CSV input whose input.csv_columns has no column of that name). Each
// names the query's file and line, the query, the condition and the
// attribute. (With JSON input any record may carry any attribute: the
// daemon says so at run time, motifwatch_query_attribute_missing.)
func (c *Config) QueryWarnings(queries []*motif.Query) []error {
	if c.Input.Format != "csv" {
		return nil
	}
	var out []error
	for _, q := range queries {
		said := map[string]bool{}
		for i := range q.Where {
			p := &q.Where[i]
			for _, o := range [2]*motif.Operand{&p.Left, &p.Right} {
				if o.Kind != motif.EdgeAttr || said[o.Attr] || slices.Contains(c.Input.CSVColumns, o.Attr) {
					continue
				}
				said[o.Attr] = true
				field := p.Field
				if field != "" {
					field += ": "
				}
				out = append(out, fmt.Errorf("%squery %q: %s%q: edge attribute %q is in no record: input.csv_columns %v has no %q column",
					locPrefix(c.queryLocs, q.Name), q.Name, field, p.Text, o.Attr, c.Input.CSVColumns, o.Attr))
			}
		}
	}
	return out
}

// nameLines maps each query name in a query file to the line of its name.
func nameLines(data []byte) map[string]int {
	out := map[string]int{}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	root := yamldoc.Resolve(doc.Content[0])
	items := []*yaml.Node{root}
	if list, ok := mappingValue(root, "queries"); ok {
		items = yamldoc.Resolve(list).Content
	}
	for _, it := range items {
		if k, v := mappingKey(yamldoc.Resolve(it), "name"); k != nil {
			out[v.Value] = k.Line
		}
	}
	return out
}

func mappingKey(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], yamldoc.Resolve(m.Content[i+1])
		}
	}
	return nil, nil
}

func mappingValue(m *yaml.Node, key string) (*yaml.Node, bool) {
	_, v := mappingKey(m, key)
	return v, v != nil
}

// inlineQuery parses queries.inline[i]: the mapping is re-marshalled into
// a one-query document for motif.ParseQueries, and errors are moved back
// onto the config file's lines and fields. It returns where the query is
// defined: "config.yaml:12", or "config" without a file.
func (c *Config) inlineQuery(i int) (*motif.Query, string, error) {
	field := fmt.Sprintf("queries.inline[%d]", i)
	var n *yaml.Node
	fromFile := len(c.inline) == len(c.Queries.Inline)
	if fromFile {
		n = c.inline[i]
	} else { // built in code: no lines to point at
		n = new(yaml.Node)
		if err := n.Encode(c.Queries.Inline[i]); err != nil {
			return nil, "", c.fieldErr(field, "%v", err)
		}
	}
	if k, _ := mappingKey(n, "queries"); k != nil {
		return nil, "", c.fieldErr(field, "one query mapping, not a queries: list (put the list itself under queries.inline)")
	}
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, "", c.fieldErr(field, "%v", err)
	}
	qs, err := motif.ParseQueries(data, c.Source)
	if err != nil {
		return nil, "", c.relocateInline(err, n, data, field)
	}
	if len(qs) != 1 {
		return nil, "", c.fieldErr(field, "holds %d queries; want one", len(qs))
	}
	q := qs[0]
	// Predicates name their source field for errors found later (Compile):
	// "query.where[0]" becomes "queries.inline[2].where[0]".
	for j := range q.Where {
		q.Where[j].Field = renameQueryField(q.Where[j].Field, field)
	}
	for j := range q.Annotations { // lines of the re-marshalled text: loc's line instead
		q.Annotations[j].Field, q.Annotations[j].Line = renameQueryField(q.Annotations[j].Field, field), 0
	}
	loc := "config"
	if c.Source != "" {
		loc = c.Source
		line := c.originOf(field).line
		if k, _ := mappingKey(n, "name"); k != nil && k.Line > 0 && fromFile {
			line = k.Line
		}
		if line > 0 {
			loc = fmt.Sprintf("%s:%d", c.Source, line)
		}
	}
	return q, loc, nil
}

// renameQueryField moves a field path of a one-query document ("query",
// "query.delta") under field ("queries.inline[2].delta").
func renameQueryField(f, field string) string {
	if rest, ok := strings.CutPrefix(f, "query"); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
		return field + rest
	}
	if f == "" {
		return field
	}
	return field + "." + f
}

// relocateInline rewrites an error of motif.ParseQueries on the
// re-marshalled inline query data (from the config's node n) to name the
// config file, the original line, and fields under queries.inline[i].
func (c *Config) relocateInline(err error, n *yaml.Node, data []byte, field string) error {
	var fe *motif.FileError
	if !errors.As(err, &fe) {
		return fmt.Errorf("%s: %w", field, err)
	}
	fe.Source = c.Source
	line := n.Line
	if fe.Line > 0 && line > 0 {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
			lines := map[int]int{}
			mapLines(doc.Content[0], n, lines)
			if l, ok := lines[fe.Line]; ok {
				line = l
			}
		}
	}
	fe.Line = line
	var fieldErr *motif.FieldError
	var exprErr *motif.ExprError
	switch {
	case errors.As(fe.Err, &fieldErr):
		fieldErr.Field = renameQueryField(fieldErr.Field, field)
	case errors.As(fe.Err, &exprErr):
		exprErr.Field = renameQueryField(exprErr.Field, field)
	default:
		fe.Err = fmt.Errorf("%s: %w", field, fe.Err)
	}
	return fe
}

// mapLines walks two YAML trees of the same shape (a node re-parsed from
// its own marshalling, and the original) and maps each line of the first
// to the line of the corresponding node in the second.
func mapLines(got, orig *yaml.Node, lines map[int]int) {
	if got == nil || orig == nil {
		return
	}
	if _, ok := lines[got.Line]; !ok && orig.Line > 0 {
		lines[got.Line] = orig.Line
	}
	orig = yamldoc.Resolve(orig)
	if len(got.Content) != len(orig.Content) {
		return
	}
	for i := range got.Content {
		mapLines(got.Content[i], orig.Content[i], lines)
	}
}

// CheckQueries reports config settings that name queries absent from
// queries: alerts.per_query entries (a misspelt name would silently leave
// the query on the defaults).
func (c *Config) CheckQueries(queries []*motif.Query) error {
	names := map[string]bool{}
	for _, q := range queries {
		names[q.Name] = true
	}
	var unknown []string
	for name := range c.Alerts.PerQuery {
		if !names[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	var errs []error
	for _, name := range unknown {
		errs = append(errs, c.fieldErr("alerts.per_query."+name, "no query is named %q", name))
	}
	for _, q := range queries {
		if len(q.GroupBy) == 0 || c.Alerts.For(q.Name).Mode != alerts.ModeCount {
			continue
		}
		field := "alerts.mode"
		if o, ok := c.Alerts.PerQuery[q.Name]; ok && o.Mode != "" {
			field = "alerts.per_query." + q.Name + ".mode"
		}
		errs = append(errs, c.fieldErr(field, "%s: query %q has group_by, and incidents fold match records, which count mode does not write (use enumerate)", alerts.ModeCount, q.Name))
	}
	for _, q := range queries {
		if q.Estimate == 0 {
			continue
		}
		if mode := c.Alerts.For(q.Name).Mode; mode != alerts.ModeCount {
			field := "alerts.mode"
			if o, ok := c.Alerts.PerQuery[q.Name]; ok && o.Mode != "" {
				field = "alerts.per_query." + q.Name + ".mode"
			}
			errs = append(errs, c.fieldErr(field, "%s: query %q has estimate %v, and an estimate raises no alerts: use count mode (alerts.per_query.%s.mode: count)", mode, q.Name, q.Estimate, q.Name))
		}
		if len(q.AntiEdges) > 0 {
			errs = append(errs, fmt.Errorf("query %q: estimate %v needs a query without anti-edges (not:): the daemon holds their open matches one by one", q.Name, q.Estimate))
		}
	}
	return errors.Join(errs...)
}

// Schema builds the window schema for queries: TimeUnit from
// input.time_unit; EdgeAttrs from input.attributes plus every edge
// attribute the queries read that is not declared there, with its type
// inferred (compared with a string literal, or with a string attribute:
// string; otherwise number), sorted by name; NodeAttrs: label (string) when
// input.fields.src_label or dst_label is set or a query reads node labels.
// A query reading any other node attribute is an error: the stream carries
// no node attributes besides labels. So is an undeclared attribute that
// queries compare with both strings and numbers.
func (c *Config) Schema(queries []*motif.Query) (window.Schema, error) {
	return c.schema(queries, nil)
}

// schema is Schema; where locates queries by name for errors.
func (c *Config) schema(queries []*motif.Query, where map[string]string) (window.Schema, error) {
	s := window.Schema{TimeUnit: c.Input.TimeUnit}
	var errs []error

	kinds := map[string]window.Kind{}
	declared := map[string]bool{}
	for name, typ := range c.Input.Attributes {
		declared[name] = true
		kinds[name] = window.Number
		if typ == "string" {
			kinds[name] = window.String
		}
	}

	// Infer undeclared edge attributes, to a fixpoint: "e1.x == e2.y" types
	// x once y is typed.
	type use struct {
		query, text string
		kind        window.Kind
	}
	firstUse := map[string]use{}
	conflicts := map[string]bool{}
	label := c.Input.Fields.SrcLabel != "" || c.Input.Fields.DstLabel != ""
	for changed := true; changed; {
		changed = false
		for _, q := range queries {
			for i := range q.Where {
				p := &q.Where[i]
				for _, side := range [2][2]*motif.Operand{{&p.Left, &p.Right}, {&p.Right, &p.Left}} {
					a, other := side[0], side[1]
					if a.Kind != motif.EdgeAttr || declared[a.Attr] || conflicts[a.Attr] {
						continue
					}
					k, ok := operandKind(p.Op, other, kinds)
					if !ok {
						continue
					}
					prev, seen := firstUse[a.Attr]
					switch {
					case !seen:
						firstUse[a.Attr] = use{query: q.Name, text: p.Text, kind: k}
						kinds[a.Attr] = k
						changed = true
					case prev.kind != k:
						conflicts[a.Attr] = true
						errs = append(errs, c.fieldErr("input.attributes", "edge attribute %q is compared with a %s in query %q (%q) and with a %s in query %q (%q): declare its type in input.attributes",
							a.Attr, prev.kind, prev.query, prev.text, k, q.Name, p.Text))
					}
				}
			}
		}
	}

	var nodeErrs []error
	for _, q := range queries {
		for i := range q.Where {
			p := &q.Where[i]
			for _, o := range [2]*motif.Operand{&p.Left, &p.Right} {
				switch o.Kind {
				case motif.EdgeAttr:
					if _, ok := kinds[o.Attr]; !ok {
						kinds[o.Attr] = window.Number // compared with nothing typed
					}
				case motif.NodeAttr:
					if o.Attr == window.LabelAttr {
						label = true
						continue
					}
					field := p.Field
					if field != "" {
						field += ": "
					}
					nodeErrs = append(nodeErrs, fmt.Errorf("%squery %q: %s%q: node attribute %q: the stream carries no node attributes besides %s (input.fields.src_label, dst_label)",
						locPrefix(where, q.Name), q.Name, field, p.Text, o.Attr, window.LabelAttr))
				}
			}
		}
	}
	errs = append(errs, nodeErrs...)

	names := make([]string, 0, len(kinds))
	for name := range kinds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s.EdgeAttrs = append(s.EdgeAttrs, window.Attr{Name: name, Kind: kinds[name]})
	}
	if label {
		s.NodeAttrs = []window.Attr{{Name: window.LabelAttr, Kind: window.String}}
	}
	if len(errs) == 0 {
		if err := s.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return s, errors.Join(errs...)
}

// operandKind returns the type an attribute compared (by op) with o must
// have, if o tells.
func operandKind(op motif.CmpOp, o *motif.Operand, kinds map[string]window.Kind) (window.Kind, bool) {
	switch op {
	case motif.OpLt, motif.OpLe, motif.OpGt, motif.OpGe:
		return window.Number, true
	}
	switch o.Kind {
	case motif.Literal:
		return kindOf(o.IsStr), true
	case motif.List:
		if len(o.List) > 0 {
			return kindOf(o.List[0].IsStr), true
		}
	case motif.EdgeAttr:
		k, ok := kinds[o.Attr]
		return k, ok
	case motif.NodeAttr:
		if o.Attr == window.LabelAttr {
			return window.String, true
		}
	}
	return 0, false
}

func kindOf(isStr bool) window.Kind {
	if isStr {
		return window.String
	}
	return window.Number
}

// MaxDelta returns the largest delta of queries as a duration (deltas in
// ticks are converted with input.time_unit); 0 for no queries.
func (c *Config) MaxDelta(queries []*motif.Query) time.Duration {
	var largest time.Duration
	for _, q := range queries {
		d := q.Delta.Duration
		if !q.Delta.IsDuration {
			if c.Input.TimeUnit > 0 && q.Delta.Ticks > int64(math.MaxInt64/c.Input.TimeUnit) {
				d = math.MaxInt64
			} else {
				d = time.Duration(q.Delta.Ticks) * c.Input.TimeUnit
			}
		}
		largest = max(largest, d)
	}
	return largest
}

// WindowSpan is the history the daemon keeps: the largest query delta
// plus window.allowed_lateness.
func (c *Config) WindowSpan(queries []*motif.Query) time.Duration {
	d := c.MaxDelta(queries)
	if d > math.MaxInt64-c.Window.AllowedLateness {
		return math.MaxInt64
	}
	return d + c.Window.AllowedLateness
}

// Check is everything `monitor validate` checks, and what the daemon
// needs at start: Validate, LoadQueries, CheckQueries, Schema, and every
// query compiled against an empty window of that schema (which catches,
// for instance, durations that are not whole ticks of input.time_unit).
// It reports all errors it finds, joined; the queries and schema are
// valid only when the error is nil.
func (c *Config) Check() ([]*motif.Query, window.Schema, error) {
	var errs []error
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	queries, where, err := c.parseQueries(c.readQueryFiles())
	if err != nil {
		return nil, window.Schema{}, errors.Join(append(errs, err)...)
	}
	if err := c.CheckQueries(queries); err != nil {
		errs = append(errs, err)
	}
	if c.Input.TimeUnit <= 0 { // Validate said so; no schema without a unit
		return nil, window.Schema{}, errors.Join(errs...)
	}
	schema, err := c.schema(queries, where)
	if err != nil {
		return nil, window.Schema{}, errors.Join(append(errs, err)...)
	}
	w, err := window.New(schema)
	if err != nil {
		return nil, window.Schema{}, errors.Join(append(errs, err)...)
	}
	for _, q := range queries {
		if _, err := motif.Compile(q, w); err != nil {
			errs = append(errs, fmt.Errorf("%s%w", locPrefix(where, q.Name), err))
		}
	}
	if len(errs) > 0 {
		return nil, window.Schema{}, errors.Join(errs...)
	}
	return queries, schema, nil
}

// locPrefix returns "file:line: " for the named query, or "".
func locPrefix(where map[string]string, name string) string {
	if loc := where[name]; loc != "" {
		return loc + ": "
	}
	return ""
}

// AlertMeta returns what q's alert records carry for routing: its
// severity, labels and compiled annotation templates (alerts.Meta).
func AlertMeta(q *motif.Query) (alerts.Meta, error) {
	m := alerts.Meta{Severity: q.Severity, Labels: q.Labels}
	if err := alerts.CheckLabels(q.Labels); err != nil {
		return m, err
	}
	if len(q.Annotations) == 0 {
		return m, nil
	}
	texts := make(map[string]string, len(q.Annotations))
	for _, a := range q.Annotations {
		texts[a.Name] = a.Text
	}
	nodes := make([]string, len(q.Nodes))
	for i, n := range q.Nodes {
		nodes[i] = n.Name
	}
	var err error
	m.Annotations, err = alerts.ParseAnnotations(texts, nodes)
	return m, err
}

// checkAlertMeta checks q's labels and annotation templates, naming the
// file and line (source, or loc "file:line" of the query's name when the
// annotation's own line is unknown), the query and the field.
func checkAlertMeta(q *motif.Query, source, loc string) error {
	_, err := AlertMeta(q)
	if err == nil {
		return nil
	}
	where, field := loc, "labels"
	var ae *alerts.AnnotationError
	if errors.As(err, &ae) {
		for _, a := range q.Annotations {
			if a.Name != ae.Name {
				continue
			}
			field = a.Field
			if a.Line > 0 && source != "" {
				where = fmt.Sprintf("%s:%d", source, a.Line)
			}
			err = ae.Err
		}
	}
	if where != "" {
		where += ": "
	}
	return fmt.Errorf("%squery %q: %s: %w", where, q.Name, field, err)
}
