package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/estimate"
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
	// AppendWorkers share appending a large batch to the window (the
	// appender's first passes and window.Window.AppendBatch) and evicting
	// from it (window.Window.SetWorkers); 0: GOMAXPROCS, at most 8.
	AppendWorkers int
}

// Output is what one batch produced.
type Output struct {
	// Alerts are the final matches of enumerate-mode queries (and held
	// matches confirmed by this batch's watermark).
	Alerts []alerts.Alert
	// Counts are final matches of count-mode queries, by query name.
	Counts map[string]int64
	// Estimates are the running estimates of estimated count-mode queries
	// (motif.Query.Estimate), by query name: the total since the query was
	// registered, with its interval. They raise no alerts.
	Estimates map[string]estimate.Estimate
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

// Processor is the incremental miner; see the package doc. Each part owns
// its state: the appender what goes into the window, the miner the
// queries, the holder the open matches, the recorder the alert records;
// the Processor runs them in order, once per batch.
type Processor struct {
	opts    Options
	log     *slog.Logger
	w       *window.Window
	metrics *metrics
	caps    capLog
	attrs   *attrWatch // says when a query's edge attribute is in no record
	meta    edgeMetas  // what alerts need of each window edge
	roots   roots      // which edges are mined as last edges, and how
	app     appender
	mine    miner
	held    holder
	rec     recorder
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
	if opts.AppendWorkers <= 0 {
		opts.AppendWorkers = min(runtime.GOMAXPROCS(0), 8)
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("stream metrics: %w", err)
	}
	w.SetWorkers(opts.AppendWorkers)
	m.limits(&opts)
	labelCol := -1
	if col, kind, ok := w.Schema().NodeAttr(window.LabelAttr); ok && kind == window.String {
		labelCol = col
	}
	p := &Processor{opts: opts, log: opts.Logger, w: w, metrics: m, attrs: newAttrWatch(opts.Logger, m.attrMissing)}
	p.caps = capLog{log: opts.Logger, limiter: ratelog.New(capLogEvery, nil), actions: m.capActions}
	p.app = appender{w: w, meta: &p.meta, roots: &p.roots, nodes: nodeCap{limit: opts.MaxNodes, log: &p.caps},
		attrs: w.Schema().EdgeAttrs, labelCol: labelCol}
	p.rec = recorder{w: w, meta: &p.meta, labelCol: labelCol}
	p.held = holder{max: opts.MaxHeld, rec: &p.rec, metrics: m}
	p.mine = miner{engine: opts.Engine, backend: opts.Backend.String(), w: w, held: &p.held, rec: &p.rec,
		meta: &p.meta, capLog: &p.caps, metrics: m,
		caps: mineCaps{matches: opts.MaxMatchesPerBatch, steps: opts.MaxMineSteps, time: opts.MaxMineTime}}
	return p, nil
}

// Window returns the processor's window (for metrics; do not modify).
func (p *Processor) Window() *window.Window { return p.w }

// Span returns the history the window keeps, in ticks: the largest delta
// of the registered queries.
func (p *Processor) Span() int64 { return p.mine.span }

// SetQueries compiles and registers a new query set, replacing the old
// one from the next batch on: a new query is mined over the history
// already in the window for matches ending in later batches, a removed one
// stops (its held matches are dropped with it). On error the old set
// stays.
func (p *Processor) SetQueries(qs []Query) error {
	names, err := p.mine.set(qs)
	if err != nil {
		return err
	}
	p.held.keep(names)
	p.metrics.held.Set(float64(len(p.held.list)))
	p.attrs.set(p.mine.queries, p.w.Schema())
	return nil
}

// Queries returns the names of the registered queries.
func (p *Processor) Queries() []string {
	names := make([]string, len(p.mine.queries))
	for i, q := range p.mine.queries {
		names[i] = q.Query.Query.Name
	}
	return names
}

// Resume tells the processor the watermark at the clean shutdown before
// this start (from the committed offsets' metadata). Matches whose last
// edge is Replayed and whose anti-edge intervals had closed by then were
// alerted before the shutdown and are not reported again; matches that
// were still held open are.
func (p *Processor) Resume(shutdownWatermark int64) { p.roots.resumeHorizon = shutdownWatermark }

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
	if p.roots.resumeParts == nil {
		p.roots.resumeParts = map[int][]ResumeSpan{}
	}
	p.roots.resumeParts[partition] = spans
}

// Own restricts mining to the matches whose last edge comes from one of
// partitions; nil (the default) mines every partition. Edges of the other
// partitions still join the window (matches may use them as earlier
// edges): a scaled-out daemon reads every partition and mines those the
// consumer group assigned to it. Call it before the first Process.
func (p *Processor) Own(partitions []int) {
	if partitions == nil {
		p.roots.owned = nil
		return
	}
	p.roots.owned = make(map[int]bool, len(partitions))
	for _, part := range partitions {
		p.roots.owned[part] = true
	}
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
	out := &Output{Counts: make(map[string]int64), Estimates: make(map[string]estimate.Estimate)}
	start := time.Now()
	p.attrs.observe(batch)
	p.rec.forget()
	runs, err := p.app.append(batch, out)
	if err != nil {
		return out, err
	}
	p.limitKeys(false)
	t := time.Now()
	out.Stages.Window = t.Sub(start)
	if s, ok := p.opts.Engine.(Syncer); ok && len(runs) > 0 && len(p.mine.queries) > 0 {
		if err := s.Sync(ctx, p.w); err != nil {
			return out, err
		}
		now := time.Now()
		out.Stages.DeviceSync, t = now.Sub(t), now
	}
	if err := p.mine.mineAll(ctx, runs, watermark, out); err != nil {
		return out, err
	}
	now := time.Now()
	out.Stages.Mine, t = now.Sub(t), now
	p.held.settle(p.w, watermark, out)
	p.evict(out)
	out.WindowBytes = p.capBytes(out)
	out.Held = len(p.held.list)
	p.metrics.observe(p, out)
	out.Stages.Window += time.Since(t)
	return out, nil
}

// evict drops edges older than the span before the newest edge, but never
// an edge of a held match (their node ids must stay bound for Recheck).
func (p *Processor) evict(out *Output) {
	if !p.app.hasLastT {
		return
	}
	threshold := p.app.lastT - p.mine.span
	if threshold > p.app.lastT { // overflow: an edge dated near the start of int64 time
		threshold = math.MinInt64
	}
	threshold = p.held.oldest(p.w, threshold)
	out.Evicted = p.w.EvictBefore(threshold)
	p.meta.compact(p.w.First())
}

// HeldMinOffsets returns, per partition, the lowest offset of the last
// edge of a held match: the daemon must not commit past it, or a crash
// would lose the match (its last edge would be history on restart).
func (p *Processor) HeldMinOffsets() map[int]int64 { return p.held.minOffsets(&p.meta) }
