//go:build cuda

package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpu"
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
	path := filepath.Join(dataDir(), "static/citeseer.edgelist")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("citeseer not found at %s (set MOTIFWATCH_DATA on the GPU machine): %v", path, err)
	}
	g, _, err := gpm.Load(path)
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
// against DESIGN.md's references in package gpm).
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
