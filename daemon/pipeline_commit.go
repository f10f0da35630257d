package daemon

import (
	"context"
	"fmt"
)

// commit commits the offsets of the newest batch whose matches are all
// durable; offsets are the committable offsets of the batch just
// flushed. Match records are durable when Flush returns, but count-mode
// and rate-limited matches wait in the router's tallies until their
// interval's records are written (alerts.Router.Settled): until then the
// batch's offsets wait in a queue, so a crash re-reads those records
// instead of losing their counts.
func (p *pipeline) commit(ctx context.Context, offsets map[int]int64) error {
	offsets = p.unsettled.push(offsets, p.router.Settled())
	if offsets == nil {
		return nil
	}
	// While the brokers are away the pipeline waits here (nothing after
	// this batch may be committed before it anyway); each attempt is
	// bounded, as kafka-go's commit waits for the group to be rejoined.
	commit := func(ctx context.Context) error { return p.commitKnown(ctx, offsets, p.commits.commit) }
	if err := p.commitRetry.do(ctx, commitAttempt, commit); err != nil {
		return fmt.Errorf("committing offsets: %w", err)
	}
	p.unsettled.committed(offsets)
	return nil
}

// committable returns, per partition, the offset up to which everything
// is settled: fetched, and neither waiting in the reorder buffer nor the
// last edge of a held match. Only while no batch is being mined (it
// reads the processor).
func (p *pipeline) committable() map[int]int64 {
	return p.settled(p.taken(), p.historyBefore, p.clamps)
}

// taken returns, per partition read, the offset up to which every record
// taken in has left the reorder buffer: the committable offsets as of a
// batch's release, before the processor's held matches (settled) lower
// them. Records taken in later (while the batch is mined) have higher
// offsets, so they never count as handled by it.
func (p *pipeline) taken() map[int]int64 {
	out := make(map[int]int64, len(p.next))
	for part, next := range p.next {
		out[part] = next
	}
	for part, off := range p.reorder.MinOffsets() {
		// Only partitions this pipeline has read: one whose buffer holds
		// History alone is at the commit it started from, and a member
		// standing by must never write its start position over the
		// active member's progress.
		if cur, ok := out[part]; ok && off < cur {
			out[part] = off
		}
	}
	return out
}

// settled lowers the offsets taken returned (modifying them) to the
// oldest last edge of a held match, after the batch's Process, and to the
// clamps of partitions reset (partitions.go); floor is the history start
// per partition (historyBefore as of the batch's release).
func (p *pipeline) settled(out, floor map[int]int64, clamps map[int]commitClamp) map[int]int64 {
	for part, off := range p.proc.HeldMinOffsets() {
		if cur, ok := out[part]; ok && off < cur {
			out[part] = off
		}
	}
	// History edges still buffered are below the commit this pipeline
	// started from: never move it back over them.
	for part, start := range floor {
		if cur, ok := out[part]; ok && cur < start {
			out[part] = start
		}
	}
	for part, c := range clamps {
		if cur, ok := out[part]; ok && cur > c.offset {
			out[part] = c.offset
		}
	}
	return out
}
