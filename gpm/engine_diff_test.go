package gpm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpm/oracle"
)

// randomGraph returns a G(n, p) graph, plus a hub joined to a third of the
// vertices when hub is set (a skewed root for the balancer), as an oracle
// graph and a gpm graph read from its edge list.
func randomGraph(tb testing.TB, r *rand.Rand, n int, p float64, hub bool) (*oracle.Graph, *gpm.Graph) {
	tb.Helper()
	var edges [][2]int
	for j := range n {
		for i := range j {
			if r.Float64() < p || (hub && i == 0 && j%3 == 0) {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	if len(edges) == 0 {
		edges = append(edges, [2]int{0, 1})
	}
	var b strings.Builder
	for _, e := range edges {
		// Reversed duplicates and self-loops must not change anything.
		fmt.Fprintf(&b, "%d %d\n", e[0], e[1])
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%d %d\n%d %d\n", e[1], e[0], e[0], e[0])
		}
	}
	g, _, err := gpm.Read(strings.NewReader(b.String()), "random")
	if err != nil {
		tb.Fatal(err)
	}
	return oracle.New(n, edges), g
}

// configs are the engine settings every differential test runs: serial,
// static split (DM_WC), and redistribution (DM_OPT) with a coordinator
// that checks very often and at a low threshold.
var configs = []gpm.CPUOptions{
	{Workers: 1},
	{Workers: 3},
	{Workers: 3, Balance: true, Interval: time.Microsecond},
	{Workers: 2, Balance: true, Threshold: 0.5, Interval: 10 * time.Microsecond},
	{Workers: 3, Balance: true, Interval: time.Microsecond, LiteralCliques: true},
}

// TestCliquesMatchOracle: dense random graphs, cliques of 3 to 8
// vertices, both clique workflows (pattern-aware and the paper's literal
// one), serial and with redistribution moving work very often (a Split
// cuts a level's candidates while deeper levels still narrow from them).
func TestCliquesMatchOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 2026))
	for trial := range 8 {
		n := 18 + r.IntN(8)
		p := []float64{0.4, 0.6, 0.8, 0.9}[trial%4]
		og, g := randomGraph(t, r, n, p, trial%2 == 0)
		for k := 3; k <= 8; k++ {
			want := og.Cliques(k)
			for _, o := range configs {
				if got := run(t, g, gpm.Clique, k, o).Total; got != want {
					t.Errorf("trial %d n=%d p=%.1f k=%d %+v: cliques = %d; want %d", trial, n, p, k, o, got, want)
				}
			}
		}
	}
}

// oracleCounts maps an engine result to the oracle's labels, failing if
// two engine patterns are the same shape (labels not canonical).
func oracleCounts(t *testing.T, r *gpm.Result) map[uint64]uint64 {
	t.Helper()
	out := map[uint64]uint64{}
	for _, pc := range r.Patterns {
		c := oracle.Canon(r.K, pc.Pattern.Code)
		if _, dup := out[c]; dup {
			t.Errorf("k=%d: two engine patterns have the shape %#x: labels are not canonical", r.K, c)
		}
		out[c] += pc.Count
	}
	return out
}

func TestEngineMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2026))
	for trial := range 12 {
		n := 6 + r.IntN(8)
		p := []float64{0.15, 0.3, 0.5, 0.8}[trial%4]
		og, g := randomGraph(t, r, n, p, trial%3 == 0)
		for k := 3; k <= 6; k++ {
			wantMotifs := og.Motifs(k)
			wantCliques := og.Cliques(k)
			for _, o := range configs {
				name := fmt.Sprintf("trial%d/n=%d/p=%.2f/k=%d/%+v", trial, n, p, k, o)
				res := run(t, g, gpm.Motif, k, o)
				got := oracleCounts(t, res)
				if fmt.Sprint(got) != fmt.Sprint(wantMotifs) {
					t.Errorf("%s: motifs = %v; want %v", name, got, wantMotifs)
				}
				var total uint64
				for _, n := range wantMotifs {
					total += n
				}
				if res.Total != total {
					t.Errorf("%s: motif total = %d; want %d", name, res.Total, total)
				}
				if c := run(t, g, gpm.Clique, k, o).Total; c != wantCliques {
					t.Errorf("%s: cliques = %d; want %d", name, c, wantCliques)
				}
			}
		}
	}
}

// TestEnumerateMatchesOracle checks enumerate mode: every connected set
// (clique) exactly once, each with its own shape, and the bound.
func TestEnumerateMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	og, g := randomGraph(t, r, 11, 0.35, true)
	for _, app := range []gpm.App{gpm.Motif, gpm.Clique} {
		for k := 3; k <= 5; k++ {
			for _, o := range configs {
				seen := map[string]bool{}
				job := gpm.Job{App: app, K: k, Enumerate: 1 << 40, Sink: func(s gpm.Subgraph) error {
					vs := make([]int, len(s.Vertices))
					for i, v := range s.Vertices {
						vs[i], _ = strconv.Atoi(g.Name(v))
					}
					if got, want := oracle.Canon(k, s.Pattern.Code), oracle.Canon(k, og.Code(vs)); got != want {
						t.Errorf("%s k=%d: subgraph %v reported as %v, is %#x", app, k, vs, s.Pattern, want)
					}
					key := fmt.Sprint(sorted(vs))
					if seen[key] {
						t.Errorf("%s k=%d: subgraph %v enumerated twice", app, k, vs)
					}
					seen[key] = true
					return nil
				}}
				res, err := gpm.NewCPU(o).Run(context.Background(), g, job)
				if err != nil {
					t.Fatal(err)
				}
				want := og.Cliques(k)
				if app == gpm.Motif {
					want = 0
					for _, n := range og.Motifs(k) {
						want += n
					}
				}
				if uint64(len(seen)) != want || res.Total != want || res.Stopped {
					t.Errorf("%s k=%d %+v: enumerated %d (total %d, stopped %v); want %d", app, k, o, len(seen), res.Total, res.Stopped, want)
				}
				// Bounded: exactly the bound, and Stopped.
				if want > 3 {
					n := 0
					job.Enumerate, job.Sink = 3, func(gpm.Subgraph) error { n++; return nil }
					res, err := gpm.NewCPU(o).Run(context.Background(), g, job)
					if err != nil || n != 3 || res.Total != 3 || !res.Stopped {
						t.Errorf("%s k=%d enumerate 3: sink saw %d, total %d, stopped %v, err %v; want 3, 3, true, nil", app, k, n, res.Total, res.Stopped, err)
					}
				}
			}
		}
	}
}

func sorted(vs []int) []int {
	out := append([]int(nil), vs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestRedistributionMoves forces redistributions on a skewed graph large
// enough that they happen, and checks the counts do not change.
func TestRedistributionMoves(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	_, g := randomGraph(t, r, 300, 0.03, true)
	want := run(t, g, gpm.Motif, 5, gpm.CPUOptions{Workers: 1})
	got := run(t, g, gpm.Motif, 5, gpm.CPUOptions{Workers: 4, Balance: true, Interval: time.Microsecond})
	if fmt.Sprint(got.Patterns) != fmt.Sprint(want.Patterns) {
		t.Errorf("balanced run differs:\n%v\nwant\n%v", got.Patterns, want.Patterns)
	}
	if got.Stats.Moved == 0 {
		t.Logf("no traversal moved (%d rebalances); the machine was too fast to need any", got.Stats.Rebalances)
	}
}
