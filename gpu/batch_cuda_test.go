//go:build cuda

package gpu_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpu"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// variantEngines returns the tuning variants named by the environment
// variable env (names of rowVariants, comma-separated; def when unset)
// and an engine for each with w mirrored, closed when b ends. No device:
// b is skipped.
func variantEngines(b *testing.B, env, def string, w *window.Window) ([]string, []*gpu.Engine) {
	variants := strings.Split(envOr(env, def), ",")
	engines := make([]*gpu.Engine, len(variants))
	for i, v := range variants {
		t, ok := rowVariants[v]
		if !ok {
			b.Fatalf("%s: no variant %q", env, v)
		}
		e, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(t))
		if err != nil {
			b.Skipf("no CUDA device: %v", err)
		}
		b.Cleanup(func() { e.Close() })
		if err := e.Prepare(context.Background(), w); err != nil {
			b.Fatal(err)
		}
		engines[i] = e
	}
	return variants, engines
}

// BenchmarkBatchOverWindow is issue 16's streaming goal and its "no
// floor" goal: a large window ($MOTIFWATCH_WINDOW_GRAPH, whole file, e.g.
// 10M tgraphgen edges) mirrored once, then its last -batch edges mined as
// one batch by ten queries (M1…M10, delta 1 h, count mode), as the daemon
// mines a batch's new edges. Each query touches ~1% of the window, so its
// call must cost in proportion to the batch, not the window. Reported:
// the ten calls together per batch (batch-ms) and the slowest query's
// median call (max-query-ms), medians over b.N batches, and the kernels'
// share (kernel-ms/batch, a mean). fused-batch=N: the ten queries as one
// MineBatch call, under each of $MOTIFWATCH_BATCH_VARIANTS.
func BenchmarkBatchOverWindow(b *testing.B) {
	path := os.Getenv("MOTIFWATCH_WINDOW_GRAPH")
	if path == "" {
		b.Skip("MOTIFWATCH_WINDOW_GRAPH names no graph")
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := gpu.New(gpu.Options{Devices: []int{0}})
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer e.Close()
	if err := e.Prepare(context.Background(), w); err != nil {
		b.Fatal(err)
	}
	variants, varEngines := variantEngines(b, "MOTIFWATCH_BATCH_VARIANTS", "default", w)
	const delta = 3600
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10"}
	var plans []*motif.Plan
	for _, n := range names {
		plans = append(plans, compileBuiltin(b, w, n, delta))
	}
	perQuery := map[int64][]float64{} // median one-query launch ms, per batch size
	for _, batch := range []int64{100000, 10000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			req := motif.Request{Range: motif.Range{Lo: w.End() - batch, Hi: w.End()}, Horizon: w.LastT()}
			per := make([][]time.Duration, len(plans))
			var batches []time.Duration
			var matches int64
			mine0 := e.Stats()[0].Mine
			for range b.N {
				t0 := time.Now()
				for i, p := range plans {
					t1 := time.Now()
					r, err := e.Mine(context.Background(), w, p, req)
					if err != nil {
						b.Fatal(err)
					}
					per[i] = append(per[i], time.Since(t1))
					matches += r.Matches + r.Open
				}
				batches = append(batches, time.Since(t0))
			}
			med := func(d []time.Duration) float64 {
				s := slices.Clone(d)
				slices.Sort(s)
				return s[len(s)/2].Seconds() * 1e3
			}
			worst, worstName := 0.0, ""
			var line string
			for i, d := range per {
				m := med(d)
				line += fmt.Sprintf(" %s=%.3f", names[i], m)
				if m > worst {
					worst, worstName = m, names[i]
				}
			}
			b.ReportMetric(med(batches), "batch-ms")
			// Launch to read-back of the control block, summed over the ten
			// calls (the rest of batch-ms is the calls' host work).
			b.ReportMetric((e.Stats()[0].Mine-mine0).Seconds()*1e3/float64(b.N), "kernel-ms/batch")
			b.ReportMetric(worst, "max-query-ms")
			b.ReportMetric(float64(matches)/float64(b.N), "matches")
			b.Logf("window %d edges, batch %d, per-query median ms:%s (slowest %s)", w.Len(), batch, line, worstName)
			perQuery[batch] = make([]float64, len(per))
			for i, d := range per {
				perQuery[batch][i] = med(d)
			}
		})
		// The same ten queries as one MineBatch call (one launch), checked
		// against the plan-by-plan counts, under each tuning variant
		// ($MOTIFWATCH_BATCH_VARIANTS, names of rowVariants, default
		// "default"), in turn.
		req := motif.Request{Range: motif.Range{Lo: w.End() - batch, Hi: w.End()}, Horizon: w.LastT()}
		var want []int64
		for _, p := range plans {
			r, err := e.Mine(context.Background(), w, p, req)
			if err != nil {
				b.Fatal(err)
			}
			want = append(want, r.Matches+r.Open)
		}
		for _, ord := range batchOrders(b, names, perQuery[batch]) {
			oplans := make([]*motif.Plan, len(ord.idx))
			for j, i := range ord.idx {
				oplans[j] = plans[i]
			}
			for i, v := range variants {
				b.Run(fmt.Sprintf("fused-batch=%d/%s%s", batch, v, ord.name), func(b *testing.B) {
					ve := varEngines[i]
					var batches []time.Duration
					var matches int64
					mine0 := ve.Stats()[0].Mine
					b.ResetTimer()
					for range b.N {
						t0 := time.Now()
						rs, err := ve.MineBatch(context.Background(), w, oplans, req)
						if err != nil {
							b.Fatal(err)
						}
						batches = append(batches, time.Since(t0))
						for j, r := range rs {
							if q := ord.idx[j]; r.Matches+r.Open != want[q] {
								b.Fatalf("%s: MineBatch %d matches, Mine %d", names[q], r.Matches+r.Open, want[q])
							}
							matches += r.Matches + r.Open
						}
					}
					slices.Sort(batches)
					b.ReportMetric(batches[len(batches)/2].Seconds()*1e3, "batch-ms")
					b.ReportMetric((ve.Stats()[0].Mine-mine0).Seconds()*1e3/float64(b.N), "kernel-ms/batch")
					b.ReportMetric(float64(matches)/float64(b.N), "matches")
				})
			}
		}
	}
}

// TestDiffGPUBatch: MineBatch's shared launches (queries of different
// sizes, predicates and anti-edges side by side, more than one launch's
// worth of them) count what the oracle counts for each query, with the
// default options, with every work-sharing kind forced (each task
// carries its query), with the queries interleaved by groups of three
// roots, and plan by plan where a batch cannot share a
// launch (two logical devices).
func TestDiffGPUBatch(t *testing.T) {
	engs := testEngines(t)
	// Every work-sharing kind forced, and the closing-edge pruning on
	// every plan that has a prunable closing edge (a launch with one runs
	// the pruning's build for all its plans).
	forced, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{ExpandRun: 3, SplitTail: 2, SplitRun: 1,
		RootGuide: 1 << 20, ClosePruneAll: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer forced.Close()
	// Queries interleaved by groups of three roots (a group's slots past
	// the range are empty pieces).
	grouped, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{BatchGroup: 3, SplitRun: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer grouped.Close()
	// The pruned plans and the others in launches of their own.
	split, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{BatchSplitPruned: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer split.Close()
	batchEngs := map[string]*gpu.Engine{"1dev": engs["1dev"], "1dev-forced-splits": forced, "1dev-group3": grouped, "1dev-split-pruned": split,
		"2part (plan by plan)": engs["2part-tinybuf-subtract"], "1dev-anchor-all": engs["1dev-anchor-all"]}
	cases := 400
	if testing.Short() {
		cases = 60
	}
	for i := 0; i < cases; i++ {
		rng := rand.New(rand.NewPCG(13, uint64(i)))
		w := oracle.RandomWindow(rng, oracle.DefaultWindowConfig())
		nq := 1 + rng.IntN(20)
		var plans []*motif.Plan
		var queries []*motif.Query
		for range nq {
			q := oracle.RandomQuery(rng, oracle.DefaultQueryConfig())
			p, err := motif.Compile(q, w)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			plans, queries = append(plans, p), append(queries, q)
		}
		r := motif.WholeWindow(w)
		h := motif.Batch
		if w.Len() > 0 && rng.IntN(2) == 0 {
			h = w.T(w.First() + int64(w.Len())/2)
		}
		if rng.IntN(3) == 0 && w.Len() > 1 {
			r.Lo += rng.Int64N(int64(w.Len()))
		}
		want := make([]motif.Result, nq)
		for j, q := range queries {
			o, err := oracle.New(w, q)
			if err != nil {
				t.Fatalf("case %d query %d: oracle: %v", i, j, err)
			}
			for _, m := range o.Mine(r, h) {
				if m.Open {
					want[j].Open++
				} else {
					want[j].Matches++
				}
			}
		}
		for name, e := range batchEngs {
			got, err := e.MineBatch(context.Background(), w, plans, motif.Request{Range: r, Horizon: h})
			if err != nil {
				t.Fatalf("case %d engine %s: %v", i, name, err)
			}
			for j := range plans {
				if got[j].Matches != want[j].Matches || got[j].Open != want[j].Open {
					t.Fatalf("case %d engine %s query %d of %d range %v horizon %d: %d final %d open, oracle %d final %d open\n%s%s%s",
						i, name, j, nq, r, h, got[j].Matches, got[j].Open, want[j].Matches, want[j].Open,
						oracle.FormatWindow(w), oracle.FormatQuery(queries[j]), plans[j])
				}
				if wantRoots := max(r.Hi-max(r.Lo, w.First()), 0); r.Hi > r.Lo && w.Len() > 0 && got[j].Roots != wantRoots {
					t.Fatalf("case %d engine %s query %d: %d roots, want %d", i, name, j, got[j].Roots, wantRoots)
				}
			}
		}
	}
}

// TestCollegeMsgBatchEqualsCPU: the fourteen built-in queries as one
// MineBatch call (one launch) on CollegeMsg at three deltas, whole window
// and its last 2,000 edges, equal to the CPU engine query by query, with
// the queries mined one after another and interleaved by 32 roots.
func TestCollegeMsgBatchEqualsCPU(t *testing.T) {
	w := loadCollegeMsg(t)
	// The same with the queries interleaved by groups of 32 roots.
	grouped, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{BatchGroup: 32}))
	if err != nil {
		t.Fatal(err)
	}
	defer grouped.Close()
	engs := map[string]*gpu.Engine{"1dev": testEngines(t)["1dev"], "group32": grouped}
	exact := cpu.New(0)
	for _, delta := range []int64{600, 3600, 86400} {
		var plans []*motif.Plan
		for _, name := range builtins() {
			plans = append(plans, compileBuiltin(t, w, name, delta))
		}
		for _, r := range []motif.Range{motif.WholeWindow(w), {Lo: w.End() - 2000, Hi: w.End()}} {
			req := motif.Request{Range: r, Horizon: w.LastT()}
			var want []motif.Result
			for _, p := range plans {
				want = append(want, count(t, exact, w, p, req))
			}
			for name, e := range engs {
				got, err := e.MineBatch(context.Background(), w, plans, req)
				if err != nil {
					t.Fatal(err)
				}
				for j, p := range plans {
					if got[j].Matches != want[j].Matches || got[j].Open != want[j].Open {
						t.Errorf("%s: %s delta %d range %v: batch %d (open %d), CPU %d (open %d)", name, p.Query.Name, delta, r,
							got[j].Matches, got[j].Open, want[j].Matches, want[j].Open)
					}
				}
			}
		}
	}
}

// BenchmarkBatchPerRoot splits a MineBatch launch's kernel time
// ($MOTIFWATCH_WINDOW_GRAPH, M1…M10 at delta 1 h, count mode) into its
// per-root part and its tail: kernel ms (launch to read-back) of each
// query's one-query launch against the same query mined twice in one
// batch launch (halved: the batch build's cost of that plan), over the
// whole window (per-root cost, tails negligible) and over its last 100k
// edges; then the ten in one launch, the plain plans alone (mineq6) and
// the prunable ones alone (mineq6p). With and without the closing-edge
// pruning (NoClosePrune: every launch on the plain builds). Counts are
// checked equal. Printed, one line per variant and root range:
// `-test.bench BatchPerRoot -test.benchtime 1x`.
func BenchmarkBatchPerRoot(b *testing.B) {
	path := os.Getenv("MOTIFWATCH_WINDOW_GRAPH")
	if path == "" {
		b.Skip("MOTIFWATCH_WINDOW_GRAPH names no graph")
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const delta = 3600
	names := []string{"M1", "M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9", "M10"}
	var plans []*motif.Plan
	for _, n := range names {
		plans = append(plans, compileBuiltin(b, w, n, delta))
	}
	for _, variant := range []string{"default", "noprune"} {
		e, err := gpu.New(gpu.Options{Devices: []int{0}}.WithTuning(gpu.Tuning{NoClosePrune: variant == "noprune"}))
		if err != nil {
			b.Skipf("no CUDA device: %v", err)
		}
		if err := e.Prepare(context.Background(), w); err != nil {
			b.Fatal(err)
		}
		kms := func(reps int, f func()) float64 {
			m0 := e.Stats()[0].Mine
			for range reps {
				f()
			}
			return (e.Stats()[0].Mine - m0).Seconds() * 1e3 / float64(reps)
		}
		for _, roots := range []int64{int64(w.Len()), 100000} {
			reps := 1
			if roots <= 100000 {
				reps = 10
			}
			req := motif.Request{Range: motif.Range{Lo: w.End() - roots, Hi: w.End()}, Horizon: w.LastT()}
			want := make([]int64, len(plans))
			line, sumOne, sumPair := "", 0.0, 0.0
			for i, p := range plans {
				var r motif.Result
				mine := func() {
					if r, err = e.Mine(context.Background(), w, p, req); err != nil {
						b.Fatal(err)
					}
				}
				mine()
				one := kms(reps, mine)
				want[i] = r.Matches + r.Open
				var rs []motif.Result
				pair := kms(reps, func() {
					if rs, err = e.MineBatch(context.Background(), w, []*motif.Plan{p, p}, req); err != nil {
						b.Fatal(err)
					}
				}) / 2
				if rs[0].Matches+rs[0].Open != want[i] || rs[1].Matches+rs[1].Open != want[i] {
					b.Fatalf("%s: pair %v, one %d", names[i], rs, want[i])
				}
				sumOne += one
				sumPair += pair
				line += fmt.Sprintf(" %s=%.2f/%.2f", names[i], one, pair)
			}
			fused := func(idx []int) float64 {
				var ps []*motif.Plan
				for _, i := range idx {
					ps = append(ps, plans[i])
				}
				var rs []motif.Result
				ms := kms(reps, func() {
					if rs, err = e.MineBatch(context.Background(), w, ps, req); err != nil {
						b.Fatal(err)
					}
				})
				for j, i := range idx {
					if rs[j].Matches+rs[j].Open != want[i] {
						b.Fatalf("%s fused: %d, one %d", names[i], rs[j].Matches+rs[j].Open, want[i])
					}
				}
				return ms
			}
			all := fused([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
			plain := fused([]int{0, 1, 4, 5, 6, 7, 9})
			pruned := fused([]int{2, 3, 8})
			fmt.Printf("perroot %s roots=%d kernel ms one/pair-half:%s | sum one %.2f pair %.2f | fused10 %.2f plain7 %.2f prunable3 %.2f\n",
				variant, roots, line, sumOne, sumPair, all, plain, pruned)
		}
		e.Close()
	}
}

// batchOrder is an order of the batch's queries for one MineBatch call:
// idx[j] is the query mined j-th.
type batchOrder struct {
	name string
	idx  []int
}

// batchOrders reads $MOTIFWATCH_BATCH_ORDERS, a comma-separated list of
// orders to time the fused launch under: "given" (the names' order, the
// default), "reversed", "slowFirst" and "fastFirst" (by each query's
// median one-query launch time over the same batch, perQuery, from the
// plan-by-plan sub-benchmark; given where that did not run). The claims
// run query after query, so the order decides whose roots make the tail.
func batchOrders(b *testing.B, names []string, perQuery []float64) []batchOrder {
	spec := envOr("MOTIFWATCH_BATCH_ORDERS", "given")
	var out []batchOrder
	for _, o := range strings.Split(spec, ",") {
		idx := make([]int, len(names))
		for i := range idx {
			idx[i] = i
		}
		switch o {
		case "given":
		case "reversed":
			slices.Reverse(idx)
		case "slowFirst", "fastFirst":
			if len(perQuery) == len(names) {
				slices.SortStableFunc(idx, func(x, y int) int {
					if o == "slowFirst" {
						x, y = y, x
					}
					return cmp.Compare(perQuery[x], perQuery[y])
				})
			}
		default:
			b.Fatalf("MOTIFWATCH_BATCH_ORDERS: no order %q (given, reversed, slowFirst, fastFirst)", o)
		}
		name := ""
		if spec != "given" {
			name = "/order=" + o
		}
		out = append(out, batchOrder{name: name, idx: idx})
	}
	return out
}
