package ingest

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchLines is the size of the generated benchmark files.
const benchLines = 1_000_000

// writeBenchFile writes a deterministic synthetic edge file of n lines:
// Zipf-distributed integer node ids (exponent 1.2 over n/8 nodes, as
// tools/tgraphgen's defaults), exponential time gaps of mean 25 rounded
// down so that equal timestamps occur, and no self-loops. With attrs, each
// line also carries an amount (number) and a channel (string) column as
// CSV, and about one line in 16 is moved up to 5 lines later so the
// loader has to sort.
func writeBenchFile(b *testing.B, n int, attrs bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "edges.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	nodes := uint64(n / 8)
	zipf := rand.NewZipf(r, 1.2, 1, nodes-1)
	perm := r.Perm(int(nodes)) // spread the hot ids over the id space
	channels := []string{"wire", "card", "cash", "crypto", "check"}
	bw := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	var t int64 = 1_600_000_000
	for i := 0; i < n; i++ {
		src, dst := perm[zipf.Uint64()], perm[zipf.Uint64()]
		for dst == src {
			dst = perm[zipf.Uint64()]
		}
		t += int64(r.ExpFloat64() * 25)
		lt := t
		sep := byte(' ')
		if attrs {
			sep = ','
			if r.IntN(16) == 0 {
				lt += int64(r.IntN(5) * 25)
			}
		}
		buf = strconv.AppendInt(buf[:0], int64(src), 10)
		buf = append(buf, sep)
		buf = strconv.AppendInt(buf, int64(dst), 10)
		buf = append(buf, sep)
		buf = strconv.AppendInt(buf, lt, 10)
		if attrs {
			buf = append(buf, sep)
			buf = strconv.AppendFloat(buf, float64(r.IntN(1_000_000))/100, 'f', -1, 64)
			buf = append(buf, sep)
			buf = append(buf, channels[r.IntN(len(channels))]...)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoadFile loads a generated 1M-line file: "snap" is a sorted
// "src dst t" file like SNAP's, "attrs" a CSV with a number and a string
// attribute, slightly out of time order. It reports edges/s and the
// resulting window's bytes/edge.
//
// "snap-cached" loads the snap file from the edge cache (written before
// the timer starts). Run with -cpu 1,2,4 for the parallel speed-up: the
// loader uses GOMAXPROCS workers.
func BenchmarkLoadFile(b *testing.B) {
	for _, bc := range []struct {
		name   string
		attrs  bool
		cached bool
	}{{"snap", false, false}, {"attrs", true, false}, {"snap-cached", false, true}} {
		b.Run(bc.name, func(b *testing.B) {
			path := writeBenchFile(b, benchLines, bc.attrs)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			opts := FileOptions{}
			if bc.cached {
				opts.CacheDir = b.TempDir()
				if _, st, err := LoadFile(path, opts); err != nil || st.Cache != "written" {
					b.Fatalf("writing the cache: %v, %q", err, st.Cache)
				}
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			var st FileStats
			var bpe float64
			for b.Loop() {
				w, s, err := LoadFile(path, opts)
				if err != nil {
					b.Fatal(err)
				}
				st, bpe = s, w.BytesPerEdge()
			}
			if bc.cached && st.Cache != "hit" {
				b.Fatalf("cache %q; want hit", st.Cache)
			}
			if st.Edges != benchLines {
				b.Fatalf("%d edges; want %d", st.Edges, benchLines)
			}
			b.ReportMetric(float64(st.Edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
			b.ReportMetric(bpe, "bytes/edge")
		})
	}
}
