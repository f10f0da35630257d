package count3

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
)

// BenchmarkFourAgainstEngine prices the cycle and paw counters against
// the general CPU engine that enumerates the same query, 2 workers each,
// on CollegeMsg (or MOTIFWATCH_COUNT3_GRAPH): Everest's M3 and M9 (paws)
// and M4 and M7 (four-cycles). MOTIFWATCH_COUNT3_DELTAS (e.g. "86400")
// replaces the δs, MOTIFWATCH_COUNT3_ENGINE=0 leaves the engine out,
// MOTIFWATCH_COUNT3_MOTIFS (e.g. "M4") the motifs. With -v, each counting
// run's phases are written to stderr.
func BenchmarkFourAgainstEngine(b *testing.B) {
	w := benchGraph(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	deltas := []int64{3600, 86400}
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
	names := []string{"M3", "M9", "M4", "M7"}
	if s := os.Getenv("MOTIFWATCH_COUNT3_MOTIFS"); s != "" {
		names = strings.Split(s, ",")
	}
	var phases *os.File
	if testing.Verbose() {
		phases = os.Stderr
	}
	engines := []struct {
		name string
		e    func() motif.Engine
	}{{"count", func() motif.Engine {
		e := NewEngine(cpu.New(2), Options{Workers: 2})
		if phases != nil {
			e.TimePhases(phases)
		}
		return e
	}}, {"engine", func() motif.Engine { return cpu.New(2) }}}
	if os.Getenv("MOTIFWATCH_COUNT3_ENGINE") == "0" {
		engines = engines[:1]
	}
	for _, name := range names {
		for _, delta := range deltas {
			q, err := motif.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			q.Delta = motif.TicksSpan(delta)
			p, err := motif.Compile(q, w)
			if err != nil {
				b.Fatal(err)
			}
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
