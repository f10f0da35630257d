package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
)

// takeChunk takes a decoded chunk in, closing a batch whenever
// batch_size records are pending: it is mined on its own goroutine while
// the next records are taken in (startBatch). Stretches of records that
// need nothing but joining the reorder buffer go in whole, where they lie
// (takeRun); the others one by one (takeDecoded).
func (p *pipeline) takeChunk(ctx context.Context, c *kafka.Chunk) error {
	if c.Position != nil {
		return p.takePosition(ctx, c.Partition, c.Position)
	}
	// A partition being read again from its new log's start: these
	// records come from where the reader was, and come again after the
	// seek (partitions.go, recreate).
	if _, ok := p.seeking[c.Partition]; ok {
		return nil
	}
	if asked, ok := p.lost[c.Partition]; ok && len(c.Recs) > 0 {
		return p.recreate(c.Partition, asked)
	}
	defer p.flushCounts()
	p.stage[stageFetch] += c.FetchTime
	p.stage[stageDecode] += c.DecodeTime
	start := time.Now()
	kept := false
	for i := 0; i < len(c.Recs); {
		if n := p.takeRun(c, i); n > 0 {
			i += n
			kept = true
		} else {
			if err := p.takeDecoded(ctx, &c.Recs[i], c.Fetched, &c.Edges[i], c.Errs[i]); err != nil {
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
		if p.inFlightOverCap() {
			p.stage[stageReorder] += time.Since(start)
			if err := p.awaitMined(); err != nil {
				return err
			}
			start = time.Now()
		}
		if p.reorder.OverCap() {
			before := p.reorder.Bytes()
			p.early, _ = p.reorder.AppendReleaseRefs(p.earlyEdges())
			p.earlyBytes += before - p.reorder.Bytes()
		}
		if p.pending >= p.batchSize || len(p.early) >= p.batchSize {
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

// takeRun takes in the longest stretch of c's records from i on that
// takeDecoded would only add to the reorder buffer, all at once
// (ingest.Reorder.AddRun: the edges stay in c's array), and returns its
// length (0: record i is for takeDecoded). Such records are decoded, at
// the offsets that follow the partition's last one taken (neither
// redelivered nor after a gap: no takeover check asks), past its
// history, without a previous owner's resume state, not too far in the
// future, in order in their partition, not late, and leave the reorder
// buffer and the batch in flight within their caps. The stretch ends at
// batch_size pending records, as the batch does.
func (p *pipeline) takeRun(c *kafka.Chunk, i int) int {
	m := &c.Recs[i]
	part := m.Partition
	if c.Errs[i] != nil {
		return 0
	}
	if next, ok := p.next[part]; !ok || m.Offset != next {
		return 0
	}
	if hb, ok := p.historyBefore[part]; ok && m.Offset < hb {
		return 0
	}
	if _, ok := p.resume[part]; ok {
		return 0
	}
	n := min(len(c.Recs)-i, p.batchSize-p.pending)
	for k := 1; k < n; k++ {
		if c.Errs[i+k] != nil || c.Recs[i+k].Offset != m.Offset+int64(k) || c.Recs[i+k].Partition != part {
			n = k
			break
		}
	}
	lim := ingest.NoRunLimits
	if len(p.flight) > 0 {
		edges, bytes := p.flightSize()
		if p.maxBuffered > 0 {
			lim.MaxLen = p.maxBuffered - edges
		}
		if p.maxBufferedBytes > 0 {
			lim.MaxBytes = p.maxBufferedBytes - bytes
		}
	}
	lim.MaxT = p.future.limit(p.reorder.StreamTime())
	n = p.reorder.AddRun(c.Edges[i:i+n], lim)
	if n == 0 {
		return 0
	}
	last := &c.Recs[i+n-1]
	p.stats.Records += int64(n)
	p.stats.Decoded += int64(n)
	p.uncounted.decoded += n
	p.countConsumed(part, n)
	p.next[part] = last.Offset + 1
	if p.pending == 0 {
		p.firstFetch = c.Fetched
	}
	p.pending += n
	p.reorder.SetPending(part, last.Offset+1 < last.HighWaterMark)
	return n
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

// take decodes one record into the reorder buffer, or dead-letters it.
func (p *pipeline) take(ctx context.Context, m kafka.Message) error {
	e, err := p.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
	if len(m.Value) <= ingest.RawKeepMax {
		e.Raw = m.Value
	}
	defer p.flushCounts()
	return p.takeDecoded(ctx, &m, time.Now(), &e, err)
}

// uncountedRecords are records taken in and not yet added to the ingest
// metrics: a labelled counter per record would cost more than taking the
// record in.
type uncountedRecords struct {
	consumed []int // by partition
	decoded  int
}

func (p *pipeline) countConsumed(partition, n int) {
	c := &p.uncounted.consumed
	if partition >= len(*c) {
		*c = append(*c, make([]int, partition+1-len(*c))...)
	}
	(*c)[partition] += n
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
// into the reorder buffer, or dead-letters it. It may mark *e (History,
// Replayed); the buffer keeps a copy.
func (p *pipeline) takeDecoded(ctx context.Context, m *kafka.Message, fetched time.Time, e *ingest.Edge, err error) error {
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
	if err := p.guard.check(ctx, m, p.next); err != nil {
		return err
	}
	p.stats.Records++
	p.countConsumed(m.Partition, 1)
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
		return p.deadLetter(ctx, *m, class, err.Error())
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
	if refused, err := p.refuseFuture(ctx, *m, e); refused || err != nil {
		return err
	}
	if !p.reorder.AddFrom(e) {
		return nil
	}
	if !duty {
		p.skip() // late here; its owner decides for itself, and dead-letters it
		return nil
	}
	p.im.Late(1)
	return p.deadLetter(ctx, *m, "late", fmt.Sprintf("late edge: t=%d is not after the watermark %d", e.T, p.reorder.Watermark()))
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
