package count3

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// cellQueries returns a query per cell: SNAP's grid, then the four-node
// stars (centre c, leaves x, y, z), then the Small family's, then the
// four-node paths (the library's built-ins, by the cell's name).
func cellQueries(delta int64) [Cells]*motif.Query {
	var qs [Cells]*motif.Query
	grid := motif.SNAPGrid()
	for i := range 6 {
		for j := range 6 {
			qs[i*6+j] = grid[i][j]
		}
	}
	for d := range 8 {
		q := &motif.Query{Name: Cell(Star4 + Cell(d)).String(), Nodes: []motif.Node{{Name: "c"}, {Name: "x"}, {Name: "y"}, {Name: "z"}}}
		for e := range 3 {
			edge := motif.Edge{From: 0, To: e + 1}
			if d>>(2-e)&1 == 1 {
				edge.From, edge.To = e+1, 0
			}
			q.Edges = append(q.Edges, edge)
		}
		qs[Star4+Cell(d)] = q
	}
	// Small: every edge joins node 0 (a centre, or the pair's first
	// edge's source) to node 1 + its neighbour index, in direction bit d.
	small := func(c Cell, nodes int, nbrs, dirs []int) {
		q := &motif.Query{Name: c.String()}
		for i := range nodes {
			q.Nodes = append(q.Nodes, motif.Node{Name: fmt.Sprint("n", i)})
		}
		for e := range nbrs {
			edge := motif.Edge{From: 0, To: 1 + nbrs[e]}
			if dirs[e] == 1 {
				edge.From, edge.To = edge.To, edge.From
			}
			q.Edges = append(q.Edges, edge)
		}
		qs[c] = q
	}
	for d := range 2 {
		small(Pair2+Cell(d), 2, []int{0, 0}, []int{0, d})
	}
	for d := range 4 {
		small(Wedge+Cell(d), 3, []int{0, 1}, []int{d >> 1, d & 1})
	}
	for d := range 8 {
		small(Pair4+Cell(d), 2, []int{0, 0, 0, 0}, []int{0, d >> 2, d >> 1 & 1, d & 1})
	}
	for c := Path4; c < Cells; c++ {
		q, err := motif.Builtin(c.String())
		if err != nil {
			panic(err)
		}
		qs[c] = q
	}
	for _, q := range qs {
		q.Delta = motif.TicksSpan(delta)
	}
	return qs
}

// oracleFams are the families the oracle tests of every cell check
// together; the four-edge cycles and paws (192 four-edge queries, slow
// for the oracle) have their own oracle tests (four_test.go).
const oracleFams = All &^ (Cycles4 | Paws)

// bruteCells counts each cell of oracleFams with the brute-force oracle,
// keeping the matches whose last edge is in r and not masked.
func bruteCells(t *testing.T, w *window.Window, delta int64, r motif.Range, mask []bool) [Cells]int64 {
	t.Helper()
	return bruteWhere(t, w, delta, r, mask, func(c Cell) bool { return c < Cycle4 })
}

// bruteWhere counts the cells that want picks with the brute-force oracle,
// keeping the matches whose last edge is in r and not masked (nil: all);
// the other cells stay zero.
func bruteWhere(t *testing.T, w *window.Window, delta int64, r motif.Range, mask []bool, want func(Cell) bool) [Cells]int64 {
	t.Helper()
	var g [Cells]int64
	for c, q := range cellQueries(delta) {
		if !want(Cell(c)) {
			continue
		}
		ms, err := oracle.Mine(w, q, r, motif.Batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if last := m.Edges[len(m.Edges)-1]; mask == nil || mask[last-r.Lo] {
				g[c]++
			}
		}
	}
	return g
}

// engineCells counts each cell with the general CPU engine.
func engineCells(t *testing.T, w *window.Window, delta int64, req motif.Request) [Cells]int64 {
	t.Helper()
	var g [Cells]int64
	cpu := cpu.New(2)
	for c, q := range cellQueries(delta) {
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cpu.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		g[c] = res.Matches
	}
	return g
}

func countCells(t *testing.T, w *window.Window, delta int64, req motif.Request, workers int) [Cells]int64 {
	t.Helper()
	return countFams(t, w, delta, req, workers, All)
}

func countFams(t *testing.T, w *window.Window, delta int64, req motif.Request, workers int, fam Families) [Cells]int64 {
	t.Helper()
	raw, err := Count(context.Background(), w, delta, req, fam, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return raw.Cells()
}

func countGrid(t *testing.T, w *window.Window, delta int64, req motif.Request, workers int) Grid {
	t.Helper()
	raw, err := Count(context.Background(), w, delta, req, All, Options{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return raw.Grid()
}

// sizedWindow draws oracle.RandomWindow(rng, cfg) until it holds at least
// half of cfg.MaxEdges live edges: a test that checks one window for a
// property of dense or busy windows (counting chosen, matches to cache)
// then holds for any seed, not only for a lucky draw (the edge count is
// uniform in [0, MaxEdges]).
func sizedWindow(rng *rand.Rand, cfg oracle.WindowConfig) *window.Window {
	for {
		if w := oracle.RandomWindow(rng, cfg); 2*w.Len() >= cfg.MaxEdges {
			return w
		}
	}
}

func randomRequest(rng *rand.Rand, w *window.Window) motif.Request {
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	if rng.IntN(3) == 0 && w.Len() > 0 {
		lo := w.First() + rng.Int64N(int64(w.Len()))
		req.Range = motif.Range{Lo: lo, Hi: lo + 1 + rng.Int64N(w.End()-lo)}
	}
	if rng.IntN(4) == 0 {
		req.RootMask = make([]bool, req.Range.Hi-req.Range.Lo)
		for i := range req.RootMask {
			req.RootMask[i] = rng.IntN(3) > 0
		}
	}
	return req
}

// oracleTrials is n random windows, or a fifth of them under the race
// detector. The race run (CI's second pass over count3) is for the
// workers' data races, which a fifth of the windows exercises as well as
// all do; the brute-force oracle dominates each window's cost and runs
// ten times slower under the detector. Every window is checked in the
// plain run (README's go test ./...).
func oracleTrials(n int) int {
	if underRace {
		return max(n/5, 1)
	}
	return n
}

// Every cell of oracleFams (SNAP's 36, the four-node stars and paths and the Small family) equals the brute-force oracle on small random windows full of
// tied timestamps, self-loops and evicted prefixes, for random ranges and
// root masks and 1 or 3 workers.
func TestCountMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	cfg := oracle.DefaultWindowConfig()
	cfg.MaxEdges = 16
	var seen [Cells]int64
	for iter := range oracleTrials(1500) {
		w := oracle.RandomWindow(rng, cfg)
		delta := 1 + rng.Int64N(14)
		req := randomRequest(rng, w)
		want := bruteCells(t, w, delta, req.Range, req.RootMask)
		for c := range want {
			seen[c] += want[c]
		}
		for _, workers := range []int{1, 3} {
			if got := countFams(t, w, delta, req, workers, oracleFams); got != want {
				t.Fatalf("iteration %d, delta %d, range %v, mask %v, %d workers:\n%s\ngot  %v\nwant %v",
					iter, delta, req.Range, req.RootMask != nil, workers, oracle.FormatWindow(w), got, want)
			}
		}
	}
	for c, n := range seen[:Cycle4] {
		if n == 0 {
			t.Errorf("no window had a match of %v: the test does not check it", Cell(c))
		}
	}
}

// Larger random graphs (many third nodes per pair, long δ windows that
// slide, ties) against the general engine, every cell.
func TestCountMatchesEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	for iter := range 40 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 12, MaxEdges: 300, MaxTime: 40 + rng.Int64N(200), SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 1 + rng.Int64N(30)
		req := randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		if got := countCells(t, w, delta, req, 1+iter%3); got != want {
			t.Fatalf("iteration %d, delta %d, range %v: got %v, want %v", iter, delta, req.Range, got, want)
		}
	}
}

// The device input (flat sequences) gives the same counters as the fused
// CPU passes: CountSequences is the CPU twin a device must equal.
func TestCountSequences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for iter := range 30 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 10, MaxEdges: 200, MaxTime: 60, SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 1 + rng.Int64N(20)
		req := randomRequest(rng, w)
		want, err := Count(context.Background(), w, delta, req, All, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Count(context.Background(), w, delta, req, All, Options{Workers: 2, Device: cpuDevice{}})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("iteration %d: sequences %v, fused %v", iter, got, want)
		}
	}
}

type cpuDevice struct{}

func (cpuDevice) CountSequences(_ context.Context, s *Sequences, delta int64) (Raw, error) {
	return CountSequences(s, delta), nil
}

// collegeMsgGrid is ARCHITECTURE.md's reference: CollegeMsg, δ = 3600, ties in
// file order.
var collegeMsgGrid = Grid{
	{126693, 75319, 2663, 2050, 132203, 184137},
	{92053, 64324, 2309, 1657, 109701, 125024},
	{81514, 84982, 134875, 157498, 1936, 2503},
	{160934, 79499, 276986, 136796, 2595, 2440},
	{170110, 149986, 111083, 132038, 113092, 133767},
	{278779, 156065, 244621, 129349, 131496, 188240},
}

func loadCollegeMsg(tb testing.TB) *window.Window {
	tb.Helper()
	w, _, err := ingest.LoadFile(testenv.Data(tb, "temporal/CollegeMsg.txt"), ingest.FileOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

func TestCollegeMsgGrid(t *testing.T) {
	w := loadCollegeMsg(t)
	for _, workers := range []int{1, 2, 5} {
		g := countGrid(t, w, 3600, motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}, workers)
		if g != collegeMsgGrid {
			t.Errorf("%d workers: grid\n%s\nwant\n%s", workers, fmtGrid(g), fmtGrid(collegeMsgGrid))
		}
		if g.Total() != 3979317 {
			t.Errorf("%d workers: total %d, want 3979317", workers, g.Total())
		}
	}
}

func fmtGrid(g Grid) string {
	s := ""
	for _, row := range g {
		s += fmt.Sprintln(row)
	}
	return s
}

// Dense graphs (few nodes, thousands of edges) give long pair lists and
// long δ windows in the triangle pass; every cell equals the general
// engine.
func TestCountDenseMatchesEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for iter := range 4 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 6000, MaxTime: 3000, SelfLoop: 0.01, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 2 + rng.Int64N(6)
		req := randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		if got := countCells(t, w, delta, req, 1+iter%2); got != want {
			t.Fatalf("iteration %d, %d edges, delta %d, range %v: got %v, want %v", iter, w.Len(), delta, req.Range, got, want)
		}
	}
}

// A hub pair in thousands of triangles, each of whose other sides is
// light: the triangle cells equal the general engine's, with every worker
// count.
func TestCountHeavyPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 29))
	w := heavyPairWindow(t, rng, 2567, 60, func(t int64) int64 { return t })
	for _, delta := range []int64{4, 40} {
		for _, req := range []motif.Request{{Range: motif.WholeWindow(w), Horizon: motif.Batch}, randomRequest(rng, w)} {
			checkTriangles(t, "heavy pair", w, delta, req)
		}
	}
}

// heavyPairWindow is a heavy pair 0–1 of heavy edges and thirds nodes
// with one or two edges to each of its ends, at times time(t) for t
// uniform in [0, 300), in time order.
func heavyPairWindow(t *testing.T, rng *rand.Rand, thirds, heavy int, time func(int64) int64) *window.Window {
	t.Helper()
	w, err := window.New(oracle.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for i := range thirds + 2 {
		w.IDs().Intern(fmt.Sprintf("n%d", i))
	}
	type edge struct {
		src, dst uint32
		t        int64
	}
	var es []edge
	add := func(u, v uint32) {
		if rng.IntN(2) == 0 {
			u, v = v, u
		}
		es = append(es, edge{u, v, time(rng.Int64N(300))})
	}
	for range heavy { // the heavy pair 0–1
		add(0, 1)
	}
	for x := uint32(2); x < uint32(thirds)+2; x++ {
		for range 1 + rng.IntN(2) {
			add(0, x)
		}
		for range 1 + rng.IntN(2) {
			add(x, 1)
		}
	}
	slices.SortStableFunc(es, func(a, b edge) int { return cmp.Compare(a.t, b.t) })
	for _, e := range es {
		if _, err := w.Append(window.Edge{Src: e.src, Dst: e.dst, T: e.t, Attrs: []float64{0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// engineFamily is the general engine's count of each cell of family fam
// (0 in the others).
func engineFamily(t *testing.T, w *window.Window, delta int64, req motif.Request, fam Families) [Cells]int64 {
	t.Helper()
	cpu := cpu.New(2)
	var want [Cells]int64
	for c, q := range cellQueries(delta) {
		if Family(Cell(c)) != fam {
			continue
		}
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cpu.Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		want[c] = res.Matches
	}
	return want
}

// checkTriangles compares the triangle cells, counted alone with 1 and 3
// workers, against the general engine.
func checkTriangles(t *testing.T, name string, w *window.Window, delta int64, req motif.Request) {
	t.Helper()
	want := engineFamily(t, w, delta, req, Triangles)
	for _, workers := range []int{1, 3} {
		raw, err := Count(context.Background(), w, delta, req, Triangles, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if got := raw.Cells(); got != want {
			t.Errorf("%s, delta %d, range %v, %d workers: got %v, want %v", name, delta, req.Range, workers, got, want)
		}
	}
}

// The paths counted alone (Count(Paths): the triangle pass runs only to
// take its triangles off) equal their cells in an all-family run, with
// no other cell counted; and a Triangles run plus a Paths run add up to
// a run of both, as Engine's cache needs.
func TestCountPathsAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for iter := range 60 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 10, MaxEdges: 200, MaxTime: 60, SelfLoop: 0.03, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := 1 + rng.Int64N(20)
		req := randomRequest(rng, w)
		all := countCells(t, w, delta, req, 2)
		for _, workers := range []int{1, 3} {
			paths, err := Count(context.Background(), w, delta, req, Paths, Options{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			got := paths.Cells()
			for c := range got {
				want := int64(0)
				if Family(Cell(c)) == Paths {
					want = all[c]
				}
				if got[c] != want {
					t.Fatalf("iteration %d, %d workers: %v counted alone %d, want %d", iter, workers, Cell(c), got[c], want)
				}
			}
			tri, err := Count(context.Background(), w, delta, req, Triangles, Options{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			both, err := Count(context.Background(), w, delta, req, Triangles|Paths, Options{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			tri.Add(&paths)
			if tri != both {
				t.Fatalf("iteration %d, %d workers: Triangles + Paths %v, Triangles|Paths %v", iter, workers, tri.Cells(), both.Cells())
			}
		}
	}
}
