package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/fanout"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Query is a registered query and how its matches are reported.
type Query struct {
	Query *motif.Query
	// Enumerate reports each match as an alert; otherwise matches are
	// only counted (Output.Counts).
	Enumerate bool
}

// Options configure a Processor.
type Options struct {
	Engine motif.Engine
	Schema window.Schema
	// MaxHeld bounds the matches held open by anti-edge intervals. Past
	// it, a new open match is reported at once, marked provisional, and
	// counted: never dropped.
	MaxHeld int
	// MaxBytes, MaxNodes and MaxMatchesPerBatch are the caps (0: off);
	// see Caps in caps.go for what each does when it acts.
	MaxBytes           int64
	MaxNodes           int
	MaxMatchesPerBatch int
	// MaxMineSteps and MaxMineTime bound one query's mining of one batch
	// (motif.Request.Budget, summed over the batch's runs, and a
	// wall-clock backstop); see Caps in caps.go.
	MaxMineSteps int64
	MaxMineTime  time.Duration
	Logger       *slog.Logger
	Registerer   prometheus.Registerer
	// Backend labels the mining metrics (backend.CPU when empty).
	Backend backend.Backend
	// NodeKeys is the node dictionary of the decoders whose edges come in
	// (ingest.DecodeOptions.NodeKeys), or nil. The processor keeps its
	// generations about twice the window's live nodes, and counts it in
	// Bytes (the memory cap).
	NodeKeys *window.Keys
	// AppendWorkers share appending a large batch to the window and
	// evicting from it (window.Window.SetWorkers); 0: GOMAXPROCS, at
	// most 8.
	AppendWorkers int
}

// Output is what one batch produced.
type Output struct {
	// Alerts are the final matches of enumerate-mode queries (and held
	// matches confirmed by this batch's watermark).
	Alerts []alerts.Alert
	// Counts are final matches of count-mode queries, by query name.
	Counts map[string]int64
	// Appended counts edges added to the window; SelfLoops those skipped
	// (a self-loop never matches a motif edge).
	Appended, SelfLoops int
	// Held is the number of open matches held after this batch;
	// Discarded how many held matches a forbidden edge invalidated;
	// Provisional how many open matches were reported early (MaxHeld).
	Held, Discarded, Provisional int
	// Evicted counts edges that left the window; EvictedEarly those of
	// them that the memory cap evicted before their time.
	Evicted, EvictedEarly int
	// Refused are edges not appended because a cap refused them.
	Refused []Refused
	// Stages is where the batch's time went.
	Stages Stages
	// WindowBytes is the memory held for the window after the batch
	// (Processor.Bytes, measured once per batch).
	WindowBytes int64
}

// Stages splits a batch's processing time: Window is appending the
// batch, settling held matches and evicting (the memory cap included);
// DeviceSync is mirroring the window on the GPU (an engine with a
// Syncer; 0 otherwise); Mine is mining every query.
type Stages struct {
	Window, DeviceSync, Mine time.Duration
}

// Syncer is an engine that mirrors the window before mining (the GPU
// engine): the processor syncs it after appending, so that the upload is
// timed apart from mining.
type Syncer interface {
	Sync(ctx context.Context, w *window.Window) error
}

// BatchMiner is an engine that counts several plans over one request
// at once (the GPU engine mines them in one launch: one launch, one
// synchronisation and one tail per batch instead of one per query). The
// results are the plans', in order, as Mine would count each. The
// processor hands it a batch's count-only queries (no enumeration, no
// anti-edges) when there are at least two and no per-query work cap
// (MaxMineSteps, MaxMineTime) is set; everything else is mined query by
// query.
type BatchMiner interface {
	MineBatch(ctx context.Context, w *window.Window, plans []*motif.Plan, req motif.Request) ([]motif.Result, error)
}

type registered struct {
	Query
	plan *motif.Plan
}

// held is an open match waiting for the watermark to pass its anti-edge
// intervals.
type held struct {
	q         *registered
	edges     []int64
	nodes     []uint32
	openUntil int64
}

// edgeMeta is what the window does not keep but alerts need: where the
// edge came from, and its identity.
type edgeMeta struct {
	seq       int64
	offset    int64
	partition int32
	hasSeq    bool
}

// Processor is the incremental miner; see the package doc.
type Processor struct {
	opts    Options
	log     *slog.Logger
	attrs   *attrWatch // says when a query's edge attribute is in no record
	w       *window.Window
	queries []*registered
	span    int64 // largest delta of the registered queries, in ticks
	held    []held
	metrics *metrics

	// meta[i] describes the edge at window position metaOff+i; the
	// entries before the window's First() are evicted (compactMeta).
	meta    []edgeMeta
	metaOff int64
	// lastAppended is the last batch's appended edges (compactMeta).
	lastAppended int

	labelCol int
	lastT    int64
	hasLastT bool
	// resumeHorizon is the watermark at the last clean shutdown; matches
	// ending at Replayed edges that were final by then are not reported.
	// resumeParts overrides it per partition (a scaled-out daemon takes
	// partitions over from several previous owners).
	resumeHorizon int64
	resumeParts   map[int][]ResumeSpan
	// owned lists the partitions whose edges are mined as last edges; nil:
	// every partition.
	owned map[int]bool

	capLimiter *ratelog.Limiter

	// cols is append's scratch: the batch's edges as the window takes
	// them; known the ids its pre-pass found by key (knownIDs).
	cols  window.Columns
	known []uint32
	flags []uint8

	// shown caches the record form of window edges (ISO time, attributes)
	// for one Process call: an edge is in many matches (a fan-in burst's
	// edges in thousands), and its alerts share the read-only values.
	shown map[int64]shownEdge
}

// shownEdge is what an alert record shows of a window edge besides its
// endpoints and origin.
type shownEdge struct {
	time  string
	attrs map[string]any
}

// run is a range of window positions to mine as last edges; replay runs
// hold Replayed edges and are mined against their partition's shutdown
// watermark.
type run struct {
	motif.Range
	replay  bool
	horizon int64 // replay runs only
	// mask is the engine's RootMask: false for positions in the range that
	// are no root (History, or another instance's partition); nil: all
	// are.
	mask     []bool
	lastRoot int64
}

// extend adds position Hi to the run, as a root or masked.
func (r *run) extend(root bool) {
	if !root && r.mask == nil {
		r.mask = make([]bool, r.Hi-r.Lo, r.Hi-r.Lo+64)
		for i := range r.mask {
			r.mask[i] = true
		}
	}
	if r.mask != nil {
		r.mask = append(r.mask, root)
	}
	if root {
		r.lastRoot = r.Hi
	}
	r.Hi++
}

// trim drops the masked positions at the run's end.
func (r *run) trim() {
	r.Hi = r.lastRoot + 1
	if r.mask != nil {
		r.mask = r.mask[:r.Hi-r.Lo]
	}
}

// New returns a Processor with an empty window of the given schema.
func New(opts Options) (*Processor, error) {
	if opts.Engine == nil {
		return nil, errors.New("stream: no engine")
	}
	w, err := window.New(opts.Schema)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Backend == "" {
		opts.Backend = backend.CPU
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("stream metrics: %w", err)
	}
	p := &Processor{opts: opts, log: opts.Logger, w: w, labelCol: -1, metrics: m, capLimiter: ratelog.New(capLogEvery, nil),
		attrs: newAttrWatch(opts.Logger, m.attrMissing)}
	if opts.AppendWorkers <= 0 {
		opts.AppendWorkers = min(runtime.GOMAXPROCS(0), 8)
	}
	w.SetWorkers(opts.AppendWorkers)
	m.limits(&opts)
	if col, kind, ok := w.Schema().NodeAttr(window.LabelAttr); ok && kind == window.String {
		p.labelCol = col
	}
	return p, nil
}

// Window returns the processor's window (for metrics; do not modify).
func (p *Processor) Window() *window.Window { return p.w }

// Span returns the history the window keeps, in ticks: the largest delta
// of the registered queries.
func (p *Processor) Span() int64 { return p.span }

// SetQueries compiles and registers a new query set, replacing the old
// one from the next batch on: a new query is mined over the history
// already in the window for matches ending in later batches, a removed one
// stops (its held matches are dropped with it). On error the old set
// stays.
func (p *Processor) SetQueries(qs []Query) error {
	next := make([]*registered, 0, len(qs))
	var span int64
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.Query.Name] {
			return fmt.Errorf("stream: query %q registered twice", q.Query.Name)
		}
		seen[q.Query.Name] = true
		plan, err := motif.Compile(q.Query, p.w)
		if err != nil {
			return err
		}
		span = max(span, plan.Delta)
		next = append(next, &registered{Query: q, plan: plan})
	}
	// An engine that counts some shapes (motif/count3) counts the count
	// queries' families of a batch in one run when it knows them.
	if e, ok := p.opts.Engine.(interface{ Expect(...*motif.Plan) }); ok {
		var counted []*motif.Plan
		for _, q := range next {
			if !q.Enumerate {
				counted = append(counted, q.plan)
			}
		}
		e.Expect(counted...)
	}
	keep := p.held[:0]
	for _, h := range p.held {
		if seen[h.q.Query.Query.Name] {
			keep = append(keep, h)
		}
	}
	p.held, p.queries, p.span = keep, next, span
	p.metrics.held.Set(float64(len(p.held)))
	p.attrs.set(next, p.w.Schema())
	return nil
}

// Queries returns the names of the registered queries.
func (p *Processor) Queries() []string {
	names := make([]string, len(p.queries))
	for i, q := range p.queries {
		names[i] = q.Query.Query.Name
	}
	return names
}

// Resume tells the processor the watermark at the clean shutdown before
// this start (from the committed offsets' metadata). Matches whose last
// edge is Replayed and whose anti-edge intervals had closed by then were
// alerted before the shutdown and are not reported again; matches that
// were still held open are.
func (p *Processor) Resume(shutdownWatermark int64) { p.resumeHorizon = shutdownWatermark }

// A ResumeSpan is a run of one partition's offsets that an earlier owner
// (or this process before a restart) mined against Watermark: the
// offsets below Until and at or above the previous span's Until.
type ResumeSpan struct{ Until, Watermark int64 }

// ResumePartition is Resume for the Replayed edges of one partition, by
// offset: a scaled-out daemon takes partitions over from owners that
// stopped at different watermarks, and a partition that changed owners
// twice before its new owner caught up has spans of both. spans are in
// increasing Until; an offset past the last is mined against it.
func (p *Processor) ResumePartition(partition int, spans []ResumeSpan) {
	if p.resumeParts == nil {
		p.resumeParts = map[int][]ResumeSpan{}
	}
	p.resumeParts[partition] = spans
}

func (p *Processor) resumeOf(o ingest.Origin) int64 {
	spans, ok := p.resumeParts[o.Partition]
	if !ok || len(spans) == 0 {
		return p.resumeHorizon
	}
	for _, s := range spans {
		if o.Offset < s.Until {
			return s.Watermark
		}
	}
	return spans[len(spans)-1].Watermark
}

// Own restricts mining to the matches whose last edge comes from one of
// partitions; nil (the default) mines every partition. Edges of the other
// partitions still join the window (matches may use them as earlier
// edges): a scaled-out daemon reads every partition and mines those the
// consumer group assigned to it. Call it before the first Process.
func (p *Processor) Own(partitions []int) {
	if partitions == nil {
		p.owned = nil
		return
	}
	p.owned = make(map[int]bool, len(partitions))
	for _, part := range partitions {
		p.owned[part] = true
	}
}

// root reports that matches ending at e are this processor's to mine.
func (p *Processor) root(e *ingest.Edge) bool {
	return !e.History && (p.owned == nil || p.owned[e.Origin.Partition])
}

// Process appends a released batch (in (t, seq) order, every edge with
// t <= watermark), mines the matches that end in it, settles held matches
// whose intervals the watermark has passed, and evicts what no match can
// reach any more. The watermark is the engine's horizon: all edges with
// t <= watermark have been released.
func (p *Processor) Process(ctx context.Context, batch []ingest.Edge, watermark int64) (*Output, error) {
	refs := make([]*ingest.Edge, len(batch))
	for i := range batch {
		refs[i] = &batch[i]
	}
	return p.ProcessRefs(ctx, refs, watermark)
}

// ProcessRefs is Process for a batch given by pointers (the reorder
// buffer's ingest.Reorder.AppendReleaseRefs: no copy of each edge). The
// edges are read, not kept or changed.
func (p *Processor) ProcessRefs(ctx context.Context, batch []*ingest.Edge, watermark int64) (*Output, error) {
	out := &Output{Counts: make(map[string]int64)}
	start := time.Now()
	p.attrs.observe(batch)
	if len(p.shown) > 4096 {
		p.shown = nil // a cleared map keeps its size: let a burst's go
	} else {
		clear(p.shown)
	}
	runs, err := p.append(batch, out)
	if err != nil {
		return out, err
	}
	t := time.Now()
	out.Stages.Window = t.Sub(start)
	if s, ok := p.opts.Engine.(Syncer); ok && len(runs) > 0 && len(p.queries) > 0 {
		if err := s.Sync(ctx, p.w); err != nil {
			return out, err
		}
		now := time.Now()
		out.Stages.DeviceSync, t = now.Sub(t), now
	}
	batched := p.batchable()
	if len(batched) > 0 && len(runs) > 0 {
		if err := p.mineBatch(ctx, batched, runs, watermark, out); err != nil {
			return out, err
		}
	}
	for _, q := range p.queries {
		if len(batched) > 0 && q.countOnly() {
			continue
		}
		if err := p.mine(ctx, q, runs, watermark, out); err != nil {
			return out, err
		}
	}
	now := time.Now()
	out.Stages.Mine, t = now.Sub(t), now
	p.settle(watermark, out)
	p.evict(out)
	out.WindowBytes = p.capBytes(out)
	out.Held = len(p.held)
	p.metrics.observe(p, out)
	out.Stages.Window += time.Since(t)
	return out, nil
}

// append adds the batch to the window and returns the position runs of
// its non-history edges: the ranges to mine. The edges go in as one
// window.Columns (AppendBatch: the adjacency lists filled, and evicted
// from, by the window's workers), their node ids found by key in
// parallel first (knownIDs), the rest interned here in batch order.
func (p *Processor) append(batch []*ingest.Edge, out *Output) ([]run, error) {
	if runs, ok, err := p.appendParallel(batch, out); ok {
		return runs, err
	}
	var runs []run
	ids := p.w.IDs()
	known := p.knownIDs(batch)
	c := &p.cols
	c.Src, c.Dst, c.T = c.Src[:0], c.Dst[:0], c.T[:0]
	if n := len(p.w.Schema().EdgeAttrs); len(c.Attrs) != n {
		c.Attrs = make([][]float64, n)
	}
	for j := range c.Attrs {
		c.Attrs[j] = c.Attrs[j][:0]
	}
	first, lastT := p.w.End(), p.w.LastT()
	for i, e := range batch {
		if selfLoop(e) {
			out.SelfLoops++
			continue
		}
		if !p.admit(e, out) {
			continue
		}
		src, dst := noID, noID
		if known != nil {
			src, dst = known[2*i], known[2*i+1]
		}
		if src == noID {
			src, _ = ids.InternKey(e.SrcKey, e.Src)
		}
		if dst == noID {
			dst, _ = ids.InternKey(e.DstKey, e.Dst)
		}
		if e.T < lastT {
			// Out of order: the edges before it go in, and Append says why.
			_, err := p.w.AppendBatch(*c)
			if err == nil {
				_, err = p.w.Append(window.Edge{Src: src, Dst: dst, T: e.T, Attrs: make([]float64, len(c.Attrs))})
			}
			return runs, fmt.Errorf("stream: edge %s->%s at %d from partition %d offset %d: %w",
				e.Src, e.Dst, e.T, e.Origin.Partition, e.Origin.Offset, err)
		}
		lastT = e.T
		for j := range c.Attrs {
			c.Attrs[j] = append(c.Attrs[j], p.value(j, e))
		}
		if p.labelCol >= 0 {
			if e.SrcLabel != "" {
				p.w.SetNodeAttr(p.labelCol, src, float64(p.w.Strings().Intern(e.SrcLabel)))
			}
			if e.DstLabel != "" {
				p.w.SetNodeAttr(p.labelCol, dst, float64(p.w.Strings().Intern(e.DstLabel)))
			}
		}
		pos := first + int64(len(c.T))
		c.Src, c.Dst, c.T = append(c.Src, src), append(c.Dst, dst), append(c.T, e.T)
		if len(p.meta) == 0 {
			p.metaOff = pos
		}
		p.meta = append(p.meta, edgeMeta{seq: e.Seq, offset: e.Origin.Offset, partition: int32(e.Origin.Partition), hasSeq: e.HasSeq})
		p.lastT, p.hasLastT = e.T, true
		out.Appended++
		runs = p.addRun(runs, e, pos)
	}
	return p.appendColumns(runs, first, out)
}

// appendColumns appends the batch's columns (p.cols, at position first)
// to the window and ends append.
func (p *Processor) appendColumns(runs []run, first int64, out *Output) ([]run, error) {
	c := &p.cols
	if _, err := p.w.AppendBatch(*c); err != nil {
		return runs, fmt.Errorf("stream: appending %d edges at position %d: %w", len(c.T), first, err)
	}
	if n := len(runs); n > 0 {
		runs[n-1].trim()
	}
	p.limitKeys(false)
	p.lastAppended = out.Appended
	return runs, nil
}

// appendParallel is append for a large batch of plain edges (no edge
// attributes, no node labels, no node cap within reach, in time order):
// the window's workers read the edges, each a range of the batch, and
// write the columns, the edge metadata and the ids they find by key at
// the edges' final positions; then this goroutine interns the ids not
// found, in batch order (the ids come out as append's), and collects
// the runs from the workers' flags, without touching an edge again but
// for a name to intern. It reports false, having changed nothing, for a
// batch append must take edge by edge (an out-of-order edge included:
// append returns its error), and true with append's result otherwise.
func (p *Processor) appendParallel(batch []*ingest.Edge, out *Output) ([]run, bool, error) {
	workers := p.w.Workers()
	ids := p.w.IDs()
	if workers < 2 || len(batch) < knownIDsMin || len(p.w.Schema().EdgeAttrs) > 0 || p.labelCol >= 0 ||
		(p.opts.MaxNodes > 0 && ids.Len()+2*len(batch) > p.opts.MaxNodes) {
		return nil, false, nil
	}
	// First pass: per range, the edges that are no self-loop, their flags
	// and their order (the first and last time of each range).
	type part struct {
		n           int
		first, last int64
		sorted      bool
	}
	parts := make([]part, workers)
	if cap(p.flags) < len(batch) {
		p.flags = make([]uint8, len(batch))
	}
	flags := p.flags[:len(batch)]
	fanout.Ranges(len(batch), workers, func(k, lo, hi int) {
		pt := part{sorted: true}
		for i, e := range batch[lo:hi] {
			var f uint8
			if selfLoop(e) {
				flags[lo+i] = flagSelfLoop
				continue
			}
			if pt.n == 0 {
				pt.first = e.T
			} else if e.T < pt.last {
				pt.sorted = false
			}
			pt.last = e.T
			pt.n++
			if p.root(e) {
				f |= flagRoot
			}
			if e.Replayed {
				f |= flagReplayed
			}
			flags[lo+i] = f
		}
		parts[k] = pt
	})
	n := 0
	lastT := p.w.LastT()
	for _, pt := range parts {
		if pt.n == 0 {
			continue
		}
		if !pt.sorted || pt.first < lastT {
			return nil, false, nil
		}
		lastT = pt.last
		n += pt.n
	}
	// Second pass: each range's edges at their positions.
	first := p.w.End()
	c := &p.cols
	c.Src, c.Dst, c.T = slices.Grow(c.Src[:0], n)[:n], slices.Grow(c.Dst[:0], n)[:n], slices.Grow(c.T[:0], n)[:n]
	if len(p.meta) == 0 {
		p.metaOff = first
	}
	metaAt := len(p.meta)
	p.meta = slices.Grow(p.meta, n)[:metaAt+n]
	meta := p.meta[metaAt:]
	starts := make([]int, workers) // where range k's edges go in c
	for k := 1; k < workers; k++ {
		starts[k] = starts[k-1] + parts[k-1].n
	}
	fanout.Ranges(len(batch), workers, func(k, lo, hi int) {
		pos := starts[k]
		for i, e := range batch[lo:hi] {
			if flags[lo+i]&flagSelfLoop != 0 {
				continue
			}
			s, d := knownID(ids, e.SrcKey), knownID(ids, e.DstKey)
			c.Src[pos], c.Dst[pos], c.T[pos] = s, d, e.T
			meta[pos] = edgeMeta{seq: e.Seq, offset: e.Origin.Offset, partition: int32(e.Origin.Partition), hasSeq: e.HasSeq}
			pos++
		}
	})
	// In batch order: the ids not found by key, and the runs.
	var runs []run
	pos := 0
	for i, f := range flags {
		if f&flagSelfLoop != 0 {
			out.SelfLoops++
			continue
		}
		if c.Src[pos] == noID {
			e := batch[i]
			c.Src[pos], _ = ids.InternKey(e.SrcKey, e.Src)
		}
		if c.Dst[pos] == noID {
			e := batch[i]
			c.Dst[pos], _ = ids.InternKey(e.DstKey, e.Dst)
		}
		var horizon int64
		if f&flagReplayed != 0 {
			horizon = p.resumeOf(batch[i].Origin)
		}
		runs = p.addRunAt(runs, f&flagRoot != 0, f&flagReplayed != 0, horizon, first+int64(pos))
		pos++
	}
	if n > 0 {
		p.lastT, p.hasLastT = c.T[n-1], true
	}
	out.Appended += n
	runs, err := p.appendColumns(runs, first, out)
	return runs, true, err
}

// Per-edge flags of appendParallel's first pass.
const (
	flagSelfLoop uint8 = 1 << iota
	flagRoot
	flagReplayed
)

// noID marks an endpoint knownIDs did not find.
const noID = ^uint32(0)

// knownIDs returns, for a large batch with the window's workers, the ids
// of the edges' endpoints that the window's dictionary finds by key
// (window.IDs.KeyID: reads only, so the workers look up in parallel),
// source and destination of batch[i] at 2i and 2i+1, noID for the
// others; nil otherwise. An id found stays right while append interns
// the others: interning neither releases an id nor rebinds a name.
func (p *Processor) knownIDs(batch []*ingest.Edge) []uint32 {
	workers := p.w.Workers()
	if workers < 2 || len(batch) < knownIDsMin {
		return nil
	}
	if cap(p.known) < 2*len(batch) {
		p.known = make([]uint32, 2*len(batch))
	}
	known := p.known[:2*len(batch)]
	ids := p.w.IDs()
	fanout.Ranges(len(batch), workers, func(_, lo, hi int) {
		for i, e := range batch[lo:hi] {
			known[2*(lo+i)], known[2*(lo+i)+1] = knownID(ids, e.SrcKey), knownID(ids, e.DstKey)
		}
	})
	return known
}

// knownIDsMin is the batch from which append looks ids up in parallel.
const knownIDsMin = 4096

// selfLoop reports e.Src == e.Dst, from their keys when they tell (no
// string compare: the names lie apart from the edge, in the decoders'
// dictionary).
func selfLoop(e *ingest.Edge) bool {
	if same, ok := window.SameNode(e.SrcKey, e.DstKey); ok {
		return same
	}
	return e.Src == e.Dst
}

// addRun puts position pos (edge e) into the runs to mine: it extends the
// last run, as a root or masked, or starts a new one at a root whose
// replay horizon differs. Masked positions inside a run cost the engine
// a skipped root; splitting at each would cost a Mine call.
func (p *Processor) addRun(runs []run, e *ingest.Edge, pos int64) []run {
	var horizon int64
	if e.Replayed {
		horizon = p.resumeOf(e.Origin)
	}
	return p.addRunAt(runs, p.root(e), e.Replayed, horizon, pos)
}

// addRunAt is addRun for an edge known by its flags: root, replayed and
// (replayed) its replay horizon.
func (p *Processor) addRunAt(runs []run, root, replayed bool, horizon int64, pos int64) []run {
	n := len(runs)
	contiguous := n > 0 && runs[n-1].Hi == pos
	switch {
	case !root && contiguous:
		runs[n-1].extend(false)
	case !root:
	case contiguous && runs[n-1].replay == replayed && runs[n-1].horizon == horizon:
		runs[n-1].extend(true)
	default:
		if n > 0 {
			runs[n-1].trim()
		}
		runs = append(runs, run{Range: motif.Range{Lo: pos, Hi: pos + 1}, replay: replayed, horizon: horizon, lastRoot: pos})
	}
	return runs
}

func (p *Processor) value(col int, e *ingest.Edge) float64 {
	kind := p.w.Schema().EdgeAttrs[col].Kind
	if col >= len(e.Attrs) || !e.Attrs[col].Set {
		if kind == window.String {
			return 0
		}
		return math.NaN()
	}
	if kind == window.String {
		// Held by the edge, released with it (not pinned): see window.Strings.
		return float64(p.w.Strings().Code(e.Attrs[col].Str))
	}
	return e.Attrs[col].Num
}

// countOnly: the query's matches are counted by the engine, never
// enumerated (count mode without anti-edges: none is ever open).
func (q *registered) countOnly() bool { return !q.Enumerate && len(q.plan.Antis) == 0 }

// batchable returns the count-only queries to mine together (a
// BatchMiner engine, at least two of them, no per-query work cap), or nil.
func (p *Processor) batchable() []*registered {
	if _, ok := p.opts.Engine.(BatchMiner); !ok || p.opts.MaxMineSteps > 0 || p.opts.MaxMineTime > 0 {
		return nil
	}
	var qs []*registered
	for _, q := range p.queries {
		if q.countOnly() {
			qs = append(qs, q)
		}
	}
	if len(qs) < 2 {
		return nil
	}
	return qs
}

// mineBatch counts the count-only queries qs over the batch's runs with
// one MineBatch call per run (replayed runs are skipped, as mine skips
// them for such queries: their matches were final, and counted, before
// the restart). Each query's mining-time metric gets an equal share of
// the calls' time.
func (p *Processor) mineBatch(ctx context.Context, qs []*registered, runs []run, watermark int64, out *Output) error {
	start := time.Now()
	plans := make([]*motif.Plan, len(qs))
	for i, q := range qs {
		plans[i] = q.plan
	}
	matches := make([]int64, len(qs))
	bm := p.opts.Engine.(BatchMiner)
	for _, r := range runs {
		if r.replay {
			continue
		}
		rs, err := bm.MineBatch(ctx, p.w, plans, motif.Request{Range: r.Range, Horizon: watermark, RootMask: r.mask})
		if err != nil {
			return fmt.Errorf("mining %d count queries together: %w", len(qs), err)
		}
		if len(rs) != len(qs) {
			return fmt.Errorf("mining %d count queries together: %d results", len(qs), len(rs))
		}
		for i, res := range rs {
			matches[i] += res.Matches
		}
	}
	share := time.Since(start) / time.Duration(len(qs))
	for i, q := range qs {
		name := q.Query.Query.Name
		out.Counts[name] += matches[i]
		p.metrics.mined(name, p.opts.Backend.String(), matches[i], share)
	}
	return nil
}

// mine runs one query over the batch's runs.
func (p *Processor) mine(ctx context.Context, q *registered, runs []run, watermark int64, out *Output) error {
	name := q.Query.Query.Name
	start := time.Now()
	var matches int64
	// Count-mode queries without anti-edges can never be open: let the
	// engine tally them. Everything else is enumerated to a sink that
	// holds open matches and reports final ones.
	countOnly := q.countOnly()
	replaying := false
	limit := &matchCap{limit: p.opts.MaxMatchesPerBatch}
	var steps int64 // the batch's work on this query so far
	var deadline time.Time
	if p.opts.MaxMineTime > 0 {
		deadline = start.Add(p.opts.MaxMineTime)
	}
	sink := motif.SinkFunc(func(m *motif.Match) error {
		if err := limit.take(); err != nil {
			return err
		}
		if m.Open {
			p.hold(q, m, out)
			return nil
		}
		if replaying {
			return nil // final by the shutdown watermark: alerted before
		}
		matches++
		p.report(q, m.Edges, out)
		return nil
	})
	for _, r := range runs {
		req := motif.Request{Range: r.Range, Horizon: watermark, RootMask: r.mask, Deadline: deadline}
		if p.opts.MaxMineSteps > 0 {
			req.Budget = max(p.opts.MaxMineSteps-steps, 1)
		}
		replaying = r.replay
		if replaying {
			if countOnly {
				continue // no anti-edges: every match was final, and alerted
			}
			// Mined against the shutdown horizon, the matches that were
			// held then come back Open; settle() reports them once the
			// current watermark has passed their intervals. The others
			// were decided before the shutdown (reported or discarded)
			// and are dropped, even where the current watermark is still
			// below the shutdown's: so the horizon is the shutdown's, not
			// the lower of the two (which would hold, and report again,
			// matches whose intervals closed between them).
			req.Horizon = r.horizon
		}
		if !countOnly {
			req.Sink = sink
		}
		res, err := p.opts.Engine.Mine(ctx, p.w, q.plan, req)
		if err != nil {
			return fmt.Errorf("mining %s: %w", name, err)
		}
		steps += res.Steps
		if countOnly {
			matches += res.Matches
			out.Counts[name] += res.Matches
		}
		if limit.truncated {
			p.truncated(q, runs, capMatches, "max_matches_per_batch", int64(limit.limit))
			break
		}
		if res.Truncated {
			if p.opts.MaxMineSteps > 0 && steps > p.opts.MaxMineSteps {
				p.truncated(q, runs, capMineSteps, "max_mine_steps", p.opts.MaxMineSteps)
			} else {
				p.truncated(q, runs, capMineTime, "max_mine_time", p.opts.MaxMineTime)
			}
			break
		}
	}
	p.metrics.mined(name, p.opts.Backend.String(), matches, time.Since(start))
	return nil
}

// hold keeps an open match until the watermark passes its intervals, or
// reports it at once (provisional) when MaxHeld matches are already held.
func (p *Processor) hold(q *registered, m *motif.Match, out *Output) {
	if p.opts.MaxHeld > 0 && len(p.held) >= p.opts.MaxHeld {
		out.Provisional++
		p.metrics.provisional.Inc()
		p.report(q, m.Edges, out)
		if q.Enumerate {
			out.Alerts[len(out.Alerts)-1].Provisional = true
		}
		return
	}
	p.held = append(p.held, held{q: q, edges: append([]int64(nil), m.Edges...),
		nodes: append([]uint32(nil), m.Nodes...), openUntil: m.OpenUntil})
}

// settle re-checks held matches whose intervals the watermark has passed.
func (p *Processor) settle(watermark int64, out *Output) {
	keep := p.held[:0]
	for _, h := range p.held {
		if h.openUntil > watermark {
			keep = append(keep, h)
			continue
		}
		valid, open, until := h.q.plan.Recheck(p.w, h.edges, h.nodes, watermark)
		switch {
		case !valid:
			out.Discarded++
			p.metrics.discarded.Inc()
		case open: // cannot happen once the watermark passed openUntil; keep it safe
			h.openUntil = until
			keep = append(keep, h)
		default:
			p.report(h.q, h.edges, out)
		}
	}
	p.held = keep
}

// report turns a final match into an alert or a count.
func (p *Processor) report(q *registered, edges []int64, out *Output) {
	name := q.Query.Query.Name
	if !q.Enumerate {
		out.Counts[name]++
		return
	}
	out.Alerts = append(out.Alerts, p.alert(q, edges))
}

// alert builds the alert record of a match given by window positions (in
// motif edge order): the edges with their origin, attributes and ISO
// times, the graph node of every motif node with its label, and the
// query's description.
func (p *Processor) alert(q *registered, edges []int64) alerts.Alert {
	w, ids, unit := p.w, p.w.IDs(), p.w.Schema().TimeUnit
	mq := q.Query.Query
	a := alerts.Alert{Kind: alerts.KindMatch, Query: mq.Name, Description: mq.Description,
		Edges: make([]alerts.Edge, len(edges)), Nodes: make(map[string]alerts.Node, len(mq.Nodes))}
	hasSeq := true
	for i, pos := range edges {
		m := p.meta[pos-p.metaOff]
		src, dst := w.Src(pos), w.Dst(pos)
		shown := p.show(pos, unit)
		a.Edges[i] = alerts.Edge{Src: ids.Name(src), Dst: ids.Name(dst), T: w.T(pos), Time: shown.time,
			Seq: m.seq, Partition: int(m.partition), Offset: m.offset, Attrs: shown.attrs}
		hasSeq = hasSeq && m.hasSeq
		if i < len(mq.Edges) {
			me := mq.Edges[i]
			a.Nodes[mq.Nodes[me.From].Name] = alerts.Node{ID: a.Edges[i].Src, Label: p.label(src)}
			a.Nodes[mq.Nodes[me.To].Name] = alerts.Node{ID: a.Edges[i].Dst, Label: p.label(dst)}
		}
	}
	a.First, a.Last = a.Edges[0].T, a.Edges[len(edges)-1].T
	a.FirstTime, a.LastTime = a.Edges[0].Time, a.Edges[len(edges)-1].Time
	a.MatchID = alerts.MatchID(mq.Name, a.Edges, hasSeq)
	return a
}

// show returns the record form of the edge at pos, from the cache.
func (p *Processor) show(pos int64, unit time.Duration) shownEdge {
	if e, ok := p.shown[pos]; ok {
		return e
	}
	if p.shown == nil {
		p.shown = make(map[int64]shownEdge)
	}
	e := shownEdge{time: alerts.TickTime(p.w.T(pos), unit), attrs: p.edgeAttrs(pos)}
	p.shown[pos] = e
	return e
}

// edgeAttrs returns the window's attributes of the edge at pos, leaving
// out missing values (NaN numbers, empty strings); nil when it has none.
func (p *Processor) edgeAttrs(pos int64) map[string]any {
	var attrs map[string]any
	for col, at := range p.w.Schema().EdgeAttrs {
		v := p.w.EdgeAttr(col, pos)
		var val any
		if at.Kind == window.String {
			s := p.w.Strings().Value(uint32(v))
			if s == "" {
				continue
			}
			val = s
		} else {
			switch {
			case math.IsNaN(v):
				continue
			case math.IsInf(v, 0):
				val = strconv.FormatFloat(v, 'g', -1, 64) // JSON has no infinities
			default:
				val = v
			}
		}
		if attrs == nil {
			attrs = make(map[string]any, len(p.w.Schema().EdgeAttrs))
		}
		attrs[at.Name] = val
	}
	return attrs
}

// label returns node v's label, or "" when it has none.
func (p *Processor) label(v uint32) string {
	if p.labelCol < 0 {
		return ""
	}
	return p.w.Strings().Value(uint32(p.w.NodeAttr(p.labelCol, v)))
}

// evict drops edges older than the span before the newest edge, but never
// an edge of a held match (their node ids must stay bound for Recheck).
func (p *Processor) evict(out *Output) {
	if !p.hasLastT {
		return
	}
	threshold := p.lastT - p.span
	if threshold > p.lastT { // overflow: an edge dated near the start of int64 time
		threshold = math.MinInt64
	}
	for _, h := range p.held {
		threshold = min(threshold, p.w.T(h.edges[0]))
	}
	out.Evicted = p.w.EvictBefore(threshold)
	p.compactMeta()
}

// compactMeta drops the metadata of evicted edges, amortised O(1) per
// edge like the window's columns: the evicted entries stay in front of
// the live ones until they are at least half of them all (and 1,024),
// then the live ones move to the front; the array is replaced by a
// smaller one only when its capacity is more than twice the live entries
// and a batch like the last. (Slicing the evicted entries off instead
// shortened the capacity by as much: the next batch's appends then
// regrew the array, a copy and an allocation of the whole window's
// metadata per batch.)
func (p *Processor) compactMeta() {
	dead := int(p.w.First() - p.metaOff)
	if dead <= 0 {
		return
	}
	live := len(p.meta) - dead
	switch {
	case cap(p.meta) > 2*(live+p.lastAppended)+1024:
		m := make([]edgeMeta, live, live+p.lastAppended+1024)
		copy(m, p.meta[dead:])
		p.meta = m
	case live == 0 || (dead >= 1024 && 2*dead >= len(p.meta)):
		p.meta = p.meta[:copy(p.meta, p.meta[dead:])]
	default:
		return // the evicted entries wait in front
	}
	p.metaOff += int64(dead)
}

// HeldMinOffsets returns, per partition, the lowest offset of the last
// edge of a held match: the daemon must not commit past it, or a crash
// would lose the match (its last edge would be history on restart).
func (p *Processor) HeldMinOffsets() map[int]int64 {
	mins := map[int]int64{}
	for _, h := range p.held {
		last := h.edges[len(h.edges)-1]
		m := p.meta[last-p.metaOff]
		part := int(m.partition)
		if cur, ok := mins[part]; !ok || m.offset < cur {
			mins[part] = m.offset
		}
	}
	return mins
}

// knownID returns the id the window's dictionary holds for key k, or noID
// when it must be looked up by name (or interned).
func knownID(ids *window.IDs, k window.Key) uint32 {
	if id, ok := ids.KeyID(k); ok {
		return id
	}
	return noID
}
