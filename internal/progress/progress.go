package progress

import (
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Grouped writes n with thousands separators: 3979317 → "3,979,317".
func Grouped[T int64 | uint64 | int](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	if _, ok := any(n).(uint64); ok {
		s = strconv.FormatUint(uint64(n), 10)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Every calls fn every interval until the returned stop is called (which
// waits for a running fn); interval 0 never calls it.
func Every(interval time.Duration, fn func()) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// PeakRSS returns the process's peak resident set size in bytes (0 where
// the platform does not report it).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024 // Linux reports kilobytes
}
