package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/bench"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/mine"
)

// TestBenchCountsEqualMine runs monitor bench on a small synthetic file
// (3 partitions, the default M1–M10 at δ 3600) and checks its report:
// every edge mined, a positive rate, every stage, and per query the
// same count as monitor mine on the same file.
func TestBenchCountsEqualMine(t *testing.T) {
	dir := t.TempDir()
	recs, err := bench.Records(bench.Options{Edges: 5000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %s %d\n", r.Src, r.Dst, r.T)
	}
	graph, queries := filepath.Join(dir, "g.txt"), filepath.Join(dir, "q.yaml")
	text, err := bench.EverestQueries(3600)
	if err != nil {
		t.Fatal(err)
	}
	for path, body := range map[string]string{graph: b.String(), queries: text} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := monitor(t, "bench", "--file", graph, "--partitions", "3", "--format", "json", "--timeout", "5m")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench output is not JSON: %v\n%s", err, out)
	}
	if rep.Edges != len(recs) || rep.EdgesPerSecond <= 0 || len(rep.Stages) != len(daemon.StageNames) || rep.Queries != 10 || rep.Batches == 0 {
		t.Fatalf("report %+v; want %d edges, a rate, %d stages, 10 queries", rep, len(recs), len(daemon.StageNames))
	}
	if rep.Late+rep.DeadLettered > 0 {
		t.Skipf("%d late, %d dead-lettered (a stalled partition on a loaded machine): counts cannot be compared", rep.Late, rep.DeadLettered)
	}
	out, errOut, code = monitor(t, "mine", "--graph", graph, "--query", queries, "--format", "json")
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, errOut)
	}
	var mined mine.Report
	if err := json.Unmarshal([]byte(out), &mined); err != nil {
		t.Fatalf("mine output is not JSON: %v\n%s", err, out)
	}
	total := 0.0
	for _, q := range mined.Queries {
		if got := rep.Matches[q.Name]; got != float64(q.Matches) {
			t.Errorf("%s: bench mined %v; mine counts %d", q.Name, got, q.Matches)
		}
		total += float64(q.Matches)
	}
	if total == 0 {
		t.Error("nothing to compare: mine found no matches")
	}
}

// TestBenchSkewedBacklogNothingLate is issue 14's skewed backlog in
// small: partitions keyed by source, one of them carrying a hub whose
// edges are dense in event time (15 a second) while the others' are
// sparse, read under the smallest window.max_buffered_bytes (1 MiB: a
// reorder buffer of 768 KiB, about 2,500 edges). Read at equal bytes per
// partition, the sparse partitions ran far ahead in event time; their
// edges filled the buffer, its cap released them early and the hub's
// partition's records were late (18% of a 5M-edge backlog on the H200
// host). Paused while they run ahead, nothing is released early, late
// or dead-lettered, and every count equals monitor mine's on the file.
func TestBenchSkewedBacklogNothingLate(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	const hub, sparse, span = 15_000, 5_000, 1_000
	type edge struct {
		src, dst string
		t        int64
	}
	var es []edge
	for i := range hub {
		es = append(es, edge{"hub", fmt.Sprintf("n%d", (i*7919)%400), int64(i) * span / hub})
	}
	for i := range sparse {
		es = append(es, edge{fmt.Sprintf("n%d", (i*104729)%400), fmt.Sprintf("n%d", (i*15485863+1)%400), int64(i) * span / sparse})
	}
	slices.SortStableFunc(es, func(x, y edge) int { return cmp.Compare(x.t, y.t) })
	for _, e := range es {
		fmt.Fprintf(&b, "%s %s %d\n", e.src, e.dst, e.t)
	}
	graph, queries, conf := filepath.Join(dir, "g.txt"), filepath.Join(dir, "q.yaml"), filepath.Join(dir, "c.yaml")
	files := map[string]string{
		graph: b.String(),
		queries: `queries:
  - name: reply
    delta: 60
    edges: [A -> B, B -> A]
  - name: path
    delta: 30
    edges: [A -> B, B -> C]
`,
		// No partition goes idle (a stall on a loaded machine must not
		// make records late here): the bench's sentinels end the stream.
		conf: "window:\n  max_buffered_bytes: 1MiB\n  idle_timeout: 10m\n",
	}
	for path, body := range files {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := monitor(t, "bench", "--file", graph, "--config", conf, "--queries", queries, "--partitions", "4",
		"--produce-batch", "100", "--batch-size", "2000", "--format", "json", "--timeout", "5m")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench output is not JSON: %v\n%s", err, out)
	}
	if rep.Edges != len(es) || rep.Partial {
		t.Fatalf("report %+v; want all %d edges", rep, len(es))
	}
	if rep.Late+rep.DeadLettered+rep.ReleasedEarly > 0 {
		t.Errorf("%d late, %d dead-lettered, %d released early by the reorder buffer's cap; want none", rep.Late, rep.DeadLettered, rep.ReleasedEarly)
	}
	out, errOut, code = monitor(t, "mine", "--graph", graph, "--query", queries, "--format", "json")
	if code != 0 {
		t.Fatalf("mine: exit %d: %s", code, errOut)
	}
	var mined mine.Report
	if err := json.Unmarshal([]byte(out), &mined); err != nil {
		t.Fatalf("mine output is not JSON: %v\n%s", err, out)
	}
	for _, q := range mined.Queries {
		if got := rep.Matches[q.Name]; got != float64(q.Matches) || q.Matches == 0 {
			t.Errorf("%s: bench mined %v; mine counts %d (want equal, not 0)", q.Name, got, q.Matches)
		}
	}
	t.Logf("%d batches, %.0f edges/s", rep.Batches, rep.EdgesPerSecond)
}

// TestBenchStageSharesAreLabelled: stages that run on every partition at
// once are printed as busy time per wall time, per partition too, and the
// serial lanes are summed apart (issue 26.6: "fetch 394%" read as a share
// of the wall time).
func TestBenchStageSharesAreLabelled(t *testing.T) {
	rep := &bench.Report{Edges: 1000, Partitions: 4, Seconds: 1, Matches: map[string]float64{}}
	for _, s := range []struct {
		name string
		secs float64
	}{{"fetch", 3.94}, {"decode", 0.4}, {"reorder", 0.3}, {"window", 0.1}, {"device_sync", 0}, {"mine", 0.5},
		{"alert_write", 0.1}, {"commit", 0.05}, {"mine_wait", 0.2}} {
		rep.Stages = append(rep.Stages, bench.Stage{Stage: s.name, Seconds: s.secs, Share: s.secs})
	}
	var b strings.Builder
	if err := printBench(&b, "table", rep); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	for first, want := range map[string]string{
		"fetch":     "fetch [intake, concurrent] 3.940 394.0% busy (98.5% per partition)",
		"reorder":   "reorder [pipeline, serial] 0.300 30.0%",
		"mine_wait": "mine_wait [pipeline, serial] 0.200 20.0%",
		"pipeline":  "pipeline lane, serial sum 0.500 50.0%",
		"batch":     "batch lane, serial sum 0.750 75.0%",
	} {
		if rows[first] != want {
			t.Errorf("row %q; want %q\n%s", rows[first], want, b.String())
		}
	}
	if !strings.Contains(b.String(), "summed over the 4 partitions") {
		t.Errorf("no note on what the concurrent shares mean:\n%s", b.String())
	}
}
