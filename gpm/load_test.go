package gpm

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/motifwatch/motifwatch/internal/testenv"
)

// onePass is Load's definition written for clarity, not speed: the lines
// in order, one dictionary, the header decided at the end. It returns the
// names by id and each vertex's sorted, distinct neighbours, or the error
// Load must give.
func onePass(text, name string) (names []string, adj [][]uint32, st LoadStats, err error) {
	ids := map[string]uint32{}
	id := func(s string) uint32 {
		if v, ok := ids[s]; ok {
			return v
		}
		ids[s] = uint32(len(names))
		names = append(names, s)
		return ids[s]
	}
	var pairs [][2]uint32
	edge := func(a, b string) {
		st.EdgeLines++
		u, v := id(a), id(b)
		if u == v {
			st.SelfLoops++
			return
		}
		pairs = append(pairs, [2]uint32{u, v})
	}
	var header []string
	seenFirst := false
	after := int64(0) // data lines after the first
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, raw := range lines {
		st.Lines++
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == '%' {
			continue
		}
		f := strings.FieldsFunc(line, func(c rune) bool { return c == ' ' || c == '\t' || c == ',' })
		if len(f) < 2 {
			return nil, nil, st, fmt.Errorf("%s:%d: want two vertex ids, got one field %q", name, i+1, line)
		}
		if !seenFirst {
			seenFirst = true
			if len(f) == 2 && isCount([]byte(f[0])) && isCount([]byte(f[1])) {
				header = f
				continue
			}
		} else {
			after++
		}
		edge(f[0], f[1])
	}
	if header != nil {
		v, _ := strconv.ParseInt(header[0], 10, 64)
		e, _ := strconv.ParseInt(header[1], 10, 64)
		if e == after && v >= int64(len(names)) {
			st.Header, st.HeaderV, st.HeaderE = true, v, e
		} else {
			edge(header[0], header[1])
		}
	}
	if len(pairs) == 0 {
		return nil, nil, st, fmt.Errorf("%s: %v (%d lines, %d self-loops)", name, ErrNoEdges, st.Lines, st.SelfLoops)
	}
	adj = make([][]uint32, len(names))
	for _, p := range pairs {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	m := int64(0)
	for v := range adj {
		slices.Sort(adj[v])
		adj[v] = slices.Compact(adj[v])
		m += int64(len(adj[v]))
	}
	st.Duplicates = int64(len(pairs)) - m/2
	return names, adj, st, nil
}

// randomGraphFile writes n lines of the kinds an edge file may hold:
// integer and string ids (some alike but for zeros), every separator,
// extra fields, comments, blank and space-only lines, CRLF endings,
// self-loops and repeats, and a first data line that is a "V E" header,
// one that only looks like one, or an edge.
func randomGraphFile(r *rand.Rand, n int) string {
	pool := []string{"0", "1", "2", "3", "007", "7", "42", "a", "b", "bob", "x_1", "9999999999"}
	tok := func() string {
		if r.IntN(4) == 0 {
			return strconv.Itoa(r.IntN(3 * n))
		}
		return pool[r.IntN(len(pool))]
	}
	seps := []string{" ", "\t", ",", " , ", "  ", ",,"}
	var body []string
	data := 0
	for range n {
		var l string
		switch r.IntN(25) {
		case 0:
			l = "# comment " + tok()
		case 1:
			l = "% mm comment"
		case 2:
			l = ""
		case 3:
			l = " \t "
		default:
			a, b := tok(), tok()
			if r.IntN(10) == 0 {
				b = a
			}
			l = a + seps[r.IntN(len(seps))] + b
			if r.IntN(4) == 0 {
				l += seps[r.IntN(len(seps))] + strconv.Itoa(r.IntN(1000))
			}
			if r.IntN(8) == 0 {
				l = "  " + l + " "
			}
			data++
		}
		if r.IntN(6) == 0 {
			l += "\r"
		}
		body = append(body, l)
	}
	var b strings.Builder
	for range r.IntN(3) {
		b.WriteString("# preamble\n")
	}
	switch r.IntN(4) {
	case 0: // a true header (V large enough)
		fmt.Fprintf(&b, "%d %d\n", 3*n+len(pool), data)
	case 1: // counts that do not match
		fmt.Fprintf(&b, "%d %d\n", 3*n+len(pool), data+1-2*r.IntN(2))
	case 2: // V too small: an edge
		fmt.Fprintf(&b, "1 %d\n", data)
	}
	b.WriteString(strings.Join(body, "\n"))
	if r.IntN(3) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// sameAsOnePass checks g (or err) against the one-pass definition.
func sameAsOnePass(t *testing.T, what, text string, g *Graph, st LoadStats, err error) {
	t.Helper()
	names, adj, wantSt, wantErr := onePass(text, "g.txt")
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v; want %v\n%s", what, err, wantErr, text)
	}
	if err != nil {
		return
	}
	st.Cache = ""
	if st != wantSt {
		t.Fatalf("%s: stats %+v; want %+v", what, st, wantSt)
	}
	if !slices.Equal(g.names, names) {
		t.Fatalf("%s: names %q; want %q", what, g.names, names)
	}
	maxDeg := 0
	for v := range adj {
		if got := g.Neighbors(uint32(v)); !slices.Equal(got, adj[v]) {
			t.Fatalf("%s: neighbours of %d (%s) %v; want %v", what, v, names[v], got, adj[v])
		}
		maxDeg = max(maxDeg, len(adj[v]))
	}
	if g.MaxDegree() != maxDeg {
		t.Fatalf("%s: max degree %d; want %d", what, g.MaxDegree(), maxDeg)
	}
}

// TestParallelLoadIsOnePass: a file cut into chunks parsed in parallel
// loads into the graph (ids, lists, stats, errors) of one pass.
func TestParallelLoadIsOnePass(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	minChunk = 64
	dir := t.TempDir()
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 14))
		text := randomGraphFile(r, 5+r.IntN(400))
		if seed%10 == 9 { // a malformed line somewhere
			lines := strings.Split(text, "\n")
			lines[r.IntN(len(lines))] = "lonely"
			text = strings.Join(lines, "\n")
		}
		path := filepath.Join(dir, "g.txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		workers := 1 + r.IntN(7)
		g, st, err := read(strings.NewReader(text), strings.NewReader(text), "g.txt", int64(len(text)), int64(len(text)), workers)
		sameAsOnePass(t, fmt.Sprintf("seed %d, %d workers", seed, workers), text, g, st, err)
		g, st, err = Read(strings.NewReader(text), "g.txt")
		sameAsOnePass(t, fmt.Sprintf("seed %d, Read", seed), text, g, st, err)
	}
}

// TestParallelLoadErrorLines: errors in later chunks name the file's
// line, and the first error in the file wins.
func TestParallelLoadErrorLines(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	minChunk = 64
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("%d %d", i, i+1))
	}
	for _, c := range []struct {
		at   []int
		bad  string
		want string
	}{
		{[]int{299}, "x", `g.txt:300: want two vertex ids, got one field "x"`},
		{[]int{350, 120}, "y", `g.txt:121: want two vertex ids, got one field "y"`},
		{[]int{250}, strings.Repeat("z", 2<<20) + " w", `g.txt:251: bufio.Scanner: token too long`},
	} {
		ls := slices.Clone(lines)
		for _, i := range c.at {
			ls[i] = c.bad
		}
		text := strings.Join(ls, "\n")
		_, _, err := read(strings.NewReader(text), strings.NewReader(text), "g.txt", int64(len(text)), int64(len(text)), 4)
		if err == nil || err.Error() != c.want {
			t.Errorf("bad line at %v: error %v; want %s", c.at, err, c.want)
		}
		_, _, err = read(strings.NewReader(text), nil, "g.txt", 0, int64(len(text)), 4) // a stream, in blocks
		if err == nil || err.Error() != c.want {
			t.Errorf("bad line at %v, streamed: error %v; want %s", c.at, err, c.want)
		}
	}
}

// TestReferenceFilesParallel: the shared reference graphs (ARCHITECTURE.md's
// counts are taken on them) load in many chunks into the graph of one
// pass.
func TestReferenceFilesParallel(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	minChunk = 4 << 10
	dir, err := testenv.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := filepath.Glob(filepath.Join(dir, "static", "*.gz"))
	if len(gz) < 5 {
		t.Fatalf("%d reference graphs under %s/static; want the 5 that testdata/README.md lists", len(gz), dir)
	}
	for _, name := range gz {
		path := testenv.Data(t, "static/"+strings.TrimSuffix(filepath.Base(name), ".gz"))
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, st, err := read(strings.NewReader(string(text)), strings.NewReader(string(text)), "g.txt", int64(len(text)), int64(len(text)), 5)
		sameAsOnePass(t, filepath.Base(path), string(text), g, st, err)
	}
}

// TestStreamIsOnePass: a stream (a compressed file's text) cut into
// blocks and parsed on several workers loads into the graph (ids, lists,
// stats, errors) of one pass, a "V E" header after blocks of comments
// included.
func TestStreamIsOnePass(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	minChunk = 64
	for _, text := range []string{"", "# only comments\n", strings.Repeat("# comments only\n", 50)} {
		g, st, err := read(strings.NewReader(text), nil, "g.txt", 0, 1000, 3)
		sameAsOnePass(t, fmt.Sprintf("%d bytes without edges", len(text)), text, g, st, err)
	}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 16))
		text := randomGraphFile(r, 5+r.IntN(400))
		switch seed % 10 {
		case 9: // a malformed line somewhere
			lines := strings.Split(text, "\n")
			lines[r.IntN(len(lines))] = "lonely"
			text = strings.Join(lines, "\n")
		case 8: // blocks of comments before the first data line
			text = strings.Repeat("# a long preamble line\n", 10+r.IntN(40)) + text
		}
		workers := 2 + r.IntN(6)
		in := io.Reader(strings.NewReader(text))
		if seed%2 == 0 {
			in = iotest.HalfReader(in)
		}
		g, st, err := read(in, nil, "g.txt", 0, int64(len(text)), workers)
		sameAsOnePass(t, fmt.Sprintf("seed %d, %d workers", seed, workers), text, g, st, err)
	}
}

// gzipped returns text compressed with gzip.
func gzipped(text string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.Bytes()
}

// TestLoadFileGzip: a gzip-compressed edge file, parsed as a stream in
// blocks, loads into the graph of one pass over its text, and one cut
// short is an error.
func TestLoadFileGzip(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	minChunk = 256
	dir := t.TempDir()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 15))
		text := randomGraphFile(r, 5+r.IntN(4000))
		z := gzipped(text)
		path := filepath.Join(dir, "g.txt")
		if err := os.WriteFile(path, z, 0o644); err != nil {
			t.Fatal(err)
		}
		g, st, err := LoadFile(path, LoadOptions{Workers: 4})
		sameAsOnePass(t, fmt.Sprintf("seed %d, gzip", seed), text, g, st, err)
		if len(z) > 40 {
			os.WriteFile(path, z[:len(z)-20], 0o644)
			if g, _, err := LoadFile(path, LoadOptions{Workers: 4}); err == nil || g != nil {
				t.Errorf("seed %d: a gzip file cut short loaded (error %v)", seed, err)
			}
		}
	}
}
