package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/stream"
)

// TestDutyDecidesDeadLetters: an undecodable record of a partition this
// instance owns is dead-lettered; one of a partition another instance
// owns is skipped (its owner dead-letters it), and both are counted.
func TestDutyDecidesDeadLetters(t *testing.T) {
	p, dlq, _ := capPipeline(t, stream.Options{}, 0, time.Unix(1_800_000_000, 0))
	p.admit.duty = newOwnedPartitions([]int{1})
	ctx := context.Background()
	for part := range 2 {
		m := garbage(0)
		m.Partition = part
		if err := takeRecord(ctx, p, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	if len(dlq.sent) != 1 || dlq.sent[0].msg.Partition != 1 {
		t.Errorf("dead letters %v; want partition 1's record only", dlq.sent)
	}
	if p.stats.Records != 2 || p.stats.Skipped != 1 || p.stats.DeadLettered != 1 {
		t.Errorf("stats %+v; want 2 records: 1 skipped, 1 dead-lettered", p.stats)
	}
}

// TestCommitQueueWaitsForSettledFlushes: offsets come out only once the
// router has settled their batch's flush, the newest settled batch's
// at once, and never the same offsets twice in a row.
func TestCommitQueueWaitsForSettledFlushes(t *testing.T) {
	var q commitQueue
	steps := []struct {
		offsets map[int]int64
		settled uint64
		want    int64 // partition 0's offset due; -1: none
	}{
		{map[int]int64{0: 10}, 0, -1}, // flush 1 not settled
		{map[int]int64{0: 20}, 0, -1}, // nor flush 2
		{map[int]int64{0: 30}, 2, 20}, // flushes 1 and 2 settle: the newest of them
		{map[int]int64{0: 30}, 4, 30}, // flush 3 and this one
		{map[int]int64{0: 30}, 5, -1}, // unchanged since the last commit
	}
	for i, s := range steps {
		got := q.push(s.offsets, s.settled)
		if s.want < 0 {
			if got != nil {
				t.Fatalf("step %d: push = %v; want nothing due", i, got)
			}
			continue
		}
		if got[0] != s.want {
			t.Fatalf("step %d: push = %v; want offset %d due", i, got, s.want)
		}
		q.committed(got)
	}
}
