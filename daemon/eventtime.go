package daemon

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/kafka"
)

// The daemon's side of the jump rule (ingest.JumpRule, window.max_jump):
// the edges it held and never confirmed go to the dead-letter topic as
// future, what it did is counted and logged, and the event time of the
// partitions is published for the other goroutines (eventTimes).

// jumpScratch is admission's scratch for what the reorder buffer hands
// over after each release, and the limiter of the jump rule's log lines.
type jumpScratch struct {
	discards   []ingest.Discarded
	jumpEvents []ingest.JumpEvent
	partTimes  []ingest.PartitionTime
	limiter    *ratelog.Limiter
}

// settleEventTime runs after every release of a batch, before the
// batch's offsets are taken: the held edges the reorder buffer discarded
// have left it (and its MinOffsets), so their dead letters join the
// batch's, written before its commit moves past them.
func (a *admission) settleEventTime(ctx context.Context, watermark int64) error {
	ev, reorder, im := &a.events, a.b.reorder, a.parts.im
	ev.discards = reorder.AppendDiscarded(ev.discards[:0])
	defer clear(ev.discards)
	for i := range ev.discards {
		if err := a.deadLetterDiscarded(ctx, &ev.discards[i]); err != nil {
			return err
		}
	}
	ev.jumpEvents = reorder.AppendJumpEvents(ev.jumpEvents[:0])
	im.Jumps(ev.jumpEvents)
	for _, e := range ev.jumpEvents {
		a.logJump(e)
	}
	ev.partTimes = reorder.AppendPartitionTimes(ev.partTimes[:0])
	im.SetEventTime(reorder.Held(), ev.partTimes)
	a.parts.times.set(watermark, ev.partTimes)
	return nil
}

// deadLetterDiscarded dead-letters a held edge that was never confirmed,
// rebuilt from its origin and raw value like a node-capped one. A History
// edge was decided when it was first read (before the restart); a record
// of a partition off duty is its owner's to dead-letter.
func (a *admission) deadLetterDiscarded(ctx context.Context, d *ingest.Discarded) error {
	e := &d.Edge
	if e.History {
		return nil
	}
	o := e.Origin
	if !a.onDuty(o.Partition, o.Offset) {
		a.skip()
		return nil
	}
	w := &a.parts.cfg.Window
	why := fmt.Sprintf("its partition went on at its old time for window.max_jump (its time is now t=%d)", d.PartitionTime)
	if d.Cap {
		why = "the reorder buffer reached a cap (window.max_buffered, max_buffered_bytes) and held edges leave first"
	}
	reason := fmt.Sprintf("future edge: t=%d came more than window.max_jump %s (%d ticks) after its partition's time and was never confirmed: %s",
		e.T, w.MaxJump, int64(w.MaxJump/a.parts.schema.TimeUnit), why)
	if e.Raw == nil {
		reason += fmt.Sprintf("; the record's value (over %d bytes) was not kept in the reorder buffer: read it at its source offset", ingest.RawKeepMax)
	}
	m := kafka.Message{Topic: o.Topic, Partition: o.Partition, Offset: o.Offset, Value: e.Raw}
	a.parts.im.HeldDeadLettered(1)
	return a.dead.queue(ctx, m, ingest.ClassFuture, reason, a.stats)
}

// logJump logs what the jump rule did, at most once per kind every 10 s
// (a producer whose clock runs ahead has every record held).
func (a *admission) logJump(ev ingest.JumpEvent) {
	if a.events.limiter == nil {
		a.events.limiter = ratelog.New(10*time.Second, nil)
	}
	ok, suppressed := a.events.limiter.Allow(ev.Kind.String())
	if !ok {
		return
	}
	log, tick := a.parts.log, a.parts.schema.TimeUnit
	at := func(t int64) string {
		if t == math.MinInt64 {
			return "none"
		}
		if s := alerts.TickTime(t, tick); s != "" {
			return fmt.Sprintf("%d (%s)", t, s)
		}
		return fmt.Sprint(t)
	}
	args := []any{"partition", ev.Partition, "suppressed_since_last_log", suppressed}
	switch ev.Kind {
	case ingest.JumpHeld:
		log.Info("event time: records far ahead of their partition's time are held, not believed, until later records confirm the jump",
			append(args, "records", ev.Edges, "first_t", at(ev.T), "partition_time", at(ev.From), "max_jump", a.parts.cfg.Window.MaxJump)...)
	case ingest.JumpConfirmed:
		log.Info("event time: a partition's time jumped, confirmed by later records",
			append(args, "from", at(ev.From), "to", at(ev.T), "jumps", ev.Edges)...)
	case ingest.JumpClock:
		log.Info("event time: the input went quiet; held records dated before the wall clock were taken as the partition's time",
			append(args, "from", at(ev.From), "to", at(ev.T))...)
	case ingest.JumpDiscarded:
		log.Warn("event time: held records were never confirmed and go to the dead-letter topic as future",
			append(args, "records", ev.Edges, "first_t", at(ev.T), "partition_time", at(ev.From))...)
	}
}

// eventTimes is the event time of the pipeline as of its last batch:
// the watermark and each partition's time, for the goroutines that
// report on it (readiness: a watermark trailing the wall clock). Safe
// for concurrent use; a nil *eventTimes keeps nothing.
type eventTimes struct {
	mu        sync.Mutex
	watermark int64
	parts     []ingest.PartitionTime
	at        time.Time
}

func newEventTimes() *eventTimes { return &eventTimes{watermark: math.MinInt64} }

func (e *eventTimes) set(watermark int64, parts []ingest.PartitionTime) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watermark, e.at = watermark, time.Now()
	e.parts = append(e.parts[:0], parts...)
}

// get returns the watermark (in window ticks; math.MinInt64 before the
// first), each partition's time and share of it (ingest.PartitionTime),
// and when the last batch set them.
func (e *eventTimes) get() (watermark int64, parts []ingest.PartitionTime, at time.Time) {
	if e == nil {
		return math.MinInt64, nil, time.Time{}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.watermark, append([]ingest.PartitionTime(nil), e.parts...), e.at
}
