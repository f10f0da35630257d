package motif

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestImportEverest(t *testing.T) {
	q, info, err := ImportEverest("testdata/everest/M4-anti.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ticks := func(n int64) *Span { s := TicksSpan(n); return &s }
	want := &Query{
		Name:        "M4-anti",
		Description: "imported from Everest query testdata/everest/M4-anti.yaml",
		Nodes:       []Node{{"0"}, {"1"}, {"2"}, {"3"}},
		Edges: []Edge{
			{From: 0, To: 1},
			{From: 1, To: 2, Within: ticks(100)}, // temporal[entry 0]
			{From: 2, To: 3, Within: ticks(200)}, // temporal[entry 1]
			{From: 3, To: 0, Within: ticks(400)}, // temporal[entry 3]
		},
		Delta:     TicksSpan(1000),
		AntiEdges: []AntiEdge{{From: 2, To: 0, After: 1, Within: ticks(200)}},
	}
	got := *q
	got.Where = nil
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("ImportEverest(M4-anti) =\n%+v\nwant\n%+v", &got, want)
	}
	wantWhere := "0.f > 5 && 1.f > 5 && 2.f > 5 && 3.f > 5 && " +
		"1.f != 3 && " +
		"e1.f >= 0 && e2.f >= 0 && e3.f >= 0 && e4.f >= 0 && " +
		"e3.f < 100 && " +
		"e1.f < e4.f && 3.f == 7"
	if got := predString(q, q.Where); got != wantWhere {
		t.Errorf("ImportEverest(M4-anti).Where =\n%s\nwant\n%s", got, wantWhere)
	}
	for _, p := range q.Where {
		if !strings.HasPrefix(p.Field, "constraints.") || p.Text == "" {
			t.Errorf("predicate %q has Field %q; want constraints.<key> and its text", p.Text, p.Field)
		}
	}
	wantInfo := EverestInfo{
		Pattern:       filepath.Join("testdata", "everest", "M4-anti.txt"),
		Graph:         filepath.Join("testdata", "graphs", "wiki-talk.txt"),
		GPU:           2,
		Enumerate:     100,
		WarpCentric:   false,
		WarpBalancing: true,
		TailExpansion: true,
	}
	if info != wantInfo {
		t.Errorf("ImportEverest(M4-anti) info = %+v; want %+v", info, wantInfo)
	}
	if err := q.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestImportEverestDefaults(t *testing.T) {
	q, info, err := ImportEverest("testdata/everest/M1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != "M1" || q.Delta != TicksSpan(86400) || len(q.Edges) != 3 || len(q.Where) != 0 || len(q.AntiEdges) != 0 {
		t.Errorf("ImportEverest(M1) = %+v", q)
	}
	for i, e := range q.Edges {
		if e.Within != nil {
			t.Errorf("edges[%d].within = %v; want unset", i, e.Within)
		}
	}
	if info.Graph != "/data/graphs/email.txt" || info.GPU != 1 || info.Enumerate != 0 || !info.WarpCentric || !info.WarpBalancing || !info.TailExpansion {
		t.Errorf("ImportEverest(M1) info = %+v; want defaults and the absolute graph path", info)
	}
	// The same motif as the built-in M1.
	b, _ := Builtin("M1")
	if !reflect.DeepEqual(q.Edges, b.Edges) || !reflect.DeepEqual(q.Nodes, b.Nodes) {
		t.Errorf("ImportEverest(M1) edges %v; want Builtin(M1) edges %v", q.Edges, b.Edges)
	}
}

func TestImportEverestErrors(t *testing.T) {
	const pattern = "0 1 1\n1 2 2\n2 0 3\n2 3 4\n"
	tests := []struct {
		name, yaml, pattern string
		want                string
	}{
		{"unknown top key", "pattern: p.txt\nconstraint: {delta: 5}\n", pattern,
			`q.yaml:2: unknown key "constraint"`},
		{"pattern missing", "constraints: {delta: 5}\n", pattern,
			`q.yaml:1: pattern: is required`},
		{"pattern file missing", "pattern: nope.txt\nconstraints: {delta: 5}\n", pattern,
			`q.yaml:1: pattern: open`},
		{"constraints missing", "pattern: p.txt\n", pattern,
			`q.yaml:1: constraints: is required`},
		{"delta missing", "pattern: p.txt\nconstraints: {temporal: [1, 1, 1, 1]}\n", pattern,
			`q.yaml:2: constraints.delta: is required`},
		{"delta not int", "pattern: p.txt\nconstraints: {delta: 10m}\n", pattern,
			`constraints.delta: "10m" is not an integer number of timestamp ticks`},
		{"delta zero", "pattern: p.txt\nconstraints: {delta: 0}\n", pattern,
			`delta: 0 must be positive`},
		{"unknown constraint", "pattern: p.txt\nconstraints:\n  delta: 5\n  nodes: f > 1\n", pattern,
			`q.yaml:4: constraints: unknown key "nodes"`},
		{"duplicate constraint", "pattern: p.txt\nconstraints:\n  delta: 5\n  delta: 6\n", pattern,
			`q.yaml:4: constraints: duplicate key "delta"`},
		{"antiEdge length", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, true]}\n", pattern,
			`constraints.antiEdge: expected a list of 4 booleans, one per pattern entry`},
		{"antiEdge not bool", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, maybe, false, false]}\n", pattern,
			`constraints.antiEdge[1]: "maybe" is not true or false`},
		{"antiEdge first", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [true, false, false, false]}\n", pattern,
			`constraints.antiEdge[0]: the first pattern entry (line 1 of`},
		{"temporal length", "pattern: p.txt\nconstraints: {delta: 5, temporal: [1]}\n", pattern,
			`constraints.temporal: expected a list of 4 (or 3) gaps`},
		{"temporal negative", "pattern: p.txt\nconstraints: {delta: 5, temporal: [1, -1, 1]}\n", pattern,
			`constraints.temporal[1]: -1 must not be negative`},
		{"filter or", "pattern: p.txt\nconstraints: {delta: 5, filter: \"e0 < 1 || e1 > 2\"}\n", pattern,
			`q.yaml:2: constraints.filter: "e0 < 1 || e1 > 2": || is not supported at column 8`},
		{"filter arithmetic", "pattern: p.txt\nconstraints: {delta: 5, filter: \"e0 + e1 > 3\"}\n", pattern,
			`constraints.filter: "e0 + e1 > 3": arithmetic ("+") is not supported at column 4`},
		{"filter anti-edge", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, false, true, false], filter: \"e2 > 3\"}\n", pattern,
			`constraints.filter: "e2 > 3": e2 is an anti-edge at column 1`},
		{"filter entry range", "pattern: p.txt\nconstraints: {delta: 5, filter: \"e4 > 3\"}\n", pattern,
			`edge e4 out of range at column 1; the pattern has 4 entries, e0..e3`},
		{"filter node range", "pattern: p.txt\nconstraints: {delta: 5, filter: \"n4 > 3\"}\n", pattern,
			`node n4 out of range at column 1; the motif has 4 nodes, n0..n3`},
		{"filter unknown name", "pattern: p.txt\nconstraints: {delta: 5, filter: \"f > 3\"}\n", pattern,
			`unknown name "f" at column 1; an Everest filter reads eN`},
		{"filter dotted name", "pattern: p.txt\nconstraints: {delta: 5, filter: \"e1.f > 3\"}\n", pattern,
			`unknown name "e1.f"`},
		{"node other name", "pattern: p.txt\nconstraints: {delta: 5, node: \"g > 3\"}\n", pattern,
			`constraints.node: "g > 3": unknown name "g" at column 1; Everest node constraints read the node's feature as f`},
		{"edge other name", "pattern: p.txt\nconstraints: {delta: 5, edge1: \"e1 > 3\"}\n", pattern,
			`Everest edge constraints read the edge's feature as f`},
		{"node index range", "pattern: p.txt\nconstraints: {delta: 5, node4: \"f > 3\"}\n", pattern,
			`constraints.node4: the motif has 4 nodes (node0..node3)`},
		{"edge index range", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, false, true, false], edge3: \"f > 3\"}\n", pattern,
			`constraints.edge3: the motif has 3 motif edges (edge0..edge2)`},
		{"options unknown", "pattern: p.txt\nconstraints: {delta: 5}\noptions: {gpus: 2}\n", pattern,
			`q.yaml:3: options: unknown key "gpus"`},
		{"options gpu zero", "pattern: p.txt\nconstraints: {delta: 5}\noptions: {gpu: 0}\n", pattern,
			`options.gpu: "0" is not a valid count`},
		{"options bool", "pattern: p.txt\nconstraints: {delta: 5}\noptions: {tailExpansion: sometimes}\n", pattern,
			`options.tailExpansion: "sometimes" is not true or false`},
		{"pattern bad line", "pattern: p.txt\nconstraints: {delta: 5}\n", "0 1 1\n1 2\n",
			`p.txt:2: expected "u v order", found "1 2"`},
		{"pattern bad order", "pattern: p.txt\nconstraints: {delta: 5}\n", "0 1 first\n",
			`p.txt:1: order "first" is not an integer`},
		{"pattern duplicate order", "pattern: p.txt\nconstraints: {delta: 5}\n", "0 1 1\n1 2 1\n",
			`p.txt:2: order 1 is also used on line 1`},
		{"pattern empty", "pattern: p.txt\nconstraints: {delta: 5}\n", "# nothing\n\n",
			`p.txt: no edges in the pattern file`},
		{"pattern self-loop", "pattern: p.txt\nconstraints: {delta: 5}\n", "0 1 1\n1 1 2\n",
			`p.txt:2: query "q": edges[1]: self-loop 1 -> 1 never matches`},
		{"pattern disconnected", "pattern: p.txt\nconstraints: {delta: 5}\n", "0 1 1\n2 3 2\n",
			`p.txt:2: query "q": edges[1]: 2 -> 3 touches no node of an earlier edge`},
		{"anti-edge unmapped node", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, false, true, false]}\n", "0 1 1\n1 2 2\n3 0 3\n2 3 4\n",
			`p.txt:3: anti-edge 3 -> 0: node 3 is not mapped by an earlier motif edge`},
		{"anti-edge self-loop", "pattern: p.txt\nconstraints: {delta: 5, antiEdge: [false, true]}\n", "0 1 1\n1 1 2\n",
			`p.txt:2: query "q": not[0]: anti-edge 1 -> 1 has the same node at both ends`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "q.yaml"), []byte(tt.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "p.txt"), []byte(tt.pattern), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := ImportEverest(filepath.Join(dir, "q.yaml"))
		if err == nil {
			t.Errorf("%s: ImportEverest = nil error; want %q", tt.name, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ImportEverest = %v; want error containing %q", tt.name, err, tt.want)
		}
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("%s: ImportEverest error is %T; want *FileError", tt.name, err)
		}
	}
}

func TestImportEverestTemporalClamp(t *testing.T) {
	// A gap of delta or more says nothing: it is dropped on motif edges
	// and kept on anti-edges (where it only meets t_1 + delta anyway).
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.txt"), []byte("0 1 1\n1 2 2\n1 0 3\n2 0 4\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "clamp me.yaml"), []byte("pattern: p.txt\nconstraints: {delta: 50, temporal: [50, 80, 10], antiEdge: [false, false, true, false]}\n"), 0o644)
	q, _, err := ImportEverest(filepath.Join(dir, "clamp me.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != "clamp_me" {
		t.Errorf("name = %q; want clamp_me", q.Name)
	}
	if q.Edges[1].Within != nil || q.Edges[2].Within != nil {
		t.Errorf("edges within = %v, %v; want unset (gaps >= delta)", q.Edges[1].Within, q.Edges[2].Within)
	}
	if w := q.AntiEdges[0].Within; w == nil || *w != TicksSpan(80) {
		t.Errorf("anti-edge within = %v; want 80", w)
	}
}
