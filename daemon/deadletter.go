package daemon

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// deadLetter is where undecodable and late records go (kafka.DeadLetter).
type deadLetter interface {
	Write(ctx context.Context, recs []kafka.DeadRecord) (kafka.DeadOutcome, error)
}

// Bounds of the dead letters queued between writes. One acknowledged
// write per record ran at a few hundred records per second, so a
// producer of garbage stalled valid ingest; a queue written in batches
// goes at broker speed, and these bound the memory it holds (records as
// fetched, before the dead-letter cap).
const (
	deadQueueRecords = 20_000
	deadQueueBytes   = 16 << 20
)

// deadQueue is the dead letters taken in and not yet written.
type deadQueue struct {
	recs  []kafka.DeadRecord
	bytes int
}

// deadLetters writes dead letters: the records admission refused
// (queued here while the batch is taken in, handed to the batch at its
// release: take) and those the miner refused, each batch's before its
// alerts and commit. One goroutine at a time writes: the batch being
// mined writes its own, and a full queue here waits for the batches in
// flight (wait) before it is written.
type deadLetters struct {
	dlq   deadLetter
	retry *retrier
	log   *slog.Logger
	pm    *pipelineMetrics
	im    *ingest.Metrics
	// queued is the dead letters of the batch being taken in.
	queued deadQueue
	// wait waits for the batches in flight (pipeline.awaitMined).
	wait func() error
}

// queue queues m for the dead-letter topic. The queue is written at the
// end of every batch, before the alerts and the commit, so that the
// offsets committed move past a dead-lettered record only once its dead
// letter is acknowledged (or counted lost); sooner when it reaches
// deadQueueRecords records or deadQueueBytes bytes. Records are counted
// (late, dead_lettered) in st once written.
//
// The records queued here are the batch being taken in; the batch being
// mined writes its own (handed over at its release: take). A full queue
// waits for that batch first, so that one goroutine at a time writes
// dead letters.
func (d *deadLetters) queue(ctx context.Context, m kafka.Message, class, reason string, st *pipelineStats) error {
	if !d.queued.add(m, class, reason) {
		return nil
	}
	if err := d.wait(); err != nil {
		return err
	}
	return d.flush(ctx, &d.queued, st)
}

// take hands the queued dead letters over to the batch being released.
func (d *deadLetters) take() deadQueue {
	q := d.queued
	d.queued = deadQueue{}
	return q
}

// refused queues the edges the processor refused (node cap) in q, the
// mined batch's dead letters (counted in st when written), rebuilt from
// their origin and raw value (kept only for values up to
// ingest.RawKeepMax; the reason says so otherwise). History edges are not
// sent again: they were handled before the restart.
func (d *deadLetters) refused(ctx context.Context, refused []stream.Refused, q *deadQueue, st *pipelineStats) error {
	for _, r := range refused {
		if r.Edge.History {
			continue
		}
		o := r.Edge.Origin
		m := kafka.Message{Topic: o.Topic, Partition: o.Partition, Offset: o.Offset, Value: r.Edge.Raw}
		reason := r.Reason
		if r.Edge.Raw == nil {
			reason += fmt.Sprintf("; the record's value (over %d bytes) was not kept in the reorder buffer: read it at its source offset", ingest.RawKeepMax)
		}
		if q.add(m, r.Class, reason) {
			if err := d.flush(ctx, q, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// add queues m and reports whether the queue is full (to be written now).
func (q *deadQueue) add(m kafka.Message, class, reason string) (full bool) {
	// Key, value and headers lie in the fetch's buffer, which the
	// partition's next fetch reuses: the queued record keeps copies.
	m.Key, m.Value = bytes.Clone(m.Key), bytes.Clone(m.Value)
	m.Headers = slices.Clone(m.Headers)
	q.recs = append(q.recs, kafka.DeadRecord{Msg: m, Reason: reason, Class: class})
	q.bytes += len(m.Key) + len(m.Value)
	return len(q.recs) >= deadQueueRecords || q.bytes >= deadQueueBytes
}

// flush writes the dead letters queued in q, retrying
// transient failures with backoff (the brokers are away: readiness goes
// down, as for any broker operation) until every record is written or
// lost, or ctx ends; what became of them is counted in st. A record the
// dead-letter topic refuses for good, even truncated, is lost: counted,
// logged at error with its source, and ingest goes on (a refused record
// retried forever wedged the daemon).
func (d *deadLetters) flush(ctx context.Context, q *deadQueue, st *pipelineStats) error {
	pending := q.recs
	if len(pending) == 0 {
		return nil
	}
	write := func(ctx context.Context) error {
		out, err := d.dlq.Write(ctx, pending)
		d.settle(out, st)
		pending = out.Retry
		return err
	}
	if err := d.retry.do(ctx, deadLetterAttempt, write); err != nil {
		q.recs = pending
		m := pending[0].Msg
		return fmt.Errorf("dead-lettering %d records (the first %s/%d@%d: %s): %w", len(pending), m.Topic, m.Partition, m.Offset, pending[0].Reason, err)
	}
	clear(q.recs)
	q.recs, q.bytes = q.recs[:0], 0
	return nil
}

// settle counts what became of the dead letters of one write, in st
// (the pipeline's, or the batch's being mined) and the metrics.
func (d *deadLetters) settle(out kafka.DeadOutcome, st *pipelineStats) {
	// Counted per class, not per record: a flood of garbage is when this
	// runs most.
	byClass := map[string]int{}
	for _, r := range out.Written {
		byClass[r.Class]++
	}
	for class, n := range byClass {
		// Late edges are dead-lettered too, but counted as late: the
		// outcomes partition the records.
		if class == ingest.ClassLate {
			st.Late += int64(n)
			d.pm.countRecords("late", n)
		} else {
			st.DeadLettered += int64(n)
			d.pm.countRecords("dead_lettered", n)
		}
		d.im.DeadLettered(class, n)
	}
	d.im.DeadLetterTruncated(out.Truncated)
	d.im.DeadLetterWriteFailed(ingest.DeadLetterTransient, len(out.Retry))
	d.im.DeadLetterWriteFailed(ingest.DeadLetterPermanent, out.Refused)
	if len(out.Lost) == 0 {
		return
	}
	for _, l := range out.Lost {
		st.DeadLetterLost++
		d.pm.countRecords(outcomeDeadLetterLost, 1)
		d.im.DeadLetterLost(l.Class, 1)
	}
	first := out.Lost[0]
	d.log.Error("dead letters lost: the dead-letter topic refused them even truncated; only the source topic holds them (until its retention)",
		"records", len(out.Lost), "sources", sourceRanges(out.Lost), "first_reason", first.Reason, "err", first.Err)
}

// outcomeDeadLetterLost is the outcome label of records the dead-letter
// topic refused for good.
const outcomeDeadLetterLost = "dead_letter_lost"

// sourceRanges lists the source positions of lost records compactly:
// "edges/0@5-7,9 edges/1@3".
func sourceRanges(lost []kafka.LostRecord) string {
	type pos struct {
		topic string
		part  int
		off   int64
	}
	ps := make([]pos, len(lost))
	for i, l := range lost {
		ps[i] = pos{l.Msg.Topic, l.Msg.Partition, l.Msg.Offset}
	}
	slices.SortFunc(ps, func(a, b pos) int {
		return cmp.Or(cmp.Compare(a.topic, b.topic), cmp.Compare(a.part, b.part), cmp.Compare(a.off, b.off))
	})
	var b strings.Builder
	for i := 0; i < len(ps); {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s/%d@", ps[i].topic, ps[i].part)
		j := i
		for first := true; j < len(ps) && ps[j].topic == ps[i].topic && ps[j].part == ps[i].part; first = false {
			k := j
			for k+1 < len(ps) && ps[k+1].topic == ps[j].topic && ps[k+1].part == ps[j].part && ps[k+1].off <= ps[k].off+1 {
				k++
			}
			if !first {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(ps[j].off, 10))
			if ps[k].off != ps[j].off {
				b.WriteByte('-')
				b.WriteString(strconv.FormatInt(ps[k].off, 10))
			}
			j = k + 1
		}
		i = j
	}
	return b.String()
}
