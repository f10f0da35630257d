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
// are taken on, as is everything when the lookup fails.
func TestTakeoverNeedsARebuild(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, _, _ := capPipeline(t, stream.Options{}, time.Hour, now)
	ctx := context.Background()
	base := now.Unix()
	committed, lookupErr, asked := int64(10), error(nil), 0
	p.builtTo = map[int]int64{0: 10}
	p.committed = func(_ context.Context, partition int) (int64, bool, error) {
		asked++
		if partition != 0 {
			t.Fatalf("asked for partition %d", partition)
		}
		return committed, true, lookupErr
	}
	steps := []struct {
		offset    int64
		committed int64
		lookupErr error
		tookOver  bool
		asks      int // lookups so far
	}{
		{10, 10, nil, false, 0},                // where the window was rebuilt to: no gap
		{11, 10, nil, false, 0},                // contiguous
		{15, 10, nil, false, 1},                // a gap nobody committed into (a transaction marker)
		{20, 30, errors.New("down"), false, 2}, // a gap, the lookup fails: taken on
		{40, 30, nil, true, 3},                 // the group committed past the window: a takeover
	}
	for i, s := range steps {
		committed, lookupErr = s.committed, s.lookupErr
		err := p.take(ctx, record(s.offset, "a", "b", base+int64(i)))
		if got := errors.Is(err, ErrTookOver); got != s.tookOver || (err != nil && !s.tookOver) {
			t.Fatalf("step %d (offset %d, committed %d): take = %v; want took over %v", i, s.offset, s.committed, err, s.tookOver)
		}
		if asked != s.asks {
			t.Fatalf("step %d: %d committed-offset lookups; want %d (only at gaps)", i, asked, s.asks)
		}
	}
	if p.stats.Records != 4 {
		t.Errorf("records taken = %d; want 4 (not the one past the takeover)", p.stats.Records)
	}
	// No check without a lookup (scale-out hands over by itself).
	p.committed = nil
	if err := p.take(ctx, record(100, "a", "b", base+10)); err != nil {
		t.Errorf("take without a committed lookup = %v", err)
	}
}
