package daemon

import (
	"context"
	"fmt"
)

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
