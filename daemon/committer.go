package daemon

import (
	"context"
	"log/slog"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/internal/kafka"
)

// committer records how far the pipeline has settled its input (offsets:
// the next record to read per partition), and at a clean stop what its
// next reader needs in order not to repeat alerts (the resume state).
// Without scale-out the group's Reader commits (groupCommits) and the
// resume state goes to resumeGroup (withResumeGroup); scaled out, the
// generation of the group commits both (generationCommits).
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
// (kafka.Consumer).
type offsetCommitter interface {
	Commit(ctx context.Context, offsets map[int]int64) error
}

// groupCommits commits through the consumer group's Reader, whose
// commits carry no metadata.
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
	client       *kafkago.Client
	group, topic string
	log          *slog.Logger
}

func (w withResumeGroup) final(ctx context.Context, h handover) error {
	if err := w.committer.final(ctx, h); err != nil {
		return err
	}
	if err := commitFinal(ctx, w.client, w.group, w.topic, h.offsets, h.processed, h.prev, h.watermark); err != nil {
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
