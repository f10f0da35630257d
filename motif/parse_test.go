package motif

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseQueriesTestdata parses every testdata/*.good.yaml (must succeed)
// and *.bad.yaml (must fail with the error its first line names:
// "# error: <substring>").
func TestParseQueriesTestdata(t *testing.T) {
	good, _ := filepath.Glob("testdata/*.good.yaml")
	bad, _ := filepath.Glob("testdata/*.bad.yaml")
	if len(good) == 0 || len(bad) == 0 {
		t.Fatalf("no testdata: %d good, %d bad files", len(good), len(bad))
	}
	for _, path := range good {
		t.Run(filepath.Base(path), func(t *testing.T) {
			qs, err := LoadQueries(path)
			if err != nil {
				t.Fatalf("LoadQueries(%q) = %v", path, err)
			}
			if len(qs) == 0 {
				t.Fatalf("LoadQueries(%q) returned no queries", path)
			}
			for _, q := range qs {
				if err := q.Validate(); err != nil {
					t.Errorf("query %q: Validate() = %v", q.Name, err)
				}
			}
		})
	}
	for _, path := range bad {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# error: ")
			if !ok {
				t.Fatalf("%s: line 1 must be \"# error: <expected substring>\", is %q", path, first)
			}
			_, err = ParseQueries(data, filepath.Base(path))
			if err == nil {
				t.Fatalf("ParseQueries(%q) = nil error; want %q", path, want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("ParseQueries(%q) = %v; want error containing %q", path, err, want)
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("ParseQueries(%q) error is %T; want *FileError", path, err)
			}
		})
	}
}

func spanPtr(s Span) *Span { return &s }

func TestParseQueriesCycle(t *testing.T) {
	qs, err := LoadQueries("testdata/cycle.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 {
		t.Fatalf("got %d queries; want 2", len(qs))
	}
	q := qs[0]
	want := &Query{
		Name:        "cycle3",
		Description: "money goes round",
		Nodes:       []Node{{"A"}, {"B"}, {"C"}},
		Edges: []Edge{
			{From: 0, To: 1},
			{From: 1, To: 2, Within: spanPtr(DurationSpan(5 * time.Minute))},
			{From: 2, To: 0, Within: spanPtr(DurationSpan(5 * time.Minute))}, // hop_within
		},
		Delta: DurationSpan(10 * time.Minute),
		AntiEdges: []AntiEdge{
			{From: 1, To: 0, After: 0},
			{From: 1, To: 0, After: 1, Within: spanPtr(DurationSpan(3 * time.Minute))},
		},
	}
	got := *q
	got.Where = nil
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("cycle3 =\n%+v\nwant\n%+v", &got, want)
	}
	lit := func(v float64) Operand { return Operand{Kind: Literal, Num: v} }
	str := func(s string) Operand { return Operand{Kind: Literal, Str: s, IsStr: true} }
	edge := func(i int, a string) Operand { return Operand{Kind: EdgeAttr, Index: i, Attr: a} }
	node := func(i int, a string) Operand { return Operand{Kind: NodeAttr, Index: i, Attr: a} }
	wantWhere := []Predicate{
		{node(0, "label"), OpEq, str("account"), "queries[0].nodes.A.label", `A.label == "account"`},
		{node(1, "risk"), OpGt, lit(0.5), "queries[0].nodes.B.where", "risk > 0.5"},
		{node(2, "label"), OpIn, Operand{Kind: List, List: []Operand{str("account"), str("merchant")}}, "queries[0].nodes.C.label", `C.label in ["account", "merchant"]`},
		{edge(1, "amount"), OpGt, lit(1000), "queries[0].edges[1].where", "amount > 1000"},
		{edge(0, "amount"), OpGt, lit(1000), "queries[0].where[0]", "amount > 1000"},
		{edge(1, "amount"), OpGt, lit(1000), "queries[0].where[0]", "amount > 1000"},
		{edge(2, "amount"), OpGt, lit(1000), "queries[0].where[0]", "amount > 1000"},
		{edge(0, "amount"), OpGe, edge(2, "amount"), "queries[0].where[1]", "e1.amount >= e3.amount"},
	}
	if !reflect.DeepEqual(q.Where, wantWhere) {
		t.Errorf("cycle3 Where =\n%+v\nwant\n%+v", q.Where, wantWhere)
	}

	q = qs[1]
	if q.Name != "fan.in-2" || q.Delta != TicksSpan(3600) || len(q.Edges) != 2 || len(q.Where) != 3 {
		t.Fatalf("fan.in-2 = %+v", q)
	}
	wantWhere = []Predicate{
		{node(1, "label"), OpEq, str("hub"), "queries[1].where", "c.label == 'hub'"},
		{edge(0, "amount"), OpLt, lit(10), "queries[1].where", "e1.amount < 10"},
		{edge(1, "amount"), OpIn, Operand{Kind: List, List: []Operand{lit(1), lit(2), lit(3)}}, "queries[1].where", "e2.amount in [1, 2, 3]"},
	}
	if !reflect.DeepEqual(q.Where, wantWhere) {
		t.Errorf("fan.in-2 Where =\n%+v\nwant\n%+v", q.Where, wantWhere)
	}
}

func TestParseQueriesSingle(t *testing.T) {
	qs, err := LoadQueries("testdata/single.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Name != "burst" {
		t.Fatalf("LoadQueries(single) = %v", qs)
	}
	q := qs[0]
	if q.Delta != DurationSpan(90*time.Minute) {
		t.Errorf("delta = %v; want 1h30m", q.Delta)
	}
	if w := q.Edges[2].Within; w == nil || *w != DurationSpan(90*time.Second) {
		t.Errorf("edges[2].within = %v; want 1m30s", w)
	}
	if q.Edges[1].Within != nil {
		t.Errorf("edges[1].within = %v; want unset", q.Edges[1].Within)
	}
}

func TestParseQueriesAnchors(t *testing.T) {
	qs, err := LoadQueries("testdata/anchors.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 {
		t.Fatalf("got %d queries; want 2", len(qs))
	}
	if !reflect.DeepEqual(qs[0].Edges, qs[1].Edges) || qs[1].Delta != TicksSpan(600) {
		t.Errorf("aliased query b = %+v; want a's edges and delta", qs[1])
	}
	// 3 expanded "amount >= 1e3" + 1 "not in".
	if len(qs[1].Where) != 4 || qs[1].Where[3].Op != OpNotIn || qs[1].Where[0].Right.Num != 1000 {
		t.Errorf("b.Where = %+v", qs[1].Where)
	}
}

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in   string
		want Span
		err  bool
	}{
		{"10m", DurationSpan(10 * time.Minute), false},
		{"1h30m", DurationSpan(90 * time.Minute), false},
		{"90s", DurationSpan(90 * time.Second), false},
		{"600", TicksSpan(600), false},
		{" 0 ", TicksSpan(0), false},
		{"-5", TicksSpan(-5), false},
		{"1.5", Span{}, true},
		{"10 minutes", Span{}, true},
		{"", Span{}, true},
	}
	for _, tt := range tests {
		got, err := ParseSpan(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestLoadQueriesMissingFile(t *testing.T) {
	if _, err := LoadQueries("testdata/no-such-file.yaml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadQueries(missing) = %v; want os.ErrNotExist", err)
	}
}

func FuzzParseQueries(f *testing.F) {
	for _, name := range []string{"cycle.good.yaml", "single.good.yaml", "anchors.good.yaml", "unknown-node.bad.yaml", "expr-syntax.bad.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: q\ndelta: 5\nedges: [a -> b, b -> c]\nnot: [c -> a]\nwhere: x in [1]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		qs, err := ParseQueries(data, "fuzz.yaml")
		if err != nil {
			if err.Error() == "" {
				t.Errorf("empty error message")
			}
			return
		}
		for _, q := range qs {
			if err := q.Validate(); err != nil {
				t.Errorf("ParseQueries returned a query that fails Validate: %v", err)
			}
		}
	})
}

// TestParseGroupBy checks that group_by resolves node names to motif node
// indices and group_within to a span (testdata/group-by*.yaml hold the
// error cases).
func TestParseGroupBy(t *testing.T) {
	qs, err := LoadQueries("testdata/group-by.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := qs[0].GroupBy, []int{qs[0].NodeIndex("X")}; !reflect.DeepEqual(got, want) {
		t.Errorf("fan-in GroupBy = %v; want %v", got, want)
	}
	if w := qs[0].GroupWithin; w == nil || *w != DurationSpan(2*time.Hour) {
		t.Errorf("fan-in GroupWithin = %v; want 2h", w)
	}
	if got, want := qs[1].GroupBy, []int{qs[1].NodeIndex("A"), qs[1].NodeIndex("C")}; !reflect.DeepEqual(got, want) || qs[1].GroupWithin != nil {
		t.Errorf("relay GroupBy = %v, GroupWithin %v; want %v, nil", got, qs[1].GroupWithin, want)
	}
}
