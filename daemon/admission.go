package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// admission is the stage that decides about each record taken in, on the
// pipeline goroutine, before the batcher buffers it: redelivered records
// are dropped, the takeover guard asks whether the window is still
// current, records off this instance's duty are only windowed, and
// undecodable, future and late records are dead-lettered (queued in
// deadLetters, written with their batch). It marks History and Replayed
// edges from the partitions' positions, keeps the record accounting's
// intake side, and after each release settles the jump rule's event time
// (eventtime.go).
type admission struct {
	parts *pipelineParts
	// pos is where each partition is read (shared with partitions.go,
	// which changes it as the topic changes); b takes the records in.
	pos *positions
	b   *batcher

	guard  takeoverGuard
	duty   dutyPolicy
	future futureCap
	dead   *deadLetters
	caps   capLog
	// stats is the pipeline's record accounting.
	stats *pipelineStats
	// uncounted batches the per-record ingest metrics.
	uncounted uncountedRecords
	// events is the jump rule's scratch and log limiter (eventtime.go).
	events jumpScratch
}

// takeRun takes in the longest stretch of c's records from i on that
// take would only add to the reorder buffer, all at once
// (ingest.Reorder.AddRun: the edges stay in c's array), within lim (the
// batcher's, for the batches in flight), and returns its length (0:
// record i is for take). Such records are decoded, at the offsets that
// follow the partition's last one taken (neither redelivered nor after a
// gap: no takeover check asks), past its history, without a previous
// owner's resume state, not too far in the future, in order in their
// partition, not late, and leave the reorder buffer and the batch in
// flight within their caps. The stretch ends at batch_size pending
// records, as the batch does.
func (a *admission) takeRun(c *kafka.Chunk, i int, lim ingest.RunLimits) int {
	m := &c.Recs[i]
	part := m.Partition
	if c.Errs[i] != nil {
		return 0
	}
	if next, ok := a.pos.next[part]; !ok || m.Offset != next {
		return 0
	}
	if a.pos.history(part, m.Offset) {
		return 0
	}
	if _, ok := a.pos.resume[part]; ok {
		return 0
	}
	n := min(len(c.Recs)-i, a.b.room())
	for k := 1; k < n; k++ {
		if c.Errs[i+k] != nil || c.Recs[i+k].Offset != m.Offset+int64(k) || c.Recs[i+k].Partition != part {
			n = k
			break
		}
	}
	lim.MaxT = a.future.limit(a.b.reorder.StreamTime())
	n = a.b.reorder.AddRun(c.Edges[i:i+n], lim)
	if n == 0 {
		return 0
	}
	last := &c.Recs[i+n-1]
	a.stats.Records += int64(n)
	a.stats.Decoded += int64(n)
	a.uncounted.decoded += n
	a.countConsumed(part, n)
	a.pos.next[part] = last.Offset + 1
	a.b.taken(n, c.Fetched)
	a.b.reorder.SetPending(part, last.Offset+1 < last.HighWaterMark)
	return n
}

// take takes record m (fetched at fetched, decoded into e or err) into
// the reorder buffer, or dead-letters it. It may mark *e (History,
// Replayed); the buffer keeps a copy.
func (a *admission) take(ctx context.Context, m *kafka.Message, fetched time.Time, e *ingest.Edge, err error) error {
	if next, ok := a.pos.next[m.Partition]; ok && m.Offset < next {
		// After a broker outage the consumer rejoins its group and starts
		// again from the committed offset: these records are already in
		// hand (in the window, the reorder buffer or a held match), and
		// taking them twice would append duplicate edges, or dead-letter
		// them as late.
		if a.parts.pm != nil {
			a.parts.pm.redelivered.Inc()
		}
		return nil
	}
	if err := a.guard.check(ctx, m, a.pos.next); err != nil {
		return err
	}
	a.stats.Records++
	a.countConsumed(m.Partition, 1)
	a.pos.next[m.Partition] = m.Offset + 1
	a.b.taken(1, fetched)
	duty := a.onDuty(m.Partition, m.Offset)
	if err != nil && !duty {
		a.skip()
		return nil
	}
	reorder := a.b.reorder
	if err != nil {
		class := "decode"
		var de *ingest.DecodeError
		if errors.As(err, &de) {
			class = de.Class()
		}
		// A partition whose last record is dead-lettered must still be
		// able to go idle, or its buffered edges would wait for more.
		reorder.SetPending(m.Partition, m.Offset+1 < m.HighWaterMark)
		return a.dead.queue(ctx, *m, class, err.Error(), a.stats)
	}
	a.stats.Decoded++
	a.uncounted.decoded++
	if a.pos.history(m.Partition, m.Offset) {
		e.History = true
	}
	// Only the records the previous owner had released were mined: the
	// ones still in its reorder buffer (times above its watermark) are
	// new to everyone.
	if r, ok := a.pos.resume[m.Partition]; ok && !e.History {
		if w, handled := r.watermarkAt(m.Offset); handled && e.T <= w {
			e.Replayed = true
		}
	}
	reorder.SetPending(m.Partition, m.Offset+1 < m.HighWaterMark)
	if refused, err := a.refuseFuture(ctx, *m, e); refused || err != nil {
		return err
	}
	if !reorder.AddFrom(e) {
		return nil
	}
	if !duty {
		a.skip() // late here; its owner decides for itself, and dead-letters it
		return nil
	}
	a.parts.im.Late(1)
	return a.dead.queue(ctx, *m, "late", fmt.Sprintf("late edge: t=%d is not after the watermark %d", e.T, reorder.Watermark()), a.stats)
}

// refuseFuture dead-letters m if its edge is dated too far ahead
// (window.max_future, caps.go); it reports whether it did.
func (a *admission) refuseFuture(ctx context.Context, m kafka.Message, e *ingest.Edge) (bool, error) {
	reason := a.future.check(e.T, a.b.reorder.StreamTime())
	if reason == "" {
		return false, nil
	}
	a.caps.note(stream.CapFuture, "future edges go to the dead-letter topic", "reason", reason,
		"partition", m.Partition, "offset", m.Offset)
	return true, a.dead.queue(ctx, m, ingest.ClassFuture, reason, a.stats)
}

// onDuty reports whether the record at offset of partition is this
// instance's to dead-letter and mine as a last edge: not History, and
// from a partition of its duty.
func (a *admission) onDuty(partition int, offset int64) bool {
	if a.pos.history(partition, offset) {
		return false
	}
	return a.duty.owns(partition)
}

// skip counts a record that is not this instance's duty and could not
// join the window (undecodable, or late here).
func (a *admission) skip() {
	a.stats.Skipped++
	a.parts.pm.records.WithLabelValues("skipped").Inc()
}

// uncountedRecords are records taken in and not yet added to the ingest
// metrics: a labelled counter per record would cost more than taking the
// record in.
type uncountedRecords struct {
	consumed []int // by partition
	decoded  int
}

func (a *admission) countConsumed(partition, n int) {
	c := &a.uncounted.consumed
	if partition >= len(*c) {
		*c = append(*c, make([]int, partition+1-len(*c))...)
	}
	(*c)[partition] += n
}

// flushCounts adds the uncounted records to the ingest metrics.
func (a *admission) flushCounts() {
	u := &a.uncounted
	for part, n := range u.consumed {
		if n > 0 {
			a.parts.im.Consumed(part, n)
			u.consumed[part] = 0
		}
	}
	if u.decoded > 0 {
		a.parts.im.Decoded(u.decoded)
		u.decoded = 0
	}
}
