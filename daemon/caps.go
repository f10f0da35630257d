package daemon

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// futureCap is window.max_future: a record dated more than max ticks
// after both the wall clock and the newest edge time the reorder buffer
// believes (its StreamTime: held edges aside, window.max_jump) is
// dead-lettered (class future) instead of buffered. It is the outer bound
// of the jump rule: a record from a broken clock (year 2100) is refused
// at once instead of held.
//
// The reference is the later of the two so that a replay running ahead
// of the wall clock (the demo feed, `produce --speedup`) still passes:
// its edges advance a little past the newest one at a time. A backlog
// dated beyond the wall clock plus max_future on a fresh start is
// refused; set max_future to 0 to replay such data.
type futureCap struct {
	max  int64 // ticks; 0: off
	desc string
	tick time.Duration
	now  func() time.Time
}

func newFutureCap(maxFuture, tick time.Duration, now func() time.Time) futureCap {
	f := futureCap{tick: tick, now: now, desc: maxFuture.String()}
	if maxFuture > 0 {
		f.max = max(int64(maxFuture/tick), 1)
	}
	return f
}

// check returns why an edge at t is refused, or "".
func (f *futureCap) check(t, newest int64) string {
	if f.max <= 0 {
		return ""
	}
	ref := max(f.now().UnixNano()/int64(f.tick), newest)
	if limit := ref + f.max; limit < ref || t <= limit { // an overflowing limit admits everything
		return ""
	}
	return fmt.Sprintf("future edge: t=%d is more than window.max_future %s (%d ticks) after %d, the later of the wall clock and the newest edge",
		t, f.desc, f.max, ref)
}

// limit returns the largest edge time check admits with newest the
// newest edge time taken (math.MaxInt64: any); a later check admits at
// least as much, as the clock and the newest edge only move on.
func (f *futureCap) limit(newest int64) int64 {
	if f.max <= 0 {
		return math.MaxInt64
	}
	ref := max(f.now().UnixNano()/int64(f.tick), newest)
	if limit := ref + f.max; limit >= ref {
		return limit
	}
	return math.MaxInt64
}

// refuseFuture dead-letters m if its edge is dated too far ahead; it
// reports whether it did.
func (p *pipeline) refuseFuture(ctx context.Context, m kafka.Message, e *ingest.Edge) (bool, error) {
	reason := p.future.check(e.T, p.reorder.StreamTime())
	if reason == "" {
		return false, nil
	}
	p.proc.NoteCap(stream.CapFuture)
	p.capLog(stream.CapFuture, "future edges go to the dead-letter topic", "reason", reason,
		"partition", m.Partition, "offset", m.Offset)
	return true, p.deadLetter(ctx, m, ingest.ClassFuture, reason)
}

// deadLetterRefused queues the edges the processor refused (node cap) in
// q, the mined batch's dead letters (counted in st when written), rebuilt
// from their origin and raw value (kept only for values up to
// ingest.RawKeepMax; the reason says so otherwise). History edges are not
// sent again: they were handled before the restart.
func (p *pipeline) deadLetterRefused(ctx context.Context, refused []stream.Refused, q *deadQueue, st *pipelineStats) error {
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
			if err := p.flushDeadLetters(ctx, q, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// capLog logs a cap acting in the pipeline, at most once per cap every
// 10 s, saying how many were held back.
func (p *pipeline) capLog(cap, msg string, args ...any) {
	if p.capLimiter == nil {
		p.capLimiter = ratelog.New(10*time.Second, nil)
	}
	ok, suppressed := p.capLimiter.Allow(cap)
	if !ok {
		return
	}
	p.log.Warn("cap reached: "+msg, append(args, "cap", cap, "suppressed_since_last_log", suppressed)...)
}
