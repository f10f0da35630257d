package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

func TestLoadQueriesFilesThenInline(t *testing.T) {
	c, err := Load("testdata/full.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := c.LoadQueries()
	if err != nil {
		t.Fatalf("LoadQueries() error = %v", err)
	}
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
	}
	if want := []string{"money-cycle", "fan-in", "labelled", "Big.Transfer"}; !reflect.DeepEqual(names, want) {
		t.Errorf("LoadQueries() names = %q; want %q", names, want)
	}
	if got := qs[3].Delta; got != motif.DurationSpan(time.Hour) {
		t.Errorf("inline query delta = %v; want 1h", got)
	}
}

func TestInlineQueryErrorsPointAtTheConfig(t *testing.T) {
	// The inline query's edges[1] is on line 8 of the config; motif sees
	// its re-marshalled form, whose lines differ.
	src := `# leading comment
window: {batch_size: 10}
queries:
  inline:
    - name: q
      delta: 10m
      edges:
        - {from: A, to: B}
        - {from: C, to: D}
`
	c, err := Parse([]byte(src), "cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.LoadQueries()
	want := `cfg.yaml:9: queries.inline[0].edges[1]: C -> D touches no node of an earlier edge`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadQueries() error = %v; want substring %q", err, want)
	}
}

func TestInlineQueriesBuiltInCode(t *testing.T) {
	c := valid()
	c.Queries.Inline = append(c.Queries.Inline, map[string]any{"name": "r", "delta": "-1m", "edges": []any{"A -> B"}})
	_, err := c.LoadQueries()
	if want := `queries.inline[1].delta: -1m must be positive`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadQueries() error = %v; want substring %q", err, want)
	}
}

func TestLoadQueriesDuplicateNames(t *testing.T) {
	data, err := os.ReadFile("testdata/queries/fraud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.yaml")
	if err := os.WriteFile(copied, append([]byte("# a copy\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	c := valid()
	c.Queries.Files = []string{"testdata/queries/fraud.yaml", copied}
	c.Queries.Inline = []map[string]any{{"name": "money-cycle", "delta": "1m", "edges": []any{"A -> B"}}}
	_, err = c.LoadQueries()
	for _, want := range []string{
		copied + `:3: duplicate query name "money-cycle" (also testdata/queries/fraud.yaml:2)`,
		copied + `:9: duplicate query name "fan-in" (also testdata/queries/fraud.yaml:8)`,
		`queries.inline[0]: duplicate query name "money-cycle" (also testdata/queries/fraud.yaml:2)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadQueries() error = %v; want substring %q", err, want)
		}
	}
}

// query parses one query for Schema tests.
func query(t *testing.T, src string) *motif.Query {
	t.Helper()
	qs, err := motif.ParseQueries([]byte(src), "test")
	if err != nil {
		t.Fatalf("ParseQueries(%q) error = %v", src, err)
	}
	return qs[0]
}

func TestSchemaInference(t *testing.T) {
	cases := []struct {
		name    string
		attrs   map[string]string
		labels  bool
		queries []string
		edge    []window.Attr
		node    []window.Attr
	}{
		{
			name:    "no attributes",
			queries: []string{"{name: q, delta: 1m, edges: [A -> B]}"},
		},
		{
			name:    "declared, sorted",
			attrs:   map[string]string{"z": "number", "currency": "string", "amount": "number"},
			queries: []string{"{name: q, delta: 1m, edges: [A -> B]}"},
			edge:    []window.Attr{{Name: "amount"}, {Name: "currency", Kind: window.String}, {Name: "z"}},
		},
		{
			name:    "inferred from literals",
			queries: []string{`{name: q, delta: 1m, edges: [A -> B, B -> C], where: ["amount > 5", 'currency == "usd"', 'e2.kind in ["a", "b"]', "n in [1, 2]"]}`},
			edge:    []window.Attr{{Name: "amount"}, {Name: "currency", Kind: window.String}, {Name: "kind", Kind: window.String}, {Name: "n"}},
		},
		{
			name: "inferred through other attributes, across queries",
			queries: []string{
				`{name: q1, delta: 1m, edges: [A -> B, B -> C], where: "e2.dst_bank == e1.src_bank"}`,
				`{name: q2, delta: 1m, edges: [A -> B], where: 'src_bank != "x"'}`,
			},
			edge: []window.Attr{{Name: "dst_bank", Kind: window.String}, {Name: "src_bank", Kind: window.String}},
		},
		{
			name:    "declared wins; undeclared compared with nothing is a number",
			attrs:   map[string]string{"amount": "string"},
			queries: []string{`{name: q, delta: 1m, edges: [A -> B, B -> C], where: "e1.x == e2.y"}`},
			edge:    []window.Attr{{Name: "amount", Kind: window.String}, {Name: "x"}, {Name: "y"}},
		},
		{
			name:    "node label from a query",
			queries: []string{`{name: q, delta: 1m, nodes: {A: {label: account}, B: {}}, edges: [A -> B]}`},
			node:    []window.Attr{{Name: "label", Kind: window.String}},
		},
		{
			name:    "node label from the input fields",
			labels:  true,
			queries: []string{"{name: q, delta: 1m, edges: [A -> B]}"},
			node:    []window.Attr{{Name: "label", Kind: window.String}},
		},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		c.Input.TimeUnit = time.Millisecond
		if tc.attrs != nil {
			c.Input.Attributes = tc.attrs
		}
		if tc.labels {
			c.Input.Fields.DstLabel = "kind"
		}
		var qs []*motif.Query
		for _, src := range tc.queries {
			qs = append(qs, query(t, src))
		}
		s, err := c.Schema(qs)
		if err != nil {
			t.Errorf("%s: Schema() error = %v", tc.name, err)
			continue
		}
		want := window.Schema{TimeUnit: time.Millisecond, EdgeAttrs: tc.edge, NodeAttrs: tc.node}
		if !reflect.DeepEqual(s, want) {
			t.Errorf("%s: Schema() =\n%+v\nwant\n%+v", tc.name, s, want)
		}
		// The schema serves the queries: each compiles against it.
		w, err := window.New(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if _, err := motif.Compile(q, w); err != nil {
				t.Errorf("%s: Compile(%s) against the schema: %v", tc.name, q.Name, err)
			}
		}
	}
}

func TestSchemaErrors(t *testing.T) {
	cases := []struct {
		queries []string
		want    string
	}{
		{[]string{`{name: q, delta: 1m, nodes: {A: {where: "risk > 0.5"}, B: {}}, edges: [A -> B]}`},
			`query "q": query.nodes.A.where: "risk > 0.5": node attribute "risk": the stream carries no node attributes besides label`},
		{[]string{`{name: a, delta: 1m, edges: [A -> B], where: 'kind == "x"'}`, `{name: b, delta: 1m, edges: [A -> B], where: "kind == 5"}`},
			`edge attribute "kind" is compared with a string in query "a"`},
		{[]string{`{name: a, delta: 1m, edges: [A -> B], where: ['kind == "x"', "kind < 3"]}`},
			`edge attribute "kind" is compared with a string in query "a"`},
	}
	for _, tc := range cases {
		var qs []*motif.Query
		for _, src := range tc.queries {
			qs = append(qs, query(t, src))
		}
		_, err := DefaultConfig().Schema(qs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Schema(%q) error = %v; want substring %q", tc.queries, err, tc.want)
		}
	}
}

func TestWindowSpan(t *testing.T) {
	c := DefaultConfig()
	c.Input.TimeUnit = time.Millisecond
	c.Window.AllowedLateness = 5 * time.Second
	qs := []*motif.Query{
		query(t, "{name: a, delta: 10m, edges: [A -> B]}"),
		query(t, "{name: b, delta: 900000, edges: [A -> B]}"), // 900000 ticks of 1ms = 15m
		query(t, "{name: c, delta: 1m, edges: [A -> B]}"),
	}
	if got, want := c.MaxDelta(qs), 15*time.Minute; got != want {
		t.Errorf("MaxDelta() = %v; want %v", got, want)
	}
	if got, want := c.WindowSpan(qs), 15*time.Minute+5*time.Second; got != want {
		t.Errorf("WindowSpan() = %v; want %v", got, want)
	}
	if got, want := c.WindowSpan(nil), 5*time.Second; got != want {
		t.Errorf("WindowSpan(nil) = %v; want %v", got, want)
	}
}

func TestLoadQueriesSameFileTwice(t *testing.T) {
	c := valid()
	c.Queries.Files = []string{"testdata/queries/fraud.yaml", "testdata/queries/fraud.yaml"}
	_, _, err := c.Check()
	if err == nil || strings.Contains(err.Error(), "duplicate query name") || !strings.Contains(err.Error(), `queries.files[1]: "testdata/queries/fraud.yaml" is also queries.files[0]`) {
		t.Errorf("Check() = %v; want only the repeated file reported", err)
	}
}

// TestCheckGroupByCountMode checks that a grouped query in count mode is
// refused at the mode's line: incidents fold match records, and count
// mode writes none.
func TestCheckGroupByCountMode(t *testing.T) {
	src := `alerts:
  per_query:
    fan:
      mode: count
queries:
  inline:
    - name: fan
      delta: 10m
      edges: [A -> X, B -> X]
      group_by: [X]
`
	c, err := Parse([]byte(src), "cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Check()
	want := `cfg.yaml:4: alerts.per_query.fan.mode: count: query "fan" has group_by`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check() = %v; want substring %q", err, want)
	}
}

// TestCheckEstimateCountMode: an estimated query (estimate: in its YAML)
// must be in count mode, since an estimate raises no alerts, and free of
// anti-edges, whose open matches the daemon holds one by one; each is
// refused naming the field, the query and the value.
func TestCheckEstimateCountMode(t *testing.T) {
	for _, c := range []struct{ alerts, query, want string }{
		{"", "      edges: [A -> B, B -> C]\n",
			`cfg.yaml: alerts.mode: enumerate: query "ring" has estimate 0.05, and an estimate raises no alerts: use count mode (alerts.per_query.ring.mode: count)`},
		{"alerts:\n  per_query:\n    ring:\n      mode: enumerate\n", "      edges: [A -> B, B -> C]\n",
			`cfg.yaml:4: alerts.per_query.ring.mode: enumerate: query "ring" has estimate 0.05`},
		{"alerts:\n  per_query:\n    ring: {mode: count}\n", "      edges: [A -> B, B -> C]\n      not: [C -> A]\n",
			`query "ring": estimate 0.05 needs a query without anti-edges (not:)`},
	} {
		src := c.alerts + "queries:\n  inline:\n    - name: ring\n      delta: 10m\n      estimate: 0.05\n" + c.query
		cfg, err := Parse([]byte(src), "cfg.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = cfg.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check() of\n%s= %v; want substring %q", src, err, c.want)
		}
	}
	ok := "alerts:\n  per_query:\n    ring: {mode: count}\nqueries:\n  inline:\n    - name: ring\n      delta: 10m\n      estimate: 0.05\n      edges: [A -> B, B -> C]\n"
	cfg, err := Parse([]byte(ok), "cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cfg.Check(); err != nil {
		t.Errorf("Check() of an estimated count-mode query = %v; want nil", err)
	}
}

// TestAlertTemplatesCheckedAtLoad: a query's annotation template that
// names a node or field the record lacks, or does not parse, is an error
// when the queries load (validate, start, reload), naming the file and
// line, the query and the field; so is a reserved label.
func TestAlertTemplatesCheckedAtLoad(t *testing.T) {
	const head = "queries:\n  - name: ring\n    delta: 10m\n    edges: [A -> B, B -> A]\n"
	for _, c := range []struct{ body, want string }{
		{"    annotations:\n      summary: \"{{ .A }} → {{ .C }}\"\n",
			`q.yaml:6: query "ring": queries[0].annotations.summary: template: summary:1:16: executing "summary" at <.C>: map has no entry for key "C"`},
		{"    annotations:\n      runbook_url: ok\n      summary: \"{{ .Query \"\n",
			`q.yaml:7: query "ring": queries[0].annotations.summary: template: summary:1: unclosed action`},
		{"    labels: {severity: page}\n", `q.yaml:2: query "ring": labels: label "severity" is set from the record`},
		{"    labels: {team: \"\"}\n", `q.yaml:5: queries[0].labels.team: is empty`},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "q.yaml"), []byte(head+c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		wd, _ := os.Getwd()
		os.Chdir(dir)
		cfg, err := Parse([]byte("queries: {files: [q.yaml]}\n"), "cfg.yaml")
		if err == nil {
			_, err = cfg.LoadQueries()
		}
		os.Chdir(wd)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadQueries of\n%s = %v\nwant %q", c.body, err, c.want)
		}
	}
	// Inline queries: the query's line in the config.
	cfg, err := Parse([]byte("queries:\n  inline:\n    - name: q\n      delta: 10m\n      edges: [A -> B]\n      annotations: {summary: \"{{ .X }}\"}\n"), "cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.LoadQueries()
	if want := `cfg.yaml:3: query "q": queries.inline[0].annotations.summary: template: summary:1:3: executing "summary" at <.X>: map has no entry for key "X"`; err == nil || err.Error() != want {
		t.Errorf("inline: LoadQueries = %v\nwant %s", err, want)
	}
	// A good one compiles and renders.
	q := &motif.Query{Name: "ok", Nodes: []motif.Node{{Name: "A"}}, Severity: "page",
		Annotations: []motif.Annotation{{Name: "summary", Text: "{{ .Query }} {{ .A }}"}}}
	if m, err := AlertMeta(q); err != nil || m.Annotations == nil || m.Severity != "page" {
		t.Errorf("AlertMeta(good) = %+v, %v", m, err)
	}
}
