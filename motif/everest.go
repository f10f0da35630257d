package motif

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/internal/yamldoc"
)

// Everest's query files (Yuan et al., VLDB 2024) are imported, not
// extended: whatever they can say that a Query cannot is an error.
//
//	pattern: M4.txt          # lines "u v order", relative to the YAML's directory
//	graph: wiki-talk.txt     # returned in EverestInfo, not loaded
//	constraints:
//	  delta: 86400           # timestamp ticks
//	  temporal: [600, 600, 600, 600]  # temporal[i]: longest gap after pattern entry i
//	  antiEdge: [false, false, false, true]
//	  node: "f > 5"          # every node; f is the node's feature
//	  node0: "f == 1"        # the 0th node in order of first appearance
//	  edge: "f != 0"         # every motif edge; f is the edge's feature
//	  edge1: "f < 100"       # the 1st motif edge (anti-edges not counted)
//	  filter: "e0 < e2 && n1 != 3"  # eN: feature of pattern entry N; nN: of node N
//	options: {gpu: 2, enumerate: 1000, warpCentric: true}
//
// Pattern entries are sorted by their order numbers. antiEdge[i] makes
// entry i an anti-edge attached after the last motif edge before it, and
// temporal[i] bounds the gap after entry i: the gap from motif edge i to
// motif edge i+1 is temporal[entry of motif edge i], and an anti-edge's
// Within is temporal[entry of the motif edge it attaches to]. A gap of
// delta or more is dropped (delta already bounds it). Features become the
// attribute "f" of edges and nodes.

// EverestInfo is what an Everest query file holds besides the motif.
type EverestInfo struct {
	// Pattern is the pattern file's path, resolved against the YAML's
	// directory; Graph likewise (it is not read).
	Pattern, Graph string
	// GPU is options.gpu (default 1).
	GPU int
	// Enumerate is options.enumerate: how many matches to enumerate; 0
	// means count only.
	Enumerate int
	// WarpCentric, WarpBalancing and TailExpansion are Everest's runtime
	// switches (default true); motifwatch ignores them.
	WarpCentric, WarpBalancing, TailExpansion bool
}

// everestFeature is the attribute that Everest's node and edge features
// map to.
const everestFeature = "f"

// ImportEverest reads an Everest query file and the pattern file it names,
// and returns the query (named after the file, without extension) and the
// rest of the file. Errors are *FileError naming the file, line and key.
func ImportEverest(path string) (*Query, EverestInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, EverestInfo{GPU: 1, WarpCentric: true, WarpBalancing: true, TailExpansion: true}, err
	}
	return importEverest(path, data, os.ReadFile)
}

// importEverest is ImportEverest on the query file's contents, reading the
// pattern file with readFile (the fuzz target serves it from memory).
func importEverest(path string, data []byte, readFile func(string) ([]byte, error)) (*Query, EverestInfo, error) {
	info := EverestInfo{GPU: 1, WarpCentric: true, WarpBalancing: true, TailExpansion: true}
	fp := &fileParser{source: path}
	root, err := fp.decode(data)
	if err != nil {
		return nil, info, err
	}
	if root == nil {
		return nil, info, fp.errf(0, "", "empty Everest query file")
	}
	d := &queryDecoder{fp: fp, prefix: "", lines: map[string]int{}, line: root.Line}
	top, err := d.fields(root, "", "pattern", "graph", "constraints", "options")
	if err != nil {
		return nil, info, err
	}
	dir := filepath.Dir(path)
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	pat, ok := top["pattern"]
	if !ok || yamldoc.IsNull(pat) {
		return nil, info, d.errf(nil, "pattern", "is required: the pattern file (lines \"u v order\")")
	}
	s, err := d.scalar(pat, "pattern")
	if err != nil {
		return nil, info, err
	}
	info.Pattern = resolve(s)
	if g, ok := top["graph"]; ok {
		if s, err = d.scalar(g, "graph"); err != nil {
			return nil, info, err
		}
		info.Graph = resolve(s)
	}
	if o, ok := top["options"]; ok && !yamldoc.IsNull(o) {
		if err := d.everestOptions(o, &info); err != nil {
			return nil, info, err
		}
	}
	c, ok := top["constraints"]
	if !ok || yamldoc.IsNull(c) {
		return nil, info, d.errf(nil, "constraints", "is required: at least constraints.delta")
	}
	pdata, err := readFile(info.Pattern)
	if err != nil {
		return nil, info, d.errf(pat, "pattern", "%v", err)
	}
	entries, err := parseEverestPattern(pdata, info.Pattern)
	if err != nil {
		return nil, info, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name = everestNameRE().ReplaceAllString(name, "_")
	q, err := d.everestQuery(name, entries, c, info.Pattern)
	if err != nil {
		return nil, info, err
	}
	return q, info, nil
}

func (d *queryDecoder) everestOptions(o *yaml.Node, info *EverestInfo) error {
	keys := []string{"gpu", "enumerate", "warpCentric", "warpBalancing", "tailExpansion"}
	f, err := d.fields(o, "options", keys...)
	if err != nil {
		return err
	}
	for _, k := range keys {
		v, ok := f[k]
		if !ok {
			continue
		}
		field := "options." + k
		s, err := d.scalar(v, field)
		if err != nil {
			return err
		}
		switch k {
		case "gpu", "enumerate":
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || k == "gpu" && n < 1 {
				return d.errf(v, field, "%q is not a valid count", s)
			}
			if k == "gpu" {
				info.GPU = n
			} else {
				info.Enumerate = n
			}
		default:
			b, err := strconv.ParseBool(strings.ToLower(s))
			if err != nil {
				return d.errf(v, field, "%q is not true or false", s)
			}
			switch k {
			case "warpCentric":
				info.WarpCentric = b
			case "warpBalancing":
				info.WarpBalancing = b
			case "tailExpansion":
				info.TailExpansion = b
			}
		}
	}
	return nil
}

// everestEntry is one line "u v order" of a pattern file.
type everestEntry struct {
	u, v  string
	order int
	line  int
}

func parseEverestPattern(data []byte, source string) ([]everestEntry, error) {
	fp := &fileParser{source: source}
	var out []everestEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fp.errf(line, "", "expected \"u v order\", found %q", sc.Text())
		}
		order, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fp.errf(line, "", "order %q is not an integer", f[2])
		}
		for _, n := range f[:2] {
			if !nodeNameRE.MatchString(n) {
				return nil, fp.errf(line, "", "node %q must match [A-Za-z0-9_]+", n)
			}
		}
		out = append(out, everestEntry{u: f[0], v: f[1], order: order, line: line})
	}
	if err := sc.Err(); err != nil {
		return nil, &FileError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, fp.errf(0, "", "no edges in the pattern file")
	}
	slices.SortStableFunc(out, func(a, b everestEntry) int { return a.order - b.order })
	for i := 1; i < len(out); i++ {
		if out[i].order == out[i-1].order {
			return nil, fp.errf(out[i].line, "", "order %d is also used on line %d", out[i].order, out[i-1].line)
		}
	}
	return out, nil
}

// Compiled on first use (Everest imports), not at every command's start.
var (
	everestConsKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(node|edge)([0-9]+)?$`) })
	everestNameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]`) })
)

func (d *queryDecoder) everestQuery(name string, entries []everestEntry, c *yaml.Node, patPath string) (*Query, error) {
	c = yamldoc.Resolve(c)
	if c.Kind != yaml.MappingNode {
		return nil, d.errf(c, "constraints", "expected a mapping, found %s", yamldoc.Kind(c))
	}
	// Collect the keys first: which are allowed depends on the key's form.
	cons := map[string]*yaml.Node{}
	var keys []string
	for i := 0; i+1 < len(c.Content); i += 2 {
		k, v := c.Content[i], yamldoc.Resolve(c.Content[i+1])
		switch {
		case k.Kind != yaml.ScalarNode:
			return nil, d.errf(k, "constraints", "keys must be plain words, found %s", yamldoc.Kind(k))
		case k.Value == "delta", k.Value == "temporal", k.Value == "antiEdge", k.Value == "filter", everestConsKey().MatchString(k.Value):
		default:
			return nil, d.errf(k, "constraints", "unknown key %q (known: delta, temporal, antiEdge, node, node0.., edge, edge0.., filter)", k.Value)
		}
		if _, dup := cons[k.Value]; dup {
			return nil, d.errf(k, "constraints", "duplicate key %q", k.Value)
		}
		cons[k.Value] = v
		keys = append(keys, k.Value)
		d.lines["constraints."+k.Value] = k.Line
	}
	q := &Query{Name: name, Description: "imported from Everest query " + d.fp.source}
	d.q = q

	dn, ok := cons["delta"]
	if !ok || yamldoc.IsNull(dn) {
		return nil, d.errf(c, "constraints.delta", "is required (timestamp ticks)")
	}
	delta, err := d.everestInt(dn, "constraints.delta")
	if err != nil {
		return nil, err
	}
	q.Delta = TicksSpan(delta)

	n := len(entries)
	anti := make([]bool, n)
	if a, ok := cons["antiEdge"]; ok && !yamldoc.IsNull(a) {
		if a.Kind != yaml.SequenceNode || len(a.Content) != n {
			return nil, d.errf(a, "constraints.antiEdge", "expected a list of %d booleans, one per pattern entry", n)
		}
		for i, it := range a.Content {
			s, err := d.scalar(yamldoc.Resolve(it), fmt.Sprintf("constraints.antiEdge[%d]", i))
			if err != nil {
				return nil, err
			}
			if anti[i], err = strconv.ParseBool(strings.ToLower(s)); err != nil {
				return nil, d.errf(it, fmt.Sprintf("constraints.antiEdge[%d]", i), "%q is not true or false", s)
			}
		}
		if anti[0] {
			return nil, d.errf(a, "constraints.antiEdge[0]", "the first pattern entry (line %d of %s) cannot be an anti-edge", entries[0].line, patPath)
		}
	}
	var temporal []int64
	if t, ok := cons["temporal"]; ok && !yamldoc.IsNull(t) {
		if t.Kind != yaml.SequenceNode || len(t.Content) != n && len(t.Content) != n-1 {
			return nil, d.errf(t, "constraints.temporal", "expected a list of %d (or %d) gaps, one after each pattern entry", n, n-1)
		}
		for i, it := range t.Content {
			v, err := d.everestInt(yamldoc.Resolve(it), fmt.Sprintf("constraints.temporal[%d]", i))
			if err != nil {
				return nil, err
			}
			temporal = append(temporal, v)
		}
	}
	gap := func(entry int) (int64, bool) {
		if entry < len(temporal) {
			return temporal[entry], true
		}
		return 0, false
	}

	// Motif edges and anti-edges, in order.
	pfp := &fileParser{source: patPath}
	entryEdge := make([]int, n) // pattern entry → motif edge, or -1
	lastEdge := -1
	var edgeLines, antiLines []int
	for i, e := range entries {
		if !anti[i] {
			from, to := q.NodeIndex(e.u), q.NodeIndex(e.v)
			if from < 0 {
				q.Nodes = append(q.Nodes, Node{Name: e.u})
				from = len(q.Nodes) - 1
			}
			if to < 0 {
				q.Nodes = append(q.Nodes, Node{Name: e.v})
				to = len(q.Nodes) - 1
			}
			edge := Edge{From: from, To: to}
			if lastEdge >= 0 {
				if g, ok := gap(lastEdge); ok && g < delta {
					w := TicksSpan(g)
					edge.Within = &w
				}
			}
			q.Edges = append(q.Edges, edge)
			entryEdge[i] = len(q.Edges) - 1
			edgeLines = append(edgeLines, e.line)
			lastEdge = i
			continue
		}
		entryEdge[i] = -1
		from, to := q.NodeIndex(e.u), q.NodeIndex(e.v)
		if from < 0 || to < 0 {
			missing := e.u
			if from >= 0 {
				missing = e.v
			}
			return nil, pfp.errf(e.line, "", "anti-edge %s -> %s: node %s is not mapped by an earlier motif edge", e.u, e.v, missing)
		}
		a := AntiEdge{From: from, To: to, After: len(q.Edges) - 1}
		if g, ok := gap(lastEdge); ok {
			w := TicksSpan(g)
			a.Within = &w
		}
		q.AntiEdges = append(q.AntiEdges, a)
		antiLines = append(antiLines, e.line)
	}

	// Feature constraints, in the file's order.
	for _, k := range keys {
		v := cons[k]
		if k == "delta" || k == "temporal" || k == "antiEdge" || yamldoc.IsNull(v) {
			continue
		}
		field := "constraints." + k
		text, err := d.scalar(v, field)
		if err != nil {
			return nil, err
		}
		env := &everestEnv{q: q, entryEdge: entryEdge}
		switch m := everestConsKey().FindStringSubmatch(k); {
		case k == "filter":
			env.filter = true
		case m[2] == "" && m[1] == "node":
			env.scope = EachNodeScope()
		case m[2] == "" && m[1] == "edge":
			env.scope = QueryScope()
		default:
			idx, err := strconv.Atoi(m[2])
			limit, what := len(q.Nodes), "nodes"
			if m[1] == "edge" {
				limit, what = len(q.Edges), "motif edges"
			}
			if err != nil || idx >= limit {
				return nil, d.errf(v, field, "the motif has %d %s (%s0..%s%d)", limit, what, m[1], m[1], limit-1)
			}
			if m[1] == "node" {
				env.scope = NodeScope(idx)
			} else {
				env.scope = EdgeScope(idx)
			}
		}
		ps, err := parseWhereEnv(text, field, env)
		if err != nil {
			return nil, &FileError{Source: d.fp.source, Line: v.Line, Err: err}
		}
		q.Where = append(q.Where, ps...)
	}

	if err := q.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			var idx int
			if _, err := fmt.Sscanf(fe.Field, "edges[%d]", &idx); err == nil && idx < len(edgeLines) {
				return nil, &FileError{Source: patPath, Line: edgeLines[idx], Err: fe}
			}
			if _, err := fmt.Sscanf(fe.Field, "not[%d]", &idx); err == nil && idx < len(antiLines) {
				return nil, &FileError{Source: patPath, Line: antiLines[idx], Err: fe}
			}
		}
		return nil, &FileError{Source: d.fp.source, Line: d.line, Err: err}
	}
	return q, nil
}

func (d *queryDecoder) everestInt(n *yaml.Node, field string) (int64, error) {
	s, err := d.scalar(n, field)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, d.errf(n, field, "%q is not an integer number of timestamp ticks", s)
	}
	if v < 0 {
		return 0, d.errf(n, field, "%d must not be negative", v)
	}
	return v, nil
}

// everestEnv resolves names in Everest's constraint expressions: f in node
// and edge constraints; eN and nN in the filter.
type everestEnv struct {
	q         *Query
	scope     Scope
	filter    bool
	entryEdge []int
}

func (e *everestEnv) copies() int {
	if e.filter {
		return 1
	}
	return (&queryEnv{q: e.q, scope: e.scope}).copies()
}

func (e *everestEnv) resolve(o *exprOperand, copy int) (Operand, *resolveErr) {
	name := o.attr
	if o.head != "" {
		name = o.head + "." + o.attr
	}
	if !e.filter {
		if o.head != "" || o.attr != everestFeature {
			what := "node"
			if e.scope.kind == scopeEachEdge || e.scope.kind == scopeEdge {
				what = "edge"
			}
			return Operand{}, &resolveErr{msg: fmt.Sprintf("unknown name %q", name), hint: fmt.Sprintf("Everest %s constraints read the %s's feature as f", what, what)}
		}
		return (&queryEnv{q: e.q, scope: e.scope}).resolve(o, copy)
	}
	if o.head == "" && len(o.attr) > 1 && (o.attr[0] == 'e' || o.attr[0] == 'n') {
		if idx, ok := edgeRef("e" + o.attr[1:]); ok {
			if o.attr[0] == 'n' {
				if idx >= len(e.q.Nodes) {
					return Operand{}, &resolveErr{msg: fmt.Sprintf("node %s out of range", name), hint: fmt.Sprintf("the motif has %d nodes, n0..n%d", len(e.q.Nodes), len(e.q.Nodes)-1)}
				}
				return Operand{Kind: NodeAttr, Index: idx, Attr: everestFeature}, nil
			}
			if idx >= len(e.entryEdge) {
				return Operand{}, &resolveErr{msg: fmt.Sprintf("edge %s out of range", name), hint: fmt.Sprintf("the pattern has %d entries, e0..e%d", len(e.entryEdge), len(e.entryEdge)-1)}
			}
			if e.entryEdge[idx] < 0 {
				return Operand{}, &resolveErr{msg: fmt.Sprintf("%s is an anti-edge", name), hint: "an anti-edge matches no graph edge, so it has no feature"}
			}
			return Operand{Kind: EdgeAttr, Index: e.entryEdge[idx], Attr: everestFeature}, nil
		}
	}
	return Operand{}, &resolveErr{msg: fmt.Sprintf("unknown name %q", name), hint: "an Everest filter reads eN (pattern entry N's feature) and nN (node N's feature)"}
}
