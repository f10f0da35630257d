package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/mine"
)

// TestRunCountsEqualMine: Run, called without the command line, streams a
// small synthetic graph through the daemon on an embedded broker (two
// partitions, M1–M10 at δ 3600) and mines per query what package mine
// counts on the same edges written to a file.
func TestRunCountsEqualMine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and the daemon")
	}
	o := Options{Edges: 3000, Seed: 5, Partitions: 2}
	recs, err := Records(o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %s %d\n", r.Src, r.Dst, r.T)
	}
	graph := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(graph, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultConfig()
	cfg.Window.IdleTimeout = 10 * time.Minute // no partition taken for idle on a loaded machine
	o.Config = cfg
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Edges != len(recs) || rep.Queries != 10 || rep.Batches == 0 || rep.EdgesPerSecond <= 0 || len(rep.Stages) != len(daemon.StageNames) {
		t.Fatalf("report %+v; want %d edges, 10 queries, batches, a rate, %d stages", rep, len(recs), len(daemon.StageNames))
	}
	if rep.Late+rep.DeadLettered > 0 {
		t.Fatalf("%d late, %d dead-lettered: the counts cannot be compared", rep.Late, rep.DeadLettered)
	}
	var motifs []string
	for i := 1; i <= 10; i++ {
		motifs = append(motifs, fmt.Sprint("M", i))
	}
	mined, err := mine.Run(context.Background(), mine.Options{Graph: graph, Motifs: motifs, Delta: "3600"})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, q := range mined.Queries {
		if got := rep.Matches[q.Name]; got != float64(q.Matches) {
			t.Errorf("%s: bench mined %v; mine counts %d", q.Name, got, q.Matches)
		}
		total += q.Matches
	}
	if total == 0 {
		t.Error("nothing to compare: mine found no matches")
	}
}
