package daemon

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/stream"
)

// TestTakeoverNeedsARebuild: a record past the offset the window reaches
// ends the pipeline with ErrTookOver only when the group's committed
// offset proves that another member consumed the gap; gaps from
// transaction markers or retention (nothing committed past the window)
// are taken on, as is a later record when the lookup fails.
func TestTakeoverNeedsARebuild(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, _, _ := capPipeline(t, stream.Options{}, time.Hour, now)
	ctx := context.Background()
	base := now.Unix()
	committed, lookupErr, asked := int64(10), error(nil), 0
	p.admit.guard = &standbyGuard{log: p.parts.log, builtTo: map[int]int64{0: 10}, committed: func(context.Context) (map[int]int64, error) {
		asked++
		return map[int]int64{0: committed}, lookupErr
	}}
	steps := []struct {
		offset    int64
		committed int64
		lookupErr error
		tookOver  bool
		asks      int // lookups so far
	}{
		{10, 10, nil, false, 1},                // the first record: every partition checked, none moved
		{11, 10, nil, false, 1},                // contiguous
		{15, 10, nil, false, 2},                // a gap nobody committed into (a transaction marker)
		{20, 30, errors.New("down"), false, 3}, // a gap, the lookup fails: taken on
		{40, 30, nil, true, 4},                 // the group committed past the window: a takeover
	}
	for i, s := range steps {
		committed, lookupErr = s.committed, s.lookupErr
		err := takeRecord(ctx, p, record(s.offset, "a", "b", base+int64(i)))
		if got := errors.Is(err, ErrTookOver); got != s.tookOver || (err != nil && !s.tookOver) {
			t.Fatalf("step %d (offset %d, committed %d): take = %v; want took over %v", i, s.offset, s.committed, err, s.tookOver)
		}
		if asked != s.asks {
			t.Fatalf("step %d: %d committed-offset lookups; want %d (the first record, then only at gaps)", i, asked, s.asks)
		}
	}
	if p.stats.Records != 4 {
		t.Errorf("records taken = %d; want 4 (not the one past the takeover)", p.stats.Records)
	}
	// No check without the guard (scale-out hands over by itself).
	p.admit.guard = noTakeover{}
	if err := takeRecord(ctx, p, record(100, "a", "b", base+10)); err != nil {
		t.Errorf("take without a committed lookup = %v", err)
	}
}

// TestTakeoverFirstRecordChecksEveryPartition: a standby is handed every
// partition at once. Its first record comes from partition 0, which the
// old owner never moved (no gap there), but the group committed past the
// window in partition 1: the pipeline must stop before taking anything,
// or it would mine partition 0 from a stale window and commit it (the
// CI failure of 2026-12-02: alerts lost to the restart, others wrong).
func TestTakeoverFirstRecordChecksEveryPartition(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, _, _ := capPipeline(t, stream.Options{}, time.Hour, now)
	p.admit.guard = &standbyGuard{log: p.parts.log, builtTo: map[int]int64{0: 10, 1: 20},
		committed: func(context.Context) (map[int]int64, error) { return map[int]int64{0: 10, 1: 25}, nil }}
	err := takeRecord(context.Background(), p, record(10, "a", "b", now.Unix()))
	if !errors.Is(err, ErrTookOver) {
		t.Fatalf("first record with partition 1 committed past the window: take = %v; want ErrTookOver", err)
	}
	if p.stats.Records != 0 {
		t.Errorf("records taken = %d; want 0", p.stats.Records)
	}

	// A lookup that keeps failing at the first record ends it too: the
	// window cannot be shown to be current.
	q, _, _ := capPipeline(t, stream.Options{}, time.Hour, now)
	asked := 0
	q.admit.guard = &standbyGuard{log: q.parts.log, builtTo: map[int]int64{0: 10},
		committed: func(context.Context) (map[int]int64, error) { asked++; return nil, errors.New("down") }}
	if err := takeRecord(context.Background(), q, record(10, "a", "b", now.Unix())); !errors.Is(err, ErrTookOver) {
		t.Fatalf("first record, lookups failing: take = %v; want ErrTookOver", err)
	}
	if asked < 2 {
		t.Errorf("%d lookups; want retries before giving up", asked)
	}

	// A fresh start (nothing committed past the window) takes the record.
	r, _, _ := capPipeline(t, stream.Options{}, time.Hour, now)
	r.admit.guard = &standbyGuard{log: r.parts.log, builtTo: map[int]int64{0: 10, 1: 20},
		committed: func(context.Context) (map[int]int64, error) { return map[int]int64{0: 10}, nil }}
	if err := takeRecord(context.Background(), r, record(10, "a", "b", now.Unix())); err != nil {
		t.Fatalf("first record of a current window: take = %v", err)
	}
}
