//go:build cuda

package gpu_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

func testCounter(t *testing.T) *gpu.Counter {
	t.Helper()
	c, err := testEngines(t)["1dev"].Counter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func countBoth(t *testing.T, c *gpu.Counter, w *window.Window, delta int64, req motif.Request) (dev, cpu count3.Raw) {
	t.Helper()
	var err error
	if dev, err = count3.Count(context.Background(), w, delta, req, count3.All, count3.Options{Workers: 2, Device: c}); err != nil {
		t.Fatal(err)
	}
	if cpu, err = count3.Count(context.Background(), w, delta, req, count3.All, count3.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return dev, cpu
}

// The device counters equal the CPU's, counter for counter, on random
// windows full of ties (with ranges and root masks) and on CollegeMsg.
func TestCount3Device(t *testing.T) {
	c := testCounter(t)
	rng := rand.New(rand.NewPCG(3, 17))
	for iter := range 200 {
		cfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 12, MaxEdges: 20 + iter*2, MaxTime: 10 + int64(iter), SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 1 + rng.Int64N(20)
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		if iter%3 == 1 && w.Len() > 0 {
			lo := w.First() + rng.Int64N(int64(w.Len()))
			req.Range = motif.Range{Lo: lo, Hi: w.End()}
			req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
			for i := range req.RootMask {
				req.RootMask[i] = rng.IntN(2) == 0
			}
		}
		if dev, cpu := countBoth(t, c, w, delta, req); dev != cpu {
			t.Fatalf("iteration %d, delta %d: device grid %v\nCPU grid %v", iter, delta, dev.Grid(), cpu.Grid())
		}
	}
	w := loadCollegeMsg(t)
	for _, delta := range []int64{600, 3600, 86400} {
		dev, cpu := countBoth(t, c, w, delta, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch})
		if dev != cpu {
			t.Errorf("CollegeMsg delta %d: device grid %v\nCPU grid %v", delta, dev.Grid(), cpu.Grid())
		}
		g := dev.Grid()
		t.Logf("CollegeMsg delta %d: total %d", delta, g.Total())
	}
}
