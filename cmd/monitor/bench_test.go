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
