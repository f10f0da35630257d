package count3

import (
	"context"
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
// the four-node stars and the Small family; Options.Families chooses) in
// count mode (no Sink) and hands every other request to Next. One counting run
// serves all the queries of a family asked over the same window state,
// δ, range and mask: `mine --snap3` counts once for its 36 queries.
type Engine struct {
	next motif.Engine
	opts Options

	mu    sync.Mutex
	cache cached
	// expected holds, by δ, the families of the plans announced by
	// Expect: a counting run counts them all at once.
	expected map[int64]Families
	// runs counts the counting runs.
	runs int
}

type cached struct {
	w           *window.Window
	first, end  int64
	delta       int64
	rng         motif.Range
	mask        []bool
	fam         Families
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
	for _, p := range plans {
		if c, ok := e.Shape(p); ok {
			expected[Delta(p)] |= Family(c)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expected = expected
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
		return e.next.Mine(ctx, w, p, req)
	}
	if err := req.CheckRootMask(); err != nil {
		return motif.Result{}, err
	}
	c, _ := Shape(p)
	cells, roots, err := e.count(ctx, w, Delta(p), req, Family(c))
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

// count returns the cells' counts for the request, counting the family if the
// cache does not hold it for this window state.
func (e *Engine) count(ctx context.Context, w *window.Window, delta int64, req motif.Request, fam Families) ([Cells]int64, int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := &e.cache
	same := c.initialised && c.w == w && c.first == w.First() && c.end == w.End() && c.delta == delta &&
		c.rng == req.Range && (c.mask == nil) == (req.RootMask == nil) && slices.Equal(c.mask, req.RootMask)
	if !same {
		*c = cached{w: w, first: w.First(), end: w.End(), delta: delta, rng: req.Range,
			mask: slices.Clone(req.RootMask), initialised: true, roots: roots(w, req)}
	}
	if c.fam&fam != fam {
		e.runs++
		raw, err := Count(ctx, w, delta, req, (fam|e.expected[delta])&^c.fam, e.opts)
		if err != nil {
			return [Cells]int64{}, 0, err
		}
		c.raw.Add(&raw)
		c.fam |= fam | e.expected[delta]
		c.cells = c.raw.Cells()
	}
	return c.cells, c.roots, nil
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
