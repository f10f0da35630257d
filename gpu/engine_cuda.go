//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sync/errgroup"
	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Available reports whether this build can drive CUDA devices.
const Available = true

// Control block slots (kernels/temporal.cu C_*).
const (
	cRootNext, cMatches, cOpen, cActive, cLock, cQSize, cOverflow, cOutCount, cSplits, cIdle = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
	cSteps, cBudget, cTrunc, cNsLeft                                                         = 11, 12, 13, 14
	ctlSlots                                                                                 = 16
	taskBytes                                                                                = (maxK*2 + maxN + 8) * 8
	recSlots                                                                                 = maxK + 1
	notOpen                                                                                  = -1 << 63
	warpsPerBlock                                                                            = 4
)

// Engine mines compiled plans on one or more devices. The window is
// mirrored on every device (replicated) and each call's root range is cut
// into chunks that the devices pull in turn, so a device that draws a
// heavy chunk does not hold the others back. Calls are serialised.
type Engine struct {
	mu   sync.Mutex
	opts Options
	devs []*device
	// counted caches count-mode encodings by plan (MineBatch: a streaming
	// batch's plans are the same batch after batch; a compiled plan does
	// not change).
	counted map[*motif.Plan]*encodedPlan
}

var _ motif.Engine = (*Engine)(nil)

// New opens the devices of opts (all devices when none are listed).
func New(opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	ords := opts.Devices
	if len(ords) == 0 {
		n, err := cu.NumDevices()
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%w: the driver reports %d devices (%v)", ErrNoDevice, n, err)
		}
		for i := 0; i < n; i++ {
			ords = append(ords, i)
		}
	}
	e := &Engine{opts: opts}
	for i, o := range ords {
		d, err := openDevice(i, o, opts)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("%w: %v", ErrNoDevice, err)
		}
		e.devs = append(e.devs, d)
	}
	return e, nil
}

// Close releases the devices.
func (e *Engine) Close() error {
	for _, d := range e.devs {
		d.close()
	}
	e.devs = nil
	return nil
}

// Devices describes the engine's devices.
func (e *Engine) Devices() []DeviceInfo {
	out := make([]DeviceInfo, len(e.devs))
	for i, d := range e.devs {
		out[i] = DeviceInfo{Index: i, Ordinal: d.ordinal, Name: d.name, Multiprocessors: d.sms, TotalBytes: d.total,
			ComputeCapability: fmt.Sprintf("%d.%d", d.ccMajor, d.ccMinor), Kernels: strings.Join(d.code, "; ")}
	}
	return out
}

// Stats reports per-device figures as of each device's last call: bytes
// held, window edges mirrored, busy time. It never waits for a device.
func (e *Engine) Stats() []DeviceStats {
	out := make([]DeviceStats, len(e.devs))
	for i, d := range e.devs {
		if st := d.stats.Load(); st != nil {
			out[i] = *st
		}
		out[i].Index = i
	}
	return out
}

// Prepare mirrors w on every device now (Mine does it too): batch runs
// call it first so that the upload and the device-side adjacency build
// are timed apart from mining.
func (e *Engine) Prepare(ctx context.Context, w *window.Window) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.syncAll(ctx, w)
}

// Sync mirrors w on every device now, as the next Mine would (the
// streaming processor calls it after appending a batch, so the upload is
// timed apart from mining). A window mined in time partitions is not
// mirrored whole: Mine moves each partition itself.
func (e *Engine) Sync(ctx context.Context, w *window.Window) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.devs) == 0 || e.partitionEdges(w) > 0 {
		return nil
	}
	return e.syncAll(ctx, w)
}

func (e *Engine) syncAll(ctx context.Context, w *window.Window) error {
	g, _ := errgroup.WithContext(ctx)
	for _, d := range e.devs {
		g.Go(func() error {
			return d.do(func() error {
				t0 := time.Now()
				err := d.syncWindow(w)
				if err == nil {
					err = d.buildIndexes(false)
				}
				d.syncTime += time.Since(t0)
				return err
			})
		})
	}
	return g.Wait()
}

// Mine implements motif.Engine.
func (e *Engine) Mine(ctx context.Context, w *window.Window, p *motif.Plan, req motif.Request) (motif.Result, error) {
	if err := req.CheckRootMask(); err != nil {
		return motif.Result{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	if lo >= hi {
		return motif.Result{}, ctx.Err()
	}
	p = order(p) // the kernel's step order: the matches are the same
	enc, err := e.opts.tune.encodeLaunch(w, p, lo, hi, req.Sink == nil)
	if err != nil {
		return motif.Result{}, err
	}
	if c := e.opts.tune.chunkClaim(p, lo, hi); c > 0 {
		// tuning.ChunkRoots: claims of whole root chunks, not guided
		// (enc is this call's own).
		enc.P[pGuide], enc.P[pClaim] = 0, c
	}
	needPairs := e.needPairs(p)
	if len(e.devs) == 0 {
		return motif.Result{}, ErrNoDevice
	}
	part := e.partitionEdges(w)
	var chunks []motif.Range
	if part > 0 {
		chunks = splitRoots(lo, hi, int((hi-lo+part-1)/part))
	} else {
		// Mirror the window everywhere first (only new positions move).
		if err := e.syncAll(ctx, w); err != nil {
			return motif.Result{}, err
		}
		per := e.opts.Chunks
		if per <= 0 {
			per = 4
			if len(e.devs) == 1 {
				per = 1
			}
		}
		chunks = splitRoots(lo, hi, len(e.devs)*per)
	}
	var next atomic.Int64
	var stop atomic.Bool
	var res motif.Result
	// The budget is shared by the chunks: each launch gets what the
	// chunks before it left (devices mining chunks at once may together
	// overshoot it by what each used past the other's start).
	var used atomic.Int64
	var truncated atomic.Bool
	limitOf := func() (budget, nsLeft int64, over bool) {
		if req.Budget > 0 {
			if budget = req.Budget - used.Load(); budget <= 0 {
				return 0, 0, true
			}
		}
		if !req.Deadline.IsZero() {
			if nsLeft = int64(time.Until(req.Deadline)); nsLeft <= 0 {
				return 0, 0, true
			}
		}
		return budget, nsLeft, false
	}
	var mu sync.Mutex // guards res and the sink
	var sinkErr error
	emit := func(recs []int64, n int) error {
		mu.Lock()
		defer mu.Unlock()
		if sinkErr != nil || stop.Load() {
			return errStopped
		}
		m := motif.Match{Edges: make([]int64, enc.K), Nodes: make([]uint32, p.N())}
		for i := 0; i < n; i++ {
			r := recs[i*recSlots:]
			copy(m.Edges, r[:enc.K])
			for e2, me := range p.Query.Edges {
				m.Nodes[me.From], m.Nodes[me.To] = w.Src(r[e2]), w.Dst(r[e2])
			}
			m.Open, m.OpenUntil = r[maxK] != notOpen, 0
			if m.Open {
				m.OpenUntil = r[maxK]
			}
			if err := req.Sink.Match(&m); err != nil {
				if errors.Is(err, motif.ErrStop) {
					res.Stopped = true
				} else {
					sinkErr = err
				}
				stop.Store(true)
				return errStopped
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, d := range e.devs {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(chunks) || stop.Load() || gctx.Err() != nil {
					return nil
				}
				if _, _, over := limitOf(); over {
					truncated.Store(true)
					stop.Store(true)
					return nil
				}
				c := chunks[i]
				var mask []bool
				if req.RootMask != nil {
					mask = req.RootMask[c.Lo-req.Range.Lo : c.Hi-req.Range.Lo]
				}
				var r motif.Result
				err := d.do(func() error {
					if part > 0 {
						t0 := time.Now()
						a, b := partitionSpan(w, p, c)
						err := d.syncRange(w, a, b)
						d.syncTime += time.Since(t0)
						if err != nil {
							return err
						}
					}
					t0 := time.Now()
					err := d.buildIndexes(needPairs)
					d.syncTime += time.Since(t0)
					if err != nil {
						return err
					}
					rs, err := d.mine([]*encodedPlan{enc}, c.Lo, c.Hi, req.Horizon, mask, req.Sink != nil, emit, limitOf)
					if len(rs) > 0 {
						r = rs[0]
					}
					return err
				})
				if err != nil && !errors.Is(err, errStopped) {
					return err
				}
				used.Add(r.Steps)
				if r.Truncated {
					truncated.Store(true)
					stop.Store(true)
				}
				mu.Lock()
				res.Add(r)
				mu.Unlock()
				if req.Progress != nil {
					req.Progress.Add(c.Hi - c.Lo)
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Truncated = truncated.Load()
	if sinkErr != nil {
		return res, sinkErr
	}
	return res, ctx.Err()
}

var errStopped = errors.New("gpu: sink stopped mining")

// encode lays p out for the kernel with the engine's options.
func (e *Engine) encode(p *motif.Plan, count bool) (*encodedPlan, error) {
	return e.opts.tune.encode(p, count)
}

// needPairs: mining p needs the pair-ordered adjacency (its anti-edges).
func (e *Engine) needPairs(p *motif.Plan) bool {
	return len(p.Antis) > 0
}

// MineBatch counts the matches of several plans over the same request
// (a streaming batch's queries over its new edges), one result per plan.
// On one device with the window mirrored whole, a count-mode request
// without a root mask, budget or deadline mines up to maxQueries plans in
// one launch: the warps that finish one query's roots go on to the
// next's, so the batch pays one launch, one synchronisation and one tail
// instead of one per query. Any other request is mined plan by plan
// (Mine), with the same results.
func (e *Engine) MineBatch(ctx context.Context, w *window.Window, plans []*motif.Plan, req motif.Request) ([]motif.Result, error) {
	if req.Sink != nil {
		return nil, errors.New("gpu: MineBatch counts: the request has a sink")
	}
	out := make([]motif.Result, len(plans))
	if !e.batchable(w, req) {
		for i, p := range plans {
			r, err := e.Mine(ctx, w, p, req)
			if err != nil {
				return out, err
			}
			out[i] = r
		}
		return out, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	lo, hi := max(req.Range.Lo, w.First()), min(req.Range.Hi, w.End())
	if lo >= hi || len(plans) == 0 {
		return out, ctx.Err()
	}
	encs := make([]*encodedPlan, len(plans))
	needPairs := false
	for i, p := range plans {
		enc, err := e.encodeCounted(p)
		if err != nil {
			return out, err
		}
		encs[i] = enc
		needPairs = needPairs || e.needPairs(p)
	}
	// One trip to the device's thread: mirror the window (only new
	// positions move), bring the indexes up to date, mine.
	d := e.devs[0]
	noLimit := func() (int64, int64, bool) { return 0, 0, false }
	err := d.do(func() error {
		t0 := time.Now()
		err := d.syncWindow(w)
		if err == nil {
			err = d.buildIndexes(needPairs)
		}
		d.syncTime += time.Since(t0)
		if err != nil {
			return err
		}
		for _, idx := range e.batchLaunches(encs) {
			group := make([]*encodedPlan, len(idx))
			for j, i := range idx {
				group[j] = encs[i]
			}
			for at := 0; at < len(group); at += maxQueries {
				if err := ctx.Err(); err != nil {
					return err
				}
				rs, err := d.mine(group[at:min(at+maxQueries, len(group))], lo, hi, req.Horizon, nil, false, nil, noLimit)
				for j, r := range rs {
					out[idx[at+j]] = r
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	if req.Progress != nil {
		req.Progress.Add((hi - lo) * int64(len(plans))) // as plan-by-plan calls add it
	}
	return out, ctx.Err()
}

// batchLaunches groups a batch's plans (indexes into encs) into the
// launches MineBatch makes: one, or with tuning.BatchSplitPruned the
// pruned plans and the others apart.
func (e *Engine) batchLaunches(encs []*encodedPlan) [][]int {
	if !e.opts.tune.BatchSplitPruned {
		all := make([]int, len(encs))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	var plain, pruned []int
	for i, enc := range encs {
		if enc.pruned() {
			pruned = append(pruned, i)
		} else {
			plain = append(plain, i)
		}
	}
	if len(pruned) == 0 || len(plain) == 0 {
		return [][]int{append(plain, pruned...)}
	}
	return [][]int{plain, pruned}
}

// encodeCounted is encode(p, true), cached (e.mu held).
func (e *Engine) encodeCounted(p *motif.Plan) (*encodedPlan, error) {
	if enc, ok := e.counted[p]; ok {
		return enc, nil
	}
	enc, err := e.encode(order(p), true)
	if err != nil {
		return nil, err
	}
	if e.counted == nil || len(e.counted) >= 256 {
		e.counted = map[*motif.Plan]*encodedPlan{} // query sets come and go: drop the old plans
	}
	e.counted[p] = enc
	return enc, nil
}

// batchable: MineBatch can mine req's plans in shared launches.
func (e *Engine) batchable(w *window.Window, req motif.Request) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.devs) == 1 && e.partitionEdges(w) == 0 && req.RootMask == nil && !req.Limited()
}

// partitionEdges is the root count of a time partition, or 0 when the
// whole window fits every device (replicated mirrors).
func (e *Engine) partitionEdges(w *window.Window) int64 {
	if e.opts.PartitionEdges > 0 {
		return e.opts.PartitionEdges
	}
	per := deviceBytesPerEdge(len(w.Schema().EdgeAttrs))
	var fit int64 = 1 << 62
	for _, d := range e.devs {
		fit = min(fit, int64(float64(d.total)*e.opts.MemoryFraction)/per)
	}
	if int64(w.Len()) <= fit {
		return 0
	}
	// A partition and the delta of history before it must fit together;
	// half the room for roots is a guess that holds unless history is
	// denser than the partition.
	return max(fit/2, 1)
}

// partitionSpan is what a device must hold to mine roots c: every edge a
// match ending in c can use lies from delta before c's first edge, and
// anti-edge intervals reach at most delta past c's last edge.
func partitionSpan(w *window.Window, p *motif.Plan, c motif.Range) (lo, hi int64) {
	lo = w.SearchTime(motif.SubTicks(w.T(c.Lo), p.Delta))
	hi = c.Hi
	if len(p.Antis) > 0 {
		if end := motif.AddTicks(w.T(c.Hi-1), p.Delta); end == math.MaxInt64 {
			hi = w.End() // the interval reaches the last possible tick
		} else {
			hi = w.SearchTime(end + 1)
		}
	}
	return lo, hi
}

// splitRoots cuts [lo, hi) into at most n chunks of near-equal size.
func splitRoots(lo, hi int64, n int) []motif.Range {
	total := hi - lo
	if int64(n) > total {
		n = int(total)
	}
	out := make([]motif.Range, 0, n)
	for i := 0; i < n; i++ {
		a := lo + total*int64(i)/int64(n)
		b := lo + total*int64(i+1)/int64(n)
		out = append(out, motif.Range{Lo: a, Hi: b})
	}
	return out
}

// mine runs the mining kernel over roots [lo, hi) until done, draining
// the output buffer to emit whenever it fills (enumerate mode) and
// relaunching: warps that found it full saved their unfinished subtrees in
// the device queue, so nothing is lost or repeated.
//
// encs are the queries mined over those roots in one launch (one in
// enumerate mode), one result each; the work done (Steps) is the
// launch's, reported on the first. One query runs the kernel's mine*
// build (its plan at fixed addresses), several its mineq* build, which
// counts only and has no budget or deadline (limit must report none);
// the build with the closing-edge pruning when a plan has it laid out
// (launchKernel picks it).
//
// limit returns the budget (steps) and time (ns) left, 0 for none, or
// over when one is spent: the kernel stops its warps at them (C_TRUNC),
// and a truncated launch is not resumed.
func (d *device) mine(encs []*encodedPlan, lo, hi, horizon int64, mask []bool, enumerate bool, emit func([]int64, int) error,
	limit func() (budget, nsLeft int64, over bool)) ([]motif.Result, error) {
	nq := len(encs)
	if nq == 0 || nq > maxQueries || (enumerate && nq > 1) {
		return nil, fmt.Errorf("gpu: %d queries in one launch (at most %d, one when enumerating)", nq, maxQueries)
	}
	rs := make([]motif.Result, nq)
	if err := d.uploadPlans(encs); err != nil {
		return rs, err
	}
	maskPtr := cu.DevicePtr(0)
	if mask != nil {
		n := int64(len(mask))
		if n > d.maskCap {
			d.pool.put(d.mask)
			var err error
			if d.mask, err = d.pool.get(d, n); err != nil {
				return rs, err
			}
			d.maskCap = sizeClass(n)
		}
		if err := d.htod(d.mask, unsafe.Pointer(&mask[0]), n); err != nil {
			return rs, err
		}
		maskPtr = d.mask
	}
	outPtr := cu.DevicePtr(0)
	var outCap int64
	if enumerate {
		if d.out == 0 {
			var err error
			if d.out, err = d.pool.get(d, d.outCap*recSlots*8); err != nil {
				return rs, err
			}
		}
		outPtr, outCap = d.out, d.outCap
	}
	kernel, grid := launchKernel(encs, hi-lo >= d.expand2Roots, enumerate), d.sms*miningOccupancy
	// Suspensions always find room: splits stop short of the last
	// warps × steps slots.
	splitCap := d.queueCap - int64(grid*warpsPerBlock*maxK)
	if splitCap < 0 {
		splitCap = 0
	}
	// ctl is the control blocks (one per query; the scheduling slots are
	// the first's) as the next launch starts from them: zero the first
	// time, then as the last launch left them with the output count and
	// the overflow flag cleared (C_STEPS goes on across this call's
	// launches, as the budget left by other chunks does). One copy up per
	// launch, one down.
	var ctlBuf [maxQueries * ctlSlots]uint64
	ctl := ctlBuf[:nq*ctlSlots]
	truncated := false
	for {
		budget, nsLeft, over := limit()
		if over {
			truncated = true
			break
		}
		if nq > 1 && (budget != 0 || nsLeft != 0) {
			return rs, errors.New("gpu: a launch of several queries has no budget or deadline")
		}
		ctl[cBudget], ctl[cNsLeft] = uint64(budget), uint64(nsLeft)
		if err := d.htod(d.ctl, unsafe.Pointer(&ctl[0]), int64(len(ctl))*8); err != nil {
			return rs, err
		}
		t0 := time.Now()
		if err := d.launch(kernel, grid, warpsPerBlock*32, d.win.win, lo, hi, horizon, maskPtr, d.ctl, d.queue,
			d.queueCap, splitCap, outPtr, outCap, boolInt(enumerate), int64(nq), int64(d.group)); err != nil {
			return rs, err
		}
		if err := d.sync("mine"); err != nil {
			return rs, err
		}
		if err := d.dtoh(unsafe.Pointer(&ctl[0]), d.ctl, int64(len(ctl))*8); err != nil {
			return rs, err
		}
		t1 := time.Now()
		d.mineTime += t1.Sub(t0)
		if n := int64(ctl[cOutCount]); n > 0 {
			if int64(len(d.host)) < n*recSlots {
				d.host = make([]int64, n*recSlots)
			}
			if err := d.dtoh(unsafe.Pointer(&d.host[0]), d.out, n*recSlots*8); err != nil {
				return rs, err
			}
			err := emit(d.host, int(n))
			d.drainTime += time.Since(t1)
			if err != nil {
				rs[0].Matches, rs[0].Open = int64(ctl[cMatches]), int64(ctl[cOpen])
				return rs, err
			}
		}
		if ctl[cTrunc] != 0 {
			truncated = true
			break
		}
		if ctl[cOverflow] == 0 {
			break
		}
		ctl[cOverflow], ctl[cOutCount] = 0, 0
	}
	// Roots counts the unmasked positions, as the CPU engine does.
	roots := hi - lo
	if mask != nil {
		roots = 0
		for _, m := range mask {
			if m {
				roots++
			}
		}
	}
	for q := range rs {
		c := ctl[q*ctlSlots:]
		rs[q] = motif.Result{Matches: int64(c[cMatches]), Open: int64(c[cOpen]), Splits: int64(c[cSplits]), Roots: roots,
			Truncated: truncated}
	}
	rs[0].Steps = int64(ctl[cSteps])
	return rs, nil
}

// uploadPlans makes the constant plans hold encs, query q at slot q. The
// plans stay resident: a slot that holds its plan already (a query mined
// batch after batch, the chunks of one call) is not copied again.
func (d *device) uploadPlans(encs []*encodedPlan) error {
	for q, enc := range encs {
		if old := d.plans[q]; old != nil && (old == enc || old.P == enc.P && old.PF == enc.PF) {
			continue
		}
		d.plans[q] = nil // a failed copy leaves the slot's plan unknown
		if err := d.htod(d.planP+cu.DevicePtr(q*planLen*8), unsafe.Pointer(&enc.P[0]), int64(len(enc.P))*8); err != nil {
			return err
		}
		if err := d.htod(d.planF+cu.DevicePtr(q*pfSize*8), unsafe.Pointer(&enc.PF[0]), int64(len(enc.PF))*8); err != nil {
			return err
		}
		d.plans[q] = enc
	}
	return nil
}
