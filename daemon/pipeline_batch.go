package daemon

import (
	"context"
	"math"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/stream"
)

// A batch goes through two goroutines. The pipeline goroutine releases
// it from the reorder buffer (startBatch) and hands it to a goroutine of
// its own that appends it to the window, mines it, writes its dead
// letters and alerts and commits its offsets (mineBatch); meanwhile the
// pipeline goroutine takes the next batches' records in and releases
// them. Up to maxBatchesInFlight batches are released and not yet
// collected: each one's goroutine waits for the one before to finish
// (the chain of done channels), so batches are mined one at a time and
// in release order, and the window, the processor and the router still
// have one user at a time and need no lock. The pipeline goroutine waits
// for the oldest batch (awaitOldest) when it would release one more than
// that, and for all of them (awaitMined) before the window, the
// processor or the router are touched again: for a query update or a
// gpm snapshot, when the dead letters it queued fill their queue, when
// the records it holds and those in flight reach the reorder buffer's
// caps, and at the end. The result (record accounting, metrics, the
// batch report) is taken back on the pipeline goroutine, in release
// order (collect).

// maxBatchesInFlight is how many released batches may wait for their
// collection: one being mined, the next released behind it, so that the
// pipeline goroutine takes in (and the partitions fetch) the one after
// while the miner is busy, instead of both stages handing off and idling
// in turn. Their edges count towards the reorder buffer's caps
// (inFlightOverCap).
const maxBatchesInFlight = 2

// minedBatch is one batch between its release and its collection.
type minedBatch struct {
	// Set at the release, on the pipeline goroutine.
	// edges lie in the reorder buffer until collect recycles them
	// (ingest.Reorder.AppendReleaseRefs): read, never written, meanwhile.
	edges []*ingest.Edge
	wm    int64
	// taken is the committable offsets as of the release (pipeline.taken);
	// mineBatch lowers them to the held matches' once mined, within floor
	// and clamps (the pipeline's as of the release: pipeline.settled).
	taken  map[int]int64
	floor  map[int]int64
	clamps map[int]commitClamp
	// dead is the dead letters queued up to the release: written before
	// the batch's alerts and offsets.
	dead deadQueue
	// records were taken in since the previous batch, the first fetched
	// at firstFetch; start is when the release began.
	records           int
	firstFetch, start time.Time
	// stage is the batch's time per stage: taking its records in and
	// releasing it (pipeline goroutine), then mining it.
	stage [numStages]time.Duration
	// buffered is the reorder buffer's edges after the release;
	// inFlightBytes the released edges' bytes (the caps count them until
	// collected).
	buffered      int
	inFlightBytes int64
	releasedEarly int64

	// Set by mineBatch; read once done is closed. skipped: the batch
	// before it failed, so it was not mined (the pipeline returns that
	// batch's error).
	out     *stream.Output
	skipped bool
	// stats holds what mining added: appended, self-loops and the dead
	// letters written (Alerts and RateLimited aside: alerted).
	stats                pipelineStats
	flushed              bool
	alerted, rateLimited int64
	windowEdges          int
	end                  time.Time
	err                  error
	done                 chan struct{}
}

// empty reports whether the batch had nothing to mine (no record taken
// in, no edge released): a timer's batch that only flushes and commits.
func (j *minedBatch) empty() bool { return len(j.edges) == 0 && j.records == 0 }

// batch releases what the watermark allows, mines it, writes the alerts
// and commits what is safe, and returns once all that is done (tests,
// the final batch at shutdown).
func (p *pipeline) batch(ctx context.Context) error {
	if err := p.startBatch(ctx); err != nil {
		return err
	}
	return p.awaitMined()
}

// startBatch releases what the watermark allows, waits for the batch
// being mined (the window takes one batch at a time) and starts mining
// the new one (mineBatch), without waiting for that. The release, which
// only touches the reorder buffer, overlaps the previous batch's mining.
func (p *pipeline) startBatch(ctx context.Context) error {
	p.flushCounts()
	start := time.Now()
	p.reorder.IgnoreSilenceBefore(p.health.quietFrom())
	if err := p.applyTopicChanges(); err != nil {
		return err
	}
	p.refreshPending(ctx)
	// Edges released early (takeChunk, a cap) go first: they precede
	// everything still buffered in (t, seq) order.
	// (The watermark never moves back: this release's covers theirs.)
	before := p.reorder.Bytes()
	edges, wm := p.reorder.AppendReleaseRefs(p.earlyEdges())
	j := &minedBatch{edges: edges, wm: wm, start: start, records: p.pending, firstFetch: p.firstFetch,
		inFlightBytes: p.earlyBytes + before - p.reorder.Bytes(), buffered: p.reorder.Len()}
	p.early, p.earlyBytes = nil, 0
	p.stage[stageReorder] += time.Since(start)
	j.releasedEarly = p.reorder.Forced() - p.forcedSeen
	if f := p.reorder.Forced(); f > p.forcedSeen {
		p.proc.NoteCap(stream.CapReorder) // a counter: safe beside the batch being mined
		p.capLog(stream.CapReorder, "the reorder buffer released edges before the watermark passed them; later edges at or below it are late",
			"released_early", f-p.forcedSeen, "watermark", wm, "buffered", p.reorder.Len(), "buffered_bytes", p.reorder.Bytes())
		p.forcedSeen = f
	}
	p.im.SetBuffered(p.reorder.Len())
	if wm != math.MinInt64 {
		p.im.SetWatermark(wm, p.schema.TimeUnit, time.Now())
	}
	p.liftClamps(wm)
	// Held edges the release discarded: dead letters of this batch.
	if err := p.settleEventTime(ctx, wm); err != nil {
		return err
	}
	// Everything taken in so far is the batch's: its offsets, its dead
	// letters, its stages (an empty batch leaves the stages to the next).
	j.taken, j.floor, j.clamps = p.taken(), p.historyBefore, p.clamps
	j.dead, p.dead = p.dead, deadQueue{}
	p.pending = 0
	p.pauseAhead()
	if len(p.flight) >= maxBatchesInFlight {
		if err := p.awaitOldest(); err != nil {
			return err
		}
	}
	if !j.empty() {
		j.stage, p.stage = p.stage, [numStages]time.Duration{}
	}
	var prev *minedBatch
	if n := len(p.flight); n > 0 {
		prev = p.flight[n-1]
	}
	p.flight = append(p.flight, j)
	j.done = make(chan struct{})
	go func() {
		defer close(j.done)
		if prev != nil {
			// One batch at a time, in release order.
			<-prev.done
			if prev.err != nil || prev.skipped {
				j.skipped = true
				return
			}
		}
		pprof.Do(ctx, pprof.Labels(profileLabel, "mine"), func(ctx context.Context) { j.err = p.mineBatch(ctx, j) })
	}()
	return nil
}

// earlyEdges returns the slice the next early release appends to: the
// edges released early so far, or an empty one (a mined batch's, reused:
// growing a fresh one per batch of 100,000 edges was a third of the
// pipeline goroutine's time).
func (p *pipeline) earlyEdges() []*ingest.Edge {
	if p.early != nil {
		return p.early
	}
	if n := len(p.spare); n > 0 {
		e := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return e
	}
	return make([]*ingest.Edge, 0, p.batchSize)
}

// mineBatch runs on the batch's own goroutine: it appends the batch to
// the window and mines it, writes its dead letters and alerts, and
// commits what is safe. It touches the processor, the router, the
// dead-letter writer, the committer and j, nothing the pipeline goroutine
// uses meanwhile.
func (p *pipeline) mineBatch(ctx context.Context, j *minedBatch) error {
	if !j.empty() {
		out, err := p.proc.ProcessRefs(ctx, j.edges, j.wm)
		if err != nil {
			return err
		}
		j.out = out
		j.stage[stageWindow] += out.Stages.Window
		j.stage[stageDeviceSync] += out.Stages.DeviceSync
		j.stage[stageMine] += out.Stages.Mine
		if err := p.deadLetterRefused(ctx, out.Refused, &j.dead, &j.stats); err != nil {
			return err
		}
		// The processor copied what it keeps: the slice is reused (see
		// earlyEdges), and the edges' room in the reorder buffer (collect).
		clear(j.edges)
		j.stats.Appended += int64(out.Appended)
		j.stats.SelfLoops += int64(out.SelfLoops)
		p.pm.countRecords("appended", out.Appended)
		p.pm.countRecords("self_loop", out.SelfLoops)
		p.router.Add(out.Alerts)
		for q, n := range out.Counts {
			p.router.AddCount(q, n)
		}
		j.windowEdges = p.proc.Window().Len()
	}
	// Dead letters before alerts and commit: the offsets committed below
	// cover the dead-lettered records. Both count as alert_write.
	t := time.Now()
	if err := p.flushDeadLetters(ctx, &j.dead, &j.stats); err != nil {
		return err
	}
	if err := p.flush(ctx); err != nil {
		return err
	}
	t2 := time.Now()
	j.stage[stageAlertWrite] += t2.Sub(t)
	j.alerted, j.rateLimited = p.router.Alerted()
	j.flushed = true
	if err := p.commit(ctx, p.settled(j.taken, j.floor, j.clamps)); err != nil {
		return err
	}
	j.end = time.Now()
	j.stage[stageCommit] += j.end.Sub(t2)
	return nil
}

// minedDone is closed once the oldest batch in flight is done (nil:
// none is in flight).
func (p *pipeline) minedDone() <-chan struct{} {
	if len(p.flight) == 0 {
		return nil
	}
	return p.flight[0].done
}

// awaitMined waits for every batch in flight, if any (the time counts as
// the next batch's mine_wait), and collects them in release order: the
// first error, if one failed. Afterwards nothing but the pipeline
// goroutine uses the processor, the router or the window.
func (p *pipeline) awaitMined() error {
	for len(p.flight) > 0 {
		if err := p.awaitOldest(); err != nil {
			return err
		}
	}
	return nil
}

// awaitOldest waits for the oldest batch in flight (the time counts as
// the next batch's mine_wait) and collects it. After an error the later
// batches are skipped (not mined) and collected as well, so that none is
// left behind.
func (p *pipeline) awaitOldest() error {
	j := p.flight[0]
	start := time.Now()
	<-j.done
	p.stage[stageMineWait] += time.Since(start)
	err := p.collect(j)
	if err != nil {
		for len(p.flight) > 0 {
			<-p.flight[0].done
			p.collect(p.flight[0]) // skipped: its error is err's
		}
	}
	return err
}

// inFlightOverCap reports whether the reorder buffer's edges and those of
// the batches in flight together exceed a cap of the buffer
// (window.max_buffered, its share of max_buffered_bytes): taking more in
// waits for them, as it did before batches were mined beside the
// intake. (Over a cap on its own, the buffer releases early: takeChunk.)
func (p *pipeline) inFlightOverCap() bool {
	if len(p.flight) == 0 {
		return false
	}
	edges, bytes := p.flightSize()
	return (p.maxBuffered > 0 && p.reorder.Len()+edges > p.maxBuffered) ||
		(p.maxBufferedBytes > 0 && p.reorder.Bytes()+bytes > p.maxBufferedBytes)
}

// flightSize returns the edges of the batches in flight and what they
// weighed in the reorder buffer.
func (p *pipeline) flightSize() (edges int, bytes int64) {
	for _, j := range p.flight {
		edges += len(j.edges)
		bytes += j.inFlightBytes
	}
	return edges, bytes
}

// collect takes the oldest batch in flight, j, back on the pipeline
// goroutine: its record accounting, metrics, status and report.
func (p *pipeline) collect(j *minedBatch) error {
	n := copy(p.flight, p.flight[1:])
	p.flight[n] = nil
	p.flight = p.flight[:n]
	// Its edges' room goes back to the reorder buffer (they were handed
	// out first of those not recycled: batches are collected in release
	// order, and the batches released behind it, and edges released early
	// for the one after, came after).
	p.reorder.Recycle(len(j.edges))
	if j.skipped {
		return nil
	}
	p.stats.add(j.stats)
	if j.flushed {
		p.stats.Alerts, p.stats.RateLimited = j.alerted, j.rateLimited
	}
	if j.err != nil {
		return j.err
	}
	if cap(j.edges) > 0 && len(p.spare) < maxBatchesInFlight {
		p.spare = append(p.spare, j.edges[:0])
	}
	var lag int64
	if l, ok := p.src.(interface{ Lag() map[int]int64 }); ok {
		for part, n := range l.Lag() {
			p.pm.lag.WithLabelValues(strconv.Itoa(part)).Set(float64(n))
			lag += n
		}
	}
	if p.board != nil {
		st := batchStatus{records: j.records, lag: lag, watermark: j.wm, hasWatermark: j.wm != math.MinInt64, buffered: j.buffered}
		if out := j.out; out != nil {
			st.edges, st.matches = out.Appended, matchesOf(out)
			st.hasWindow, st.windowEdges, st.windowBytes = true, j.windowEdges, out.WindowBytes
		}
		p.board.batch(st)
	}
	p.pm.batch(len(j.edges), j.end.Sub(j.start))
	if j.empty() {
		// Its flush and commit count towards the next batch.
		for i, d := range j.stage {
			p.stage[i] += d
		}
		return nil
	}
	r := BatchReport{Records: j.records, Edges: len(j.edges), Stages: j.stage, Done: j.end,
		Late: int(p.stats.Late - p.reported.Late), DeadLettered: int(p.stats.DeadLettered - p.reported.DeadLettered),
		ReleasedEarly: int(j.releasedEarly)}
	p.reported = p.stats
	if j.records > 0 {
		r.Latency, r.FirstFetched = j.end.Sub(j.firstFetch), j.firstFetch
		p.pm.latencySeconds.Observe(r.Latency.Seconds())
	}
	for i, d := range j.stage {
		p.pm.stages[i].Observe(d.Seconds())
	}
	if p.onBatch != nil {
		p.onBatch(r)
	}
	return nil
}

// pauseAhead tells the source which partitions run ahead in event time
// (ingest.Reorder.AppendAhead): they are not fetched until the watermark
// catches up, so a skewed backlog stays within the reorder buffer's caps
// without making the others' records late.
func (p *pipeline) pauseAhead() {
	p.ahead = p.reorder.AppendAhead(p.ahead[:0])
	slices.Sort(p.ahead)
	if slices.Equal(p.ahead, p.paused) {
		return
	}
	p.paused = append(p.paused[:0], p.ahead...)
	p.src.Pause(p.paused)
	if p.pm != nil {
		p.pm.pausedPartitions.Set(float64(len(p.paused)))
	}
}

// flush writes the alerts, retrying until they are acknowledged or ctx
// ends: offsets must not move past unacknowledged alerts. (The Kafka sink
// retries transient failures inside Flush and reports each to alertRetry
// through its OnRetry hook; what comes back here is anything else.)
func (p *pipeline) flush(ctx context.Context) error {
	return p.alertRetry.do(ctx, 0, p.router.Flush)
}

// refreshPending asks the brokers, every endCheckEvery, for the log end
// of the partitions this pipeline reads, and marks those with records it
// has not fetched yet as pending, which never go idle. Without it, a
// partition whose fetches stall (a slow broker, a rebalance, a loaded
// machine) for the idle timeout while the others flow looked idle: the
// watermark passed it and its records, once fetched, were late (seen in
// a loaded CI run: 920 records dead-lettered as late). Records clear the
// flag again when they reach the end (take). A failed lookup changes
// nothing: an unreachable broker is an outage, which does not count
// towards idleness either (IgnoreSilenceBefore).
//
// It also asks, whatever the interval, before a batch whose new records
// could move the watermark past a partition that counts as idle: records
// come a fetch per partition, and the whole of one partition's fetch
// (hours of event time) could otherwise release the others' edges before
// their fetches, of records written at the same moment, came back
// (613 records late in one standby-takeover test run).
func (p *pipeline) refreshPending(ctx context.Context) {
	if p.endOffsets == nil || len(p.next) == 0 {
		return
	}
	if time.Since(p.endCheckedAt) < p.endCheckEvery && (p.pending == 0 || !p.reorder.AnyIdle()) {
		return
	}
	p.endCheckedAt = time.Now()
	cctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	ends, err := p.endOffsets(cctx)
	if err != nil {
		return
	}
	pend := func(part int, next int64) {
		if end, ok := ends[part]; ok && end > next {
			p.reorder.SetPending(part, true)
		}
	}
	for part, next := range p.next {
		pend(part, next)
	}
	// Partitions not read from yet, from where the window was built (a
	// reader that reaches them late must not find its records late).
	for part, start := range p.readFrom {
		if _, read := p.next[part]; !read {
			pend(part, start)
		}
	}
}

// endCheckInterval is how often refreshPending asks: four times per idle
// timeout, so a stalled partition is marked pending well before it could
// count as idle (never with idleness off; at most once a second).
func endCheckInterval(idle time.Duration) time.Duration {
	if idle <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return min(max(idle/4, 50*time.Millisecond), time.Second)
}
