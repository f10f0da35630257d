package daemon

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/motifwatch/motifwatch/internal/ratelog"
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

// capLog logs a cap acting in the pipeline (and counts it: note), at
// most once per cap every 10 s, saying how many were held back.
type capLog struct {
	log     *slog.Logger
	limiter *ratelog.Limiter
	// count counts the cap acting (stream.Processor.NoteCap: a counter,
	// safe beside the batch being mined).
	count func(cap string)
}

// note counts cap and logs msg.
func (c *capLog) note(cap, msg string, args ...any) {
	if c.count != nil {
		c.count(cap)
	}
	if c.limiter == nil {
		c.limiter = ratelog.New(10*time.Second, nil)
	}
	ok, suppressed := c.limiter.Allow(cap)
	if !ok {
		return
	}
	c.log.Warn("cap reached: "+msg, append(args, "cap", cap, "suppressed_since_last_log", suppressed)...)
}
