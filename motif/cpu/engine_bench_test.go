package cpu_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/synth"
)

// BenchmarkMine mines Everest's motifs on a generated 100k-edge
// CollegeMsg-like graph with 1 and 2 workers; the matches/s metric and the
// ratio between worker counts are the figures (BENCHMARKS.md).
func BenchmarkMine(b *testing.B) {
	w, err := synth.Window(synth.Default(100_000, 1))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"M1", "M4", "M6", "M10", "M12", "M4-A"} {
		q, err := motif.Builtin(name)
		if err != nil {
			b.Fatal(err)
		}
		q.Delta = motif.DurationSpan(24 * time.Hour)
		p, err := motif.Compile(q, w)
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2, -1} {
			// workers=-1: one worker under a budget and deadline that are
			// never reached (the cost of checking them).
			req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
			label := fmt.Sprintf("workers=%d", workers)
			if workers < 0 {
				workers, label = 1, "workers=1-budget"
				req.Budget, req.Deadline = 1<<62, time.Now().Add(24*time.Hour)
			}
			b.Run(fmt.Sprintf("%s/%s", name, label), func(b *testing.B) {
				e := cpu.New(workers)
				var matches int64
				for b.Loop() {
					r, err := e.Mine(context.Background(), w, p, req)
					if err != nil {
						b.Fatal(err)
					}
					matches = r.Matches
				}
				b.ReportMetric(float64(matches)*float64(b.N)/b.Elapsed().Seconds(), "matches/s")
				b.ReportMetric(float64(w.Len())*float64(b.N)/b.Elapsed().Seconds(), "roots/s")
			})
		}
	}
}

// BenchmarkEnumerate measures enumerate mode (every match visited and
// handed to a sink) against count mode on the same query.
func BenchmarkEnumerate(b *testing.B) {
	w, err := synth.Window(synth.Default(100_000, 1))
	if err != nil {
		b.Fatal(err)
	}
	q, _ := motif.Builtin("M1")
	q.Delta = motif.DurationSpan(2 * time.Hour)
	p, err := motif.Compile(q, w)
	if err != nil {
		b.Fatal(err)
	}
	e := cpu.New(2)
	var n int64
	sink := motif.SinkFunc(func(*motif.Match) error { n++; return nil })
	for b.Loop() {
		n = 0
		if _, err := e.Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch, Sink: sink}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "matches/s")
}
