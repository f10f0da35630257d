package count3

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// cpuSeconds is the process's user + system CPU time: on a shared
// machine the steadier figure than wall time, and with several workers
// the work done rather than the span.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// benchGraph loads the edge file named by MOTIFWATCH_COUNT3_GRAPH, else
// CollegeMsg.
func benchGraph(b *testing.B) *window.Window {
	path := os.Getenv("MOTIFWATCH_COUNT3_GRAPH")
	if path == "" {
		return loadCollegeMsg(b)
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkCount counts the whole grid of CollegeMsg (or of the edge file
// named by MOTIFWATCH_COUNT3_GRAPH, e.g. a tgraphgen graph) per family,
// 1 and 2 workers, δ 3600 and 86400; cpu-s/op is the CPU seconds (all
// threads, the collector's included) per count.
func BenchmarkCount(b *testing.B) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	for _, fam := range []struct {
		name string
		f    Families
	}{{"stars", Stars}, {"triangles", Triangles}} {
		for _, delta := range []int64{3600, 86400} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/delta=%d/workers=%d", fam.name, delta, workers), func(b *testing.B) {
					cpu0 := cpuSeconds(b)
					for b.Loop() {
						if _, err := Count(context.Background(), w, delta, req, fam.f, Options{Workers: workers}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
				})
			}
		}
	}
}

// BenchmarkSmallAgainstEngine prices the Small family's counting against
// the general CPU engine that mines the same query without it, per query
// and δ, 2 workers, on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH): the
// figures behind counting these shapes whatever δ is.
func BenchmarkSmallAgainstEngine(b *testing.B) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	for _, c := range []Cell{Pair2 + 1, Wedge + 2, Wedge, Pair4 + 5} {
		for _, delta := range []int64{600, 3600, 86400} {
			q := cellQueries(delta)[c]
			p, err := motif.Compile(q, w)
			if err != nil {
				b.Fatal(err)
			}
			for _, eng := range []struct {
				name string
				e    motif.Engine
			}{{"count", NewEngine(cpu.New(2), Options{Workers: 2})}, {"engine", cpu.New(2)}} {
				b.Run(fmt.Sprintf("%v/delta=%d/%s", c, delta, eng.name), func(b *testing.B) {
					cpu0 := cpuSeconds(b)
					var matches int64
					for b.Loop() {
						if e, ok := eng.e.(*Engine); ok {
							e.cache = cached{} // count again every time
						}
						r, err := eng.e.Mine(context.Background(), w, p, req)
						if err != nil {
							b.Fatal(err)
						}
						matches = r.Matches
					}
					b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
					b.ReportMetric(float64(matches), "matches")
				})
			}
		}
	}
}

// BenchmarkPathsAgainstEngine prices the four-node path counter against
// the general CPU engine that enumerates the same query, per path and δ,
// 2 workers, on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH). The paths are
// Everest's M1 (path4-123-fff) and M2 (path4-213-bff) and a path with
// both kinds of direction; the environment as for benchAgainstEngine.
func BenchmarkPathsAgainstEngine(b *testing.B) {
	benchAgainstEngine(b, []string{"path4-123-fff", "path4-213-bff", "path4-213-fbf"}, []int64{600, 3600, 86400})
}

// benchAgainstEngine times, per motif and δ, a counting run of the
// motif's shape (Options.AlwaysCount: the counter itself, never the
// choice to enumerate) against the general CPU engine enumerating it, 2
// workers each, on benchGraph's window, reporting CPU seconds and
// matches. MOTIFWATCH_COUNT3_DELTAS (e.g. "86400") replaces the δs,
// MOTIFWATCH_COUNT3_MOTIFS (e.g. "M4") the motifs,
// MOTIFWATCH_COUNT3_WORKERS (e.g. "16", for a many-core host) the
// workers, and MOTIFWATCH_COUNT3_ENGINE=0 leaves the engine out. With -v, each
// counting run's phases are written to stderr.
func benchAgainstEngine(b *testing.B, names []string, deltas []int64) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	if s := os.Getenv("MOTIFWATCH_COUNT3_DELTAS"); s != "" {
		deltas = nil
		for _, f := range strings.Split(s, ",") {
			d, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			deltas = append(deltas, d)
		}
	}
	if s := os.Getenv("MOTIFWATCH_COUNT3_MOTIFS"); s != "" {
		names = strings.Split(s, ",")
	}
	workers := 2
	if s := os.Getenv("MOTIFWATCH_COUNT3_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("MOTIFWATCH_COUNT3_WORKERS=%q: want a positive integer", s)
		}
		workers = n
	}
	var phases *os.File
	if testing.Verbose() {
		phases = os.Stderr
	}
	engines := []struct {
		name string
		e    func() motif.Engine
	}{{"count", func() motif.Engine {
		e := NewEngine(cpu.New(workers), Options{Workers: workers, AlwaysCount: true})
		if phases != nil {
			e.TimePhases(phases)
		}
		return e
	}}, {"engine", func() motif.Engine { return cpu.New(workers) }}}
	if os.Getenv("MOTIFWATCH_COUNT3_ENGINE") == "0" {
		engines = engines[:1]
	}
	for _, name := range names {
		for _, delta := range deltas {
			p := builtinPlan(b, w, name, delta)
			for _, eng := range engines {
				b.Run(fmt.Sprintf("%s/delta=%d/%s", name, delta, eng.name), func(b *testing.B) {
					cpu0 := cpuSeconds(b)
					var matches int64
					for b.Loop() {
						r, err := eng.e().Mine(context.Background(), w, p, req) // a fresh Engine counts again
						if err != nil {
							b.Fatal(err)
						}
						matches = r.Matches
					}
					b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
					b.ReportMetric(float64(matches), "matches")
				})
			}
		}
	}
}
