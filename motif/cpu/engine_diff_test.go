package cpu_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// The differential tests compare the CPU engine with the oracle on random
// windows and queries. A failure prints its seed, case, window, query and
// plan, and the command that reruns just that case:
// go test ./motif/cpu -run '^TestDiffCPU$' -diff.seed=S -diff.case=I
// The seed may also come from MOTIF_DIFF_SEED (MOTIF_DIFF_SEED=random
// picks a new one); -diff.cases sets how many cases run.
var (
	diffSeed  = flag.Uint64("diff.seed", 0, "seed of the differential tests (0: $MOTIF_DIFF_SEED, else 1)")
	diffCases = flag.Int("diff.cases", 15000, "random cases of TestDiffCPU (TestDiffStreaming runs half, TestDiffCPUWorkers 1/200)")
	diffCase  = flag.Int("diff.case", -1, "run only this case")
)

var diffWorkers = []int{1, 2, 4}

// coverageCases is the least number of cases whose coverage counters must
// all be non-zero (rare ones, such as a failing "literal >= e1.amount",
// need that many).
const coverageCases = 10000

func diffSeedValue(t *testing.T) uint64 {
	seed := *diffSeed
	if seed == 0 {
		switch s := os.Getenv("MOTIF_DIFF_SEED"); s {
		case "":
			seed = 1
		case "random":
			seed = uint64(time.Now().UnixNano())
		default:
			var err error
			if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("MOTIF_DIFF_SEED=%q: %v", s, err)
			}
		}
	}
	t.Logf("seed %d (rerun: -diff.seed=%d)", seed, seed)
	return seed
}

// diffCaseRange returns the case indices to run.
func diffCaseRange() (lo, hi int) {
	if *diffCase >= 0 {
		return *diffCase, *diffCase + 1
	}
	n := *diffCases
	if testing.Short() {
		n /= 10
	}
	return 0, n
}

// randomCase builds case i of a seed: a window, a valid query and its plan.
func randomCase(t *testing.T, seed uint64, i int, wcfg oracle.WindowConfig) (*rand.Rand, *window.Window, *motif.Query, *motif.Plan) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	w := oracle.RandomWindow(rng, wcfg)
	q := oracle.RandomQuery(rng, oracle.DefaultQueryConfig())
	if err := q.Validate(); err != nil {
		t.Fatalf("seed %d case %d: RandomQuery made an invalid query: %v\n%s", seed, i, err, oracle.FormatQuery(q))
	}
	p, err := motif.Compile(q, w)
	if err != nil {
		t.Fatalf("seed %d case %d: Compile: %v\n%s", seed, i, err, oracle.FormatQuery(q))
	}
	return rng, w, q, p
}

type request struct {
	r       motif.Range
	horizon int64
}

func (r request) String() string {
	h := strconv.FormatInt(r.horizon, 10)
	if r.horizon == motif.Batch {
		h = "Batch"
	}
	return fmt.Sprintf("range [%d, %d) horizon %s", r.r.Lo, r.r.Hi, h)
}

// requests picks what to mine: the whole window in batch mode, a random
// sub-range with a random horizon, and the whole window with the horizon
// at a middle edge's time, so matches are held open.
func requests(rng *rand.Rand, w *window.Window) []request {
	reqs := []request{{motif.WholeWindow(w), motif.Batch}}
	lo := w.First() - 1 + rng.Int64N(int64(w.Len())+3)
	hi := lo + rng.Int64N(int64(w.Len())+2)
	h := motif.Batch
	if w.Len() > 0 {
		p := w.First() + rng.Int64N(int64(w.Len()))
		switch rng.IntN(3) {
		case 0:
			h = w.T(p)
		case 1:
			h = w.T(p) - 1
		}
		reqs = append(reqs, request{motif.WholeWindow(w), w.T(w.First() + int64(w.Len())/2)})
	}
	return append(reqs, request{motif.Range{Lo: lo, Hi: hi}, h})
}

func matchKey(m *motif.Match) string {
	k := fmt.Sprintf("edges %v nodes %v", m.Edges, m.Nodes)
	if m.Open {
		k += fmt.Sprintf(" open until %d", m.OpenUntil)
	}
	return k
}

func keys(ms []motif.Match) []string {
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = matchKey(&ms[i])
	}
	slices.Sort(out)
	return out
}

func counts(ms []motif.Match) (final, open int64) {
	for _, m := range ms {
		if m.Open {
			open++
		} else {
			final++
		}
	}
	return final, open
}

// collect mines req and returns copies of the matches the sink received.
func collect(e motif.Engine, w *window.Window, p *motif.Plan, req request) ([]motif.Match, motif.Result, error) {
	var got []motif.Match
	sink := motif.SinkFunc(func(m *motif.Match) error {
		got = append(got, motif.Match{Edges: slices.Clone(m.Edges), Nodes: slices.Clone(m.Nodes), Open: m.Open, OpenUntil: m.OpenUntil})
		return nil
	})
	res, err := e.Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon, Sink: sink})
	return got, res, err
}

// diffReport renders everything needed to reproduce a disagreement.
func diffReport(t *testing.T, seed uint64, i int, w *window.Window, q *motif.Query, p *motif.Plan, req request, what string, want, got []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d case %d (rerun: go test ./motif/cpu -run '^%s$' -diff.seed=%d -diff.case=%d)\n", seed, i, t.Name(), seed, i)
	fmt.Fprintf(&b, "%s, %s\n%s%s%s", req, what, oracle.FormatWindow(w), oracle.FormatQuery(q), p)
	var missing, extra []string
	for _, k := range want {
		if !slices.Contains(got, k) {
			missing = append(missing, k)
		}
	}
	for _, k := range got {
		if !slices.Contains(want, k) {
			extra = append(extra, k)
		}
	}
	fmt.Fprintf(&b, "oracle: %d matches, engine: %d\nmissing from the engine:\n  %s\nextra in the engine (or duplicated):\n  %s\n",
		len(want), len(got), strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	return b.String()
}

// TestDiffCPU compares the CPU engine with the oracle, in count and
// enumerate mode, for 1, 2 and 4 workers, over the whole window, random
// sub-ranges and finite horizons; it then checks that the random cases
// exercised every feature both ways.
func TestDiffCPU(t *testing.T) {
	seed := diffSeedValue(t)
	cov := newCoverage()
	lo, hi := diffCaseRange()
	for i := lo; i < hi; i++ {
		rng, w, q, p := randomCase(t, seed, i, oracle.DefaultWindowConfig())
		o, err := oracle.New(w, q)
		if err != nil {
			t.Fatalf("seed %d case %d: oracle: %v", seed, i, err)
		}
		for _, req := range requests(rng, w) {
			want := o.Mine(req.r, req.horizon)
			wantKeys := keys(want)
			wantFinal, wantOpen := counts(want)
			cov.request(o, w, q, req, want)
			for _, n := range diffWorkers {
				e := cpu.New(n)
				res, err := e.Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon})
				if err != nil || res.Matches != wantFinal || res.Open != wantOpen || res.Stopped {
					t.Fatalf("count mode, %d workers: got %+v, %v; want %d final, %d open\n%s", n, res, err, wantFinal, wantOpen,
						diffReport(t, seed, i, w, q, p, req, "count mode", wantKeys, nil))
				}
				got, res, err := collect(e, w, p, req)
				gotKeys := keys(got)
				if err != nil || !slices.Equal(gotKeys, wantKeys) || res.Matches != wantFinal || res.Open != wantOpen {
					t.Fatalf("enumerate mode, %d workers: result %+v, %v\n%s", n, res, err,
						diffReport(t, seed, i, w, q, p, req, fmt.Sprintf("enumerate mode, %d workers", n), wantKeys, gotKeys))
				}
			}
		}
		cov.tuples(o, w, q)
	}
	t.Logf("coverage over cases [%d, %d):\n%s", lo, hi, cov)
	if hi-lo >= coverageCases {
		cov.require(t)
	}
}

// TestDiffCPUExtreme is TestDiffCPU on windows whose times lie at the
// ends of the int64 range and queries whose delta (and so per-hop and
// anti-edge limits) reach up to 2^63−1, where interval ends computed
// without saturation wrap. It also checks that the cases exercised both
// wide deltas and matches at those times.
func TestDiffCPUExtreme(t *testing.T) {
	seed := diffSeedValue(t)
	lo, hi := diffCaseRange()
	if *diffCase < 0 {
		hi = lo + (hi-lo)/3
	}
	var wideMatches, wideExcluded int
	for i := lo; i < hi; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)|1<<41))
		w := oracle.RandomWindow(rng, oracle.ExtremeWindowConfig())
		q := oracle.RandomQuery(rng, oracle.ExtremeQueryConfig())
		if err := q.Validate(); err != nil {
			t.Fatalf("seed %d case %d: invalid query: %v\n%s", seed, i, err, oracle.FormatQuery(q))
		}
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatalf("seed %d case %d: Compile: %v\n%s", seed, i, err, oracle.FormatQuery(q))
		}
		o, err := oracle.New(w, q)
		if err != nil {
			t.Fatalf("seed %d case %d: oracle: %v", seed, i, err)
		}
		for _, req := range requests(rng, w) {
			want := o.Mine(req.r, req.horizon)
			wantKeys := keys(want)
			wantFinal, wantOpen := counts(want)
			if o.Delta() > math.MaxInt64/2 {
				if len(want) > 0 {
					wideMatches++
				} else {
					wideExcluded++
				}
			}
			for _, n := range []int{1, 2} {
				e := cpu.New(n)
				res, err := e.Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon})
				if err != nil || res.Matches != wantFinal || res.Open != wantOpen {
					t.Fatalf("count mode, %d workers: got %+v, %v; want %d final, %d open\n%s", n, res, err, wantFinal, wantOpen,
						diffReport(t, seed, i, w, q, p, req, "count mode", wantKeys, nil))
				}
				got, _, err := collect(e, w, p, req)
				if gotKeys := keys(got); err != nil || !slices.Equal(gotKeys, wantKeys) {
					t.Fatalf("enumerate mode, %d workers (%v):\n%s", n, err,
						diffReport(t, seed, i, w, q, p, req, "enumerate mode", wantKeys, gotKeys))
				}
			}
		}
	}
	t.Logf("wide-delta requests: %d with matches, %d without", wideMatches, wideExcluded)
	if hi-lo >= 1000 && (wideMatches == 0 || wideExcluded == 0) {
		t.Errorf("coverage: wide-delta requests with matches %d, without %d; want both", wideMatches, wideExcluded)
	}
}

// coverage counts, across the random cases, tuples the oracle excluded
// for exactly one reason and matches it admitted although a feature was
// in play, so the test cannot silently stop exercising something.
type coverage struct {
	excluded, admitted map[string]int
}

func newCoverage() *coverage {
	return &coverage{excluded: map[string]int{}, admitted: map[string]int{}}
}

// predKind classifies a predicate for the coverage counters.
func predKind(w *window.Window, p *motif.Predicate) string {
	side := func(o *motif.Operand) string {
		switch o.Kind {
		case motif.EdgeAttr:
			if _, k, _ := w.Schema().EdgeAttr(o.Attr); k == window.String {
				return "edge-str"
			}
			return "edge-num"
		case motif.NodeAttr:
			return "node-" + o.Attr
		case motif.List:
			return "list"
		}
		return "literal"
	}
	l, r := side(&p.Left), side(&p.Right)
	switch {
	case l == "literal":
		return r + " (literal on the left) " + p.Op.String()
	case r == "literal" || r == "list":
		return l + " " + p.Op.String()
	case l == r:
		return "cross " + l + " " + p.Op.String()
	}
	return l + " vs " + r
}

func (c *coverage) request(o *oracle.Oracle, w *window.Window, q *motif.Query, req request, want []motif.Match) {
	for _, m := range want {
		if m.Open {
			c.admitted["open"]++
		} else if len(q.AntiEdges) > 0 && req.horizon != motif.Batch {
			c.admitted["anti decided before a finite horizon"]++
		}
	}
	if req.horizon == motif.Batch || len(q.AntiEdges) == 0 {
		return
	}
	// Tuples an anti-edge excludes although its interval reaches past the
	// horizon: the forbidden edge is already in the window.
	oracle.Tuples(w, len(q.Edges), func(pos []int64) {
		if last := pos[len(pos)-1]; last < req.r.Lo || last >= req.r.Hi {
			return
		}
		if v := o.Check(pos, req.horizon); v.Fail == oracle.FailAnti && v.Open {
			c.excluded["open interval, forbidden edge already seen"]++
		}
	})
}

func (c *coverage) tuples(o *oracle.Oracle, w *window.Window, q *motif.Query) {
	k := len(q.Edges)
	kinds := make([]string, len(q.Where))
	for i := range q.Where {
		kinds[i] = predKind(w, &q.Where[i])
	}
	oracle.Tuples(w, k, func(pos []int64) {
		v := o.Check(pos, motif.Batch)
		switch v.Fail {
		case oracle.FailDelta:
			c.excluded["delta"]++
		case oracle.FailWithin:
			c.excluded["within"]++
		case oracle.FailAnti:
			c.excluded["anti-edge"]++
		case oracle.FailInjective:
			c.excluded["injectivity"]++
		case oracle.FailSelfLoop | oracle.FailInjective:
			c.excluded["self-loop"]++
		case oracle.FailPredicate:
			if len(v.Preds) == 1 {
				c.excluded["predicate "+kinds[v.Preds[0]]]++
			}
		case 0:
			c.admit(o, w, q, kinds, &v.Match)
		}
		// Ties: swapping two tied edges gives a tuple out of (t, seq)
		// order, which must fail for that reason alone.
		for i := 0; i+1 < k; i++ {
			if w.T(pos[i]) != w.T(pos[i+1]) {
				continue
			}
			sw := slices.Clone(pos)
			sw[i], sw[i+1] = sw[i+1], sw[i]
			if o.Check(sw, motif.Batch).Fail == oracle.FailOrder {
				c.excluded["tie order"]++
			}
		}
	})
}

func (c *coverage) admit(o *oracle.Oracle, w *window.Window, q *motif.Query, kinds []string, m *motif.Match) {
	k := len(m.Edges)
	t := func(i int) int64 { return w.T(m.Edges[i]) }
	if k > 1 && t(k-1)-t(0) == o.Delta() {
		c.admitted["delta (at the bound)"]++
	}
	for i := 1; i < k; i++ {
		if lim, ok := o.Within(i); ok && t(i)-t(i-1) == lim {
			c.admitted["within (at the bound)"]++
		}
		if t(i) == t(i-1) {
			c.admitted["tie"]++
		}
	}
	if len(q.Nodes) >= 3 {
		c.admitted["injectivity (3+ nodes)"]++
	}
	for _, kind := range kinds {
		c.admitted["predicate "+kind]++
	}
	for _, a := range q.AntiEdges {
		from, to := m.Nodes[a.From], m.Nodes[a.To]
		for p := w.First(); p < w.End(); p++ {
			if w.Src(p) != from || w.Dst(p) != to {
				continue
			}
			switch {
			case p > m.Edges[a.After]:
				c.admitted["anti-edge (forbidden pair after the interval)"]++
			case p < m.Edges[a.After] && w.T(p) == t(a.After):
				c.admitted["anti-edge (forbidden pair tied, before its edge)"]++
			}
		}
	}
}

// required lists the counters every full run must see non-zero.
func (c *coverage) required() []string {
	names := []string{
		"delta", "within", "anti-edge", "injectivity", "self-loop", "tie order",
		"open interval, forbidden edge already seen",
	}
	adm := []string{
		"delta (at the bound)", "within (at the bound)", "tie", "injectivity (3+ nodes)",
		"anti-edge (forbidden pair after the interval)", "anti-edge (forbidden pair tied, before its edge)",
		"open", "anti decided before a finite horizon",
	}
	var out []string
	for _, n := range names {
		out = append(out, "excluded "+n)
	}
	for _, n := range adm {
		out = append(out, "admitted "+n)
	}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	var preds []string
	for _, op := range ops {
		preds = append(preds, "edge-num "+op, "node-risk "+op, "cross edge-num "+op, "literal-left "+op)
	}
	preds = append(preds, "edge-num in", "edge-num not in", "edge-str ==", "edge-str !=", "edge-str in", "edge-str not in",
		"node-label ==", "node-label !=", "node-label in", "node-label not in", "cross edge-str ==", "cross edge-str !=",
		"edge-num vs node-risk")
	for _, p := range preds {
		out = append(out, "excluded predicate "+p, "admitted predicate "+p)
	}
	return out
}

func (c *coverage) get(name string) int {
	kind, rest, _ := strings.Cut(name, " ")
	m := c.admitted
	if kind == "excluded" {
		m = c.excluded
	}
	if pred, ok := strings.CutPrefix(rest, "predicate literal-left "); ok {
		// "literal OP ref" forms, any reference
		n := 0
		for k, v := range m {
			if strings.HasPrefix(k, "predicate ") && strings.Contains(k, "(literal on the left) ") && strings.HasSuffix(k, ") "+pred) {
				n += v
			}
		}
		return n
	}
	return m[rest]
}

func (c *coverage) require(t *testing.T) {
	t.Helper()
	for _, name := range c.required() {
		if c.get(name) == 0 {
			t.Errorf("coverage: no case %s; the random generators no longer exercise it", name)
		}
	}
}

func (c *coverage) String() string {
	var lines []string
	for _, kind := range []string{"excluded", "admitted"} {
		m := c.excluded
		if kind == "admitted" {
			m = c.admitted
		}
		for k, v := range m {
			lines = append(lines, fmt.Sprintf("  %s %s: %d", kind, k, v))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestDiffSink checks the sink contract: ErrStop ends mining early without
// an error, a sink error is returned, and a cancelled context returns
// ctx.Err().
func TestDiffSink(t *testing.T) {
	seed := diffSeedValue(t)
	errBoom := errors.New("boom")
	found := 0
	for i := 0; found < 50 && i < 100000; i++ {
		_, w, _, p := randomCase(t, seed, i, oracle.DefaultWindowConfig())
		req := motif.Request{Range: motif.WholeWindow(w), Horizon: motif.Batch}
		res, err := cpu.New(1).Mine(context.Background(), w, p, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Matches < 2 {
			continue
		}
		found++
		for _, n := range diffWorkers {
			e := cpu.New(n)
			for _, c := range []struct {
				name    string
				ret     error
				wantErr error
				stopped bool
			}{
				{"ErrStop", motif.ErrStop, nil, true},
				{"sink error", errBoom, errBoom, false},
			} {
				calls := 0
				req.Sink = motif.SinkFunc(func(*motif.Match) error { calls++; return c.ret })
				res, err := e.Mine(context.Background(), w, p, req)
				if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) || res.Stopped != c.stopped || calls != 1 {
					t.Fatalf("seed %d case %d, %d workers, sink returns %s: Mine = %+v, %v after %d sink calls; want error %v, Stopped %v, 1 call",
						seed, i, n, c.name, res, err, calls, c.wantErr, c.stopped)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			req.Sink = nil
			if _, err := e.Mine(ctx, w, p, req); !errors.Is(err, context.Canceled) {
				t.Fatalf("seed %d case %d, %d workers: Mine with a cancelled context = %v; want %v", seed, i, n, err, context.Canceled)
			}
			ctx, cancel = context.WithCancel(context.Background())
			req.Sink = motif.SinkFunc(func(*motif.Match) error { cancel(); return nil })
			if _, err := e.Mine(ctx, w, p, req); !errors.Is(err, context.Canceled) {
				t.Fatalf("seed %d case %d, %d workers: Mine cancelled by its sink = %v; want %v", seed, i, n, err, context.Canceled)
			}
			cancel()
		}
	}
	if found < 50 {
		t.Fatalf("only %d random cases with 2 or more matches", found)
	}
}

// TestDiffStreaming checks that streaming equals batch. Over a complete
// window, the matches of consecutive position batches [lo, hi) add up to
// one whole-window run. Over a window that grows batch by batch, with the
// horizon just before the next batch's first edge, every match final at
// its batch is a whole-window match, every whole-window match is reported
// (final or open) at the batch of its last edge, and an open match missing
// from the whole-window run was invalidated by an edge that came later.
func TestDiffStreaming(t *testing.T) {
	seed := diffSeedValue(t)
	wcfg := oracle.DefaultWindowConfig()
	wcfg.Evict = 0 // the grown windows replay the full one from position 0
	lo, hi := diffCaseRange()
	if *diffCase < 0 {
		hi = lo + (hi-lo)/2
	}
	held, dropped := 0, 0
	for i := lo; i < hi; i++ {
		rng, full, q, p := randomCase(t, seed, i, wcfg)
		whole := request{motif.WholeWindow(full), motif.Batch}
		wantAll, _, err := collect(cpu.New(1), full, p, whole)
		if err != nil {
			t.Fatal(err)
		}
		wantKeys := keys(wantAll)
		if ok := keys(mineOracle(t, full, q, whole)); !slices.Equal(ok, wantKeys) {
			t.Fatalf("%s", diffReport(t, seed, i, full, q, p, whole, "whole window", ok, wantKeys))
		}
		var cuts []int64
		for p := full.First(); p <= full.End(); p++ {
			if p == full.First() || p == full.End() || rng.IntN(3) == 0 {
				cuts = append(cuts, p)
			}
		}
		// Batches over the complete window.
		for _, n := range diffWorkers {
			var union []motif.Match
			for b := 0; b+1 < len(cuts); b++ {
				got, _, err := collect(cpu.New(n), full, p, request{motif.Range{Lo: cuts[b], Hi: cuts[b+1]}, motif.Batch})
				if err != nil {
					t.Fatal(err)
				}
				union = append(union, got...)
			}
			if got := keys(union); !slices.Equal(got, wantKeys) {
				t.Fatalf("batches %v, %d workers:\n%s", cuts, n, diffReport(t, seed, i, full, q, p, whole, "union of batches", wantKeys, got))
			}
		}
		// A window that grows batch by batch.
		inWhole := map[string]bool{}
		for _, m := range wantAll {
			inWhole[fmt.Sprint(m.Edges, m.Nodes)] = true
		}
		seen := map[string]bool{}
		fo, _ := oracle.New(full, q)
		for b := 0; b+1 < len(cuts); b++ {
			w := prefix(t, full, cuts[b+1])
			pw, err := motif.Compile(q, w)
			if err != nil {
				t.Fatal(err)
			}
			h := motif.Batch
			if cuts[b+1] < full.End() {
				h = full.T(cuts[b+1]) - 1
			}
			req := request{motif.Range{Lo: cuts[b], Hi: cuts[b+1]}, h}
			got, _, err := collect(cpu.New(2), w, pw, req)
			if err != nil {
				t.Fatal(err)
			}
			if want := keys(mineOracle(t, w, q, req)); !slices.Equal(keys(got), want) {
				t.Fatalf("growing window:\n%s", diffReport(t, seed, i, w, q, pw, req, "growing window", want, keys(got)))
			}
			for _, m := range got {
				id := fmt.Sprint(m.Edges, m.Nodes)
				seen[id] = true
				switch {
				case !m.Open && !inWhole[id]:
					t.Fatalf("seed %d case %d: final match %s at %s is not a whole-window match\n%s%s", seed, i, matchKey(&m), req, oracle.FormatWindow(full), oracle.FormatQuery(q))
				case m.Open && m.OpenUntil <= h:
					t.Fatalf("seed %d case %d: open match %s at %s ends before the horizon", seed, i, matchKey(&m), req)
				case m.Open && inWhole[id]:
					held++
				case m.Open && fo.Check(m.Edges, motif.Batch).Fail != oracle.FailAnti:
					t.Fatalf("seed %d case %d: open match %s at %s is dropped by the whole window for a reason other than an anti-edge", seed, i, matchKey(&m), req)
				case m.Open:
					dropped++
				}
			}
		}
		for id := range inWhole {
			if !seen[id] {
				t.Fatalf("seed %d case %d: whole-window match %s never reported while the window grew (batches %v)\n%s%s", seed, i, id, cuts, oracle.FormatWindow(full), oracle.FormatQuery(q))
			}
		}
	}
	t.Logf("growing windows: %d open matches later confirmed, %d later invalidated", held, dropped)
	if hi-lo >= coverageCases/2 && (held == 0 || dropped == 0) {
		t.Errorf("coverage: open matches confirmed %d, invalidated %d; want both", held, dropped)
	}
}

// prefix replays the edges of full before position end into a new window
// with the same node ids, string values and node attributes.
func prefix(t *testing.T, full *window.Window, end int64) *window.Window {
	t.Helper()
	w, err := window.New(*full.Schema())
	if err != nil {
		t.Fatal(err)
	}
	s := full.Schema()
	recode := func(k window.Kind, x float64) float64 {
		if k == window.String {
			return float64(w.Strings().Intern(full.Strings().Value(uint32(x))))
		}
		return x
	}
	for v := range full.IDs().Cap() {
		w.IDs().Intern(full.IDs().Name(uint32(v)))
	}
	for p := full.First(); p < end; p++ {
		attrs := make([]float64, len(s.EdgeAttrs))
		for c, a := range s.EdgeAttrs {
			attrs[c] = recode(a.Kind, full.EdgeAttr(c, p))
		}
		if _, err := w.Append(window.Edge{Src: full.Src(p), Dst: full.Dst(p), T: full.T(p), Attrs: attrs}); err != nil {
			t.Fatal(err)
		}
	}
	for v := range uint32(full.IDs().Cap()) {
		for c, a := range s.NodeAttrs {
			w.SetNodeAttr(c, v, recode(a.Kind, full.NodeAttr(c, v)))
		}
	}
	return w
}

func mineOracle(t *testing.T, w *window.Window, q *motif.Query, req request) []motif.Match {
	t.Helper()
	ms, err := oracle.Mine(w, q, req.r, req.horizon)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestDiffCPUWorkers runs windows too large for the oracle, dense enough
// that busy workers split subtrees off to idle ones, and checks that every
// worker count agrees with one worker (which never splits, and which
// TestDiffCPU checks against the oracle), in count and enumerate mode.
func TestDiffCPUWorkers(t *testing.T) {
	seed := diffSeedValue(t)
	wcfg := oracle.WindowConfig{MinNodes: 3, MaxNodes: 5, MaxEdges: 400, MaxTime: 400, SelfLoop: 0.05, Missing: 0.05, Evict: 0.2}
	qcfg := oracle.QueryConfig{MaxEdges: 4, MaxNodes: 5, MaxDelta: 40, Within: 0.3, Anti: 0.3, Pred: 0.3}
	lo, hi := diffCaseRange()
	if *diffCase < 0 {
		hi = lo + (hi-lo)/200 // each case costs about 200 small ones
	}
	var splits int64
	for i := lo; i < hi; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)|1<<40))
		w := oracle.RandomWindow(rng, wcfg)
		q := oracle.RandomQuery(rng, qcfg)
		p, err := motif.Compile(q, w)
		if err != nil {
			t.Fatalf("seed %d case %d: %v\n%s", seed, i, err, oracle.FormatQuery(q))
		}
		for _, req := range requests(rng, w) {
			want, _, err := collect(cpu.New(1), w, p, req)
			if err != nil {
				t.Fatal(err)
			}
			wantKeys := keys(want)
			for _, n := range []int{2, 4, 8} {
				got, res, err := collect(cpu.New(n), w, p, req)
				splits += res.Splits
				if gotKeys := keys(got); err != nil || !slices.Equal(gotKeys, wantKeys) {
					t.Fatalf("%d workers vs 1 (error %v):\n%s", n, err, diffReport(t, seed, i, w, q, p, req, "large window", wantKeys, gotKeys))
				}
				res, err = cpu.New(n).Mine(context.Background(), w, p, motif.Request{Range: req.r, Horizon: req.horizon})
				splits += res.Splits
				if f, o := counts(want); err != nil || res.Matches != f || res.Open != o {
					t.Fatalf("seed %d case %d: %s, count mode, %d workers: %+v, %v; want %d final, %d open\n%s%s",
						seed, i, req, n, res, err, f, o, oracle.FormatQuery(q), p)
				}
			}
		}
	}
	t.Logf("%d subtrees split off to idle workers", splits)
	if hi-lo >= coverageCases/200 && runtime.GOMAXPROCS(0) > 1 && splits == 0 {
		t.Errorf("coverage: no subtree was split off to an idle worker; the windows are too small to exercise it")
	}
}

// TestDiffCPUMask checks Request.RootMask: masked mining equals the
// oracle restricted to matches whose last edge is unmasked, in count and
// enumerate mode, for 1, 2 and 4 workers; Roots counts unmasked roots
// only; and masks that split the positions among k owners (as a
// scaled-out daemon splits partitions among instances) give disjoint
// results whose union is the unmasked run.
func TestDiffCPUMask(t *testing.T) {
	seed := diffSeedValue(t)
	lo, hi := diffCaseRange()
	if *diffCase < 0 {
		hi = lo + (hi-lo)/5
	}
	masked := 0
	for i := lo; i < hi; i++ {
		rng, w, q, p := randomCase(t, seed, i, oracle.DefaultWindowConfig())
		o, err := oracle.New(w, q)
		if err != nil {
			t.Fatalf("seed %d case %d: oracle: %v", seed, i, err)
		}
		for _, req := range requests(rng, w) {
			all := o.Mine(req.r, req.horizon)
			owners := 1 + rng.IntN(3)
			owner := make([]int, max(req.r.Hi-req.r.Lo, 0))
			for j := range owner {
				owner[j] = rng.IntN(owners)
			}
			var union []motif.Match
			for k := range owners {
				mask := make([]bool, len(owner))
				for j := range mask {
					mask[j] = owner[j] == k
				}
				var want []motif.Match
				for _, m := range all {
					if mask[m.Edges[len(m.Edges)-1]-req.r.Lo] {
						want = append(want, m)
					}
				}
				masked += len(all) - len(want)
				wantKeys := keys(want)
				wantFinal, wantOpen := counts(want)
				roots := int64(0)
				for j, ok := range mask {
					if pos := req.r.Lo + int64(j); ok && pos >= w.First() && pos < w.End() {
						roots++
					}
				}
				what := fmt.Sprintf("owner %d of %d, mask %v", k, owners, mask)
				for _, n := range diffWorkers {
					e := cpu.New(n)
					mreq := motif.Request{Range: req.r, Horizon: req.horizon, RootMask: mask}
					res, err := e.Mine(context.Background(), w, p, mreq)
					if err != nil || res.Matches != wantFinal || res.Open != wantOpen || res.Roots != roots {
						t.Fatalf("count mode, %d workers: got %+v, %v; want %d final, %d open, %d roots\n%s", n, res, err, wantFinal, wantOpen, roots,
							diffReport(t, seed, i, w, q, p, req, what, wantKeys, nil))
					}
					var got []motif.Match
					mreq.Sink = motif.SinkFunc(func(m *motif.Match) error {
						got = append(got, motif.Match{Edges: slices.Clone(m.Edges), Nodes: slices.Clone(m.Nodes), Open: m.Open, OpenUntil: m.OpenUntil})
						return nil
					})
					if _, err := e.Mine(context.Background(), w, p, mreq); err != nil || !slices.Equal(keys(got), wantKeys) {
						t.Fatalf("enumerate mode, %d workers (error %v):\n%s", n, err, diffReport(t, seed, i, w, q, p, req, what, wantKeys, keys(got)))
					}
					if n == 1 {
						union = append(union, got...)
					}
				}
			}
			if got, want := keys(union), keys(all); !slices.Equal(got, want) {
				t.Fatalf("union over %d owners:\n%s", owners, diffReport(t, seed, i, w, q, p, req, "union of masks", want, got))
			}
		}
	}
	t.Logf("%d matches masked out", masked)
	if hi-lo >= 100 && masked == 0 {
		t.Errorf("coverage: no match was masked out; the masks exercise nothing")
	}
}

// TestRootMaskLength: a mask that does not cover the range exactly is an
// error, not a silent partial run.
func TestRootMaskLength(t *testing.T) {
	_, w, _, p := randomCase(t, 1, 0, oracle.DefaultWindowConfig())
	r := motif.WholeWindow(w)
	for _, n := range []int64{0, r.Hi - r.Lo - 1, r.Hi - r.Lo + 1} {
		_, err := cpu.New(2).Mine(context.Background(), w, p, motif.Request{Range: r, Horizon: motif.Batch, RootMask: make([]bool, n)})
		if !errors.Is(err, motif.ErrRootMask) {
			t.Errorf("Mine with a %d-entry mask over %d positions = %v; want %v", n, r.Hi-r.Lo, err, motif.ErrRootMask)
		}
	}
}
