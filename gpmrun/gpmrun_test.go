package gpmrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
)

// complete writes the complete graph on n vertices, each edge listed in
// both directions (the loader drops the repeats).
func complete(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for u := range n {
		for v := range n {
			if u != v {
				fmt.Fprintf(&b, "v%d v%d\n", u, v)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "k.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func binomial(n, k int) uint64 {
	r := uint64(1)
	for i := range k {
		r = r * uint64(n-i) / uint64(i+1)
	}
	return r
}

// TestRunCountsCliques: Run, called without the command line, finds
// C(n, k) k-cliques in the complete graph K_n, and in enumerate mode
// lists them to OnSubgraph as they are found, or into the report.
func TestRunCountsCliques(t *testing.T) {
	const n = 7
	graph := complete(t, n)
	for k := 3; k <= 5; k++ {
		rep, err := Run(context.Background(), Options{Graph: graph, App: gpm.Clique, K: k, Workers: 2, Balance: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := binomial(n, k); rep.Total != want || rep.Vertices != n || rep.Edges != n*(n-1)/2 || rep.Partial {
			t.Errorf("K%d, %d-cliques: total %d, %d vertices, %d edges; want %d, %d, %d", n, k, rep.Total, rep.Vertices, rep.Edges, want, n, n*(n-1)/2)
		}
	}
	var streamed []Subgraph
	rep, err := Run(context.Background(), Options{Graph: graph, App: gpm.Clique, K: 3, Enumerate: 100,
		OnSubgraph: func(s Subgraph) error { streamed = append(streamed, s); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(streamed)) != binomial(n, 3) || len(rep.Subgraphs) != 0 {
		t.Errorf("enumerate to OnSubgraph: %d streamed, %d kept; want %d and 0", len(streamed), len(rep.Subgraphs), binomial(n, 3))
	}
	rep, err = Run(context.Background(), Options{Graph: graph, App: gpm.Clique, K: 3, Enumerate: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range rep.Subgraphs {
		vs := slices.Clone(s.Vertices)
		slices.Sort(vs)
		seen[strings.Join(vs, " ")] = true
	}
	if uint64(len(seen)) != binomial(n, 3) {
		t.Errorf("enumerate into the report: %d distinct triangles; want %d", len(seen), binomial(n, 3))
	}
}

// TestRunRefusesABadJob: a k out of range fails before the graph (a file
// that does not exist) is read.
func TestRunRefusesABadJob(t *testing.T) {
	_, err := Run(context.Background(), Options{Graph: filepath.Join(t.TempDir(), "none.txt"), App: gpm.Clique, K: 99})
	if err == nil || !strings.Contains(err.Error(), "k = 99") {
		t.Errorf("k 99: %v; want the job's error", err)
	}
	_, err = Run(context.Background(), Options{Graph: filepath.Join(t.TempDir(), "none.txt"), App: gpm.Clique, K: 3})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing graph: %v; want os.ErrNotExist", err)
	}
}
