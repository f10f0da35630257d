package daemon

import (
	"context"
	"log/slog"
	"maps"

	"github.com/motifwatch/motifwatch/kafka"
)

// committer records how far the pipeline has settled its input (offsets:
// the next record to read per partition), and at a clean stop what its
// next reader needs in order not to repeat alerts (the resume state).
// Without scale-out the group's current generation commits
// (groupCommits) and the resume state goes to resumeGroup
// (withResumeGroup); scaled out, the generation of the group commits
// both (generationCommits).
type committer interface {
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

// withResumeGroup adds the resume state to a committer's final commit:
// the same offsets, with metadata, in resumeGroup (commitFinal). A
// failure there only costs exactly-once (a restart may repeat alerts), so
// it is logged, not returned.
type withResumeGroup struct {
	committer
	admin        *kafka.Admin
	group, topic string
	log          *slog.Logger
}

func (w withResumeGroup) final(ctx context.Context, h handover) error {
	if err := w.committer.final(ctx, h); err != nil {
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
