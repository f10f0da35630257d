package ingest

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/window"
)

// dump renders a window's edges as "src dst t [name=value...]" in window
// order, string attributes by value and missing numbers as NaN.
func dump(w *window.Window) []string {
	var out []string
	s := w.Schema()
	for p := w.First(); p < w.End(); p++ {
		line := w.IDs().Name(w.Src(p)) + " " + w.IDs().Name(w.Dst(p)) + " " + strconv.FormatInt(w.T(p), 10)
		for c, a := range s.EdgeAttrs {
			v := w.EdgeAttr(c, p)
			if a.Kind == window.String {
				line += " " + a.Name + "=" + strconv.Quote(w.Strings().Value(uint32(v)))
			} else {
				line += " " + a.Name + "=" + strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		out = append(out, line)
	}
	return out
}

func schemaString(as []window.Attr) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.Name+":"+a.Kind.String())
	}
	return strings.Join(parts, ",")
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		opts   FileOptions
		want   []string
		schema string    // edge attributes as name:kind,...
		stats  FileStats // Lines, Edges, Comments, Headers, SelfLoops checked
	}{
		{
			name:  "snap",
			in:    "1 2 10\n3 4 11\n",
			want:  []string{"1 2 10", "3 4 11"},
			stats: FileStats{Lines: 2, Edges: 2},
		},
		{
			name:  "comments and blank lines",
			in:    "# SNAP header\n% matrix market style\n\n   \n1 2 10\n\t# indented\n2 3 11\n\n",
			want:  []string{"1 2 10", "2 3 11"},
			stats: FileStats{Lines: 8, Edges: 2, Comments: 6},
		},
		{
			name:  "header without attributes",
			in:    "# c\nsrc dst ts\n1 2 10\n",
			want:  []string{"1 2 10"},
			stats: FileStats{Lines: 3, Edges: 1, Comments: 1, Headers: 1},
		},
		{
			name:   "header names attributes",
			in:     "from,to,time,amount,kind\na,b,10,5.5,wire\nb,c,11,7,cash\nc,a,12,-1e3,wire\n",
			want:   []string{`a b 10 amount=5.5 kind="wire"`, `b c 11 amount=7 kind="cash"`, `c a 12 amount=-1000 kind="wire"`},
			schema: "amount:number,kind:string",
			stats:  FileStats{Lines: 4, Edges: 3, Headers: 1},
		},
		{
			name:   "csv without header",
			in:     "a,b,10,5.5\nb,c,11,6\n",
			want:   []string{"a b 10 c4=5.5", "b c 11 c4=6"},
			schema: "c4:number",
			stats:  FileStats{Lines: 2, Edges: 2},
		},
		{
			name:   "mixed separators",
			in:     "a, b\t10 ,5.5 x\n  b ,c,  11\t\t7,y  \r\nc\t \ta , 12 8 z",
			want:   []string{`a b 10 c4=5.5 c5="x"`, `b c 11 c4=7 c5="y"`, `c a 12 c4=8 c5="z"`},
			schema: "c4:number,c5:string",
			stats:  FileStats{Lines: 3, Edges: 3},
		},
		{
			name:  "crlf and no final newline",
			in:    "1 2 10\r\n2 3 11\r\n3 1 12",
			want:  []string{"1 2 10", "2 3 11", "3 1 12"},
			stats: FileStats{Lines: 3, Edges: 3},
		},
		{
			name:  "signs and extremes",
			in:    "1 2 -9223372036854775808\n2 3 -5\n3 4 +7\n4 5 9223372036854775807\n",
			want:  []string{"1 2 -9223372036854775808", "2 3 -5", "3 4 7", "4 5 9223372036854775807"},
			stats: FileStats{Lines: 4, Edges: 4},
		},
		{
			name:  "out of order sorted, ties keep file order",
			in:    "x y 20\na b 10\nc d 10\ne f 5\ng h 10\ni j 20\nk l 5\n",
			want:  []string{"e f 5", "k l 5", "a b 10", "c d 10", "g h 10", "x y 20", "i j 20"},
			stats: FileStats{Lines: 7, Edges: 7},
		},
		{
			name:   "attributes follow their edges through the sort",
			in:     "src dst t w tag\na b 30 3 c\nb c 10 1 a\nc a 20 2 b\nd e 10 4 d\n",
			want:   []string{`b c 10 w=1 tag="a"`, `d e 10 w=4 tag="d"`, `c a 20 w=2 tag="b"`, `a b 30 w=3 tag="c"`},
			schema: "w:number,tag:string",
			stats:  FileStats{Lines: 5, Edges: 4, Headers: 1},
		},
		{
			name:  "self-loops dropped",
			in:    "1 2 10\n3 3 11\n2 1 12\n",
			want:  []string{"1 2 10", "2 1 12"},
			stats: FileStats{Lines: 3, Edges: 2, SelfLoops: 1},
		},
		{
			name:  "self-loops kept",
			in:    "1 2 10\n3 3 11\n2 1 12\n",
			opts:  FileOptions{KeepSelfLoops: true},
			want:  []string{"1 2 10", "3 3 11", "2 1 12"},
			stats: FileStats{Lines: 3, Edges: 3, SelfLoops: 1},
		},
		{
			name:   "empty values: string kind on the first line, NaN later in a number column",
			in:     "a,b,1,,5\nb,c,2,x,\n",
			want:   []string{`a b 1 c4="" c5=5`, `b c 2 c4="x" c5=NaN`},
			schema: "c4:string,c5:number",
			stats:  FileStats{Lines: 2, Edges: 2},
		},
		{
			name:   "numbers in a string column stay strings",
			in:     "a b 1 red\nb c 2 42\n",
			want:   []string{`a b 1 c4="red"`, `b c 2 c4="42"`},
			schema: "c4:string",
			stats:  FileStats{Lines: 2, Edges: 2},
		},
		{
			name:   "header only",
			in:     "src dst t amount\n",
			schema: "amount:number",
			stats:  FileStats{Lines: 1, Headers: 1},
		},
		{
			name:  "empty input",
			in:    "",
			stats: FileStats{},
		},
		{
			name:  "byte order mark",
			in:    "\ufeffsrc,dst,t\n1,2,10\n",
			want:  []string{"1 2 10"},
			stats: FileStats{Lines: 2, Edges: 1, Headers: 1},
		},
		{
			name:  "string ids",
			in:    "alice bob 1\nbob carol 2\ncarol alice 3\n",
			want:  []string{"alice bob 1", "bob carol 2", "carol alice 3"},
			stats: FileStats{Lines: 3, Edges: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, st, err := Load(strings.NewReader(tt.in), "x.txt", tt.opts)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := dump(w); !slices.Equal(got, tt.want) {
				t.Errorf("edges:\n got %q\nwant %q", got, tt.want)
			}
			if got := schemaString(w.Schema().EdgeAttrs); got != tt.schema {
				t.Errorf("edge attributes = %q; want %q", got, tt.schema)
			}
			got := FileStats{Lines: st.Lines, Edges: st.Edges, Comments: st.Comments, Headers: st.Headers, SelfLoops: st.SelfLoops}
			if !statsEqual(got, tt.stats) {
				t.Errorf("stats = %+v; want %+v", got, tt.stats)
			}
			if st.Bytes != int64(len(tt.in)) {
				t.Errorf("Bytes = %d; want %d", st.Bytes, len(tt.in))
			}
			if w.Schema().TimeUnit != time.Second {
				t.Errorf("TimeUnit = %v; want 1s", w.Schema().TimeUnit)
			}
		})
	}
}

func statsEqual(a, b FileStats) bool {
	return a.Lines == b.Lines && a.Edges == b.Edges && a.Comments == b.Comments &&
		a.Headers == b.Headers && a.SelfLoops == b.SelfLoops && a.Bad == b.Bad &&
		a.Nodes == b.Nodes && a.NodesUnlinked == b.NodesUnlinked
}

func TestLoadMalformed(t *testing.T) {
	long := "1 2 3 " + strings.Repeat("x", readBufSize)
	tests := []struct {
		name string
		in   string
		err  string   // error without SkipBad
		want []string // edges with SkipBad
	}{
		{"too few fields on the first line", "1 2\n3 4 10\n",
			`edges.txt:1: 2 fields; want at least 3: src dst time`, []string{"3 4 10"}},
		{"one field", "1\n3 4 10\n",
			`edges.txt:1: 1 field; want at least 3: src dst time`, []string{"3 4 10"}},
		{"too few fields later", "1 2 10\n3 4\n5 6 12\n",
			`edges.txt:2: 2 fields; want 3 like line 1`, []string{"1 2 10", "5 6 12"}},
		{"bad timestamp", "1 2 10\n3 4 12x\n5 6 12\n",
			`edges.txt:2: timestamp "12x" is not an integer`, []string{"1 2 10", "5 6 12"}},
		{"bad timestamp on the first line is not a header", "1 2 12x\n5 6 12\n",
			`edges.txt:1: timestamp "12x" is not an integer`, []string{"5 6 12"}},
		{"float timestamp", "1 2 10\n3 4 11.5\n",
			`edges.txt:2: timestamp "11.5" is not an integer`, []string{"1 2 10"}},
		{"exponent timestamp", "1 2 1e9\n3 4 11\n",
			`edges.txt:1: timestamp "1e9" is not an integer`, []string{"3 4 11"}},
		{"timestamp overflow", "1 2 10\n3 4 9223372036854775808\n",
			`edges.txt:2: timestamp "9223372036854775808" overflows int64`, []string{"1 2 10"}},
		{"negative timestamp overflow", "1 2 10\n3 4 -9223372036854775809\n",
			`edges.txt:2: timestamp "-9223372036854775809" overflows int64`, []string{"1 2 10"}},
		{"inconsistent column count", "1 2 10 5\n3 4 11\n5 6 12 7\n",
			`edges.txt:2: 3 fields; want 4 like line 1`, []string{"1 2 10 c4=5", "5 6 12 c4=7"}},
		{"too many columns after a header", "a b t\n1 2 10\n3 4 11 9\n",
			`edges.txt:3: 4 fields; want 3 like line 1`, []string{"1 2 10"}},
		{"non-numeric value in a number column", "1 2 10 5\n3 4 11 abc\n5 6 12 7\n",
			`edges.txt:2: value "abc" in number column "c4" is not a number (numeric since line 1)`,
			[]string{"1 2 10 c4=5", "5 6 12 c4=7"}},
		{"empty source id", "1,2,10\n,4,11\n",
			`edges.txt:2: empty source id`, []string{"1 2 10"}},
		{"empty destination id", "1,2,10\n3,,11\n",
			`edges.txt:2: empty destination id`, []string{"1 2 10"}},
		{"invalid utf-8 source id", "1 2 10\n\xff 4 11\n",
			`edges.txt:2: source id "\xff" is not valid UTF-8`, []string{"1 2 10"}},
		{"invalid utf-8 destination id", "1,2,10\n3,a\xc3,11\n",
			`edges.txt:2: destination id "a\xc3" is not valid UTF-8`, []string{"1 2 10"}},
		{"invalid utf-8 in a string column", "1 2 10 x\n3 4 11 \xff\n",
			`edges.txt:2: value "\xff" in string column "c4" is not valid UTF-8`, []string{`1 2 10 c4="x"`}},
		{"line too long", "1 2 10\n" + long + "\n5 6 12\n",
			`edges.txt:2: line longer than 1048576 bytes`, []string{"1 2 10", "5 6 12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _, err := Load(strings.NewReader(tt.in), "edges.txt", FileOptions{})
			if err == nil || err.Error() != tt.err {
				t.Fatalf("Load error = %v; want %s", err, tt.err)
			}
			if w != nil {
				t.Errorf("Load returned a window with its error")
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("errors.Is(%v, ErrMalformed) = false", err)
			}
			var le *LineError
			if !errors.As(err, &le) || le.File != "edges.txt" {
				t.Errorf("errors.As(%v, *LineError) = %+v", err, le)
			}

			w, st, err := Load(strings.NewReader(tt.in), "edges.txt", FileOptions{SkipBad: true})
			if err != nil {
				t.Fatalf("Load with SkipBad: %v", err)
			}
			if st.Bad != 1 || len(st.BadSamples) != 1 || st.BadSamples[0].Error() != tt.err {
				t.Errorf("Bad = %d, BadSamples = %v; want 1, [%s]", st.Bad, st.BadSamples, tt.err)
			}
			if got := dump(w); !slices.Equal(got, tt.want) {
				t.Errorf("edges with SkipBad:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestLoadBadHeader(t *testing.T) {
	tests := []struct{ in, err string }{
		{"src dst t w w\n1 2 3 4 5\n", `e.txt:1: header names column "w" twice`},
		{"src,dst,t,,w\n1,2,3,4,5\n", `e.txt:1: header column 4 has no name`},
	}
	for _, tt := range tests {
		// A broken header stops loading even with SkipBad.
		_, _, err := Load(strings.NewReader(tt.in), "e.txt", FileOptions{SkipBad: true})
		if err == nil || err.Error() != tt.err || !errors.Is(err, ErrMalformed) {
			t.Errorf("Load(%q) error = %v; want %s", tt.in, err, tt.err)
		}
	}
}

func TestLoadSkipBadKeepsTenSamples(t *testing.T) {
	var b strings.Builder
	b.WriteString("0 1 0\n")
	for i := range 25 {
		b.WriteString("1 2 x" + strconv.Itoa(i) + "\n")
	}
	b.WriteString("2 3 5\n")
	w, st, err := Load(strings.NewReader(b.String()), "e.txt", FileOptions{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Bad != 25 || len(st.BadSamples) != 10 || w.Len() != 2 || st.Edges != 2 {
		t.Fatalf("Bad = %d, samples = %d, edges = %d; want 25, 10, 2", st.Bad, len(st.BadSamples), w.Len())
	}
	if got, want := st.BadSamples[9].Error(), `e.txt:11: timestamp "x9" is not an integer`; got != want {
		t.Errorf("tenth sample = %s; want %s", got, want)
	}
}

func TestLoadOptions(t *testing.T) {
	var calls []int64
	opts := FileOptions{TimeUnit: time.Millisecond, Progress: func(n int64) { calls = append(calls, n) }}
	w, _, err := Load(strings.NewReader("1 2 3\n2 3 4\n"), "e.txt", opts)
	if err != nil {
		t.Fatal(err)
	}
	if w.Schema().TimeUnit != time.Millisecond {
		t.Errorf("TimeUnit = %v; want 1ms", w.Schema().TimeUnit)
	}
	if !slices.Equal(calls, []int64{2}) {
		t.Errorf("Progress calls = %v; want [2]", calls)
	}
	defer func(n int64) { progressEvery = n }(progressEvery)
	progressEvery, calls = 2, nil
	if _, _, err := Load(strings.NewReader("# c\n1 2 3\n2 3 4\n3 4 5\n4 5 6\n"), "e.txt", opts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []int64{2, 4, 5}) {
		t.Errorf("Progress calls every 2 lines = %v; want [2 4 5]", calls)
	}
	readErr := errors.New("disk on fire")
	_, _, err = Load(io.MultiReader(strings.NewReader("1 2 3\n"), iotest.ErrReader(readErr)), "e.txt", FileOptions{})
	if !errors.Is(err, readErr) || !strings.HasPrefix(err.Error(), "reading e.txt: ") {
		t.Errorf("Load from a failing reader: error = %v; want reading e.txt: %v", err, readErr)
	}
	if _, _, err := Load(strings.NewReader(""), "e.txt", FileOptions{TimeUnit: -time.Second}); err == nil {
		t.Errorf("Load with a negative time unit: no error")
	}
	if _, _, err := LoadFile(filepath.Join(t.TempDir(), "missing.txt"), FileOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFile(missing) error = %v; want fs.ErrNotExist", err)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadNodeFile(t *testing.T) {
	w, st, err := LoadFile("testdata/transfers.csv", FileOptions{NodeFile: "testdata/accounts.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := schemaString(w.Schema().NodeAttrs), "label:string,risk:number,country:string"; got != want {
		t.Errorf("node attributes = %q; want %q", got, want)
	}
	if got, want := schemaString(w.Schema().EdgeAttrs), "amount:number,channel:string"; got != want {
		t.Errorf("edge attributes = %q; want %q", got, want)
	}
	if st.Nodes != 3 || st.NodesUnlinked != 1 || st.Headers != 2 || st.Comments != 4 || st.Edges != 3 {
		t.Errorf("stats = %+v; want Nodes 3, NodesUnlinked 1, Headers 2, Comments 4, Edges 3", st)
	}
	wantEdges := []string{`a b 10 amount=100 channel="wire"`, `b c 11 amount=2000 channel="card"`, `c d 12 amount=3 channel="wire"`}
	if got := dump(w); !slices.Equal(got, wantEdges) {
		t.Errorf("edges:\n got %q\nwant %q", got, wantEdges)
	}
	if _, ok := w.IDs().Lookup("z"); ok {
		t.Errorf("node z, without edges, was interned")
	}
	str := func(col int, v uint32) string { return w.Strings().Value(uint32(w.NodeAttr(col, v))) }
	for _, tt := range []struct {
		node, label, country string
		risk                 float64
	}{
		{"a", "fraud", "FR", 0.9},
		{"b", "7", "DE", 0.1}, // a label is a string even when it looks like a number
		{"c", "ok", "DE", math.NaN()},
		{"d", "", "", math.NaN()}, // not in the node file
	} {
		v, ok := w.IDs().Lookup(tt.node)
		if !ok {
			t.Fatalf("node %q not interned", tt.node)
		}
		if got := str(0, v); got != tt.label {
			t.Errorf("label(%s) = %q; want %q", tt.node, got, tt.label)
		}
		if got := str(2, v); got != tt.country {
			t.Errorf("country(%s) = %q; want %q", tt.node, got, tt.country)
		}
		if got := w.NodeAttr(1, v); got != tt.risk && !(math.IsNaN(got) && math.IsNaN(tt.risk)) {
			t.Errorf("risk(%s) = %v; want %v", tt.node, got, tt.risk)
		}
	}
}

func TestLoadNodeFileMalformed(t *testing.T) {
	edges := "a b 1\nb c 2\n"
	tests := []struct {
		name, nodes, err string
		nodesOK          int64 // nodes applied with SkipBad
	}{
		{"wrong column count", "id label risk\na x 1\nb y\n", `nodes.txt:3: 2 fields; want 3 like the header on line 1`, 1},
		{"empty id", "id,label\na,x\n,y\n", `nodes.txt:3: empty node id`, 1},
		{"duplicate id", "id label\na x\nb y\na z\n", `nodes.txt:4: node "a" already given on line 2`, 2},
		{"bad number", "id risk label\na 1 x\nb high y\n", `nodes.txt:3: value "high" in number column "risk" is not a number (numeric since line 2)`, 1},
		{"invalid utf-8 id", "id label\na x\n\xff y\n", `nodes.txt:3: node id "\xff" is not valid UTF-8`, 1},
		{"invalid utf-8 label", "id label\na x\nb \xfe\n", `nodes.txt:3: value "\xfe" in string column "label" is not valid UTF-8`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := writeFile(t, "nodes.txt", tt.nodes)
			_, _, err := Load(strings.NewReader(edges), "e.txt", FileOptions{NodeFile: nodes})
			if err == nil || !strings.HasSuffix(err.Error(), tt.err) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("Load error = %v; want …%s", err, tt.err)
			}
			_, st, err := Load(strings.NewReader(edges), "e.txt", FileOptions{NodeFile: nodes, SkipBad: true})
			if err != nil {
				t.Fatalf("Load with SkipBad: %v", err)
			}
			if st.Bad != 1 || st.Nodes != tt.nodesOK || !strings.HasSuffix(st.BadSamples[0].Error(), tt.err) {
				t.Errorf("Bad = %d, Nodes = %d, samples = %v; want 1, %d, …%s", st.Bad, st.Nodes, st.BadSamples, tt.nodesOK, tt.err)
			}
		})
	}
	for _, text := range []string{"", "# only a comment\n", "id\na\n"} {
		nodes := writeFile(t, "nodes.txt", text)
		if _, _, err := Load(strings.NewReader(edges), "e.txt", FileOptions{NodeFile: nodes, SkipBad: true}); err == nil {
			t.Errorf("node file %q: no error", text)
		}
	}
}

// TestLoadCollegeMsg loads SNAP's CollegeMsg temporal network (the
// module's testdata/).
func TestLoadCollegeMsg(t *testing.T) {
	w, st, err := LoadFile(testenv.Data(t, "temporal/CollegeMsg.txt"), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Edges != 59835 || w.Len() != 59835 || st.Lines != 59835 || st.SelfLoops != 0 || st.Bad != 0 {
		t.Errorf("stats = %+v, window %d edges; want 59835 edges from 59835 lines", st, w.Len())
	}
	if got, want := w.IDs().Len(), 1899; got != want {
		t.Errorf("%d nodes; want %d", got, want)
	}
	perT := map[int64]int{}
	for p := w.First(); p < w.End(); p++ {
		if p > w.First() && w.T(p) < w.T(p-1) {
			t.Fatalf("edge %d at t=%d after t=%d", p, w.T(p), w.T(p-1))
		}
		perT[w.T(p)]++
	}
	ties := 0
	for _, n := range perT {
		if n > 1 {
			ties += n
		}
	}
	if ties != 1678 {
		t.Errorf("%d edges share a timestamp; want 1678", ties)
	}
	if got := dump(w)[0]; got != "1 2 1082040961" {
		t.Errorf("first edge = %q; want %q", got, "1 2 1082040961")
	}
	t.Logf("%d edges, %.1f bytes/edge", w.Len(), w.BytesPerEdge())
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		st   intStatus
	}{
		{"0", 0, intOK}, {"-0", 0, intOK}, {"+12", 12, intOK}, {"1082040961", 1082040961, intOK},
		{"9223372036854775807", math.MaxInt64, intOK}, {"-9223372036854775808", math.MinInt64, intOK},
		{"9223372036854775808", 0, intRange}, {"-9223372036854775809", 0, intRange},
		{"99999999999999999999999", 0, intRange}, {"99999999999999999999999x", 0, intSyntax},
		{"", 0, intSyntax}, {"-", 0, intSyntax}, {"1.0", 0, intSyntax}, {"1e3", 0, intSyntax},
		{"0x10", 0, intSyntax}, {"1_000", 0, intSyntax}, {" 1", 0, intSyntax},
	}
	for _, tt := range tests {
		if got, st := parseInt([]byte(tt.in)); got != tt.want || st != tt.st {
			t.Errorf("parseInt(%q) = %d, %d; want %d, %d", tt.in, got, st, tt.want, tt.st)
		}
	}
}

func TestParseFloatMatchesStrconv(t *testing.T) {
	ins := []string{"0", "-0", "1", "5.5", "-1e3", "0.1", "0.3", ".5", "5.", "+2.25", "123456789012345",
		"1234567890123456", "0.000000000000001", "9007199254740993", "1.7976931348623157e308", "1e400",
		"Inf", "-inf", "NaN", "0x1p-2", "1_0", "", "-", ".", "1.2.3", "abc", "12x", "1e", "3.14159265358979"}
	for i := range 2000 { // decimals of every length the fast path takes
		f := math.Float64frombits(uint64(i) * 0x9E3779B97F4A7C15) // spread bit patterns
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		ins = append(ins, strconv.FormatFloat(f, 'f', i%17, 64), strconv.FormatFloat(float64(i)/7, 'f', i%16, 64))
	}
	for _, in := range ins {
		want, err := strconv.ParseFloat(in, 64)
		got, ok := parseFloat([]byte(in))
		if ok != (err == nil) || (ok && got != want && !(math.IsNaN(got) && math.IsNaN(want))) ||
			(ok && math.Signbit(got) != math.Signbit(want)) {
			t.Errorf("parseFloat(%q) = %v, %v; want %v, %v", in, got, ok, want, err)
		}
	}
}

func TestSplitFields(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b c", []string{"a", "b", "c"}},
		{"a\t\tb   c", []string{"a", "b", "c"}},
		{"a,b,c", []string{"a", "b", "c"}},
		{"a , b ,\tc", []string{"a", "b", "c"}},
		{"a,,c", []string{"a", "", "c"}},
		{",b,c", []string{"", "b", "c"}},
		{"a,b,", []string{"a", "b", ""}},
		{"a, ,c", []string{"a", "", "c"}},
		{"a b,c d", []string{"a", "b", "c", "d"}},
		{"x", []string{"x"}},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range splitFields(nil, []byte(tt.in)) {
			got = append(got, string(f))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("splitFields(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestLineParsingDoesNotAllocate(t *testing.T) {
	line := []byte("123456 654321 1082040961 12.5 0.25")
	fields := make([][]byte, 0, 8)
	n := testing.AllocsPerRun(100, func() {
		fields = splitFields(fields[:0], line)
		parseInt(fields[2])
		parseFloat(fields[3])
		parseFloat([]byte("1e300"))
	})
	if n != 0 {
		t.Errorf("%v allocations per line; want 0", n)
	}
}

// TestTimeOrderMatchesStableSort: on one goroutine and on several (every
// size sorted in parallel ranges here), timeOrder is a stable sort by time.
func TestTimeOrderMatchesStableSort(t *testing.T) {
	defer func(m int) { parallelSortMin = m }(parallelSortMin)
	parallelSortMin = 1
	r := rand.New(rand.NewPCG(7, 7))
	gens := map[string]func(i int) int64{
		"small span":  func(int) int64 { return r.Int64N(8) },
		"seconds":     func(i int) int64 { return 1_082_040_961 + int64(i)*25 + r.Int64N(200) },
		"full range":  func(int) int64 { return int64(r.Uint64()) },
		"extremes":    func(int) int64 { return []int64{math.MinInt64, -1, 0, math.MaxInt64}[r.IntN(4)] },
		"all equal":   func(int) int64 { return 42 },
		"descending":  func(i int) int64 { return -int64(i) },
		"negative ms": func(int) int64 { return -r.Int64N(1 << 40) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 17, 5000} {
			ts := make([]int64, n)
			for i := range ts {
				ts[i] = gen(i)
			}
			want := make([]int64, n)
			for i := range want {
				want[i] = int64(i)
			}
			slices.SortStableFunc(want, func(a, b int64) int { return cmp.Compare(ts[a], ts[b]) })
			for _, workers := range []int{1, 3, 8} {
				got := make([]int64, 0, n)
				for _, k := range timeOrder(ts, workers) {
					got = append(got, k.i)
				}
				if !slices.Equal(got, want) {
					t.Errorf("timeOrder(%s, n=%d, workers=%d) differs from a stable sort", name, n, workers)
				}
			}
		}
	}
}
