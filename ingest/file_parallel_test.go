package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/window"
)

// rawDump renders a window with its dense ids and string codes (which a
// parallel load must assign exactly as one pass does), adjacency included.
func rawDump(w *window.Window) string {
	var b strings.Builder
	fmt.Fprintf(&b, "schema %s ids %d strings %d\n", schemaString(w.Schema().EdgeAttrs), w.IDs().Cap(), w.Strings().Len())
	for v := range uint32(w.IDs().Cap()) {
		fmt.Fprintf(&b, "id %d=%q out %v in %v\n", v, w.IDs().Name(v), w.Out(v), w.In(v))
		for c := range w.Schema().NodeAttrs {
			fmt.Fprintf(&b, " node attr %d=%v\n", c, w.NodeAttr(c, v))
		}
	}
	for p := w.First(); p < w.End(); p++ {
		fmt.Fprintf(&b, "%d %d %d", w.Src(p), w.Dst(p), w.T(p))
		for c := range w.Schema().EdgeAttrs {
			fmt.Fprintf(&b, " %v", w.EdgeAttr(c, p))
		}
		b.WriteByte('\n')
	}
	for c := uint32(0); c < uint32(w.Strings().Len()); c++ {
		fmt.Fprintf(&b, "str %d=%q\n", c, w.Strings().Value(c))
	}
	return b.String()
}

// randomEdgeFile writes a file of n data lines with the features that
// make a parallel parse hard: a header or not, a byte order mark, empty
// attribute values,
// comments and blank lines, ties and out-of-order times, self-loops,
// string and number attributes, and (with bad) malformed lines.
func randomEdgeFile(r *rand.Rand, n int, header, attrs, bad bool) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteString("\ufeff")
	}
	b.WriteString("# generated\n")
	if header {
		b.WriteString("from to when")
		if attrs {
			b.WriteString(" amount channel")
		}
		b.WriteByte('\n')
	}
	t := int64(1000)
	for i := range n {
		switch r.IntN(40) {
		case 0:
			b.WriteString("% comment\n")
		case 1:
			b.WriteString("\n")
		}
		if bad && i > 0 && r.IntN(97) == 0 {
			b.WriteString([]string{"a b\n", "a b 12x\n", "a b 99999999999999999999\n"}[r.IntN(3)])
			continue
		}
		t += int64(r.IntN(3)) - int64(r.IntN(2)) // ties and slight disorder
		s, d := r.IntN(60), r.IntN(60)
		fmt.Fprintf(&b, "n%d n%d %d", s, d, t)
		if attrs {
			amount := fmt.Sprintf("%d.%d", r.IntN(100), r.IntN(10))
			if i > 0 && r.IntN(50) == 0 {
				amount = "" // an empty value: counted, the first one located
			}
			fmt.Fprintf(&b, ",%s, ch%d", amount, r.IntN(7))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestParallelLoadEqualsOnePass: a file cut into chunks of a few hundred
// bytes and parsed by 2, 3 and 8 workers gives the same window (ids,
// codes, order, adjacency), stats, bad-line samples and first error
// (file:line) as one pass.
func TestParallelLoadEqualsOnePass(t *testing.T) {
	defer func(n int64, m int) { minChunk, parallelSortMin = n, m }(minChunk, parallelSortMin)
	parallelSortMin = 64 // the time sort in parallel ranges too
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 99))
		header, attrs, bad := seed%2 == 0, seed%3 != 0, seed%4 >= 2
		text := randomEdgeFile(r, 3000, header, attrs, bad)
		path := writeFile(t, fmt.Sprintf("e%d.txt", seed), text)
		for _, skipBad := range []bool{false, true} {
			minChunk = 1 << 40 // one pass
			want, wantSt, wantErr := LoadFile(path, FileOptions{Workers: 1, SkipBad: skipBad})
			minChunk = 256
			for _, workers := range []int{2, 3, 8} {
				name := fmt.Sprintf("seed=%d/skipBad=%v/workers=%d", seed, skipBad, workers)
				got, st, err := LoadFile(path, FileOptions{Workers: workers, SkipBad: skipBad})
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s: error %v; one pass: %v", name, err, wantErr)
					continue
				}
				if err != nil {
					continue
				}
				if fmt.Sprint(st) != fmt.Sprint(wantSt) {
					t.Errorf("%s: stats %+v; one pass: %+v", name, st, wantSt)
				}
				if g, w := rawDump(got), rawDump(want); g != w {
					t.Errorf("%s: window differs from one pass", name)
				}
			}
		}
	}
}

// gzipped returns text compressed with gzip.
func gzipped(text string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.String()
}

// TestLoadFileGzip: a gzip-compressed edge file, parsed in blocks on
// several workers, loads into the window, stats and errors (file:line of
// the text) of one pass over its plain text, over-long lines included;
// and one cut short is an error, never a smaller window.
func TestLoadFileGzip(t *testing.T) {
	defer func(n int64) { minChunk = n }(minChunk)
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 7))
		text := randomEdgeFile(r, 3000, seed%2 == 0, seed%3 != 0, seed >= 3)
		if seed >= 6 { // lines over the scanner's buffer: bad lines, their bytes counted
			lines := strings.SplitAfter(text, "\n")
			for range 2 {
				i := 5 + r.IntN(len(lines)-5)
				lines[i] = "x" + strings.Repeat("y", readBufSize+r.IntN(3*readBufSize)) + " z 1\n" + lines[i]
			}
			text = strings.Join(lines, "")
		}
		z := gzipped(text)
		plain := writeFile(t, "edges.txt", text)
		packed := writeFile(t, "edges.txt", z) // same name, other directory
		for _, c := range []struct {
			skipBad bool
			workers int
		}{{false, 1}, {false, 3}, {true, 2}, {true, 8}} {
			skipBad := c.skipBad
			name := fmt.Sprintf("seed=%d/skipBad=%v/workers=%d", seed, skipBad, c.workers)
			minChunk = 1 << 40 // one pass over the plain text
			want, wantSt, wantErr := LoadFile(plain, FileOptions{Workers: 1, SkipBad: skipBad})
			minChunk = 256 // blocks of a few KiB
			got, st, err := LoadFile(packed, FileOptions{Workers: c.workers, SkipBad: skipBad})
			if e, w := strings.ReplaceAll(fmt.Sprint(err), packed, "F"), strings.ReplaceAll(fmt.Sprint(wantErr), plain, "F"); e != w {
				t.Errorf("%s: error %s; plain: %s", name, e, w)
				continue
			}
			if err != nil {
				continue
			}
			if g, w := strings.ReplaceAll(fmt.Sprint(st), packed, "F"), strings.ReplaceAll(fmt.Sprint(wantSt), plain, "F"); g != w {
				t.Errorf("%s: stats %s; plain: %s", name, g, w)
			}
			if rawDump(got) != rawDump(want) {
				t.Errorf("%s: window differs from the plain file's", name)
			}
		}
		cut := writeFile(t, "cut.gz", z[:len(z)/2])
		if w, _, err := LoadFile(cut, FileOptions{Workers: 4, SkipBad: true}); err == nil || w != nil {
			t.Errorf("seed %d: a gzip file cut in half loaded (error %v)", seed, err)
		}
	}
}

// TestLoadNodeFileGzip: an edge file and a node file, both gzipped, load
// into the window and stats of the plain pair.
func TestLoadNodeFileGzip(t *testing.T) {
	packed := map[string]string{}
	for _, name := range []string{"transfers.csv", "accounts.csv"} {
		text, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		packed[name] = writeFile(t, name+".gz", gzipped(string(text)))
	}
	want, wantSt, err := LoadFile("testdata/transfers.csv", FileOptions{NodeFile: "testdata/accounts.csv"})
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := LoadFile(packed["transfers.csv"], FileOptions{NodeFile: packed["accounts.csv"]})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := strings.ReplaceAll(fmt.Sprint(st), packed["accounts.csv"], "testdata/accounts.csv"), fmt.Sprint(wantSt); g != w {
		t.Errorf("stats %s; plain: %s", g, w)
	}
	if rawDump(got) != rawDump(want) || fmt.Sprint(got.Schema()) != fmt.Sprint(want.Schema()) {
		t.Error("window differs from the plain files'")
	}
	for v := range uint32(got.IDs().Len()) {
		for col := range got.Schema().NodeAttrs {
			if g, w := got.NodeAttr(col, v), want.NodeAttr(col, v); g != w && !(g != g && w != w) {
				t.Errorf("node %d attribute %d: %v; plain: %v", v, col, g, w)
			}
		}
	}
}
