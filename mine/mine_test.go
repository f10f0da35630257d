package mine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// edge is one line of a test graph.
type edge struct {
	src, dst int
	t        int64
}

// randomGraph writes n random edges over nodes nodes, timestamps
// non-decreasing with ties, and returns them in file order.
func randomGraph(t *testing.T, seed uint64, n, nodes int) (string, []edge) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	var es []edge
	var tm int64
	for range n {
		tm += int64(r.IntN(3)) // ties on purpose
		e := edge{r.IntN(nodes), r.IntN(nodes), tm}
		es = append(es, e)
		fmt.Fprintf(&b, "%d %d %d\n", e.src, e.dst, e.t)
	}
	path := filepath.Join(t.TempDir(), "g.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, es
}

// pathsOracle counts M1 (1→2, 2→3, 3→4 on four distinct nodes) by brute
// force: edges in file order (ties in file order), last minus first time
// within delta; self-loops never match.
func pathsOracle(es []edge, delta int64) int64 {
	var n int64
	for i, a := range es {
		for j := i + 1; j < len(es); j++ {
			b := es[j]
			if b.t-a.t > delta {
				break
			}
			if b.src != a.dst || a.src == a.dst || b.src == b.dst || b.dst == a.src {
				continue
			}
			for k := j + 1; k < len(es); k++ {
				c := es[k]
				if c.t-a.t > delta {
					break
				}
				if c.src == b.dst && c.src != c.dst && c.dst != a.src && c.dst != a.dst {
					n++
				}
			}
		}
	}
	return n
}

// TestRunCountsAsTheOracle: Run, called without the command line, counts
// M1 on a random file with ties as brute force does, and in enumerate
// mode lists exactly that many matches, each a path in time order.
func TestRunCountsAsTheOracle(t *testing.T) {
	graph, es := randomGraph(t, 7, 400, 25)
	const delta = 20
	want := pathsOracle(es, delta)
	if want == 0 {
		t.Fatal("the oracle finds no match: the test graph is too sparse to test anything")
	}
	rep, err := Run(context.Background(), Options{Graph: graph, Motifs: []string{"M1"}, Delta: fmt.Sprint(delta), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Queries) != 1 || rep.Queries[0].Matches != want || rep.Edges != len(es)-selfLoops(es) || rep.Partial {
		t.Fatalf("Run: %d queries, edges %d, first %+v; want M1 = %d over %d edges", len(rep.Queries), rep.Edges, rep.Queries[0], want, len(es)-selfLoops(es))
	}
	rep, err = Run(context.Background(), Options{Graph: graph, Motifs: []string{"M1"}, Delta: fmt.Sprint(delta), Enumerate: want + 10})
	if err != nil {
		t.Fatal(err)
	}
	q := rep.Queries[0]
	if int64(len(q.Examples)) != want || len(q.IDs) != len(q.Examples) || q.Stopped {
		t.Fatalf("enumerate: %d matches (%d ids, stopped %v); want %d", len(q.Examples), len(q.IDs), q.Stopped, want)
	}
	for _, m := range q.Examples {
		if len(m) != 3 || m[0].Dst != m[1].Src || m[1].Dst != m[2].Src || m[0].T > m[1].T || m[1].T > m[2].T || m[2].T-m[0].T > delta {
			t.Fatalf("enumerated %+v is not an M1 path within δ %d", m, delta)
		}
	}
}

func selfLoops(es []edge) int {
	n := 0
	for _, e := range es {
		if e.src == e.dst {
			n++
		}
	}
	return n
}

// TestRunSNAP3Grid: the grid of Report.SNAP3 is the 36 queries' counts in
// row order, and SNAP's grid is counted alone.
func TestRunSNAP3Grid(t *testing.T) {
	rep, err := Run(context.Background(), Options{Synthetic: 3000, Seed: 2, SNAP3: true, Delta: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Queries) != 36 || len(rep.SNAP3) != 6 {
		t.Fatalf("%d queries, %d grid rows; want 36 and 6", len(rep.Queries), len(rep.SNAP3))
	}
	for i, row := range rep.SNAP3 {
		for j, c := range row {
			if q := rep.Queries[i*6+j]; q.Name != fmt.Sprintf("snap-%d-%d", i+1, j+1) || q.Matches != c {
				t.Errorf("grid (%d,%d) = %d; query %s counted %d", i+1, j+1, c, q.Name, q.Matches)
			}
		}
	}
	if _, err := Run(context.Background(), Options{Synthetic: 100, SNAP3: true, Motifs: []string{"M1"}, Delta: "1h"}); err == nil {
		t.Error("the SNAP grid with another motif: no error")
	}
}

// TestRunCountPhases: with CountPhases set, the counting run of the SNAP
// grid writes its one phase line there, and counts the same.
func TestRunCountPhases(t *testing.T) {
	opts := Options{Synthetic: 3000, Seed: 2, SNAP3: true, Delta: "1h"}
	plain, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var phases strings.Builder
	opts.CountPhases = &phases
	timed, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(phases.String(), "count3 phases (stars+triangles"); got != 1 {
		t.Errorf("%d phase lines of the grid's counting run; want 1:\n%s", got, phases.String())
	}
	if !reflect.DeepEqual(plain.SNAP3, timed.SNAP3) {
		t.Errorf("grid with the phase timers %v, without %v", timed.SNAP3, plain.SNAP3)
	}
}

// TestRunRefusesBeforeLoading: a query without a delta fails with
// ErrNoDelta, and a missing query file fails, both before the graph (a
// file that does not exist) is looked at.
func TestRunRefusesBeforeLoading(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-graph.txt")
	if _, err := Run(context.Background(), Options{Graph: missing, Motifs: []string{"M4"}}); !errors.Is(err, ErrNoDelta) {
		t.Errorf("M4 without a delta: %v; want ErrNoDelta", err)
	}
	_, err := Run(context.Background(), Options{Graph: missing, QueryFiles: []string{filepath.Join(t.TempDir(), "q.yaml")}, Delta: "1h"})
	if err == nil || !strings.Contains(err.Error(), "q.yaml") {
		t.Errorf("a missing query file: %v; want an error naming it", err)
	}
}

// TestRunInterruptedWhileLoading: a context ended before mining starts
// makes Run return an error that wraps it, with no report.
func TestRunInterruptedWhileLoading(t *testing.T) {
	graph, _ := randomGraph(t, 3, 50, 10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Run(ctx, Options{Graph: graph, Motifs: []string{"M1"}, Delta: "10"})
	if rep != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel: %v, %v; want no report and an error wrapping context.Canceled", rep, err)
	}
}

// TestTotalsOnlyWithinAFamily: counts are added up only over distinct
// shapes of one family with one window (issue 26.6: M1 + M4 + M4-A was
// totalled); a family of one, a repeated shape, or unrelated motifs get
// no total.
func TestTotalsOnlyWithinAFamily(t *testing.T) {
	mineTotals := func(motifs ...string) *Report {
		t.Helper()
		rep, err := Run(context.Background(), Options{Synthetic: 4000, Seed: 3, Motifs: motifs, Delta: "1h"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := mineTotals("M1", "M4", "M4-A"); len(rep.Totals) != 0 {
		t.Errorf("M1, M4, M4-A: totals %+v; want none (unrelated motifs)", rep.Totals)
	}
	if rep := mineTotals("snap-1-1", "snap-1-1", "M1"); len(rep.Totals) != 0 {
		t.Errorf("snap-1-1 twice: totals %+v; want none (a shape counted twice)", rep.Totals)
	}
	rep := mineTotals("M1", "snap-1-1", "snap-2-3", "snap-6-6", "M4")
	var want int64
	for _, q := range rep.Queries[1:4] {
		want += q.Matches
	}
	if len(rep.Totals) != 1 || rep.Totals[0] != (Total{Family: "snap", Queries: 3, Matches: want, Seconds: rep.Totals[0].Seconds}) || want == 0 {
		t.Errorf("M1, three SNAP shapes, M4: totals %+v; want one, snap: 3 queries, %d matches", rep.Totals, want)
	}
}
