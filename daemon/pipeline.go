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
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// pipeline is one pipeline's goroutine: it runs the stages a record
// passes, in the data's order, each a type that owns its state (see the
// package doc):
//
//	intake ─▶ admission ─▶ batcher ─▶ miner ─▶ committer
//	           (partitions: where each partition is read, as the topic changes)
//
// The pipeline goroutine takes each chunk from the intake through
// admission into the batcher (takeChunk), releases batches from the
// batcher to the miner (startBatch) and collects them, in release order,
// into the record accounting and the batch reports (collect). newPipeline
// builds it complete: what the process shares (pipelineParts), how this
// instance takes part in its group (mode), and where it begins (start).
type pipeline struct {
	parts *pipelineParts

	in         *intake
	admit      *admission
	batcher    *batcher
	miner      *miner
	commits    *committer
	partitions *partitions

	maxWait time.Duration
	// shutdownTimeout bounds the final batch, flush and commit.
	shutdownTimeout time.Duration

	// stats is the record accounting: records = appended + self-loops +
	// late + dead-lettered (+ skipped, scaled out); reported is stats as
	// of the last BatchReport.
	stats, reported pipelineStats
	// stage accumulates the time of each stage since the last batch.
	stage [numStages]time.Duration
}

// mode is how an instance takes part in its consumer group: where its
// records come from, how it commits, which partitions are its duty, and
// whether it checks for a takeover. Each of single instance (standing by
// or not, standalone.go) and scaled-out member (scaleout.go) supplies
// its own.
type mode struct {
	src     recordSource
	commits commitPolicy
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

// settings are what a pipeline's stages take from the configuration
// (newPipeline); tests build pipelines with their own.
type settings struct {
	batchSize                int
	maxWait, shutdownTimeout time.Duration
	// maxBuffered and maxBufferedBytes are the reorder buffer's caps
	// (window.max_buffered, its share of max_buffered_bytes; 0: none).
	maxBuffered      int
	maxBufferedBytes int64
	endCheckEvery    time.Duration
	future           futureCap
	// The retriers ride out broker outages per operation (see health.go;
	// nil: one attempt).
	fetchRetry, commitRetry, dlqRetry *retrier
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
	p := s.assemble(st, m, proc, router, settings{batchSize: w.BatchSize, maxWait: w.BatchMaxWait, shutdownTimeout: s.cfg.ShutdownTimeout,
		maxBuffered: w.MaxBuffered, maxBufferedBytes: max(int64(w.MaxBufferedBytes)-s.fetchQueueBytes(), 0),
		endCheckEvery: endCheckInterval(w.IdleTimeout), future: newFutureCap(w.MaxFuture, s.schema.TimeUnit, time.Now),
		fetchRetry:  newRetrier(opFetch, s.log, s.health, s.pm),
		commitRetry: newRetrier(opCommit, s.log, s.health, s.pm),
		dlqRetry:    newRetrier(opDeadLetter, s.log, s.health, s.pm)})
	p.miner.queries = querySet{stream: qs.stream, alerts: qs.alerts}
	return p, nil
}

// assemble builds the stages of a pipeline from st, m, the miner's
// processor and router and set, and wires them in the data's order.
func (s *pipelineParts) assemble(st start, m mode, proc *stream.Processor, router *alerts.Router, set settings) *pipeline {
	// The pipeline changes these as partitions come and go
	// (partitions.go); the caller's maps (a takeover guard's) stay.
	pos := &positions{next: map[int]int64{}, readFrom: maps.Clone(st.readFrom), resetAtStart: maps.Clone(st.resetAtStart),
		historyBefore: st.historyBefore, resume: st.resume}
	if pos.readFrom == nil {
		pos.readFrom = map[int]int64{}
	}
	if pos.resetAtStart == nil {
		pos.resetAtStart = map[int]int64{}
	}
	p := &pipeline{parts: s, maxWait: set.maxWait, shutdownTimeout: set.shutdownTimeout}
	var edgeTopic string
	if s.cfg != nil {
		edgeTopic = s.cfg.Kafka.EdgeTopic
	}
	p.in = &intake{src: m.src, retry: set.fetchRetry, probe: s.probe, pm: s.pm}
	p.batcher = &batcher{reorder: st.reorder, size: set.batchSize, maxBuffered: set.maxBuffered, maxBufferedBytes: set.maxBufferedBytes,
		pos: pos, ends: endCheck{lookup: s.endOffsets, every: set.endCheckEvery}}
	p.commits = &committer{policy: m.commits, retry: set.commitRetry, topic: s.topic, log: s.log, pm: s.pm, edgeTopic: edgeTopic}
	dead := &deadLetters{dlq: s.dlq, retry: set.dlqRetry, log: s.log, pm: s.pm, im: s.im, wait: p.awaitMined}
	p.miner = &miner{proc: proc, router: router, dead: dead, commits: p.commits, alertRetry: s.alertRetry, pm: s.pm}
	p.admit = &admission{parts: s, pos: pos, b: p.batcher, guard: m.guard, duty: m.duty, future: set.future, dead: dead,
		stats: &p.stats, caps: capLog{log: s.log, count: p.miner.noteCap}}
	p.partitions = &partitions{parts: s, pos: pos, b: p.batcher, in: p.in, wait: p.awaitMined, gone: &p.commits.gone,
		lost: map[int]int64{}, seeking: map[int]int64{}, held: map[int]uint64{}}
	return p
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

// queries returns the query set in force (for the next generation's
// pipeline).
func (p *pipeline) queries() querySet { return p.miner.queries }

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
		pprof.Do(fetchCtx, pprof.Labels(profileLabel, "intake"), func(ctx context.Context) { p.in.run(ctx, chunks) })
	}()
	defer func() { stopFetch(); intake.Wait() }()

	timer := time.NewTimer(p.maxWait)
	defer timer.Stop()
	if r, ok := p.in.src.(partitionReader); ok {
		p.parts.topic.setReader(r)
		defer p.parts.topic.setReader(nil)
	}
	p.parts.health.setRunning(true)
	for {
		// select picks among ready cases at random: check for shutdown
		// first, so a stop is never mistaken for a failure.
		if ctx.Err() != nil {
			return p.finish()
		}
		select {
		case c := <-chunks:
			err := p.takeChunk(work, c)
			p.in.src.Done(c)
			if err != nil {
				return err
			}
			p.in.pauseAhead(p.batcher.reorder)
		case <-p.miner.oldestDone():
			if err := p.awaitOldest(); err != nil {
				return err
			}
		case <-timer.C:
			if err := p.startBatch(work); err != nil {
				return err
			}
			timer.Reset(p.maxWait)
		case qs := <-p.parts.updates:
			// The processor and router change between batches.
			if err := p.awaitMined(); err != nil {
				qs.done <- err
				return err
			}
			qs.done <- p.setQueries(qs)
		case reply := <-p.parts.snapshots:
			if err := p.awaitMined(); err != nil {
				return err
			}
			p.miner.snapshot(reply)
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
	if err := p.miner.setQueries(qs); err != nil {
		return err
	}
	if p.parts.board != nil {
		p.parts.board.setQueries(qs.stream, qs.alerts)
	}
	return nil
}

// finish runs at shutdown: one last batch with what the watermark has
// released (buffered edges stay uncommitted and are re-read on restart),
// alerts flushed, offsets committed.
func (p *pipeline) finish() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.shutdownTimeout)
	defer cancel()
	p.parts.health.setRunning(false)
	if err := p.awaitMined(); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := p.batch(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := p.miner.router.Close(ctx); err != nil {
		return fmt.Errorf("shutdown: closing alerts: %w", err)
	}
	p.stats.Alerts, p.stats.RateLimited = p.miner.router.Alerted()
	// Close wrote every tally: everything handled is durable now.
	pos := p.partitions.pos
	h := handover{offsets: p.committable(), processed: pos.next, prev: pos.resume, watermark: p.batcher.reorder.Watermark()}
	if err := p.commits.final(ctx, h); err != nil {
		return fmt.Errorf("shutdown: committing offsets: %w", err)
	}
	p.parts.log.Info("pipeline stopped", "records", p.stats.Records, "appended", p.stats.Appended,
		"late", p.stats.Late, "dead_lettered", p.stats.DeadLettered, "dead_letter_lost", p.stats.DeadLetterLost,
		"alerts", p.stats.Alerts, "rate_limited", p.stats.RateLimited)
	return nil
}

// committable returns, per partition, the offset up to which everything
// is settled: fetched, and neither waiting in the reorder buffer nor the
// last edge of a held match. Only while no batch is being mined (it
// reads the processor).
func (p *pipeline) committable() map[int]int64 {
	pos := p.partitions.pos
	return p.miner.settled(pos.taken(p.batcher.reorder), pos.historyBefore, pos.clamps)
}
