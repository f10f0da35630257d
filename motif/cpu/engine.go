package cpu

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Engine is the exact parallel CPU engine: chronological edge-driven
// backtracking (Mackey et al.; Everest's Algorithm 1) anchored on the last
// motif edge, parallel over root edges, with idle workers fed subtrees
// split off busy ones so a skewed root cannot leave cores idle.
type Engine struct {
	workers int
}

var _ motif.Engine = (*Engine)(nil)

// New returns a CPU engine with the given number of workers
// (0 or less: GOMAXPROCS).
func New(workers int) *Engine {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &Engine{workers: workers}
}

// Workers returns the worker count.
func (e *Engine) Workers() int { return e.workers }

// notOpen marks a partial match with no undecided anti-edge interval.
const notOpen int64 = math.MinInt64

// splitMin is the least number of remaining candidates worth handing to
// an idle worker; below it the copy costs more than it saves.
const splitMin = 4

// Mine implements Engine.
func (e *Engine) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	if err := req.CheckRootMask(); err != nil {
		return motif.Result{}, err
	}
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	if lo >= hi {
		return motif.Result{}, ctx.Err()
	}
	nw := e.workers
	if int64(nw) > hi-lo {
		nw = int(hi - lo)
	}
	s := newSched(lo, hi, nw)
	preds := compilePreds(p)
	out := &emitter{sink: req.Sink, s: s}
	var lim *limit
	if req.Limited() {
		lim = &limit{budget: req.Budget, deadline: req.Deadline}
	}
	workers := make([]*worker, nw)
	var wg sync.WaitGroup
	for i := range workers {
		wk := newWorker(w, p, preds, req.Horizon, s, out)
		wk.progress = req.Progress
		wk.foundSoFar = req.Found
		wk.mask, wk.maskLo = req.RootMask, req.Range.Lo
		wk.countOnly = req.Sink == nil
		wk.limit = lim
		workers[i] = wk
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk.run(ctx)
		}()
	}
	wg.Wait()
	var r motif.Result
	for _, wk := range workers {
		wk.res.Steps = wk.work
		r.Add(wk.res)
	}
	r.Stopped = out.stopped
	r.Truncated = lim != nil && lim.hit.Load()
	if out.err != nil {
		return r, out.err
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, nil
}

// emitter serialises sink calls from all workers.
type emitter struct {
	mu      sync.Mutex
	sink    motif.Sink
	s       *sched
	err     error
	stopped bool
}

func (o *emitter) emit(batch []motif.Match) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range batch {
		if o.err != nil || o.stopped {
			return
		}
		if err := o.sink.Match(&batch[i]); err != nil {
			if errors.Is(err, motif.ErrStop) {
				o.stopped = true
			} else {
				o.err = err
			}
			o.s.halt()
		}
	}
}

// worker is one search goroutine's state: the partial match (graph edge
// position and time per motif edge, graph node per motif node) and the
// per-depth open-interval bound.
type worker struct {
	w       *window.Window
	p       *motif.Plan
	steps   []motif.Step
	preds   []pred // p.Preds, operands unpacked
	k       int
	horizon int64
	// countOnly: no sink, so the last step may be tallied, not visited.
	countOnly bool
	s         *sched
	out       *emitter

	pos    []int64
	tm     []int64
	node   []uint32
	openAt []int64 // latest open anti-edge interval end after each step
	// nMapped[d] is how many motif nodes are mapped before step d;
	// p.NodeOrder[:nMapped[d]] are they.
	nMapped []int

	progress *atomic.Int64
	// foundSoFar gets the matches counted since reported (Request.Found).
	foundSoFar *atomic.Int64
	reported   int64
	// mask[p-maskLo] false: position p is not a root (Request.RootMask).
	mask   []bool
	maskLo int64
	res    motif.Result
	// work counts the steps done (Request.Budget); at nextCheck the
	// worker adds those since workAdded to limit and looks whether to stop.
	work, workAdded, nextCheck int64
	limit                      *limit
	buf                        []motif.Match
	arenaPos                   []int64
	arenaNode                  []uint32

	// Workers write their state on every candidate; padding keeps two
	// workers' hot fields off one cache line (false sharing halved the
	// throughput of two workers before it was added).
	_ [cacheLine]byte
}

// cacheLine is a generous cache-line size (two lines: adjacent-line
// prefetch makes 128 bytes the unit that ping-pongs on x86).
const cacheLine = 128

// padded returns a slice of length n whose backing array is at least one
// cacheLine long, so small per-worker arrays get size classes of their own.
func padded[T int64 | uint32 | int](n int) []T {
	var zero T
	per := int(unsafe.Sizeof(zero))
	return make([]T, n, max(n, 2*cacheLine/per))
}

func newWorker(w *window.Window, p *motif.Plan, preds []pred, horizon int64, s *sched, out *emitter) *worker {
	k, n := p.K(), p.N()
	wk := &worker{w: w, p: p, steps: p.Steps, preds: preds, k: k, horizon: horizon, s: s, out: out,
		pos: padded[int64](k), tm: padded[int64](k), node: padded[uint32](n),
		openAt: padded[int64](k), nMapped: padded[int](k)}
	mapped := make([]bool, n)
	cnt := 0
	for d, st := range p.Steps {
		wk.nMapped[d] = cnt
		for _, v := range [2]int{st.From, st.To} {
			if !mapped[v] {
				mapped[v] = true
				cnt++
			}
		}
	}
	return wk
}

func (wk *worker) run(ctx context.Context) {
	defer wk.flush()
	for {
		lo, hi, ok := wk.s.roots()
		if !ok {
			break
		}
		if wk.s.stop.Load() {
			return
		}
		if ctx.Err() != nil {
			wk.s.halt()
			return
		}
		for p := lo; p < hi; p++ {
			if wk.work >= wk.nextCheck && !wk.check() {
				return
			}
			if wk.mask == nil || wk.mask[p-wk.maskLo] {
				wk.root(p)
			}
		}
		if wk.progress != nil {
			wk.progress.Add(hi - lo)
		}
		wk.reportFound()
	}
	for t := wk.s.next(); t != nil; t = wk.s.next() {
		if ctx.Err() != nil {
			wk.s.halt()
			return
		}
		copy(wk.pos, t.pos)
		copy(wk.tm, t.tm)
		copy(wk.node, t.node)
		if t.d > 0 {
			wk.openAt[t.d-1] = t.openAt
		}
		wk.loop(t.d, t.cands)
		wk.reportFound()
	}
}

// reportFound adds the matches counted since the last call to
// Request.Found.
func (wk *worker) reportFound() {
	if wk.foundSoFar != nil && wk.res.Matches != wk.reported {
		wk.foundSoFar.Add(wk.res.Matches - wk.reported)
		wk.reported = wk.res.Matches
	}
}

// checkEvery is how many steps a worker does between looks at the stop
// flag and the budget.
const checkEvery = 1024

// limit is a mining call's budget and deadline, shared by its workers.
type limit struct {
	budget   int64
	deadline time.Time
	used     atomic.Int64
	hit      atomic.Bool
}

// check reports the steps done since the last check to the limit, stops
// every worker when the budget or the deadline is passed, and returns
// whether this worker may go on.
func (wk *worker) check() bool {
	wk.nextCheck = wk.work + checkEvery
	if l := wk.limit; l != nil && !wk.s.stop.Load() {
		used := l.used.Add(wk.work - wk.workAdded)
		wk.workAdded = wk.work
		if l.budget > 0 && used > l.budget || !l.deadline.IsZero() && !time.Now().Before(l.deadline) {
			l.hit.Store(true)
			wk.s.halt()
		}
	}
	if wk.s.stop.Load() {
		wk.nextCheck = wk.work // stopped: every later look returns at once
		return false
	}
	return true
}

// root binds the last motif edge to the graph edge at position p.
func (wk *worker) root(p int64) {
	wk.res.Roots++
	wk.work++
	w, st := wk.w, &wk.steps[0]
	src, dst := w.Src(p), w.Dst(p)
	if src == dst {
		return // self-loops never match: motif edges join distinct nodes
	}
	wk.pos[st.Edge], wk.tm[st.Edge] = p, w.T(p)
	wk.node[st.From], wk.node[st.To] = src, dst
	wk.openAt[0] = notOpen
	if !wk.checks(0) {
		return
	}
	wk.next(0)
}

// next continues after step d succeeded: emit or descend.
func (wk *worker) next(d int) {
	if d == wk.k-1 {
		wk.found(wk.openAt[d])
		return
	}
	wk.descend(d + 1)
}

// descend finds the candidates of step d: the adjacency entries of a
// mapped endpoint strictly between the graph edges of the nearest matched
// motif edges (Prev, Next) and inside the time bounds that Delta and the
// per-hop limits impose. Adjacency lists are in (t, seq) order, so the
// candidates are one contiguous run found by two binary searches.
func (wk *worker) descend(d int) {
	st := &wk.steps[d]
	lowPos := int64(math.MinInt64)
	if st.Prev >= 0 {
		lowPos = wk.pos[st.Prev]
	}
	hiPos := wk.pos[st.Next]
	lowT := motif.SubTicks(wk.tm[wk.k-1], wk.p.Delta)
	hiT := wk.tm[st.Next]
	if st.HopNext != motif.NoLimit {
		lowT = max(lowT, motif.SubTicks(wk.tm[st.Next], st.HopNext))
	}
	if st.HopPrev != motif.NoLimit {
		hiT = min(hiT, motif.AddTicks(wk.tm[st.Prev], st.HopPrev))
	}
	if lowT > hiT {
		return
	}
	var list []window.Adj
	switch st.Bind {
	case motif.BindFrom:
		list = wk.w.Out(wk.node[st.From])
	case motif.BindTo:
		list = wk.w.In(wk.node[st.To])
	case motif.BindBoth:
		list = wk.w.Between(wk.node[st.From], wk.node[st.To])
	}
	// Adjacency entries hold positions relative to the window's base.
	lowRel, hiRel := wk.w.RelPos(lowPos), wk.w.RelPos(hiPos)
	a, b := bounds(list, lowRel, hiRel, lowT, hiT)
	if a >= b {
		return
	}
	if d == wk.k-1 && wk.countOnly && len(st.Preds) == 0 && len(st.Antis) == 0 {
		wk.tally(d, list[a:b], lowRel, hiRel, lowT, hiT)
		return
	}
	wk.loop(d, list[a:b])
}

// tally counts the matches of the last step without visiting them: n
// candidates lie in the bounds, of which those whose new endpoint is
// already mapped (injectivity, self-loops) are subtracted, found per mapped
// node by two binary searches in the pair index. Count mode only, and only
// when the last step has no predicate or anti-edge to evaluate.
func (wk *worker) tally(d int, cands []window.Adj, lowRel, hiRel, lowT, hiT int64) {
	wk.work++
	st := &wk.steps[d]
	n := int64(len(cands))
	mapped := wk.p.NodeOrder[:wk.nMapped[d]]
	switch {
	case st.Bind == motif.BindBoth:
		// every candidate joins the two mapped endpoints: all count
	case len(cands) <= tallyScan:
		// A short run is cheaper to scan than to probe the pair index.
		for i := range cands {
			for _, m := range mapped {
				if cands[i].Other == wk.node[m] {
					n--
					break
				}
			}
		}
	default:
		for _, m := range mapped {
			var pair []window.Adj
			if st.Bind == motif.BindFrom {
				pair = wk.w.Between(wk.node[st.From], wk.node[m])
			} else {
				pair = wk.w.Between(wk.node[m], wk.node[st.To])
			}
			if len(pair) > 0 {
				a, b := bounds(pair, lowRel, hiRel, lowT, hiT)
				n -= int64(b - a)
			}
		}
	}
	if wk.openAt[d-1] != notOpen {
		wk.res.Open += n
	} else {
		wk.res.Matches += n
	}
}

// tallyScan is the longest candidate run that tally scans instead of
// probing the pair index once per mapped node.
const tallyScan = 32

// bounds returns the run [a, b) of list after relative position lowRel,
// before hiRel (window.RelPos) and inside [lowT, hiT]. The upper end is found by binary
// search over the whole list, the lower end by galloping back from it:
// the run spans at most Delta of time, usually a small part of a long
// list, so this touches far fewer cache lines than a second full search.
func bounds(list []window.Adj, lowRel, hiRel, lowT, hiT int64) (a, b int) {
	b = upperBound(list, hiRel, hiT)
	below := func(i int) bool { return int64(list[i].Rel) <= lowRel || list[i].T < lowT }
	step := 1
	lo := b
	for lo > 0 && !below(lo-1) {
		lo -= step
		step <<= 1
		if lo < 0 {
			lo = 0
		}
	}
	// Entries in [lo, b) include the last 'below' one if any; binary search it.
	return lo + lowerBound(list[lo:b], lowRel, lowT), b
}

// lowerBound returns the first index whose entry is after relative
// position lowRel and at or after time lowT.
func lowerBound(list []window.Adj, lowRel, lowT int64) int {
	i, j := 0, len(list)
	for i < j {
		h := int(uint(i+j) >> 1)
		if int64(list[h].Rel) <= lowRel || list[h].T < lowT {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// upperBound returns the first index whose entry is at or after relative
// position hiRel or later than time hiT.
func upperBound(list []window.Adj, hiRel, hiT int64) int {
	i, j := 0, len(list)
	for i < j {
		h := int(uint(i+j) >> 1)
		if int64(list[h].Rel) < hiRel && list[h].T <= hiT {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// loop tries each candidate of step d, handing the second half of what
// remains to an idle worker when there is one.
func (wk *worker) loop(d int, cands []window.Adj) {
	st := &wk.steps[d]
	splittable := d < wk.k-1
	for i := 0; i < len(cands); i++ {
		if splittable && wk.s.idle.Load() > 0 && len(cands)-i >= splitMin {
			mid := i + (len(cands)-i)/2
			wk.split(d, cands[mid:])
			cands = cands[:mid]
		}
		wk.work++
		if wk.work >= wk.nextCheck && !wk.check() {
			return
		}
		c := &cands[i]
		var newNode int
		var other uint32
		switch st.Bind {
		case motif.BindFrom:
			newNode, other = st.To, c.Other
		case motif.BindTo:
			newNode, other = st.From, c.Other
		case motif.BindBoth:
			newNode = -1 // candidates come from the pair index: all connect From→To
		}
		if newNode >= 0 && !wk.fresh(d, other) {
			continue
		}
		wk.pos[st.Edge], wk.tm[st.Edge] = wk.w.Pos(*c), c.T
		if newNode >= 0 {
			wk.node[newNode] = other
		}
		wk.openAt[d] = wk.openAt[d-1]
		if !wk.checks(d) {
			continue
		}
		wk.next(d)
	}
}

// fresh reports that graph node v is not yet mapped (injectivity).
func (wk *worker) fresh(d int, v uint32) bool {
	for _, m := range wk.p.NodeOrder[:wk.nMapped[d]] {
		if wk.node[m] == v {
			return false
		}
	}
	return true
}

func (wk *worker) split(d int, cands []window.Adj) {
	t := &task{d: d, cands: cands,
		pos: append([]int64(nil), wk.pos...), tm: append([]int64(nil), wk.tm...),
		node: append([]uint32(nil), wk.node...), openAt: wk.openAt[d-1]}
	wk.res.Splits++
	wk.s.push(t)
}

// checks evaluates the predicates and anti-edges placed at step d.
func (wk *worker) checks(d int) bool {
	st := &wk.steps[d]
	for _, pi := range st.Preds {
		if !wk.holds(&wk.preds[pi]) {
			return false
		}
	}
	for _, ai := range st.Antis {
		ok, until := wk.anti(&wk.p.Antis[ai])
		if !ok {
			return false
		}
		wk.openAt[d] = max(wk.openAt[d], until)
	}
	return true
}

// pred is a compiled predicate as the worker reads it: its operands
// unpacked once per Mine call (motif.PlanPred.Operands), not per candidate.
type pred struct {
	left, right motif.CompiledOperand
	op          motif.CmpOp
}

func compilePreds(p *motif.Plan) []pred {
	preds := make([]pred, len(p.Preds))
	for i := range p.Preds {
		l, r := p.Preds[i].Operands()
		preds[i] = pred{left: l, right: r, op: p.Preds[i].Op}
	}
	return preds
}

func (wk *worker) value(o *motif.CompiledOperand) float64 {
	switch o.Kind {
	case motif.EdgeAttr:
		return wk.w.EdgeAttr(o.Col, wk.pos[o.Index])
	case motif.NodeAttr:
		return wk.w.NodeAttr(o.Col, wk.node[o.Index])
	}
	return o.Value
}

func (wk *worker) holds(pp *pred) bool {
	l := wk.value(&pp.left)
	switch pp.op {
	case motif.OpIn, motif.OpNotIn:
		in := false
		for _, v := range pp.right.List {
			if l == v {
				in = true
				break
			}
		}
		return in == (pp.op == motif.OpIn)
	}
	return compare(l, pp.op, wk.value(&pp.right))
}

func compare(l float64, op motif.CmpOp, r float64) bool {
	switch op {
	case motif.OpEq:
		return l == r
	case motif.OpNe:
		return l != r
	case motif.OpLt:
		return l < r
	case motif.OpLe:
		return l <= r
	case motif.OpGt:
		return l > r
	case motif.OpGe:
		return l >= r
	}
	return false
}

// anti checks an anti-edge: no graph edge From→To after the edge matched
// to motif edge After, up to min(t_After + Within, t_1 + Delta). It returns
// the interval end as `until` when the interval reaches past the horizon
// (the match stays open), notOpen otherwise.
func (wk *worker) anti(a *motif.PlanAnti) (ok bool, until int64) {
	limit := motif.AddTicks(wk.tm[0], wk.p.Delta)
	if a.Within != motif.NoLimit {
		limit = min(limit, motif.AddTicks(wk.tm[a.After], a.Within))
	}
	// The first edge From→To after the anti-edge's anchor decides it.
	pair := wk.w.Between(wk.node[a.From], wk.node[a.To])
	if i := lowerBound(pair, wk.w.RelPos(wk.pos[a.After]), math.MinInt64); i < len(pair) && pair[i].T <= limit {
		return false, notOpen
	}
	if limit > wk.horizon {
		return true, limit
	}
	return true, notOpen
}

func (wk *worker) found(openUntil int64) {
	open := openUntil != notOpen
	if open {
		wk.res.Open++
	} else {
		wk.res.Matches++
	}
	if wk.out.sink == nil {
		return
	}
	// Matches are staged in flat arenas and handed over in batches, so the
	// sink lock is taken once per batch and nothing is allocated per match.
	e0, n0 := len(wk.arenaPos), len(wk.arenaNode)
	wk.arenaPos = append(wk.arenaPos, wk.pos...)
	wk.arenaNode = append(wk.arenaNode, wk.node...)
	m := motif.Match{Edges: wk.arenaPos[e0:len(wk.arenaPos):len(wk.arenaPos)], Nodes: wk.arenaNode[n0:len(wk.arenaNode):len(wk.arenaNode)], Open: open}
	if open {
		m.OpenUntil = openUntil
	}
	wk.buf = append(wk.buf, m)
	if len(wk.buf) >= matchBatch {
		wk.flush()
	}
}

// matchBatch is how many matches a worker stages before taking the sink lock.
const matchBatch = 256

func (wk *worker) flush() {
	if len(wk.buf) > 0 && wk.out.sink != nil {
		wk.out.emit(wk.buf)
	}
	wk.buf = wk.buf[:0]
	// The arenas may be reused only after the batch's slices are dead; the
	// sink contract (copy what you keep) makes that now. Re-slicing keeps
	// capacity; earlier Match values pointed into the old backing arrays,
	// which append may move, so reset lengths only after the emit.
	wk.arenaPos, wk.arenaNode = wk.arenaPos[:0], wk.arenaNode[:0]
}
