package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// pipeline is the goroutine that owns decoder and reorder buffer, and
// the processor and router between the batches it has mined on their own
// goroutine (pipeline_batch.go); see the package doc. newPipeline builds it
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
	// processed, so the committed offsets never pass them. earlyBytes is
	// what they weighed in the buffer. They lie in the reorder buffer
	// (AppendReleaseRefs) until their batch is collected (Recycle).
	early      []*ingest.Edge
	earlyBytes int64
	// flight is the batches released and not yet collected, oldest first
	// (at most maxBatchesInFlight): the oldest is mined on a goroutine of
	// its own, each later one waits on its own goroutine for the one
	// before (see pipeline_batch.go); spare holds the collected batches'
	// edge slices for the next releases.
	flight []*minedBatch
	spare  [][]*ingest.Edge
	// maxBuffered and maxBufferedBytes are the reorder buffer's caps
	// (window.max_buffered, its share of max_buffered_bytes; 0: none),
	// which its edges and those of the batch being mined share
	// (inFlightOverCap).
	maxBuffered      int
	maxBufferedBytes int64

	// future is window.max_future; capLimiter rate-limits cap log lines.
	future     futureCap
	capLimiter *ratelog.Limiter

	// The edge topic's partitions changing (partitions.go): topicSeq is
	// the topic watch's view last applied; clamps hold reset partitions'
	// commits (replaced, never written: released batches read them);
	// gone is the partitions commits found gone.
	topicSeq    uint64
	topicParts  map[int]kafka.Bounds
	topicExists bool
	clamps      map[int]commitClamp
	gone        goneSet
	// lost[p] is where the pipeline was in partition p when it was found
	// gone: if it comes back, it is read from its new log's start;
	// seeking[p] is that offset while the source seeks there (recreate).
	lost, seeking map[int]int64
	// held[p]: the source holds partition p, found unknown at the topic
	// watch's look count held[p] (release).
	held map[int]uint64

	// The jump rule's (eventtime.go): scratch for what the reorder buffer
	// hands over after each release, and the limiter of its log lines.
	discards    []ingest.Discarded
	jumpEvents  []ingest.JumpEvent
	partTimes   []ingest.PartitionTime
	jumpLimiter *ratelog.Limiter
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
	// resetAtStart[p] is a committed offset the rebuild found outside the
	// log and reported (the source finds it again: takePosition).
	resetAtStart map[int]int64
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
	// The pipeline changes these as partitions come and go
	// (partitions.go); the caller's maps (a takeover guard's) stay.
	st.readFrom, st.resetAtStart = maps.Clone(st.readFrom), maps.Clone(st.resetAtStart)
	if st.readFrom == nil {
		st.readFrom = map[int]int64{}
	}
	if st.resetAtStart == nil {
		st.resetAtStart = map[int]int64{}
	}
	return &pipeline{pipelineParts: s, mode: m, start: st, proc: proc, router: router,
		batchSize: w.BatchSize, maxWait: w.BatchMaxWait, shutdownTimeout: s.cfg.ShutdownTimeout,
		fetchRetry:  newRetrier(opFetch, s.log, s.health, s.pm),
		commitRetry: newRetrier(opCommit, s.log, s.health, s.pm),
		dlqRetry:    newRetrier(opDeadLetter, s.log, s.health, s.pm),
		queries:     querySet{stream: qs.stream, alerts: qs.alerts},
		next:        map[int]int64{}, lost: map[int]int64{}, seeking: map[int]int64{}, held: map[int]uint64{}, endCheckEvery: endCheckInterval(w.IdleTimeout),
		maxBuffered: w.MaxBuffered, maxBufferedBytes: max(int64(w.MaxBufferedBytes)-s.fetchQueueBytes(), 0),
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
func (p *pipeline) run(ctx context.Context) (err error) {
	// work carries the batch in hand: it is not cancelled by shutdown
	// itself (the batch finishes, its alerts are flushed, its offsets
	// committed) but shutdown_timeout after it, so a dead sink cannot hold
	// the process forever.
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stopAfter := context.AfterFunc(ctx, func() { time.AfterFunc(p.shutdownTimeout, cancelWork) })
	defer stopAfter()
	// Whatever ends the run, the batch being mined finishes first (its
	// commit included, as it did before batches were mined beside the
	// intake): nothing may use the processor or the router after run.
	defer func() {
		if werr := p.awaitMined(); werr != nil {
			err = errors.Join(err, werr)
		}
	}()

	// The intake (intake.go): the source fetches and decodes ahead.
	fetchCtx, stopFetch := context.WithCancel(ctx)
	defer stopFetch()
	chunks := make(chan *kafka.Chunk)
	var intake sync.WaitGroup
	intake.Add(1)
	// Profiles tell the goroutines apart by label (profileLabel).
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels(profileLabel, "pipeline")))
	defer pprof.SetGoroutineLabels(ctx)
	go func() {
		defer intake.Done()
		pprof.Do(fetchCtx, pprof.Labels(profileLabel, "intake"), func(ctx context.Context) { p.intake(ctx, chunks) })
	}()
	defer func() { stopFetch(); intake.Wait() }()

	timer := time.NewTimer(p.maxWait)
	defer timer.Stop()
	if r, ok := p.src.(partitionReader); ok {
		p.topic.setReader(r)
		defer p.topic.setReader(nil)
	}
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
		case <-p.minedDone():
			if err := p.awaitOldest(); err != nil {
				return err
			}
		case <-timer.C:
			if err := p.startBatch(work); err != nil {
				return err
			}
			timer.Reset(p.maxWait)
		case qs := <-p.updates:
			// The processor and router change between batches.
			if err := p.awaitMined(); err != nil {
				qs.done <- err
				return err
			}
			qs.done <- p.setQueries(qs)
		case reply := <-p.snapshots:
			if err := p.awaitMined(); err != nil {
				return err
			}
			p.snapshot(reply)
		case <-ctx.Done():
			return p.finish()
		}
	}
}

// profileLabel is the pprof label that tells the streaming path's
// goroutines apart in a CPU profile (go tool pprof -tags): pipeline
// (taking records in, releasing batches), intake (the source's fetches
// and decoding, when started from it) and mine (a batch's window append,
// mining, alert write and commit, the CPU engine's workers included).
const profileLabel = "motifwatch"

// Bounds of single attempts (see retrier.do): a broker that accepts
// connections but never answers must not stall the pipeline unnoticed.
const (
	probeAttempt      = 5 * time.Second
	commitAttempt     = 10 * time.Second
	deadLetterAttempt = 30 * time.Second
)

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
	if err := p.awaitMined(); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := p.batch(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := p.router.Close(ctx); err != nil {
		return fmt.Errorf("shutdown: closing alerts: %w", err)
	}
	p.stats.Alerts, p.stats.RateLimited = p.router.Alerted()
	// Close wrote every tally: everything handled is durable now.
	h := handover{offsets: p.committable(), processed: p.next, prev: p.resume, watermark: p.reorder.Watermark()}
	if err := p.commitKnown(ctx, h.offsets, func(ctx context.Context, offsets map[int]int64) error {
		h.offsets = offsets
		return p.commits.final(ctx, h)
	}); err != nil {
		return fmt.Errorf("shutdown: committing offsets: %w", err)
	}
	p.unsettled.waiting = nil // the final commit covers them
	p.log.Info("pipeline stopped", "records", p.stats.Records, "appended", p.stats.Appended,
		"late", p.stats.Late, "dead_lettered", p.stats.DeadLettered, "dead_letter_lost", p.stats.DeadLetterLost,
		"alerts", p.stats.Alerts, "rate_limited", p.stats.RateLimited)
	return nil
}
