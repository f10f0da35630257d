//go:build cuda

package gpu_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

func testCounter(t testing.TB) *gpu.Counter {
	t.Helper()
	c, err := testEngines(t)["1dev"].Counter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seqOnly is the Counter without CountWindow: count3 builds the
// sequences on the host and the device runs the centre pass over them.
type seqOnly struct{ c *gpu.Counter }

func (s seqOnly) CountSequences(ctx context.Context, seq *count3.Sequences, delta int64) (count3.Raw, error) {
	return s.c.CountSequences(ctx, seq, delta)
}

// countBoth counts with the device, over its window mirror (dev), and on
// the host (cpu); the device's centre pass over host-built sequences
// must equal the host too.
func countBoth(t *testing.T, c *gpu.Counter, w *window.Window, delta int64, req motif.Request) (dev, cpu count3.Raw) {
	t.Helper()
	var err error
	if dev, err = count3.Count(context.Background(), w, delta, req, count3.All, count3.Options{Workers: 2, Device: c}); err != nil {
		t.Fatal(err)
	}
	if cpu, err = count3.Count(context.Background(), w, delta, req, count3.All, count3.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	seq, err := count3.Count(context.Background(), w, delta, req, count3.All, count3.Options{Workers: 2, Device: seqOnly{c}})
	if err != nil {
		t.Fatal(err)
	}
	if seq != cpu {
		t.Fatalf("delta %d: the centre pass over host-built sequences %v\nCPU %v\n%s", delta, seq, cpu, oracle.FormatWindow(w))
	}
	return dev, cpu
}

// Counted over the device's window mirror, with sequences and triangles
// cut into pieces of every small length (a piece of one edge, two,
// three, the default), the counters equal the host's, counter for
// counter, on random windows of few nodes (many multi-edges, so long
// pair lists and triangles of heavy sides), full of ties, with ranges,
// root masks and self-loops, every family at once and each alone.
func TestCount3DeviceWindowPieces(t *testing.T) {
	c := testCounter(t)
	defer c.SetPieces(gpu.DefaultPieces())
	rng := rand.New(rand.NewPCG(27, 3))
	fams := []count3.Families{count3.All, count3.Stars, count3.Triangles, count3.Small, count3.Grid3}
	var counted int64
	for iter := range 400 {
		cfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 3 + iter%6, MaxEdges: 10 + iter, MaxTime: 5 + int64(iter%40), SelfLoop: 0.03, Evict: 0.2}
		delta := rng.Int64N(12)
		if iter%4 == 3 {
			cfg.Extreme = 1
			delta = extremeDelta(rng)
		}
		w := oracle.RandomWindow(rng, cfg)
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		if iter%3 == 1 && w.Len() > 0 {
			lo := w.First() + rng.Int64N(int64(w.Len()))
			hi := lo + 1 + rng.Int64N(w.End()-lo)
			req.Range = motif.Range{Lo: lo, Hi: hi}
			req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
			for i := range req.RootMask {
				req.RootMask[i] = rng.IntN(3) != 0
			}
		}
		pieces := [][2]int64{{1, 1}, {2, 3}, {3, 2}, {5, 7}, {1024, 1024}}[iter%5]
		c.SetPieces(pieces[0], pieces[1])
		fam := fams[iter%len(fams)]
		dev, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2, Device: c})
		if err != nil {
			t.Fatal(err)
		}
		cpu, err := count3.Count(context.Background(), w, delta, req, fam, count3.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if dev != cpu {
			t.Fatalf("iteration %d, delta %d, pieces %v, families %b: device %v\nCPU %v\n%s", iter, delta, pieces, fam, dev, cpu, oracle.FormatWindow(w))
		}
		for _, v := range cpu {
			counted += v
		}
	}
	if counted == 0 {
		t.Error("no window counted anything: the test compares nothing")
	}
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

// BenchmarkCount3Window times SNAP's 36 cells and the four-node stars
// (count3.Grid3) on the graph at MOTIFWATCH_COUNT3_GRAPH (skipped
// without it), δ MOTIFWATCH_COUNT3_DELTA (default 86400): counted over
// the device's window mirror (window; the mirror synced before the
// timer), by the centre pass over host-built sequences (sequences; the
// triangle pass on the host), and on the host's cores (host, one worker
// per CPU); window-stars, -triangles and -small count one family each.
// Every way's counters must equal the host's.
func BenchmarkCount3Window(b *testing.B) {
	path := os.Getenv("MOTIFWATCH_COUNT3_GRAPH")
	if path == "" {
		b.Skip("MOTIFWATCH_COUNT3_GRAPH names no graph")
	}
	delta := int64(86400)
	if v := os.Getenv("MOTIFWATCH_COUNT3_DELTA"); v != "" {
		var err error
		if delta, err = strconv.ParseInt(v, 10, 64); err != nil {
			b.Fatal(err)
		}
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c := testCounter(b)
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	host := count3.Options{Workers: runtime.NumCPU()}
	want := map[count3.Families]count3.Raw{}
	for _, fam := range []count3.Families{count3.Grid3, count3.Stars, count3.Triangles, count3.Small} {
		if want[fam], err = count3.Count(context.Background(), w, delta, req, fam, host); err != nil {
			b.Fatal(err)
		}
	}
	all := want[count3.Grid3]
	g := all.Grid()
	b.Logf("%d edges, delta %d: SNAP's 36 cells total %d", w.Len(), delta, g.Total())
	ways := []struct {
		name string
		fam  count3.Families
		opts count3.Options
	}{
		{"window", count3.Grid3, count3.Options{Workers: runtime.NumCPU(), Device: c}},
		{"window-stars", count3.Stars, count3.Options{Workers: runtime.NumCPU(), Device: c}},
		{"window-triangles", count3.Triangles, count3.Options{Workers: runtime.NumCPU(), Device: c}},
		{"window-small", count3.Small, count3.Options{Workers: runtime.NumCPU(), Device: c}},
		{"sequences", count3.Grid3, count3.Options{Workers: runtime.NumCPU(), Device: seqOnly{c}}},
		{"host", count3.Grid3, host},
	}
	// MOTIFWATCH_COUNT3_PIECES: more window ways, one per piece lengths
	// "centre x triangle" (comma-separated), for tuning.
	if v := os.Getenv("MOTIFWATCH_COUNT3_PIECES"); v != "" {
		for _, p := range strings.Split(v, ",") {
			ways = append(ways, struct {
				name string
				fam  count3.Families
				opts count3.Options
			}{"window-" + p, count3.Grid3, count3.Options{Workers: runtime.NumCPU(), Device: c}})
		}
	}
	for _, way := range ways {
		b.Run(way.name, func(b *testing.B) {
			if p, ok := strings.CutPrefix(way.name, "window-"); ok && strings.Contains(p, "x") {
				var centre, tri int64
				if _, err := fmt.Sscanf(p, "%dx%d", &centre, &tri); err != nil {
					b.Fatal(err)
				}
				c.SetPieces(centre, tri)
				defer c.SetPieces(gpu.DefaultPieces())
			}
			// Once outside the timer: the mirror's sync, and the check.
			got, err := count3.Count(context.Background(), w, delta, req, way.fam, way.opts)
			if err != nil {
				b.Fatal(err)
			}
			if got != want[way.fam] {
				b.Fatalf("counters differ from the host's:\n%v\n%v", got, want[way.fam])
			}
			if way.opts.Device == c {
				var phases strings.Builder
				c.TimePhases(&phases)
				_, err := count3.Count(context.Background(), w, delta, req, way.fam, way.opts)
				c.TimePhases(nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Log(strings.TrimSpace(phases.String()))
				st := testEngines(b)["1dev"].Stats()[0]
				b.Logf("device memory held (window mirror, pooled scratch): %d MiB, %.0f bytes per window edge", st.HeldBytes>>20, float64(st.HeldBytes)/float64(w.Len()))
			}
			b.ResetTimer()
			for range b.N {
				if _, err := count3.Count(context.Background(), w, delta, req, way.fam, way.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
