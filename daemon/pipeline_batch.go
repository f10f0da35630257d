package daemon

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// The pipeline goroutine's steps per chunk and per batch. takeChunk takes
// a chunk from the intake through admission into the batcher, closing a
// batch at batch_size records; startBatch releases the batch from the
// batcher and hands it to the miner, which appends, mines, alerts and
// commits it on a goroutine of its own (miner.go) while the pipeline
// goroutine takes the next batch's records in. The pipeline goroutine
// waits for the batches in flight (awaitMined) before the window, the
// processor or the router are touched again: for a query update or a
// gpm snapshot, when the dead letters it queued fill their queue, when
// the records it holds and those in flight reach the reorder buffer's
// caps, when partitions change, and at the end. collect takes each
// batch's result back (record accounting, metrics, the batch report) on
// the pipeline goroutine, in release order.

// takeChunk takes a decoded chunk in, closing a batch whenever
// batch_size records are pending: it is mined on its own goroutine while
// the next records are taken in (startBatch). Stretches of records that
// need nothing but joining the reorder buffer go in whole, where they lie
// (admission.takeRun); the others one by one (admission.take). It is the
// one way records come in.
func (p *pipeline) takeChunk(ctx context.Context, c *kafka.Chunk) error {
	if c.Position != nil {
		return p.partitions.takePosition(ctx, c.Partition, c.Position)
	}
	if drop, err := p.partitions.dropChunk(c); drop || err != nil {
		return err
	}
	a, b := p.admit, p.batcher
	defer a.flushCounts()
	p.stage[stageFetch] += c.FetchTime
	p.stage[stageDecode] += c.DecodeTime
	start := time.Now()
	kept := false
	for i := 0; i < len(c.Recs); {
		if n := a.takeRun(c, i, b.runLimits(p.miner.flightSize())); n > 0 {
			i += n
			kept = true
		} else {
			if err := a.take(ctx, &c.Recs[i], c.Fetched, &c.Edges[i], c.Errs[i]); err != nil {
				return err
			}
			i++
		}
		// A batch closes at batch_size records. A reorder buffer over a
		// cap releases edges early into the batch at once (its memory
		// must not wait for batch_size) without closing it: a batch per
		// release would mine a backlog whose partitions run apart in
		// event time a few edges at a time.
		//
		// The batches in flight count towards the caps too: over them,
		// taking in waits for them (not counted as reorder time).
		// (takeRun stops before a record that would reach a cap.)
		if b.overCap(p.miner.flightSize()) {
			p.stage[stageReorder] += time.Since(start)
			if err := p.awaitMined(); err != nil {
				return err
			}
			start = time.Now()
		}
		b.releaseOverCap()
		if b.full() {
			p.stage[stageReorder] += time.Since(start)
			if err := p.startBatch(ctx); err != nil {
				return err
			}
			start = time.Now()
		}
	}
	if kept {
		c.KeepEdges() // the reorder buffer holds them where they lie
	}
	p.stage[stageReorder] += time.Since(start)
	return nil
}

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
// the new one (miner.start), without waiting for that. The release, which
// only touches the reorder buffer, overlaps the previous batch's mining.
func (p *pipeline) startBatch(ctx context.Context) error {
	a, b := p.admit, p.batcher
	a.flushCounts()
	start := time.Now()
	b.reorder.IgnoreSilenceBefore(p.parts.health.quietFrom())
	if err := p.partitions.applyTopicChanges(); err != nil {
		return err
	}
	b.refreshPending(ctx)
	j := b.release(start)
	p.stage[stageReorder] += time.Since(start)
	if j.releasedEarly > 0 {
		a.caps.note(stream.CapReorder, "the reorder buffer released edges before the watermark passed them; later edges at or below it are late",
			"released_early", j.releasedEarly, "watermark", j.wm, "buffered", b.reorder.Len(), "buffered_bytes", b.reorder.Bytes())
	}
	p.parts.im.SetBuffered(b.reorder.Len())
	if j.wm != math.MinInt64 {
		p.parts.im.SetWatermark(j.wm, p.parts.schema.TimeUnit, time.Now())
	}
	pos := p.partitions.pos
	pos.liftClamps(j.wm)
	// Held edges the release discarded: dead letters of this batch.
	if err := a.settleEventTime(ctx, j.wm); err != nil {
		return err
	}
	// Everything taken in so far is the batch's: its offsets, its dead
	// letters, its stages (an empty batch leaves the stages to the next).
	j.taken, j.floor, j.clamps = pos.taken(b.reorder), pos.historyBefore, pos.clamps
	j.dead = a.dead.take()
	p.in.pauseAhead(b.reorder)
	if p.miner.full() {
		if err := p.awaitOldest(); err != nil {
			return err
		}
	}
	if !j.empty() {
		j.stage, p.stage = p.stage, [numStages]time.Duration{}
	}
	p.miner.start(ctx, j)
	return nil
}

// awaitMined waits for every batch in flight, if any (the time counts as
// the next batch's mine_wait), and collects them in release order: the
// first error, if one failed. Afterwards nothing but the pipeline
// goroutine uses the processor, the router or the window.
func (p *pipeline) awaitMined() error {
	for p.miner.inFlight() > 0 {
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
	start := time.Now()
	j := p.miner.oldest()
	p.stage[stageMineWait] += time.Since(start)
	err := p.collect(j)
	if err != nil {
		for p.miner.inFlight() > 0 {
			p.collect(p.miner.oldest()) // skipped: its error is err's
		}
	}
	return err
}

// collect takes a batch the miner is done with, j (the oldest), back on
// the pipeline goroutine: its record accounting, metrics, status and
// report.
func (p *pipeline) collect(j *minedBatch) error {
	// Its edges' room goes back to the reorder buffer (they were handed
	// out first of those not recycled: batches are collected in release
	// order, and the batches released behind it, and edges released early
	// for the one after, came after).
	p.batcher.reorder.Recycle(len(j.edges))
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
	p.batcher.keepSpare(j.edges)
	pm := p.parts.pm
	var lag int64
	if l, ok := p.in.src.(interface{ Lag() map[int]int64 }); ok {
		for part, n := range l.Lag() {
			pm.lag.WithLabelValues(strconv.Itoa(part)).Set(float64(n))
			lag += n
		}
	}
	if board := p.parts.board; board != nil {
		st := batchStatus{records: j.records, lag: lag, watermark: j.wm, hasWatermark: j.wm != math.MinInt64, buffered: j.buffered}
		if out := j.out; out != nil {
			st.edges, st.matches, st.estimates = out.Appended, matchesOf(out), out.Estimates
			st.hasWindow, st.windowEdges, st.windowBytes = true, j.windowEdges, out.WindowBytes
		}
		board.batch(st)
	}
	pm.batch(len(j.edges), j.end.Sub(j.start))
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
		pm.latencySeconds.Observe(r.Latency.Seconds())
	}
	for i, d := range j.stage {
		pm.stages[i].Observe(d.Seconds())
	}
	if p.parts.onBatch != nil {
		p.parts.onBatch(r)
	}
	return nil
}
