package stream

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/window"
)

// loopBatch is a BatchMiner that counts plan by plan on the CPU engine,
// recording its calls.
type loopBatch struct {
	*cpu.Engine
	calls, plans int
}

func (b *loopBatch) MineBatch(ctx context.Context, w *window.Window, plans []*motif.Plan, req motif.Request) ([]motif.Result, error) {
	b.calls++
	b.plans += len(plans)
	out := make([]motif.Result, len(plans))
	for i, p := range plans {
		r, err := b.Mine(ctx, w, p, req)
		if err != nil {
			return out, err
		}
		out[i] = r
	}
	return out, nil
}

func countQueries(t *testing.T, delta time.Duration) []Query {
	t.Helper()
	var qs []Query
	for _, c := range []struct {
		name      string
		enumerate bool
	}{{"M1", false}, {"M2", false}, {"M4", false}, {"M5", false}, {"M4-A", false}, {"M4", true}} {
		q, err := motif.Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		q.Delta = motif.DurationSpan(delta)
		if !c.enumerate {
			q.Name += "-count"
		}
		qs = append(qs, Query{Query: q, Enumerate: c.enumerate})
	}
	return qs
}

// TestBatchedCountsEqualPerQuery: with a BatchMiner engine the batch's
// count-only queries are mined together (one call per run with all four
// of them; the anti-edge and enumerate queries query by query), and
// every count and alert equals query-by-query mining's, with every
// partition owned and with some (root masks), and with a work cap (no
// batching).
func TestBatchedCountsEqualPerQuery(t *testing.T) {
	w := loadGraph(t)
	qs := countQueries(t, time.Hour)
	edges := edgesOf(w)
	for _, c := range []struct {
		owned []int
		steps int64
	}{{nil, 0}, {[]int{0, 2}, 0}, {nil, 1 << 40}} {
		label := fmt.Sprintf("owned %v, step cap %d", c.owned, c.steps)
		run := func(e motif.Engine) (map[string]int, map[string]int64) {
			p, err := New(Options{Engine: e, Schema: *w.Schema(), MaxMineSteps: c.steps})
			if err != nil {
				t.Fatal(err)
			}
			p.Own(c.owned)
			if err := p.SetQueries(qs); err != nil {
				t.Fatal(err)
			}
			ids, counts := map[string]int{}, map[string]int64{}
			streamRun(t, p, edges, 997, ids, counts)
			return ids, counts
		}
		wantIDs, wantCounts := run(cpu.New(2))
		b := &loopBatch{Engine: cpu.New(2)}
		ids, counts := run(b)
		if len(wantCounts) < 5 || wantCounts["M1-count"] == 0 {
			t.Fatalf("%s: counts %v: the test compares too little", label, wantCounts)
		}
		for q, n := range wantCounts {
			if counts[q] != n {
				t.Errorf("%s: %s counted %d batched, %d query by query", label, q, counts[q], n)
			}
		}
		if len(ids) != len(wantIDs) {
			t.Errorf("%s: %d alerts batched, %d query by query", label, len(ids), len(wantIDs))
		}
		for id := range wantIDs {
			if ids[id] != 1 {
				t.Errorf("%s: alert %s reported %d times batched", label, id, ids[id])
				break
			}
		}
		switch {
		case c.steps > 0 && b.calls != 0:
			t.Errorf("%s: %d MineBatch calls under a work cap", label, b.calls)
		case c.steps == 0 && (b.calls == 0 || b.plans != 4*b.calls):
			t.Errorf("%s: %d MineBatch calls with %d plans; want some, of 4 plans each", label, b.calls, b.plans)
		}
	}
}
