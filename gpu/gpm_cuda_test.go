//go:build cuda

package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/internal/testenv"
)

// gpmEngine opens the GPU GPM engine or skips when there is no device.
func gpmEngine(t testing.TB, o gpu.GPMOptions) *gpu.GPM {
	t.Helper()
	e, err := gpu.NewGPM(o)
	if err != nil {
		if errors.Is(err, gpu.ErrNoDevice) {
			t.Skipf("no CUDA device: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func loadCiteseer(t testing.TB) *gpm.Graph {
	t.Helper()
	g, _, err := gpm.Load(testenv.Data(t, "static/citeseer.edgelist"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// gpmConfigs: the default grid (DM_WC and DM_OPT) and a few warps with
// balancing, which forces many redistributions.
var gpmConfigs = []gpu.GPMOptions{{}, {Balance: true}, {Warps: 7, Balance: true, Threshold: 1}}

func sameResult(a, b *gpm.Result) bool {
	return a.Total == b.Total && fmt.Sprint(a.Patterns) == fmt.Sprint(b.Patterns)
}

// TestGPMCiteseerEqualsCPU: the GPU engine's clique (k = 3..8) and motif
// (k = 3..6) counts on citeseer equal the CPU engine's (which are checked
// against ARCHITECTURE.md's references in package gpm).
func TestGPMCiteseerEqualsCPU(t *testing.T) {
	g := loadCiteseer(t)
	cpu := gpm.NewCPU(gpm.CPUOptions{Balance: true})
	for _, o := range gpmConfigs {
		e := gpmEngine(t, o)
		for _, job := range []gpm.Job{{App: gpm.Clique, K: 3}, {App: gpm.Clique, K: 4}, {App: gpm.Clique, K: 5},
			{App: gpm.Clique, K: 6}, {App: gpm.Clique, K: 8}, {App: gpm.Motif, K: 3}, {App: gpm.Motif, K: 4},
			{App: gpm.Motif, K: 5}, {App: gpm.Motif, K: 6}} {
			if job.K == 6 && job.App == gpm.Motif && o.Warps == 7 {
				continue // 168M subgraphs on 7 warps: slow, and k = 5 covers the path
			}
			want, err := cpu.Run(context.Background(), g, job)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Run(context.Background(), g, job)
			if err != nil {
				t.Fatalf("%+v %s k=%d: %v", o, job.App, job.K, err)
			}
			if !sameResult(got, want) {
				t.Errorf("%+v %s k=%d: GPU %d %v; CPU %d %v", o, job.App, job.K, got.Total, got.Patterns, want.Total, want.Patterns)
			}
			t.Logf("%+v %s k=%d: %d subgraphs, %d traversals, %d rebalances, %d moved", o, job.App, job.K, got.Total,
				got.Stats.Traversals, got.Stats.Rebalances, got.Stats.Moved)
		}
	}
}

// TestGPMRandomEqualsCPU: random graphs with a hub, k = 3..6, both apps.
func TestGPMRandomEqualsCPU(t *testing.T) {
	// The graphs and the CPU's answers once, then every configuration
	// against them: the CPU side (one worker, motifs to k = 6) dominated
	// the test's time when it ran per configuration.
	type check struct {
		name string
		g    *gpm.Graph
		job  gpm.Job
		want *gpm.Result
	}
	r := rand.New(rand.NewPCG(7, 7))
	cpu := gpm.NewCPU(gpm.CPUOptions{Workers: 2})
	var checks []check
	for trial := range 6 {
		n := 20 + r.IntN(200)
		p := 0.02 + r.Float64()*0.15
		var b strings.Builder
		for j := range n {
			for i := range j {
				if r.Float64() < p || (i == 0 && j%4 == 0) {
					fmt.Fprintf(&b, "%d %d\n", i, j)
				}
			}
		}
		g, _, err := gpm.Read(strings.NewReader(b.String()), "random")
		if err != nil {
			continue
		}
		motifs := true // until a count passes 5M: larger k only grows, and citeseer covers big counts
		for k := 3; k <= 6; k++ {
			for _, app := range []gpm.App{gpm.Clique, gpm.Motif} {
				if app == gpm.Motif && !motifs {
					continue
				}
				job := gpm.Job{App: app, K: k}
				want, err := cpu.Run(context.Background(), g, job)
				if err != nil {
					t.Fatal(err)
				}
				if app == gpm.Motif && want.Total > 5_000_000 {
					motifs = false
					continue
				}
				checks = append(checks, check{fmt.Sprintf("trial %d n=%d", trial, n), g, job, want})
			}
		}
	}
	for _, o := range gpmConfigs {
		e := gpmEngine(t, o)
		for _, c := range checks {
			got, err := e.Run(context.Background(), c.g, c.job)
			if err != nil {
				t.Fatal(err)
			}
			if !sameResult(got, c.want) {
				t.Errorf("%+v %s %s k=%d: GPU %d, CPU %d", o, c.name, c.job.App, c.job.K, got.Total, c.want.Total)
			}
		}
	}
}

// gpmCliqueConfigs: both clique workflows (pattern-aware, the default,
// and the literal DuMato one), balancing off (DM_WC), on (DM_OPT), and on
// with a few warps at threshold 1, which splits deep levels again and
// again (pattern-aware splits hand over a candidate tail, not only the
// extensions given).
var gpmCliqueConfigs = []gpu.GPMOptions{{}, {Balance: true}, {Warps: 7, Balance: true, Threshold: 1},
	{LiteralCliques: true}, {LiteralCliques: true, Balance: true}, {Warps: 7, Balance: true, Threshold: 1, LiteralCliques: true}}

// cliqueVariant names an options' clique workflow as --cliques does.
func cliqueVariant(o gpu.GPMOptions) string {
	if o.LiteralCliques {
		return "dm"
	}
	return "pa"
}

// TestGPMCiteseerCliques: both clique workflows give ARCHITECTURE.md's
// citeseer references (1166/255/46/4/0 for k = 3..7) and 0 at k = 12.
func TestGPMCiteseerCliques(t *testing.T) {
	g := loadCiteseer(t)
	want := []struct {
		k int
		n uint64
	}{{3, 1166}, {4, 255}, {5, 46}, {6, 4}, {7, 0}, {12, 0}}
	for _, o := range gpmCliqueConfigs {
		e := gpmEngine(t, o)
		for _, w := range want {
			got, err := e.Run(context.Background(), g, gpm.Job{App: gpm.Clique, K: w.k})
			if err != nil {
				t.Fatalf("%s %+v k=%d: %v", cliqueVariant(o), o, w.k, err)
			}
			if got.Total != w.n {
				t.Errorf("%s %+v: citeseer %d-cliques = %d; want %d", cliqueVariant(o), o, w.k, got.Total, w.n)
			}
		}
	}
}

// TestGPMCliquesRandomEqualsCPU: dense random graphs, each with a planted
// clique of 9-14 vertices so that every k up to 8 has cliques, k = 2..8,
// both workflows, balancing off and on.
func TestGPMCliquesRandomEqualsCPU(t *testing.T) {
	type check struct {
		name string
		g    *gpm.Graph
		k    int
		want uint64
	}
	r := rand.New(rand.NewPCG(11, 3))
	cpu := gpm.NewCPU(gpm.CPUOptions{Workers: 2, Balance: true})
	var checks []check
	for trial := range 8 {
		n := 30 + r.IntN(170)
		p := 0.1 + r.Float64()*0.35
		planted := r.Perm(n)[:9+r.IntN(6)]
		var b strings.Builder
		for j := range n {
			for i := range j {
				if r.Float64() < p {
					fmt.Fprintf(&b, "%d %d\n", i, j)
				}
			}
		}
		for x, u := range planted { // duplicates of the random edges are dropped on load
			for _, v := range planted[x+1:] {
				fmt.Fprintf(&b, "%d %d\n", u, v)
			}
		}
		g, _, err := gpm.Read(strings.NewReader(b.String()), "random")
		if err != nil {
			t.Fatal(err)
		}
		for k := 2; k <= 8; k++ {
			want, err := cpu.Run(context.Background(), g, gpm.Job{App: gpm.Clique, K: k})
			if err != nil {
				t.Fatal(err)
			}
			if want.Total == 0 {
				t.Fatalf("trial %d k=%d: no cliques despite the planted %d-clique", trial, k, len(planted))
			}
			checks = append(checks, check{fmt.Sprintf("trial %d n=%d p=%.2f", trial, n, p), g, k, want.Total})
		}
	}
	for _, o := range gpmCliqueConfigs {
		e := gpmEngine(t, o)
		for _, c := range checks {
			got, err := e.Run(context.Background(), c.g, gpm.Job{App: gpm.Clique, K: c.k})
			if err != nil {
				t.Fatalf("%s %+v %s k=%d: %v", cliqueVariant(o), o, c.name, c.k, err)
			}
			if got.Total != c.want {
				t.Errorf("%s %+v %s: %d-cliques = %d; CPU %d", cliqueVariant(o), o, c.name, c.k, got.Total, c.want)
			}
		}
	}
}

// TestGPMMemoryBound: a job whose TE arrays exceed MemoryLimit fails
// before launch with gpm.ErrMemory, in both clique workflows.
func TestGPMMemoryBound(t *testing.T) {
	g := loadCiteseer(t)
	for _, o := range []gpu.GPMOptions{{MemoryLimit: 1 << 10}, {MemoryLimit: 1 << 10, LiteralCliques: true}} {
		e := gpmEngine(t, o)
		if _, err := e.Run(context.Background(), g, gpm.Job{App: gpm.Clique, K: 6}); !errors.Is(err, gpm.ErrMemory) {
			t.Errorf("%s with a 1 KiB limit: error %v; want gpm.ErrMemory", cliqueVariant(o), err)
		}
	}
}

// gpmRows are the DuMato comparison rows that scripts/device-gpm.sh runs,
// one per process, as BenchmarkGPMRows/GRAPH/APP/k=K/VARIANT (graph files
// under $MOTIFWATCH_DATA/static). want is checked when check is "ref"
// (ARCHITECTURE.md's citeseer references, BENCHMARKS.md's CPU counts); "cpu"
// runs the CPU engine first (quick jobs only); "" leaves it unchecked.
var gpmRows = []struct {
	graph, file string
	app         gpm.App
	k           int
	want        uint64
	check       string
}{
	{"citeseer", "citeseer.edgelist", gpm.Clique, 3, 1166, "ref"},
	{"citeseer", "citeseer.edgelist", gpm.Clique, 6, 4, "ref"},
	{"citeseer", "citeseer.edgelist", gpm.Clique, 12, 0, "ref"},
	{"citeseer", "citeseer.edgelist", gpm.Motif, 4, 0, "cpu"},
	{"citeseer", "citeseer.edgelist", gpm.Motif, 5, 7_668_883, "ref"},
	{"citeseer", "citeseer.edgelist", gpm.Motif, 6, 168_189_810, "ref"},
	{"citeseer", "citeseer.edgelist", gpm.Motif, 8, 0, ""},
	{"email-Eu-core", "email-Eu-core.txt", gpm.Clique, 8, 6_484_402, "ref"},
	{"email-Eu-core", "email-Eu-core.txt", gpm.Clique, 12, 2_461_296, "ref"},
	{"ca-GrQc", "ca-GrQc.txt", gpm.Clique, 11, 11_449_106_200, "ref"},
	{"ca-GrQc", "ca-GrQc.txt", gpm.Clique, 12, 0, ""},
}

// BenchmarkGPMRows runs gpmRows (cliques in both workflows) with
// balancing on, and fails a row whose count differs from its reference.
func BenchmarkGPMRows(b *testing.B) {
	graphs := map[string]*gpm.Graph{}
	for _, row := range gpmRows {
		variants := []string{"-"}
		if row.app == gpm.Clique {
			variants = []string{"pa", "dm"}
		}
		for _, v := range variants {
			b.Run(fmt.Sprintf("%s/%s/k=%d/%s", row.graph, row.app, row.k, v), func(b *testing.B) {
				g := graphs[row.file]
				if g == nil {
					path := filepath.Join(dataDir(), "static", row.file)
					if _, err := os.Stat(path); err != nil {
						b.Skipf("%s not found at %s: %v", row.graph, path, err)
					}
					var err error
					if g, _, err = gpm.Load(path); err != nil {
						b.Fatal(err)
					}
					graphs[row.file] = g
				}
				job := gpm.Job{App: row.app, K: row.k}
				want, check := row.want, row.check
				if check == "cpu" {
					r, err := gpm.NewCPU(gpm.CPUOptions{Balance: true}).Run(context.Background(), g, job)
					if err != nil {
						b.Fatal(err)
					}
					want = r.Total
				}
				e := gpmEngine(b, gpu.GPMOptions{Balance: true, LiteralCliques: v == "dm"})
				var r *gpm.Result
				best := time.Duration(math.MaxInt64)
				for b.Loop() {
					t0 := time.Now()
					var err error
					if r, err = e.Run(context.Background(), g, job); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
				}
				if check != "" && r.Total != want {
					b.Errorf("%s %s k=%d %s: GPU %d; want %d (%s)", row.graph, row.app, row.k, v, r.Total, want, check)
				}
				b.ReportMetric(float64(best.Microseconds())/1e3, "best-ms")
				b.ReportMetric(float64(r.Total), "subgraphs")
				b.ReportMetric(float64(r.Stats.Rebalances), "rebalances")
				b.ReportMetric(float64(r.Stats.Moved), "moved")
			})
		}
	}
}

// BenchmarkGPMCiteseer: the GPU engine per app and k, balancing off
// (DM_WC) and on (DM_OPT), with subgraphs/s; the CPU figures of the same
// jobs come from gpm's BenchmarkCiteseer.
func BenchmarkGPMCiteseer(b *testing.B) {
	g := loadCiteseer(b)
	jobs := []gpm.Job{{App: gpm.Clique, K: 4}, {App: gpm.Clique, K: 6}, {App: gpm.Clique, K: 12},
		{App: gpm.Motif, K: 4}, {App: gpm.Motif, K: 5}, {App: gpm.Motif, K: 6}, {App: gpm.Motif, K: 7}}
	for _, o := range []gpu.GPMOptions{{}, {Balance: true}} {
		e := gpmEngine(b, o)
		for _, job := range jobs {
			b.Run(fmt.Sprintf("%s/k=%d/balance=%v", job.App, job.K, o.Balance), func(b *testing.B) {
				var r *gpm.Result
				for b.Loop() {
					var err error
					if r, err = e.Run(context.Background(), g, job); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Total), "subgraphs")
				b.ReportMetric(float64(r.Total)*float64(b.N)/b.Elapsed().Seconds(), "subgraphs/s")
				b.ReportMetric(float64(r.Stats.Moved), "moved")
			})
		}
	}
}
