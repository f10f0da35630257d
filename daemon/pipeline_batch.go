package daemon

import (
	"context"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/stream"
)

// batch releases what the watermark allows, mines it, writes the alerts
// and commits what is safe.
func (p *pipeline) batch(ctx context.Context) error {
	p.flushCounts()
	start := time.Now()
	p.reorder.IgnoreSilenceBefore(p.health.quietFrom())
	p.refreshPending(ctx)
	// Edges released early (takeChunk, a cap) go first: they precede
	// everything still buffered in (t, seq) order.
	// (The watermark never moves back: this release's covers theirs.)
	if p.early == nil {
		p.early = make([]*ingest.Edge, 0, p.batchSize)
	}
	// The edges stay in the reorder buffer (no copy) until recycled below.
	edges, wm := p.reorder.AppendReleaseRefs(p.early)
	p.early = nil // until the batch is processed (below)
	p.stage[stageReorder] += time.Since(start)
	releasedEarly := p.reorder.Forced() - p.forcedSeen
	if f := p.reorder.Forced(); f > p.forcedSeen {
		p.proc.NoteCap(stream.CapReorder)
		p.capLog(stream.CapReorder, "the reorder buffer released edges before the watermark passed them; later edges at or below it are late",
			"released_early", f-p.forcedSeen, "watermark", wm, "buffered", p.reorder.Len(), "buffered_bytes", p.reorder.Bytes())
		p.forcedSeen = f
	}
	p.im.SetBuffered(p.reorder.Len())
	if wm != math.MinInt64 {
		p.im.SetWatermark(wm, p.schema.TimeUnit, time.Now())
	}
	var out *stream.Output
	if len(edges) > 0 || p.pending > 0 {
		var err error
		out, err = p.proc.ProcessRefs(ctx, edges, wm)
		// The processor copied what it keeps (Refused included): the
		// edges' room goes back to the buffer.
		p.reorder.Recycle(len(edges))
		if err != nil {
			return err
		}
		p.stage[stageWindow] += out.Stages.Window
		p.stage[stageDeviceSync] += out.Stages.DeviceSync
		p.stage[stageMine] += out.Stages.Mine
		if err := p.deadLetterRefused(ctx, out.Refused); err != nil {
			return err
		}
		// The processor copied what it keeps: the next release reuses the
		// slice (growing a fresh one per batch of 100,000 edges was a
		// third of the pipeline goroutine's time).
		clear(edges)
		p.early = edges[:0]
		p.stats.Appended += int64(out.Appended)
		p.stats.SelfLoops += int64(out.SelfLoops)
		p.pm.records.WithLabelValues("appended").Add(float64(out.Appended))
		p.pm.records.WithLabelValues("self_loop").Add(float64(out.SelfLoops))
		p.router.Add(out.Alerts)
		for q, n := range out.Counts {
			p.router.AddCount(q, n)
		}
	}
	// Dead letters before alerts and commit: the offsets committed below
	// cover the dead-lettered records. Both count as alert_write.
	t := time.Now()
	if err := p.flushDeadLetters(ctx); err != nil {
		return err
	}
	if err := p.flush(ctx); err != nil {
		return err
	}
	t2 := time.Now()
	p.stage[stageAlertWrite] += t2.Sub(t)
	p.stats.Alerts, p.stats.RateLimited = p.router.Alerted()
	if err := p.commit(ctx); err != nil {
		return err
	}
	end := time.Now()
	p.stage[stageCommit] += end.Sub(t2)
	var lag int64
	if l, ok := p.src.(interface{ Lag() map[int]int64 }); ok {
		for part, n := range l.Lag() {
			p.pm.lag.WithLabelValues(strconv.Itoa(part)).Set(float64(n))
			lag += n
		}
	}
	if p.board != nil {
		st := batchStatus{records: p.pending, lag: lag, watermark: wm, hasWatermark: wm != math.MinInt64, buffered: p.reorder.Len()}
		if out != nil {
			st.edges, st.matches = out.Appended, matchesOf(out)
			st.hasWindow, st.windowEdges, st.windowBytes = true, p.proc.Window().Len(), out.WindowBytes
		}
		p.board.batch(st)
	}
	p.pm.batch(len(edges), end.Sub(start))
	if len(edges) > 0 || p.pending > 0 {
		r := BatchReport{Records: p.pending, Edges: len(edges), Stages: p.stage, Done: end,
			Late: int(p.stats.Late - p.reported.Late), DeadLettered: int(p.stats.DeadLettered - p.reported.DeadLettered),
			ReleasedEarly: int(releasedEarly)}
		p.reported = p.stats
		if p.pending > 0 {
			r.Latency, r.FirstFetched = end.Sub(p.firstFetch), p.firstFetch
			p.pm.latencySeconds.Observe(r.Latency.Seconds())
		}
		for i, d := range p.stage {
			p.pm.stages[i].Observe(d.Seconds())
		}
		if p.onBatch != nil {
			p.onBatch(r)
		}
		p.stage = [numStages]time.Duration{}
	}
	p.pending = 0
	p.pauseAhead()
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
