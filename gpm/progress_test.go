package gpm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
)

// ring returns a graph of n vertices, each joined to the next 4 (mod n).
func ring(t *testing.T, n int) *gpm.Graph {
	t.Helper()
	var b strings.Builder
	for v := range n {
		for d := 1; d <= 4; d++ {
			fmt.Fprintf(&b, "%d %d\n", v, (v+d)%n)
		}
	}
	g, _, err := gpm.Read(strings.NewReader(b.String()), "ring")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCPUProgressEndsAtTheResult checks Job.Progress: by the end every
// root was started once and Found equals the total, with and without
// redistribution.
func TestCPUProgressEndsAtTheResult(t *testing.T) {
	g := ring(t, 300)
	for _, app := range []gpm.App{gpm.Motif, gpm.Clique} {
		for _, balance := range []bool{false, true} {
			p := new(gpm.Progress)
			res, err := gpm.NewCPU(gpm.CPUOptions{Workers: 3, Balance: balance}).Run(context.Background(), g, gpm.Job{App: app, K: 4, Progress: p})
			if err != nil {
				t.Fatal(err)
			}
			if p.Roots.Load() != int64(g.N()) || uint64(p.Found.Load()) != res.Total || res.Total == 0 {
				t.Errorf("%s balance %v: progress roots %d, found %d; want %d roots and found = total %d (> 0)",
					app, balance, p.Roots.Load(), p.Found.Load(), g.N(), res.Total)
			}
		}
	}
}

// TestCPUCancelledReturnsPartialCounts checks that a cancelled run
// returns ctx's error with the counts so far, not nil.
func TestCPUCancelledReturnsPartialCounts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := gpm.NewCPU(gpm.CPUOptions{Workers: 2}).Run(ctx, ring(t, 300), gpm.Job{App: gpm.Motif, K: 4})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run on a cancelled context = %v, %v; want a partial result and context.Canceled", res, err)
	}
	if res.Total > 0 && len(res.Patterns) == 0 {
		t.Errorf("partial result has a total %d but no patterns", res.Total)
	}
}
