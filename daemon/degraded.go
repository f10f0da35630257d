package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/internal/promreg"
	"github.com/motifwatch/motifwatch/internal/ratelog"
)

// Degraded conditions: states in which the daemon runs and consumes but
// cannot see part of its input. They are the values of the condition
// label of motifwatch_degraded and the names /readyz and the status page
// give.
const (
	// condInputRejected: most records of the last minute were
	// dead-lettered or late, so most of the input is not mined.
	condInputRejected = "input_rejected"
	// condWatermarkDelay: records arrive but the event-time watermark
	// trails the wall clock by more than health.max_watermark_delay, so
	// matches are found that much later (or the feed is a replay).
	condWatermarkDelay = "watermark_delay"
	// condReloadRejected: the query files were changed, and the new set
	// was refused: the previous queries stay in effect, not the
	// operator's.
	condReloadRejected = "query_reload_rejected"
	// condPartitionUnread: a partition of the edge topic has no reader.
	condPartitionUnread = "partition_unread"
	// condFetchFailing: fetches from a partition of the edge topic fail.
	condFetchFailing = "partition_fetch_failing"
)

// degradedConditions lists every condition, for metrics present at 0.
var degradedConditions = []string{condInputRejected, condWatermarkDelay, condReloadRejected, condPartitionUnread, condFetchFailing}

// Input health: the share of rejected records is taken over the last
// inputSpan, once at least minInputRecords records arrived in it (one
// bad record in a quiet minute is not "most of the input").
const (
	inputSpan       = time.Minute
	minInputRecords = 10
	// degradedLogEvery is how often a condition still in force is
	// logged again.
	degradedLogEvery = 5 * time.Minute
)

// lookout keeps the degraded conditions: it puts them in force and lifts
// them (in health, for /readyz and the status page; in
// motifwatch_degraded; one log line when a condition starts, one every
// degradedLogEvery while it lasts, one when it ends), and evaluates the
// ones that follow from the input's counts and the watermark every
// second (watch). Parts that see a condition themselves (the query
// watcher, the partition watcher) call set and lift. It is safe for
// concurrent use; methods on a nil *lookout do nothing.
type lookout struct {
	health *health
	log    *slog.Logger
	gauge  *prometheus.GaugeVec
	limit  *ratelog.Limiter
	now    func() time.Time

	// maxRejected is the share of rejected records that puts
	// condInputRejected in force; maxDelay bounds the watermark's delay
	// behind the wall clock (0: not checked).
	maxRejected float64
	maxDelay    time.Duration
	input       *inputTally
	// watermark returns the watermark as a wall-clock time, if there is
	// one and its ticks map to time.
	watermark func() (time.Time, bool)

	mu    sync.Mutex
	since map[string]time.Time // conditions in force, since when
}

func newLookout(h *health, log *slog.Logger, reg prometheus.Registerer, maxRejected float64, maxDelay time.Duration) (*lookout, error) {
	l := &lookout{health: h, log: log, now: time.Now,
		maxRejected: maxRejected, maxDelay: maxDelay, input: newInputTally(inputSpan), since: map[string]time.Time{},
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "motifwatch_degraded",
			Help: "1 while a degraded condition is in force: the daemon consumes but is blind to part of its input (input_rejected, watermark_delay, query_reload_rejected, partition_unread, partition_fetch_failing); /readyz says degraded with the reasons."},
			[]string{"condition"})}
	l.limit = ratelog.New(degradedLogEvery, func() time.Time { return l.now() })
	var err error
	if reg != nil {
		l.gauge = promreg.Register(reg, l.gauge, &err)
	}
	for _, c := range degradedConditions {
		l.gauge.WithLabelValues(c).Set(0)
	}
	return l, err
}

// set puts cond in force with reason (the reason may change while it
// lasts).
func (l *lookout) set(cond, reason string) {
	if l == nil {
		return
	}
	l.health.degrade(cond, reason)
	l.gauge.WithLabelValues(cond).Set(1)
	l.mu.Lock()
	_, was := l.since[cond]
	if !was {
		l.since[cond] = l.now()
	}
	l.mu.Unlock()
	if !was {
		l.limit.Allow(cond) // the start is logged; the limiter times the reminders from it
		l.log.Warn("degraded: "+cond, "reason", reason)
		return
	}
	if ok, _ := l.limit.Allow(cond); ok {
		l.log.Warn("still degraded: "+cond, "reason", reason, "for", l.now().Sub(l.sinceOf(cond)).Round(time.Second))
	}
}

// lift ends cond if it is in force.
func (l *lookout) lift(cond string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	from, was := l.since[cond]
	delete(l.since, cond)
	l.mu.Unlock()
	if !was {
		return
	}
	l.health.clear(cond)
	l.gauge.WithLabelValues(cond).Set(0)
	l.log.Info("recovered: "+cond, "after", l.now().Sub(from).Round(time.Second))
}

func (l *lookout) sinceOf(cond string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.since[cond]
}

// records counts records that reached the pipeline: rejected of n were
// dead-lettered or late (not mined).
func (l *lookout) records(n, rejected int) {
	if l == nil || n == 0 {
		return
	}
	l.input.add(l.now(), n, rejected)
}

// check evaluates the conditions that follow from the input's counts and
// the watermark.
func (l *lookout) check() {
	now := l.now()
	total, rejected := l.input.sum(now)
	if total >= minInputRecords && float64(rejected) > l.maxRejected*float64(total) {
		l.set(condInputRejected, fmt.Sprintf("%d of the last minute's %d records were dead-lettered or late (more than %.0f%%): see motifwatch_pipeline_records_total and the dead-letter topic",
			rejected, total, 100*l.maxRejected))
	} else {
		l.lift(condInputRejected)
	}
	// The watermark's delay matters while records arrive: an idle feed's
	// watermark stays where its last edge was, and that is no blindness.
	if l.maxDelay > 0 && l.watermark != nil && total > 0 {
		if wm, ok := l.watermark(); ok && now.Sub(wm) > l.maxDelay {
			l.set(condWatermarkDelay, fmt.Sprintf("the watermark (%s) trails the wall clock by %s, more than health.max_watermark_delay %s: matches are found that late (a replayed backlog, a lagging consumer or a partition holding the watermark back)",
				wm.UTC().Format(time.RFC3339), now.Sub(wm).Round(time.Second), l.maxDelay))
			return
		}
	}
	l.lift(condWatermarkDelay)
}

// watch runs check every second until ctx ends.
func (l *lookout) watch(ctx context.Context) error {
	return tick(ctx, time.Second, l.check)
}

// inputTally counts records and rejected records in one-second buckets
// over a span, for the share of the last span's records rejected.
type inputTally struct {
	mu      sync.Mutex
	buckets []inputBucket // ring, by second
}

type inputBucket struct {
	second          int64 // Unix second the counts are for
	total, rejected int64
}

func newInputTally(span time.Duration) *inputTally {
	return &inputTally{buckets: make([]inputBucket, int(span/time.Second))}
}

func (t *inputTally) add(now time.Time, n, rejected int) {
	s := now.Unix()
	t.mu.Lock()
	b := &t.buckets[int(s%int64(len(t.buckets)))]
	if b.second != s {
		*b = inputBucket{second: s}
	}
	b.total += int64(n)
	b.rejected += int64(rejected)
	t.mu.Unlock()
}

// sum returns the counts of the span ending now.
func (t *inputTally) sum(now time.Time) (total, rejected int64) {
	s := now.Unix()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range t.buckets {
		if b.second > s-int64(len(t.buckets)) && b.second <= s {
			total += b.total
			rejected += b.rejected
		}
	}
	return total, rejected
}
