package gpm

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// writeLoadBenchFile writes n deterministic edge lines "u v t" shaped
// like tgraphgen's graphs, the benchmark input: a hub on a third
// of the lines, the other ends Zipf-distributed over n/27 vertices (so
// most lines repeat an edge, as there), ids spread over the id space.
func writeLoadBenchFile(b *testing.B, n int) string {
	b.Helper()
	r := rand.New(rand.NewPCG(14, 4))
	nodes := uint64(max(n/27, 16))
	zipf := rand.NewZipf(r, 1.2, 1, nodes-1)
	perm := r.Perm(int(nodes))
	text := make([]byte, 0, 24*n)
	for i := range n {
		u, v := perm[zipf.Uint64()], perm[zipf.Uint64()]
		if i%3 == 0 {
			u = perm[0]
		}
		text = strconv.AppendInt(text, int64(u), 10)
		text = append(text, ' ')
		text = strconv.AppendInt(text, int64(v), 10)
		text = append(text, ' ')
		text = strconv.AppendInt(text, 1_600_000_000+int64(i), 10)
		text = append(text, '\n')
	}
	path := filepath.Join(b.TempDir(), "graph.txt")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoadFile loads a generated 1M-line graph file, or the file
// named by $GPM_LOAD_FILE (e.g. a 10M-edge tgraphgen file on a many-core
// host): "parse" on GOMAXPROCS workers (run with -cpu 1,2,4,8 for the
// speed-up per core), "cached" from the graph cache (written before the
// timer starts). It reports input lines per second, the graph's bytes per
// edge, and the process's peak RSS per input line.
func BenchmarkLoadFile(b *testing.B) {
	path := os.Getenv("GPM_LOAD_FILE")
	if path == "" {
		path = writeLoadBenchFile(b, 1_000_000)
	}
	dir := b.TempDir()
	_, st, err := LoadFile(path, LoadOptions{CacheDir: dir})
	if err != nil || st.Cache != "written" {
		b.Fatalf("writing the cache: %q, %v", st.Cache, err)
	}
	for _, c := range []struct {
		name string
		opts LoadOptions
		want string
	}{{"parse", LoadOptions{}, ""}, {"cached", LoadOptions{CacheDir: dir}, "hit"}} {
		b.Run(c.name, func(b *testing.B) {
			var g *Graph
			for b.Loop() {
				var st LoadStats
				var err error
				if g, st, err = LoadFile(path, c.opts); err != nil || st.Cache != c.want {
					b.Fatalf("cache %q, error %v; want cache %q", st.Cache, err, c.want)
				}
			}
			b.ReportMetric(float64(st.Lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(g.Bytes())/float64(g.M()), "B/edge")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss*1024)/float64(st.Lines), "peakRSS-B/line")
			}
		})
	}
}
