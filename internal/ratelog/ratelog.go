// Package ratelog keeps repeated warnings readable: a line with a given
// key is logged at most once per interval, and the next one that passes
// says how many were held back in between, so nothing goes unmentioned
// while a flood of hostile input cannot flood the log too.
package ratelog

import (
	"sync"
	"time"
)

// Limiter decides which lines to log. The zero value is not usable; use
// New. It is safe for concurrent use.
type Limiter struct {
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	keys map[string]*state
}

type state struct {
	last       time.Time
	suppressed int
}

// New returns a Limiter that lets one line per key through every
// interval. now is the clock (nil: time.Now).
func New(every time.Duration, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{every: every, now: now, keys: map[string]*state{}}
}

// Allow reports whether a line with key may be logged now and, if so, how
// many lines with the key were held back since the last one logged.
func (l *Limiter) Allow(key string) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	s := l.keys[key]
	if s == nil {
		l.keys[key] = &state{last: now}
		return true, 0
	}
	if now.Sub(s.last) < l.every {
		s.suppressed++
		return false, 0
	}
	n := s.suppressed
	s.last, s.suppressed = now, 0
	return true, n
}
