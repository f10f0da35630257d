package daemon

import (
	"errors"
	"testing"
	"time"
)

// TestHealthQuietFrom: while an operation fails, silence up to now says
// nothing about the partitions; after the last recovery, silence counts
// from the recovery; a success that ends no outage moves nothing.
func TestHealthQuietFrom(t *testing.T) {
	h := newHealth()
	if q := h.quietFrom(); !q.IsZero() {
		t.Fatalf("quietFrom before any outage = %v; want zero", q)
	}
	h.ok("fetch")
	if q := h.quietFrom(); !q.IsZero() {
		t.Fatalf("quietFrom after a success without an outage = %v; want zero", q)
	}
	h.fail("fetch", errors.New("down"))
	h.fail("commit", errors.New("down"))
	before := time.Now()
	if q := h.quietFrom(); q.Before(before) {
		t.Fatalf("quietFrom during an outage = %v; want now (>= %v)", q, before)
	}
	h.ok("fetch")
	if q := h.quietFrom(); q.Before(before) {
		t.Fatalf("quietFrom while commit still fails = %v; want now", q)
	}
	h.ok("commit")
	end := h.quietFrom()
	if end.Before(before) || end.After(time.Now()) {
		t.Fatalf("quietFrom after recovery = %v; want the recovery time", end)
	}
	// Time passing is what is tested: without a new outage, quietFrom
	// stays at the recovery however late it is asked.
	time.Sleep(5 * time.Millisecond)
	if q := h.quietFrom(); !q.Equal(end) {
		t.Fatalf("quietFrom moved to %v without an outage; want %v", q, end)
	}
	var none *health
	if q := none.quietFrom(); !q.IsZero() {
		t.Fatalf("a nil health's quietFrom = %v; want zero", q)
	}
}
