package count3

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
)

// BenchmarkPathPass times the path pass alone (its sequences and its
// pairs), on benchGraph's window at the first of MOTIFWATCH_COUNT3_DELTAS
// (else 86400), 2 workers, after the centre pass that gives it the static
// graph: the pass's own figure, steadier on a shared machine than a whole
// count's, where the triangle pass's variance drowns a few per cent.
func BenchmarkPathPass(b *testing.B) {
	w := benchGraph(b)
	delta := int64(86400)
	if s := os.Getenv("MOTIFWATCH_COUNT3_DELTAS"); s != "" {
		d, err := strconv.ParseInt(strings.Split(s, ",")[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		delta = d
	}
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	sc := scope{lo: req.Range.Lo, hi: min(req.Range.Hi, w.End()), mask: req.RootMask}
	c := &counter{w: w, sc: sc, delta: delta, nodes: w.IDs().Cap(), workers: 2}
	ctx := context.Background()
	if err := c.centres(ctx, Paths); err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		if err := c.paths(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
}
