package count3

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// randomPawMask returns a set of one to 160 paw cells, mostly one or two.
func randomPawMask(rng *rand.Rand) PawMask {
	var m PawMask
	n := 1 + rng.IntN(2)
	if rng.IntN(4) == 0 {
		n = 1 + rng.IntN(len(pawNames))
	}
	for m.Len() < n {
		m.Set(rng.IntN(len(pawNames)))
	}
	return m
}

// pawSparseForAll sends every paw-cell set through the sparse tables
// until the test ends.
func pawSparseForAll(t *testing.T) {
	old := pawSparseMaxCells
	pawSparseMaxCells = len(pawNames)
	t.Cleanup(func() { pawSparseMaxCells = old })
}

// checkPaws compares Count's paws restricted to mask with the brute-force
// oracle's cells in mask (the others zero), 1 and 3 workers, and returns
// the matches checked. sparse says which pass the mask must take.
func checkPaws(t *testing.T, iter int, w *window.Window, delta int64, req motif.Request, mask PawMask, sparse bool) int64 {
	t.Helper()
	want := bruteWhere(t, w, delta, req.Range, req.RootMask, func(c Cell) bool { return c >= Paw && mask.Has(int(c-Paw)) })
	return checkPawsAgainst(t, iter, w, delta, req, mask, sparse, want)
}

// checkPawsAgainst is checkPaws against want, the cells in mask.
func checkPawsAgainst(t *testing.T, iter int, w *window.Window, delta int64, req motif.Request, mask PawMask, sparse bool, want [Cells]int64) int64 {
	t.Helper()
	if (pawTablesOf(mask) != nil) != sparse {
		t.Fatalf("mask %v: sparse tables %v, want %v", mask, pawTablesOf(mask) != nil, sparse)
	}
	for _, workers := range []int{1, 3} {
		raw, err := Count(context.Background(), w, delta, req, Paws, Options{Workers: workers, PawCells: mask})
		if err != nil {
			t.Fatal(err)
		}
		if got := raw.Cells(); got != want {
			t.Fatalf("iteration %d, delta %d, range %v, mask %v, cells %v, %d workers:\n%s\ncells that differ: %s", iter, delta, req.Range, req.RootMask != nil, mask, workers, oracle.FormatWindow(w), cellDiff(got, want))
		}
	}
	var n int64
	for _, v := range want {
		n += v
	}
	return n
}

// The paw pass restricted to a few cells (Options.PawCells, the sparse
// tables) equals the brute-force oracle on those cells and counts no
// other, on random windows with ties, self-loops and evicted prefixes,
// for random ranges and root masks and 1 or 3 workers; every set goes
// through the sparse tables, as many cells as it has.
func TestPawSparseMatchesOracle(t *testing.T) {
	pawSparseForAll(t)
	rng := rand.New(rand.NewPCG(28, 50))
	var seen [160]int64
	for iter := range 300 {
		cfg := oracle.WindowConfig{MinNodes: 4, MaxNodes: 5 + rng.IntN(3), MaxEdges: 10 + rng.IntN(30), MaxTime: 4 + rng.Int64N(30), SelfLoop: 0.05, Evict: 0.3}
		w := oracle.RandomWindow(rng, cfg)
		delta := rng.Int64N(12)
		req := randomRequest(rng, w)
		mask := randomPawMask(rng)
		if checkPaws(t, iter, w, delta, req, mask, true) > 0 {
			for i := range 160 {
				if mask.Has(i) {
					seen[i]++
				}
			}
		}
	}
	for i, n := range seen {
		if n == 0 {
			t.Errorf("no window with a match checked %v: the test does not check it", Paw+Cell(i))
		}
	}
}

// The same at the ends of the int64 range, and, against the general
// engine, for dense windows whose triangles hold many edges within δ and
// whose corners have long tail sequences (windows that slide, not just
// fill).
func TestPawSparseMatchesOracleExtremeAndDense(t *testing.T) {
	pawSparseForAll(t)
	rng := rand.New(rand.NewPCG(28, 51))
	cfg := oracle.ExtremeWindowConfig()
	cfg.MaxEdges = 24
	var seen, dense int64
	for iter := range 80 {
		w := oracle.RandomWindow(rng, cfg)
		seen += checkPaws(t, iter, w, extremeDelta(rng), randomRequest(rng, w), randomPawMask(rng), true)
	}
	for iter := range 8 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 5, MaxEdges: 90, MaxTime: 30, SelfLoop: 0.03, Evict: 0.3})
		var m PawMask
		m.Set(0) // paw-1234-ffff (M3): a common cell
		m = m.Or(randomPawMask(rng))
		delta, req := 6+rng.Int64N(10), randomRequest(rng, w)
		want := engineCells(t, w, delta, req)
		for c := range want {
			if c < int(Paw) || !m.Has(c-int(Paw)) {
				want[c] = 0
			}
		}
		dense += checkPawsAgainst(t, iter, w, delta, req, m, true, want)
	}
	if seen == 0 || dense < 1000 {
		t.Errorf("%d extreme, %d dense matches: the test checks too little", seen, dense)
	}
}

// Count with PawCells over pawSparseMaxCells cells runs the dense pass and
// keeps only the asked cells; with one or two, the sparse tables.
func TestCountPawCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 52))
	for iter := range 40 {
		w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 40, MaxTime: 20, SelfLoop: 0.05, Evict: 0.3})
		var m PawMask
		for m.Len() < 1+iter%(pawSparseMaxCells+3) {
			m.Set(rng.IntN(len(pawNames)))
		}
		checkPaws(t, iter, w, 1+rng.Int64N(10), randomRequest(rng, w), m, m.Len() <= pawSparseMaxCells)
	}
}

// An Engine caches the paws by cell: M3, then M9 (a second run, of M9's
// patterns alone), then M3 again (cached) and a cycle all equal the
// general engine; with M3 and M9 announced (Expect) one run counts both; and
// after M3 alone, all 160 paws announced, one more run counts the 159
// others (the dense pass, its M3 counters dropped).
func TestEngineCachesPawCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 53))
	w := sizedWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 120, MaxTime: 40, SelfLoop: 0.02, Evict: 0.3})
	const delta = 12
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	names := []string{"M3", "M9", "M3", "M4"}
	plans := make([]*motif.Plan, len(names))
	for i, n := range names {
		plans[i] = builtinPlan(t, w, n, delta)
	}
	for _, expect := range []bool{false, true} {
		e := NewEngine(cpu.New(1), Options{Workers: 2, AlwaysCount: true})
		if expect {
			e.Expect(plans[:2]...)
		}
		var found int64
		for i, p := range plans {
			got, err := e.Mine(context.Background(), w, p, req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cpu.New(2).Mine(context.Background(), w, p, req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Matches != want.Matches {
				t.Fatalf("expect %v, %s (query %d): %d matches, engine %d", expect, names[i], i, got.Matches, want.Matches)
			}
			found += got.Matches
		}
		if found == 0 {
			t.Fatal("no match: the test checks nothing")
		}
		if want := map[bool]int{false: 3, true: 2}[expect]; e.Runs() != want {
			t.Errorf("expect %v: %d counting runs, want %d", expect, e.Runs(), want)
		}
	}
	e := NewEngine(cpu.New(1), Options{Workers: 2, AlwaysCount: true})
	if _, err := e.Mine(context.Background(), w, plans[0], req); err != nil {
		t.Fatal(err)
	}
	var all []*motif.Plan
	for c := Paw; c < Paw+Cell(len(pawNames)); c++ {
		all = append(all, builtinPlan(t, w, c.String(), delta))
	}
	e.Expect(all...)
	want := engineCells(t, w, delta, req)
	var seen int64
	for k := range 2 * len(all) {
		i := k % len(all)
		got, err := e.Mine(context.Background(), w, all[i], req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Matches != want[Paw+Cell(i)] {
			t.Fatalf("%v after M3 alone: %d matches, engine %d", Paw+Cell(i), got.Matches, want[Paw+Cell(i)])
		}
		seen += got.Matches
	}
	if seen == 0 {
		t.Fatal("no paw match: the test checks nothing")
	}
	if e.Runs() != 2 {
		t.Errorf("M3, then all paw cells: %d counting runs, want 2", e.Runs())
	}
}

// A lone paw query's counting run is priced as the light walk's run of
// its one cell where the light walk counts the cell (M3), as the sparse
// tables' where it does not, and as the tables' run of both with such a
// cell announced beside M3; with every paw announced, as the dense pass;
// and a cell counted before for the window state is not priced at all.
func TestPawRunPriced(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 54))
	w := oracle.RandomWindow(rng, oracle.WindowConfig{MinNodes: 4, MaxNodes: 6, MaxEdges: 60, MaxTime: 40, Evict: 1})
	req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
	const delta = 12
	m3 := builtinPlan(t, w, "M3", delta)
	e := NewEngine(cpu.New(1), Options{Workers: 1})
	if _, per, _, why := e.projection(w, delta, req, Paw); per != pawCellsCost(1, true) || !strings.Contains(why, "light sides") {
		t.Errorf("M3 alone: %d steps a window edge (%q), want %d (one light-walk cell)", per, why, pawCellsCost(1, true))
	}
	other := -1
	for i := range len(pawNames) {
		if !pawLightCell(i) {
			other = i
			break
		}
	}
	if other < 0 {
		t.Fatal("every paw cell is a light-walk cell")
	}
	e2 := NewEngine(cpu.New(1), Options{Workers: 1})
	if _, per, _, why := e2.projection(w, delta, req, Paw+Cell(other)); per != pawCellsCost(1, false) || !strings.Contains(why, "sparse tables") {
		t.Errorf("%s alone: %d steps a window edge (%q), want %d (one sparse cell)", pawNames[other], per, why, pawCellsCost(1, false))
	}
	e2.Expect(builtinPlan(t, w, pawNames[other], delta))
	if _, per, _, _ := e2.projection(w, delta, req, Paw); per != pawCellsCost(2, false) {
		t.Errorf("M3 with %s announced: %d steps a window edge, want %d (two sparse cells)", pawNames[other], per, pawCellsCost(2, false))
	}
	var all []*motif.Plan
	for c := Paw; c < Paw+Cell(len(pawNames)); c++ {
		all = append(all, builtinPlan(t, w, c.String(), delta))
	}
	e.Expect(all...)
	if _, per, shares, _ := e.projection(w, delta, req, Paw); per != countCost[Paws] || shares != len(all) {
		t.Errorf("every paw announced: %d steps a window edge shared by %d, want %d by %d", per, shares, countCost[Paws], len(all))
	}
	e.Expect(m3)
	e.AlwaysCount(true)
	if _, err := e.Mine(context.Background(), w, m3, req); err != nil {
		t.Fatal(err)
	}
	e.AlwaysCount(false)
	if cost, _, _, why := e.projection(w, delta, req, Paw); cost != 0 || !strings.Contains(why, "already counted") {
		t.Errorf("M3 counted before: cost %d (%q), want none", cost, why)
	}
}

// The price's light walk is the run's: a mask is priced as the light
// walk's exactly when Count takes it (its cells' tables have light-walk
// tables), and a light-walk run of n cells is priced below the sparse
// tables' run of n, and that below every cell's.
func TestPawLightPriceMatchesRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 55))
	var light []int
	for i := range len(pawNames) {
		if pawLightCell(i) {
			light = append(light, i)
		}
	}
	if len(light) != 64 {
		t.Fatalf("%d light-walk cells, want 64", len(light))
	}
	seen := [2]int{}
	for range 2000 {
		var m PawMask
		for n := 1 + rng.IntN(pawSparseMaxCells+2); m.Len() < n; {
			if rng.IntN(2) == 0 {
				m.Set(light[rng.IntN(len(light))])
			} else {
				m.Set(rng.IntN(len(pawNames)))
			}
		}
		tab := pawTablesOf(m)
		runs := tab != nil && pawLightTablesOf(tab.raws) != nil
		if got := pawMaskLight(m); got != runs {
			t.Fatalf("mask %v (%d cells): priced as the light walk %v, the run takes it %v", m, m.Len(), got, runs)
		}
		if runs {
			seen[1]++
		} else {
			seen[0]++
		}
	}
	if seen[0] == 0 || seen[1] == 0 {
		t.Fatalf("masks not light, light: %v: the test checks one side only", seen)
	}
	for n := 1; n <= pawSparseMaxCells; n++ {
		if l, s := pawCellsCost(n, true), pawCellsCost(n, false); l >= s || s >= countCost[Paws] {
			t.Errorf("%d cells: light walk %d, sparse tables %d, every cell %d steps a window edge: want increasing", n, l, s, countCost[Paws])
		}
	}
}
