package count3

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// MinShare is the smallest share of the live window (1/MinShare) that a
// request's range must cover for Engine to count it: the passes read the
// whole window (and list its static triangles) whatever the range, while
// the general engine's cost follows the matches ending in the range, so a
// small streaming batch over a large window is cheaper mined.
const MinShare = 8

// Engine is a motif.Engine that counts the shapes of Shape (SNAP's 36,
// the four-node stars and paths and the Small family; Options.Families
// chooses) in count mode (no Sink) and hands every other request to Next,
// as it does a request of a family with a cost model (the paths) whose
// sampled enumeration projects less work than counting (choose.go). One
// counting run serves all the queries of a family asked over the same
// window state, δ, range and mask: `mine --snap3` counts once for its 36
// queries.
type Engine struct {
	next motif.Engine
	opts Options

	mu    sync.Mutex
	cache cached
	// expected holds, by δ, the families of the plans announced by
	// Expect: a counting run counts them all at once (those with a cost
	// model only when their own query chose counting); plans, by δ and
	// family, how many plans announced it (a counting run's cost is shared
	// by its family's queries).
	expected map[int64]Families
	plans    map[int64]map[Families]int
	// expectedCycles holds, by δ, the four-cycle cells of those plans
	// (bit i: Cycle4 + i).
	expectedCycles map[int64]uint32
	// expectedPaws holds, by δ, the paw cells of those plans.
	expectedPaws map[int64]PawMask
	// runs counts the counting runs.
	runs int
	// explain, if set, gets one line per count-mode request of a counted
	// shape: counted or enumerated, and why (Explain).
	explain io.Writer
}

type cached struct {
	w           *window.Window
	first, end  int64
	delta       int64
	rng         motif.Range
	mask        []bool
	fam         Families
	cycleCells  uint32  // the four-cycle cells counted (bit i: Cycle4 + i); fam has Cycles4 once all are
	pawCells    PawMask // the paw cells counted; fam has Paws once all are
	raw         Raw
	cells       [Cells]int64
	roots       int64
	initialised bool
}

// NewEngine wraps next. opts.Workers is the goroutines of a counting run;
// opts.Device, if set, runs the passes.
func NewEngine(next motif.Engine, opts Options) *Engine {
	opts.Workers = max(opts.Workers, 1)
	if opts.Families == 0 {
		opts.Families = All
	}
	return &Engine{next: next, opts: opts}
}

// Shape returns p's cell when the engine counts its family (Shape, and
// Options.Families).
func (e *Engine) Shape(p *motif.Plan) (Cell, bool) {
	c, ok := Shape(p)
	if !ok || Family(c)&e.opts.Families == 0 {
		return -1, false
	}
	return c, true
}

// TimePhases makes every later counting run write a line timing its
// passes to to (Options.Phases); nil turns it off. Call it before the
// engine is used.
func (e *Engine) TimePhases(to io.Writer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opts.Phases = to
}

// AlwaysCount sets Options.AlwaysCount. Call it before the engine is
// used.
func (e *Engine) AlwaysCount(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opts.AlwaysCount = on
}

// Device returns the device that runs the counting passes, nil when
// they run on the host.
func (e *Engine) Device() Device { return e.opts.Device }

// Next returns the wrapped engine.
func (e *Engine) Next() motif.Engine { return e.next }

// Workers returns the wrapped engine's worker count when it has one, else
// the counting runs'.
func (e *Engine) Workers() int {
	if w, ok := e.next.(interface{ Workers() int }); ok {
		return w.Workers()
	}
	return e.opts.Workers
}

// Expect announces the plans that will be mined in count mode over the
// same window states (replacing those announced before), so that the
// first counting run at a δ counts all their families at once: `mine
// --snap3` then counts stars, pairs and triangles in one run, whose centre
// pass builds the static graph the triangle pass needs, instead of a
// second run repeating that pass; a streaming batch likewise. Plans of no
// counted shape are ignored.
func (e *Engine) Expect(plans ...*motif.Plan) {
	expected := make(map[int64]Families)
	counts := make(map[int64]map[Families]int)
	cycles := make(map[int64]uint32)
	paws := make(map[int64]PawMask)
	for _, p := range plans {
		if c, ok := e.Shape(p); ok {
			d, f := Delta(p), Family(c)
			expected[d] |= f
			if f == Cycles4 {
				cycles[d] |= 1 << (c - Cycle4)
			}
			if f == Paws {
				m := paws[d]
				m.Set(int(c - Paw))
				paws[d] = m
			}
			if counts[d] == nil {
				counts[d] = make(map[Families]int)
			}
			counts[d][f]++
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expected, e.plans, e.expectedCycles, e.expectedPaws = expected, counts, cycles, paws
}

// Explain makes every later count-mode request of a counted shape write
// one line to to: counted or enumerated, and the rule's figures (`mine
// --explain`); nil turns it off.
func (e *Engine) Explain(to io.Writer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.explain = to
}

// Runs returns the counting runs made so far.
func (e *Engine) Runs() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs
}

// Counts reports whether Mine counts req for p instead of handing it on.
func (e *Engine) Counts(w *window.Window, p *motif.Plan, req motif.Request) bool {
	if _, ok := e.Shape(p); !ok || req.Sink != nil {
		return false
	}
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	return (hi-lo)*MinShare >= int64(w.Len())
}

// Mine implements motif.Engine.
func (e *Engine) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	if !e.Counts(w, p, req) {
		if c, ok := e.Shape(p); ok && req.Sink == nil {
			lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
			e.note(Choice{Cell: c, Reason: fmt.Sprintf("the range holds %d of the window's %d edges, below 1/%d (MinShare)", max(hi-lo, 0), w.Len(), MinShare)})
		}
		return e.next.Mine(ctx, w, p, req)
	}
	if err := req.CheckRootMask(); err != nil {
		return motif.Result{}, err
	}
	c, _ := Shape(p)
	ch, res, err := e.choose(ctx, w, p, req, c)
	if err != nil {
		return res, err
	}
	e.note(ch)
	if !ch.Counted {
		return res, nil
	}
	cells, roots, err := e.count(ctx, w, Delta(p), req, c)
	if err != nil {
		return motif.Result{}, err
	}
	if req.Progress != nil {
		req.Progress.Add(max(min(req.Range.Hi, w.End())-max(req.Range.Lo, w.First()), 0))
	}
	if req.Found != nil {
		req.Found.Add(cells[c])
	}
	return motif.Result{Matches: cells[c], Roots: roots}, nil
}

// count returns the cells' counts for the request, counting cell's family
// if the cache does not hold it for this window state. The four-cycles
// and the paws are cached by cell: a run counts the requested cell and
// those of its family expected at δ that the cache lacks
// (Options.CycleCells, Options.PawCells), their patterns disjoint from
// those counted before, so the raw counters add.
func (e *Engine) count(ctx context.Context, w *window.Window, delta int64, req motif.Request, cell Cell) ([Cells]int64, int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := &e.cache
	if !e.same(w, delta, req) {
		*c = cached{w: w, first: w.First(), end: w.End(), delta: delta, rng: req.Range,
			mask: slices.Clone(req.RootMask), initialised: true, roots: roots(w, req)}
	}
	fam := Family(cell)
	var bit uint32
	var pawBit PawMask
	switch fam {
	case Cycles4:
		bit = 1 << (cell - Cycle4)
	case Paws:
		pawBit.Set(int(cell - Paw))
	}
	cellCached := c.cycleCells&bit != 0 || fam == Paws && pawBit.AndNot(c.pawCells) == (PawMask{})
	if c.fam&fam != fam && !cellCached {
		e.runs++
		run := e.runFamilies(delta, fam)
		opts := e.opts
		opts.CycleCells, opts.PawCells = 0, PawMask{}
		if run&Cycles4 != 0 {
			want := (bit | e.expectedCycles[delta]) &^ c.cycleCells
			if want == 0 {
				run &^= Cycles4
			} else if want != allCycleCells {
				opts.CycleCells = want
			}
		}
		if run&Paws != 0 {
			want := pawBit.Or(e.expectedPaws[delta]).AndNot(c.pawCells)
			if want == (PawMask{}) {
				run &^= Paws
			} else if want != allPawCells {
				opts.PawCells = want
			}
		}
		raw, err := Count(ctx, w, delta, req, run, opts)
		if err != nil {
			return [Cells]int64{}, 0, err
		}
		c.raw.Add(&raw)
		if run&Cycles4 != 0 {
			if opts.CycleCells == 0 {
				c.cycleCells = allCycleCells
			}
			c.cycleCells |= opts.CycleCells
			if c.cycleCells != allCycleCells {
				run &^= Cycles4
			}
		}
		if run&Paws != 0 {
			if opts.PawCells == (PawMask{}) {
				c.pawCells = allPawCells
			}
			c.pawCells = c.pawCells.Or(opts.PawCells)
			if c.pawCells != allPawCells {
				run &^= Paws
			}
		}
		c.fam |= run
		c.cells = c.raw.Cells()
	}
	return c.cells, c.roots, nil
}

// allCycleCells is the cycle-cell mask of all 32 four-cycles.
const allCycleCells = 1<<32 - 1

// same reports whether the cache holds counts for this window state, δ,
// range and mask. Call with e.mu held.
func (e *Engine) same(w *window.Window, delta int64, req motif.Request) bool {
	c := &e.cache
	return c.initialised && c.w == w && c.first == w.First() && c.end == w.End() && c.delta == delta &&
		c.rng == req.Range && (c.mask == nil) == (req.RootMask == nil) && slices.Equal(c.mask, req.RootMask)
}

// runFamilies are the families a counting run for fam counts: fam and the
// expected families at δ, less those cached and, unless every request is
// counted (AlwaysCount), those with a cost model (counted only when their
// own query chooses counting). Call with e.mu held, the cache reset for
// this state.
func (e *Engine) runFamilies(delta int64, fam Families) Families {
	extra := e.expected[delta]
	for f, steps := range countCost {
		if steps > 0 && !e.opts.AlwaysCount {
			extra &^= f
		}
	}
	return (fam | extra) &^ e.cache.fam
}

// roots counts the request's unmasked positions in the window.
func roots(w *window.Window, req motif.Request) int64 {
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	if req.RootMask == nil {
		return max(hi-lo, 0)
	}
	var n int64
	for p := lo; p < hi; p++ {
		if req.RootMask[p-req.Range.Lo] {
			n++
		}
	}
	return n
}
