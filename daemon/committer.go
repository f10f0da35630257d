package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"

	"github.com/motifwatch/motifwatch/kafka"
)

// commitPolicy records how far the pipeline has settled its input
// (offsets: the next record to read per partition), and at a clean stop
// what its next reader needs in order not to repeat alerts (the resume
// state).
// Without scale-out the group's current generation commits
// (groupCommits) and the resume state goes to resumeGroup
// (withResumeGroup); scaled out, the generation of the group commits
// both (generationCommits).
type commitPolicy interface {
	// commit records offsets while the pipeline runs.
	commit(ctx context.Context, offsets map[int]int64) error
	// final records h at a clean stop: every alert is durable then.
	final(ctx context.Context, h handover) error
}

// handover is what a pipeline leaves at a clean stop: its committable
// offsets, and for the resume state (see resumeMetadata) the offsets it
// had read to (processed), the resume state it started from (prev) and
// its watermark.
type handover struct {
	offsets, processed map[int]int64
	prev               map[int]resumeState
	watermark          int64
}

// metadata is the commit metadata carrying h's resume state, per
// partition of h.offsets.
func (h handover) metadata() map[int]string {
	return resumeMetadata(h.offsets, h.processed, h.prev, h.watermark)
}

// offsetCommitter is what groupCommits needs of the consumer
// (kafka.GroupFetcher).
type offsetCommitter interface {
	Commit(ctx context.Context, offsets map[int]int64) error
}

// groupCommits commits through the consumer group's current generation,
// without metadata (the resume state goes to resumeGroup: a standby's
// live membership refuses commits from outside the generation).
type groupCommits struct{ c offsetCommitter }

func (g groupCommits) commit(ctx context.Context, offsets map[int]int64) error {
	return g.c.Commit(ctx, offsets)
}

func (g groupCommits) final(ctx context.Context, h handover) error { return g.c.Commit(ctx, h.offsets) }

// withResumeGroup adds the resume state to a commit policy's final commit:
// the same offsets, with metadata, in resumeGroup (commitFinal). A
// failure there only costs exactly-once (a restart may repeat alerts), so
// it is logged, not returned.
type withResumeGroup struct {
	commitPolicy
	admin        *kafka.Admin
	group, topic string
	log          *slog.Logger
}

func (w withResumeGroup) final(ctx context.Context, h handover) error {
	if err := w.commitPolicy.final(ctx, h); err != nil {
		return err
	}
	if err := commitFinal(ctx, w.admin, w.group, w.topic, h.offsets, h.processed, h.prev, h.watermark); err != nil {
		w.log.Warn("final commit with resume state failed: a restart may repeat alerts", "err", err)
	}
	return nil
}

// generationCommits commits a scaled-out instance's owned partitions in
// its generation of the group; once the group has moved on, commits fail
// with kafka.ErrFenced.
type generationCommits struct{ gen *kafka.Generation }

func (g generationCommits) commit(ctx context.Context, offsets map[int]int64) error {
	return g.gen.Commit(ctx, offsets, nil)
}

func (g generationCommits) final(ctx context.Context, h handover) error {
	return g.gen.Commit(ctx, h.offsets, h.metadata())
}

// committer is the last stage: it commits the offsets the miner hands
// it after each batch (on the batch's goroutine), through the mode's
// commit policy, once the alerts of everything before them are durable
// (unsettled), riding out broker outages (retry); and the final commit
// at a clean stop. Offsets of partitions the topic no longer has are
// dropped, not committed (known), and recorded in gone for the pipeline
// goroutine to forget (partitions.go).
type committer struct {
	policy commitPolicy
	retry  *retrier
	// unsettled holds the offsets of batches whose alerts are not all
	// durable yet.
	unsettled commitQueue
	// topic tells whether partitions commits refuse are gone (nil: none
	// is).
	topic     *topicWatch
	gone      goneSet
	log       *slog.Logger
	pm        *pipelineMetrics
	edgeTopic string
}

// commit commits the offsets of the newest batch whose matches are all
// durable; offsets are the committable offsets of the batch just
// flushed, settled the router's settled flush count. Match records are
// durable when Flush returns, but count-mode and rate-limited matches
// wait in the router's tallies until their interval's records are
// written (alerts.Router.Settled): until then the batch's offsets wait in
// a queue, so a crash re-reads those records instead of losing their
// counts.
func (c *committer) commit(ctx context.Context, offsets map[int]int64, settled uint64) error {
	offsets = c.unsettled.push(offsets, settled)
	if offsets == nil {
		return nil
	}
	// While the brokers are away the pipeline waits here (nothing after
	// this batch may be committed before it anyway); each attempt is
	// bounded, as kafka-go's commit waits for the group to be rejoined.
	commit := func(ctx context.Context) error { return c.known(ctx, offsets, c.policy.commit) }
	if err := c.retry.do(ctx, commitAttempt, commit); err != nil {
		return fmt.Errorf("committing offsets: %w", err)
	}
	c.unsettled.committed(offsets)
	return nil
}

// final commits h at a clean stop, once every alert is durable: it
// covers the batches still waiting in unsettled.
func (c *committer) final(ctx context.Context, h handover) error {
	if err := c.known(ctx, h.offsets, func(ctx context.Context, offsets map[int]int64) error {
		h.offsets = offsets
		return c.policy.final(ctx, h)
	}); err != nil {
		return err
	}
	c.unsettled.waiting = nil
	return nil
}

// known commits offsets with commit. When the coordinator refuses
// some partitions as unknown and the topic's metadata, read again, shows
// them gone, their offsets are dropped (ERROR, counted) and the others
// committed at once: a partition deleted with its topic must not hold
// ingest with a commit retried forever. The pipeline forgets them before
// its next release.
func (c *committer) known(ctx context.Context, offsets map[int]int64, commit func(context.Context, map[int]int64) error) error {
	err := commit(ctx, offsets)
	var ce *kafka.CommitError
	if !errors.As(err, &ce) || c.topic == nil {
		return err
	}
	unknown := ce.Unknown()
	if len(unknown) == 0 {
		return err
	}
	gone, lerr := c.topic.gone(ctx, unknown)
	if lerr != nil || len(gone) == 0 {
		return err
	}
	rest := maps.Clone(offsets)
	dropped := map[int]int64{}
	for _, part := range gone {
		dropped[part] = rest[part]
		delete(rest, part)
	}
	if fresh := c.gone.add(gone); len(fresh) > 0 {
		c.log.Error("kafka: committing offsets: partitions of the edge topic are gone; their offsets are dropped, not committed", "topic", c.edgeTopic,
			"partitions", gone, "dropped_offsets", dropped)
	}
	for _, part := range gone {
		c.pm.commitsDropped.WithLabelValues(strconv.Itoa(part)).Inc()
	}
	if len(rest) == 0 {
		return nil
	}
	return commit(ctx, rest)
}

// commitQueue holds each batch's committable offsets until the router has
// settled the flush that wrote its alerts (alerts.Router.Settled).
type commitQueue struct {
	// flushes counts the batches pushed: one successful alert flush
	// each, in step with the router's count.
	flushes uint64
	waiting []pendingCommit
	// last is the last offsets the group accepted: an unchanged position
	// is not committed again.
	last map[int]int64
}

// pendingCommit is a batch's committable offsets, waiting for the router
// to settle the flush that wrote its alerts.
type pendingCommit struct {
	flush   uint64
	offsets map[int]int64
}

// push queues the offsets of the batch just flushed and returns those of
// the newest batch the router has settled (settled: its flush count), or
// nil when there is none or they were committed already.
func (q *commitQueue) push(offsets map[int]int64, settled uint64) map[int]int64 {
	q.flushes++
	q.waiting = append(q.waiting, pendingCommit{flush: q.flushes, offsets: offsets})
	var due map[int]int64
	i := 0
	for ; i < len(q.waiting) && q.waiting[i].flush <= settled; i++ {
		due = q.waiting[i].offsets
	}
	q.waiting = q.waiting[i:]
	if due == nil || maps.Equal(due, q.last) {
		return nil
	}
	return due
}

// committed records offsets as accepted by the group.
func (q *commitQueue) committed(offsets map[int]int64) { q.last = offsets }
