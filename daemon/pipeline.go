package daemon

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/kafka"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/stream"
)

// pipeline is the single goroutine that owns decoder, reorder buffer,
// processor and router; see the package doc. newPipeline builds it
// complete: what the process shares (pipelineParts), how this instance
// takes part in its group (mode), and where it begins (start).
type pipeline struct {
	*pipelineParts
	mode
	start
	proc   *stream.Processor
	router *alerts.Router

	batchSize int
	maxWait   time.Duration
	// shutdownTimeout bounds the final batch, flush and commit.
	shutdownTimeout time.Duration
	// The retriers ride out broker outages per operation (see health.go);
	// alertRetry is shared with the sink (pipelineParts).
	fetchRetry, commitRetry, dlqRetry *retrier

	// unsettled holds the offsets of batches whose alerts are not all
	// durable yet.
	unsettled commitQueue

	// queries is the query set in force (for the next generation's
	// pipeline).
	queries querySet
	// forcedSeen is the reorder buffer's Forced count already reported.
	forcedSeen int64

	// next[p] is the offset after the last record fetched from partition p;
	// pending counts records taken in since the last batch.
	next    map[int]int64
	pending int
	// Every endCheckEvery, refreshPending marks the partitions with
	// records not fetched yet as pending.
	endCheckEvery time.Duration
	endCheckedAt  time.Time
	// firstFetch is when the batch in hand's first record arrived: the
	// start of its end-to-end latency.
	firstFetch time.Time
	// stats is the record accounting: records = appended + self-loops +
	// late + dead-lettered (+ skipped, scaled out).
	stats pipelineStats

	// paused is the partitions the source was last told to pause
	// (reorder.AppendAhead); ahead is scratch for the next set.
	paused, ahead []int
	// stage accumulates the time of each stage since the last batch;
	// reported is stats as of the last BatchReport.
	stage    [numStages]time.Duration
	reported pipelineStats
	// uncounted batches the per-record ingest metrics.
	uncounted uncountedRecords

	// dead is the dead letters not yet written (deadletter.go).
	dead deadQueue

	// early is the edges the reorder buffer released early (over a cap)
	// since the last batch, in order: the next batch mines them before
	// anything newer. Commits happen only in batch, after they are
	// processed, so the committed offsets never pass them.
	early []ingest.Edge

	// future is window.max_future; capLimiter rate-limits cap log lines.
	future     futureCap
	capLimiter *ratelog.Limiter
}

// mode is how an instance takes part in its consumer group: where its
// records come from, how it commits, which partitions are its duty, and
// whether it checks for a takeover. Each of single instance (standing by
// or not, standalone.go) and scaled-out member (scaleout.go) supplies
// its own.
type mode struct {
	src     recordSource
	commits committer
	duty    dutyPolicy
	guard   takeoverGuard
}

// start is where a pipeline begins: what rebuilding its window from
// Kafka found (rebuild; scaleOut.rebuild).
type start struct {
	// reorder holds the History edges re-read (without scale-out), and
	// knows which partitions have records not read yet.
	reorder *ingest.Reorder
	// Records below historyBefore[p] (the committed offset the pipeline
	// starts from) are History: in the window, never mined as last edges.
	historyBefore map[int]int64
	// resume is the previous owner's resume state per partition: the
	// records in [committed[p], resume[p].Processed) with times at or
	// below its watermark were mined before (Replayed).
	resume map[int]resumeState
	// readFrom[p] is where reading partition p starts: the window was
	// rebuilt up to it (refreshPending, for partitions not read yet).
	readFrom map[int]int64
}

// newPipeline returns a pipeline mining qs that begins at st and takes
// part in its group as m says.
func (s *pipelineParts) newPipeline(qs querySet, st start, m mode) (*pipeline, error) {
	proc, router, err := s.newMiner(qs, s.reg)
	if err != nil {
		return nil, err
	}
	m.duty.restrict(proc)
	for part, rs := range st.resume {
		proc.ResumePartition(part, rs.spans())
	}
	w := &s.cfg.Window
	return &pipeline{pipelineParts: s, mode: m, start: st, proc: proc, router: router,
		batchSize: w.BatchSize, maxWait: w.BatchMaxWait, shutdownTimeout: s.cfg.ShutdownTimeout,
		fetchRetry:  newRetrier(opFetch, s.log, s.health, s.pm),
		commitRetry: newRetrier(opCommit, s.log, s.health, s.pm),
		dlqRetry:    newRetrier(opDeadLetter, s.log, s.health, s.pm),
		queries:     querySet{stream: qs.stream, alerts: qs.alerts},
		next:        map[int]int64{}, endCheckEvery: endCheckInterval(w.IdleTimeout),
		future: newFutureCap(w.MaxFuture, s.schema.TimeUnit, time.Now)}, nil
}

// pipelineStats is the record accounting, exported through metrics and
// checked by tests: nothing is lost.
type pipelineStats struct {
	Records, Decoded, Appended, SelfLoops, Late, DeadLettered, Skipped, Alerts int64
	// DeadLetterLost are records the dead-letter topic refused for good.
	DeadLetterLost int64
	// Alerts are match records written; RateLimited are matches held
	// back by a rate limit (summarised, not alerted one by one).
	RateLimited int64
}

// add accumulates s2 into s (over a scaled-out instance's generations).
func (s *pipelineStats) add(s2 pipelineStats) {
	s.Records += s2.Records
	s.Decoded += s2.Decoded
	s.Appended += s2.Appended
	s.SelfLoops += s2.SelfLoops
	s.Late += s2.Late
	s.DeadLettered += s2.DeadLettered
	s.Skipped += s2.Skipped
	s.DeadLetterLost += s2.DeadLetterLost
	s.Alerts += s2.Alerts
	s.RateLimited += s2.RateLimited
}

type querySet struct {
	stream []stream.Query
	alerts map[string]alerts.QueryOptions
	done   chan error
}

// run consumes until ctx is done, then finishes the batch in hand, flushes
// alerts and commits. History records (fed by rebuild before run starts)
// are already in the reorder buffer.
func (p *pipeline) run(ctx context.Context) error {
	// work carries the batch in hand: it is not cancelled by shutdown
	// itself (the batch finishes, its alerts are flushed, its offsets
	// committed) but shutdown_timeout after it, so a dead sink cannot hold
	// the process forever.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stopAfter := context.AfterFunc(ctx, func() { time.AfterFunc(p.shutdownTimeout, cancelWork) })
	defer stopAfter()

	// The intake (intake.go): the source fetches and decodes ahead.
	fetchCtx, stopFetch := context.WithCancel(ctx)
	defer stopFetch()
	chunks := make(chan *kafka.Chunk)
	var intake sync.WaitGroup
	intake.Add(1)
	go func() {
		defer intake.Done()
		p.intake(fetchCtx, chunks)
	}()
	defer func() { stopFetch(); intake.Wait() }()

	timer := time.NewTimer(p.maxWait)
	defer timer.Stop()
	p.health.setRunning(true)
	for {
		// select picks among ready cases at random: check for shutdown
		// first, so a stop is never mistaken for a failure.
		if ctx.Err() != nil {
			return p.finish()
		}
		select {
		case c := <-chunks:
			err := p.takeChunk(work, c)
			p.src.Done(c)
			if err != nil {
				return err
			}
			p.pauseAhead()
		case <-timer.C:
			if err := p.batch(work); err != nil {
				return err
			}
			timer.Reset(p.maxWait)
		case qs := <-p.updates:
			qs.done <- p.setQueries(qs)
		case reply := <-p.snapshots:
			p.snapshot(reply)
		case <-ctx.Done():
			return p.finish()
		}
	}
}

// takeChunk takes a decoded chunk in, record by record, closing a batch
// whenever batch_size records are pending.
func (p *pipeline) takeChunk(ctx context.Context, c *kafka.Chunk) error {
	defer p.flushCounts()
	p.stage[stageFetch] += c.FetchTime
	p.stage[stageDecode] += c.DecodeTime
	start := time.Now()
	for i := range c.Recs {
		if err := p.takeDecoded(ctx, &c.Recs[i], c.Fetched, c.Edges[i], c.Errs[i]); err != nil {
			return err
		}
		// A batch closes at batch_size records. A reorder buffer over a
		// cap releases edges early into the batch at once (its memory
		// must not wait for batch_size) without closing it: a batch per
		// release would mine a backlog whose partitions run apart in
		// event time a few edges at a time.
		if p.reorder.OverCap() {
			p.early, _ = p.reorder.AppendRelease(p.early)
		}
		if p.pending >= p.batchSize || len(p.early) >= p.batchSize {
			p.stage[stageReorder] += time.Since(start)
			if err := p.batch(ctx); err != nil {
				return err
			}
			start = time.Now()
		}
	}
	p.stage[stageReorder] += time.Since(start)
	return nil
}

// reconnect handles a failed fetch: backoff, then probing the brokers
// (with backoff too) until they answer. It returns false once ctx ends.
func (p *pipeline) reconnect(ctx context.Context, err error) bool {
	if p.fetchRetry == nil {
		return sleep(ctx, backoffMin)
	}
	if !sleep(ctx, p.fetchRetry.failed(err, true)) {
		return false
	}
	if p.probe == nil {
		return true
	}
	return p.fetchRetry.do(ctx, probeAttempt, p.probe) == nil
}

// Bounds of single attempts (see retrier.do): a broker that accepts
// connections but never answers must not stall the pipeline unnoticed.
const (
	probeAttempt      = 5 * time.Second
	commitAttempt     = 10 * time.Second
	deadLetterAttempt = 30 * time.Second
)

// take decodes one record into the reorder buffer, or dead-letters it.
func (p *pipeline) take(ctx context.Context, m kafka.Message) error {
	e, err := p.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
	if len(m.Value) <= ingest.RawKeepMax {
		e.Raw = m.Value
	}
	defer p.flushCounts()
	return p.takeDecoded(ctx, &m, time.Now(), e, err)
}

// uncountedRecords are records taken in and not yet added to the ingest
// metrics: a labelled counter per record would cost more than taking the
// record in.
type uncountedRecords struct {
	consumed []int // by partition
	decoded  int
}

func (p *pipeline) countConsumed(partition int) {
	c := &p.uncounted.consumed
	if partition >= len(*c) {
		*c = append(*c, make([]int, partition+1-len(*c))...)
	}
	(*c)[partition]++
}

// flushCounts adds the uncounted records to the ingest metrics.
func (p *pipeline) flushCounts() {
	u := &p.uncounted
	for part, n := range u.consumed {
		if n > 0 {
			p.im.Consumed(part, n)
			u.consumed[part] = 0
		}
	}
	if u.decoded > 0 {
		p.im.Decoded(u.decoded)
		u.decoded = 0
	}
}

// takeDecoded takes record m (fetched at fetched, decoded into e or err)
// into the reorder buffer, or dead-letters it.
func (p *pipeline) takeDecoded(ctx context.Context, mp *kafka.Message, fetched time.Time, e ingest.Edge, err error) error {
	m := *mp
	if next, ok := p.next[m.Partition]; ok && m.Offset < next {
		// After a broker outage the consumer rejoins its group and starts
		// again from the committed offset: these records are already in
		// hand (in the window, the reorder buffer or a held match), and
		// taking them twice would append duplicate edges, or dead-letter
		// them as late.
		if p.pm != nil {
			p.pm.redelivered.Inc()
		}
		return nil
	}
	if err := p.guard.check(ctx, &m, p.next); err != nil {
		return err
	}
	p.stats.Records++
	p.countConsumed(m.Partition)
	p.next[m.Partition] = m.Offset + 1
	if p.pending == 0 {
		p.firstFetch = fetched
	}
	p.pending++
	duty := p.onDuty(m.Partition, m.Offset)
	if err != nil && !duty {
		p.skip()
		return nil
	}
	if err != nil {
		class := "decode"
		var de *ingest.DecodeError
		if errors.As(err, &de) {
			class = de.Class()
		}
		// A partition whose last record is dead-lettered must still be
		// able to go idle, or its buffered edges would wait for more.
		p.reorder.SetPending(m.Partition, m.Offset+1 < m.HighWaterMark)
		return p.deadLetter(ctx, m, class, err.Error())
	}
	p.stats.Decoded++
	p.uncounted.decoded++
	if hb, ok := p.historyBefore[m.Partition]; ok && m.Offset < hb {
		e.History = true
	}
	// Only the records the previous owner had released were mined: the
	// ones still in its reorder buffer (times above its watermark) are
	// new to everyone.
	if r, ok := p.resume[m.Partition]; ok && !e.History {
		if w, handled := r.watermarkAt(m.Offset); handled && e.T <= w {
			e.Replayed = true
		}
	}
	p.reorder.SetPending(m.Partition, m.Offset+1 < m.HighWaterMark)
	if refused, err := p.refuseFuture(ctx, m, &e); refused || err != nil {
		return err
	}
	if !p.reorder.Add(e) {
		return nil
	}
	if !duty {
		p.skip() // late here; its owner decides for itself, and dead-letters it
		return nil
	}
	p.im.Late(1)
	return p.deadLetter(ctx, m, "late", fmt.Sprintf("late edge: t=%d is not after the watermark %d", e.T, p.reorder.Watermark()))
}

// onDuty reports whether the record at offset of partition is this
// instance's to dead-letter and mine as a last edge: not History, and
// from a partition of its duty.
func (p *pipeline) onDuty(partition int, offset int64) bool {
	if hb, ok := p.historyBefore[partition]; ok && offset < hb {
		return false
	}
	return p.duty.owns(partition)
}

// skip counts a record that is not this instance's duty and could not
// join the window (undecodable, or late here).
func (p *pipeline) skip() {
	p.stats.Skipped++
	p.pm.records.WithLabelValues("skipped").Inc()
}

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
		p.early = make([]ingest.Edge, 0, p.batchSize)
	}
	edges, wm := p.reorder.AppendRelease(p.early)
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
		out, err = p.proc.Process(ctx, edges, wm)
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

// commit commits the offsets of the newest batch whose matches are all
// durable. Match records are durable when Flush returns, but count-mode
// and rate-limited matches wait in the router's tallies until their
// interval's records are written (alerts.Router.Settled): until then the
// batch's offsets wait in a queue, so a crash re-reads those records
// instead of losing their counts.
func (p *pipeline) commit(ctx context.Context) error {
	offsets := p.unsettled.push(p.committable(), p.router.Settled())
	if offsets == nil {
		return nil
	}
	// While the brokers are away the pipeline waits here (nothing after
	// this batch may be committed before it anyway); each attempt is
	// bounded, as kafka-go's commit waits for the group to be rejoined.
	commit := func(ctx context.Context) error { return p.commits.commit(ctx, offsets) }
	if err := p.commitRetry.do(ctx, commitAttempt, commit); err != nil {
		return fmt.Errorf("committing offsets: %w", err)
	}
	p.unsettled.committed(offsets)
	return nil
}

// committable returns, per partition, the offset up to which everything
// is settled: fetched, and neither waiting in the reorder buffer nor the
// last edge of a held match.
func (p *pipeline) committable() map[int]int64 {
	out := make(map[int]int64, len(p.next))
	for part, next := range p.next {
		out[part] = next
	}
	for _, mins := range []map[int]int64{p.reorder.MinOffsets(), p.proc.HeldMinOffsets()} {
		for part, off := range mins {
			// Only partitions this pipeline has read: one whose buffer holds
			// History alone is at the commit it started from, and a member
			// standing by must never write its start position over the
			// active member's progress.
			if cur, ok := out[part]; ok && off < cur {
				out[part] = off
			}
		}
	}
	// History edges still buffered are below the commit this pipeline
	// started from: never move it back over them.
	for part, start := range p.historyBefore {
		if cur, ok := out[part]; ok && cur < start {
			out[part] = start
		}
	}
	return out
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

// setQueries applies a new query set between batches.
func (p *pipeline) setQueries(qs querySet) error {
	if err := p.proc.SetQueries(qs.stream); err != nil {
		return err
	}
	if err := p.router.SetQueries(qs.alerts); err != nil {
		return err
	}
	if p.board != nil {
		p.board.setQueries(qs.stream, qs.alerts)
	}
	p.queries = querySet{stream: qs.stream, alerts: qs.alerts}
	return nil
}

// finish runs at shutdown: one last batch with what the watermark has
// released (buffered edges stay uncommitted and are re-read on restart),
// alerts flushed, offsets committed.
func (p *pipeline) finish() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.shutdownTimeout)
	defer cancel()
	p.health.setRunning(false)
	if err := p.batch(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := p.router.Close(ctx); err != nil {
		return fmt.Errorf("shutdown: closing alerts: %w", err)
	}
	p.stats.Alerts, p.stats.RateLimited = p.router.Alerted()
	// Close wrote every tally: everything handled is durable now.
	h := handover{offsets: p.committable(), processed: p.next, prev: p.resume, watermark: p.reorder.Watermark()}
	if err := p.commits.final(ctx, h); err != nil {
		return fmt.Errorf("shutdown: committing offsets: %w", err)
	}
	p.unsettled.waiting = nil // the final commit covers them
	p.log.Info("pipeline stopped", "records", p.stats.Records, "appended", p.stats.Appended,
		"late", p.stats.Late, "dead_lettered", p.stats.DeadLettered, "dead_letter_lost", p.stats.DeadLetterLost,
		"alerts", p.stats.Alerts, "rate_limited", p.stats.RateLimited)
	return nil
}
