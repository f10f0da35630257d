package gpm

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/motifwatch/motifwatch/internal/backend"
)

// CPUOptions configure the CPU engine.
type CPUOptions struct {
	// Workers is the number of concurrent traversals (goroutines); 0 or
	// less: GOMAXPROCS.
	Workers int
	// Balance turns on the paper's CPU-driven redistribution (DM_OPT);
	// off, each worker keeps its static share of root vertices (DM_WC).
	Balance bool
	// Threshold: a redistribution runs when fewer than Threshold × Workers
	// workers are busy (rounded up); 0 means 1, i.e. as soon as one is
	// idle while another can donate.
	Threshold float64
	// Interval is how often the coordinator reads the workers' activity;
	// 0 means 500µs. It backs off while there is nothing to move.
	Interval time.Duration
	// MemoryLimit bounds Footprint; 0 means DefaultMemoryLimit, negative
	// means no limit.
	MemoryLimit int64
	// LiteralCliques counts cliques with the paper's generic workflow
	// (Extend from the first vertex, Filter lower, Filter is-clique)
	// instead of the pattern-aware one (ExtendAdjacent): same counts,
	// for comparison with DuMato's DM variants.
	LiteralCliques bool
}

// DefaultMemoryLimit is the enumeration memory allowed by default.
const DefaultMemoryLimit = 4 << 30

// CPU is the parallel CPU engine: one TE per worker; see the package doc.
type CPU struct{ o CPUOptions }

var _ Engine = (*CPU)(nil)

// NewCPU returns a CPU engine.
func NewCPU(o CPUOptions) *CPU {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Threshold <= 0 || o.Threshold > 1 {
		o.Threshold = 1
	}
	if o.Interval <= 0 {
		o.Interval = 500 * time.Microsecond
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	return &CPU{o: o}
}

// Workers returns the worker count.
func (e *CPU) Workers() int { return e.o.Workers }

// Prepare returns the graph an app enumerates: the Ranked orientation for
// cliques, g itself for motifs. Engines share it.
func Prepare(g *Graph, a App) *Graph {
	if a == Clique {
		return g.Ranked()
	}
	return g
}

// Roots returns worker w's static share of the root vertices (every
// n-th vertex from w: ids are unrelated to the work below a vertex, so a
// stride spreads hubs better than blocks do), as level-0 extensions.
func Roots(g *Graph, w, n int) []Ext {
	roots := make([]Ext, 0, g.N()/n+1)
	for v := w; v < g.N(); v += n {
		roots = append(roots, Ext{V: uint32(v)})
	}
	return roots
}

func newApp(j Job, literalCliques bool) app {
	switch {
	case j.App == Clique && literalCliques:
		return cliqueApp{k: j.K}
	case j.App == Clique:
		return cliquePAApp{k: j.K}
	}
	return motifApp{k: j.K}
}

// Run implements Engine.
func (e *CPU) Run(ctx context.Context, g *Graph, job Job) (*Result, error) {
	if err := job.Validate(); err != nil {
		return nil, err
	}
	tg := Prepare(g, job.App)
	nw := max(min(e.o.Workers, tg.N()), 1)
	res := &Result{App: job.App, K: job.K, Stats: Stats{Backend: backend.CPU, Workers: nw}}
	var err error
	if res.Stats.Footprint, err = checkMemory(tg, job, nw, e.o.MemoryLimit); err != nil {
		return nil, err
	}
	a := newApp(job, e.o.LiteralCliques)
	sig := new(signal)
	em := newEmitter(tg, job, sig)
	workers := make([]*worker, nw)
	for i := range workers {
		wk := &worker{te: NewTE(tg, job.K), app: a, sig: sig, progress: job.Progress}
		if job.App == Motif && em == nil {
			wk.out.raw = NewRawCounts(job.K)
		}
		if em != nil {
			wk.out.emit = em.emit
		}
		wk.te.Load(Share{Exts: Roots(tg, i, nw)}, a.genEdges())
		workers[i] = wk
	}
	var c *coord
	if e.o.Balance && nw > 1 {
		c = newCoord(workers, e.o, sig)
	}
	var wg sync.WaitGroup
	errs := make([]error, nw)
	for i, wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = wk.run(ctx, c)
			if errs[i] != nil {
				sig.abort()
			}
			if c != nil && sig.v.Load() == sigAbort {
				c.wake() // the coordinator may be waiting for this worker to park
			}
		}()
	}
	if c != nil {
		c.run(ctx)
		res.Stats.Rebalances, res.Stats.Moved = c.rebalances, c.moved
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil && !errors.Is(err, ErrStop) {
		return nil, err
	}
	for _, wk := range workers {
		res.Stats.Traversals += wk.out.steps
	}
	switch {
	case em != nil:
		em.result(res)
	case job.App == Clique:
		var n uint64
		for _, wk := range workers {
			n += wk.out.count
		}
		CliqueResult(res, n)
	default:
		raw := workers[0].out.raw
		for _, wk := range workers[1:] {
			raw.Merge(wk.out.raw)
		}
		Finish(res, raw)
	}
	// Cancelled: the counts so far are a partial result; the caller
	// decides whether to show it.
	return res, ctx.Err()
}

// signal is the run-wide flag workers read at each Control: run, park
// for a redistribution, or abort (error, enumerate bound, cancel).
type signal struct{ v atomic.Int32 }

const (
	sigRun int32 = iota
	sigPark
	sigAbort
)

func (s *signal) abort() { s.v.Store(sigAbort) }

// worker is one goroutine with its TE.
type worker struct {
	te  *TE
	app app
	sig *signal
	out tally
	// progress receives the worker's advance (Job.Progress); published
	// are the figures already added to it.
	progress       *Progress
	publishedRoots int64
	publishedFound uint64
	// given is set by the coordinator when it loads work into an idle
	// worker's TE (under coord.mu).
	given bool
}

// run drives the workflow loop until the TE is exhausted and (with a
// coordinator) no more work comes, or the run aborts.
func (w *worker) run(ctx context.Context, c *coord) error {
	for {
		for w.te.Control() {
			if s := w.sig.v.Load(); s != sigRun {
				if s == sigAbort || c == nil {
					return nil
				}
				c.park()
				continue
			}
			if w.out.steps&1023 == 0 {
				w.publish()
				if ctx.Err() != nil {
					w.sig.abort()
					return nil
				}
			}
			w.out.steps++
			if err := w.app.step(w.te, &w.out); err != nil {
				return err
			}
		}
		w.publish()
		if c == nil || !c.waitWork(w) {
			return nil
		}
	}
}

// publish adds the worker's advance since the last call to Job.Progress.
func (w *worker) publish() {
	if w.progress == nil {
		return
	}
	if r := w.te.RootsTaken(); r != w.publishedRoots {
		w.progress.Roots.Add(r - w.publishedRoots)
		w.publishedRoots = r
	}
	if f := w.out.count + w.out.found; f != w.publishedFound {
		w.progress.Found.Add(int64(f - w.publishedFound))
		w.publishedFound = f
	}
}

// emitter serialises enumerate mode: it canonicalises each subgraph,
// hands it to the Sink and stops the run at the bound.
type emitter struct {
	mu     sync.Mutex
	g      *Graph
	job    Job
	sig    *signal
	canon  *Canonizer
	n      int64
	counts map[uint64]uint64
	buf    []uint32
	stop   bool
}

func newEmitter(g *Graph, job Job, sig *signal) *emitter {
	if job.Enumerate == 0 {
		return nil
	}
	return &emitter{g: g, job: job, sig: sig, canon: NewCanonizer(job.K), counts: map[uint64]uint64{}}
}

func (m *emitter) emit(sub []uint32, raw uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n >= m.job.Enumerate {
		m.stop = true
		m.sig.abort()
		return ErrStop
	}
	p := CliquePattern(m.job.K)
	if m.job.App == Motif {
		p = m.canon.Canonical(raw)
	}
	m.buf = m.buf[:0]
	for _, v := range sub {
		m.buf = append(m.buf, m.g.Orig(v))
	}
	if err := m.job.Sink(Subgraph{Vertices: m.buf, Pattern: p}); err != nil {
		m.sig.abort()
		if errors.Is(err, ErrStop) {
			m.stop = true
		}
		return err
	}
	m.n++
	m.counts[p.Code]++
	return nil
}

func (m *emitter) result(res *Result) {
	res.Stopped = m.stop
	for code, n := range m.counts {
		res.Patterns = append(res.Patterns, PatternCount{Pattern{K: m.job.K, Code: code}, n})
		res.Total += n
	}
	sortPatterns(res.Patterns)
}
