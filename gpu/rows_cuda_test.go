//go:build cuda

package gpu_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
)

// rowVariants are the kernel thresholds BenchmarkRows can set side by
// side (tuning fields are no options: a sweep of one is a variant here).
var rowVariants = map[string]gpu.Tuning{
	"default":        {},
	"expand2All":     {Expand2All: true},
	"noPreScan":      {PreScan: -1},
	"preScan4":       {PreScan: 4},
	"preScan64":      {PreScan: 64},
	"pruneAll":       {ClosePruneAll: true},
	"pruneRoot":      {ClosePruneAll: true, ClosePruneRoot: true},
	"noSplitRun":     {SplitRun: -1},
	"expandRun64":    {ExpandRun: 64},
	"expandRun2048":  {ExpandRun: 2048},
	"claim32guided":  {RootClaim: 32},
	"noChunkClaims":  {ChunkRoots: -1},
	"expand2Run64":   {Expand2Run: 64},
	"noExpand2":      {Expand2Run: -1},
	"noClosePrune":   {NoClosePrune: true},
	"noCompact":      {NoCompact: true},
	"rankPick2":      {RankPick: 2},
	"rankOff":        {RankPick: -1},
	"rankPick8":      {RankPick: 8},
	"rankPick256":    {RankPick: 256},
	"splitTail1024":  {SplitTail: 1024},
	"expand2Fanout8": {Expand2Fanout: 8},
	"noAnchor":       {NoAnchor: true},
	"anchorAll":      {AnchorAll: true},
	"group32":        {BatchGroup: 32},
	"group1024":      {BatchGroup: 1024},
	"guide16":        {RootGuide: 16},
	"guide8":         {RootGuide: 8},
	"guide2":         {RootGuide: 2},
	"claim64":        {RootClaim: 64},
	"claim256":       {RootClaim: 256},
	"batchSplit":     {BatchSplitPruned: true},
	"splitRun64":     {SplitRun: 64},
	"splitTail256":   {SplitTail: 256},
}

// BenchmarkRows times the built-in motifs ($MOTIFWATCH_ROWS_MOTIFS,
// default M1…M13, at $MOTIFWATCH_ROWS_DELTA, default 3600) over a whole
// graph ($MOTIFWATCH_ROWS_GRAPH) under several of the kernel's threshold
// variants ($MOTIFWATCH_ROWS_VARIANTS, names of rowVariants, default
// "default,expand2All"), one engine each, alternating variant after variant
// for every motif, $MOTIFWATCH_ROWS_ROUNDS rounds (default 3) after one
// that warms every engine up: the best call (the whole Engine.Mine) per
// motif and variant, logged as a table with each variant's ratio to the
// first. Counts must agree across variants. Run it with -test.benchtime
// 1x (the rounds are its own: each b.N would load the graph again) and
// -test.v (without it the testing package cuts the table after ten lines).
func BenchmarkRows(b *testing.B) {
	path := os.Getenv("MOTIFWATCH_ROWS_GRAPH")
	if path == "" {
		b.Skip("MOTIFWATCH_ROWS_GRAPH names no graph")
	}
	names := strings.Split(envOr("MOTIFWATCH_ROWS_MOTIFS", "M1,M2,M3,M4,M5,M6,M7,M8,M9,M10,M11,M12,M13"), ",")
	delta, err := strconv.ParseInt(envOr("MOTIFWATCH_ROWS_DELTA", "3600"), 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	rounds, err := strconv.Atoi(envOr("MOTIFWATCH_ROWS_ROUNDS", "3"))
	if err != nil || rounds < 1 {
		b.Fatalf("MOTIFWATCH_ROWS_ROUNDS %q: want a count of rounds", os.Getenv("MOTIFWATCH_ROWS_ROUNDS"))
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	vnames, engines := variantEngines(b, "MOTIFWATCH_ROWS_VARIANTS", "default,expand2All", w)
	plans := make([]*motif.Plan, len(names))
	for i, n := range names {
		plans[i] = compileBuiltin(b, w, n, delta)
	}
	best := make([][]time.Duration, len(names))
	counts := make([][]int64, len(names))
	for i := range names {
		best[i] = make([]time.Duration, len(vnames))
		counts[i] = make([]int64, len(vnames))
	}
	for round := 0; round <= rounds; round++ { // round 0 warms every engine up
		for i, p := range plans {
			for j, e := range engines {
				t0 := time.Now()
				r, err := e.Mine(context.Background(), w, p, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
				d := time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				if round == 0 {
					if r.Roots == 0 {
						b.Fatalf("%s: variant %s mined no roots (the request selects none)", names[i], vnames[j])
					}
					counts[i][j] = r.Matches + r.Open
					if counts[i][j] != counts[i][0] {
						b.Errorf("%s: variant %s counts %d, %s %d", names[i], vnames[j], counts[i][j], vnames[0], counts[i][0])
					}
					continue
				}
				if best[i][j] == 0 || d < best[i][j] {
					best[i][j] = d
				}
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s, delta %d, best of %d (ms; ratio to %s):\n%-5s", path, delta, rounds, vnames[0], "motif")
	for _, v := range vnames {
		fmt.Fprintf(&sb, " %16s", v)
	}
	sb.WriteString("\n")
	logs := make([]float64, len(vnames))
	for i, n := range names {
		fmt.Fprintf(&sb, "%-5s", n)
		for j := range vnames {
			ms := best[i][j].Seconds() * 1e3
			r := best[i][j].Seconds() / best[i][0].Seconds()
			logs[j] += math.Log(r)
			fmt.Fprintf(&sb, " %8.2f (%5.3f)", ms, r)
		}
		fmt.Fprintf(&sb, "  %d\n", counts[i][0])
	}
	sb.WriteString("geomean")
	for j := range vnames {
		fmt.Fprintf(&sb, " %16.3f", math.Exp(logs[j]/float64(len(names))))
	}
	b.Log(sb.String())
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
