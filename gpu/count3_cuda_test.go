//go:build cuda

package gpu_test

import (
	"context"
	"math"
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

// extremeDelta is a δ for windows at the int64 ends: small (t ± δ wraps
// there), half the range, or within a few ticks of 2^63 − 1.
func extremeDelta(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0, 1:
		return 1 + rng.Int64N(14)
	case 2:
		return math.MaxInt64/2 + rng.Int64N(3)
	}
	return math.MaxInt64 - rng.Int64N(3)
}

// At the ends of the int64 range (issue 24 item 8: the kernel's window
// start t − δ wrapped near −2^63 and its scan read past the sequence):
// on windows whose times lie near −2^63, near 2^63 − 1, around 0 or at
// both ends, with δ up to 2^63 − 1, the device counters equal the CPU's
// counter for counter, SNAP's grid counted with the device equals the
// oracle, and the GPU backend's counting engine (count3 over the GPU
// engine, the centre pass on the device) answers a SNAP query as the
// oracle does; a four-node star and the Small family's shapes (two-edge,
// two-node four-edge), mined by the GPU engine as the GPU backend does
// and counted by that counting engine (MOTIFWATCH_GPU_COUNT_SMALL=1), equal
// the oracle too. A negative δ counts nothing on the device.
func TestCount3DeviceExtreme(t *testing.T) {
	c := testCounter(t)
	gpuEng := testEngines(t)["1dev"]
	eng := count3.NewEngine(gpuEng, count3.Options{Workers: 2, Device: c})
	rng := rand.New(rand.NewPCG(24, 8))
	grid := motif.SNAPGrid()
	others, err := motif.ParseQueries([]byte(`queries:
  - {name: star4, delta: 1, edges: [c -> x, y -> c, c -> z]}
  - {name: relay, delta: 1, edges: [A -> B, B -> C]}
  - {name: fan-in, delta: 1, edges: [x -> hub, y -> hub]}
  - {name: reply, delta: 1, edges: [a -> b, b -> a]}
  - {name: round-trip-twice, delta: 1, edges: [a -> b, b -> a, a -> b, b -> a]}
`), "others.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var matched int64
	for iter := range 300 {
		cfg := oracle.ExtremeWindowConfig()
		cfg.MaxNodes, cfg.MaxEdges = 6, 14+iter/10
		w := oracle.RandomWindow(rng, cfg)
		delta := extremeDelta(rng)
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		if iter%3 == 1 && w.Len() > 0 {
			lo := w.First() + rng.Int64N(int64(w.Len()))
			req.Range = motif.Range{Lo: lo, Hi: w.End()}
			req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
			for i := range req.RootMask {
				req.RootMask[i] = rng.IntN(2) == 0
			}
		}
		dev, cpu := countBoth(t, c, w, delta, req)
		if dev != cpu {
			t.Fatalf("iteration %d, delta %d: device %v\nCPU %v\n%s", iter, delta, dev, cpu, oracle.FormatWindow(w))
		}
		g := dev.Grid()
		for i := range 6 {
			for j := range 6 {
				q := *grid[i][j]
				q.Delta = motif.TicksSpan(delta)
				ms, err := oracle.Mine(w, &q, req.Range, motif.Batch)
				if err != nil {
					t.Fatal(err)
				}
				var want int64
				for _, m := range ms {
					if last := m.Edges[len(m.Edges)-1]; req.RootMask == nil || req.RootMask[last-req.Range.Lo] {
						want++
					}
				}
				if g[i][j] != want {
					t.Fatalf("iteration %d, delta %d: M(%d,%d) counted with the device %d, the oracle %d\n%s", iter, delta, i+1, j+1, g[i][j], want, oracle.FormatWindow(w))
				}
				matched += want
			}
		}
		q := *grid[rng.IntN(6)][rng.IntN(6)]
		q.Delta = motif.TicksSpan(delta)
		p, err := motif.Compile(&q, w)
		if err != nil {
			t.Fatal(err)
		}
		whole := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		res, err := eng.Mine(context.Background(), w, p, whole)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := oracle.Mine(w, &q, whole.Range, motif.Batch)
		if err != nil {
			t.Fatal(err)
		}
		if res.Matches != int64(len(ms)) {
			t.Fatalf("iteration %d, delta %d: %s through the GPU backend's counting engine %d, the oracle %d", iter, delta, q.Name, res.Matches, len(ms))
		}
		for _, q := range others {
			q := *q
			q.Delta = motif.TicksSpan(delta)
			p, err := motif.Compile(&q, w)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := oracle.Mine(w, &q, whole.Range, motif.Batch)
			if err != nil {
				t.Fatal(err)
			}
			for name, e := range map[string]motif.Engine{"the GPU engine": gpuEng, "the counting engine": eng} {
				res, err := e.Mine(context.Background(), w, p, whole)
				if err != nil {
					t.Fatal(err)
				}
				if res.Matches != int64(len(ms)) {
					t.Fatalf("iteration %d, delta %d: %s mined by %s %d, the oracle %d\n%s", iter, delta, q.Name, name, res.Matches, len(ms), oracle.FormatWindow(w))
				}
			}
			matched += int64(len(ms))
		}
	}
	if matched == 0 {
		t.Error("no window had a match: the test compares nothing")
	}
	w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 3, MaxNodes: 5, MaxEdges: 60, MaxTime: 10, Extreme: 1})
	for _, delta := range []int64{-1, math.MinInt64} {
		raw, err := count3.Count(context.Background(), w, delta, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}, count3.All, count3.Options{Workers: 2, Device: c})
		if err != nil || raw != (count3.Raw{}) {
			t.Errorf("delta %d: %v, %v; want zero counters", delta, raw.Cells(), err)
		}
		s := &count3.Sequences{Off: []int64{0, 3}, Slots: []int32{2}, Events: []count3.Event{{T: 1}, {Pos: 1, T: 2, Local: 1}, {Pos: 2, T: 3, Flags: 2}}}
		if raw, err := c.CountSequences(context.Background(), s, delta); err != nil || raw != (count3.Raw{}) {
			t.Errorf("CountSequences(delta %d) = %v, %v; want zero counters", delta, raw.Cells(), err)
		}
	}
}
