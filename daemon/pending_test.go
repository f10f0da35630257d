package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/stream"
)

// TestStalledPartitionIsNotIdle: partition 1 has a record in the log but
// its fetch stalls past the idle timeout while partition 0 flows. With
// the brokers' log end consulted, partition 1 stays pending and its
// record, fetched late, is not late; without it (the old behaviour, and
// the CI failure of 2026-12-02 under load), the record is dead-lettered.
func TestStalledPartitionIsNotIdle(t *testing.T) {
	for _, lookup := range []bool{true, false} {
		clock := time.Unix(1_800_000_000, 0)
		p, dlq, _ := capPipeline(t, stream.Options{}, time.Hour, clock)
		p.batcher.reorder = ingest.NewReorder(0, 2*time.Second, func() time.Time { return clock })
		ends := map[int]int64{0: 1, 1: 1}
		if lookup {
			p.batcher.ends.lookup = func(context.Context) (map[int]int64, error) { return ends, nil }
		}
		ctx := context.Background()
		base := clock.Unix()
		take := func(part int, off, ts int64) {
			m := record(off, "a", "b", ts)
			m.Partition, m.HighWaterMark = part, ends[part]
			if err := takeRecord(ctx, p, m); err != nil {
				t.Fatal(err)
			}
		}
		batch := func() {
			if err := p.batch(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// Both partitions caught up with one record each.
		take(0, 0, base)
		take(1, 0, base)
		batch()
		// Partition 1 gets a record in the log, its fetch stalls; partition
		// 0 flows on for three idle-timeout halves.
		ends[1] = 2
		for i := int64(1); i <= 3; i++ {
			ends[0] = i + 1
			take(0, i, base+100*i)
			clock = clock.Add(time.Second)
			batch()
		}
		take(1, 1, base+1) // fetched at last
		batch()
		late := len(dlq.sent)
		if lookup && late != 0 {
			t.Errorf("with the log end consulted: %d records dead-lettered (%v); want none", late, dlq.sent)
		}
		if !lookup && late != 1 {
			t.Errorf("without the lookup: %d records dead-lettered; want the stalled partition's record (the test no longer shows the case)", late)
		}
	}
}

// TestUnreadPartitionIsNotIdle: a partition the pipeline has not read
// from at all since the window was built, whose records the brokers
// hold, is pending too: its first records, fetched after the others
// flowed for longer than the idle timeout, are not late.
func TestUnreadPartitionIsNotIdle(t *testing.T) {
	clock := time.Unix(1_800_000_000, 0)
	p, dlq, _ := capPipeline(t, stream.Options{}, time.Hour, clock)
	p.batcher.reorder = ingest.NewReorder(0, 2*time.Second, func() time.Time { return clock })
	p.admit.pos.readFrom = map[int]int64{0: 0, 1: 0}
	ends := map[int]int64{0: 1, 1: 1}
	p.batcher.ends.lookup = func(context.Context) (map[int]int64, error) { return ends, nil }
	ctx := context.Background()
	base := clock.Unix()
	for i := int64(0); i < 4; i++ {
		ends[0] = i + 1
		m := record(i, "a", "b", base+100*i)
		m.HighWaterMark = ends[0]
		if err := takeRecord(ctx, p, m); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Second)
		if err := p.batch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	m := record(0, "c", "d", base+1)
	m.Partition, m.HighWaterMark = 1, 1
	if err := takeRecord(ctx, p, m); err != nil {
		t.Fatal(err)
	}
	if len(dlq.sent) != 0 {
		t.Errorf("the unread partition's first record was dead-lettered: %v", dlq.sent)
	}
}

// TestIdlePartitionAskedBeforeAWholeFetch: both partitions caught up and
// went idle; then records come into both at the same moment, and the
// whole of partition 0's fetch (hours of event time) is taken before
// partition 1's. The batch after it asks the log end whatever the check
// interval (here an hour, so the interval never asks), finds partition
// 1's records and holds the watermark for them: none is late. Before
// that (the loaded-machine failures of TestStandbyTakeover: 488 late
// records, 225 alerts missing), the interval had not passed, partition 1
// counted as idle and partition 0's fetch released its edges past them.
func TestIdlePartitionAskedBeforeAWholeFetch(t *testing.T) {
	clock := time.Unix(1_800_000_000, 0)
	p, dlq, _ := capPipeline(t, stream.Options{}, time.Hour, clock)
	p.batcher.reorder = ingest.NewReorder(0, 2*time.Second, func() time.Time { return clock })
	p.batcher.ends.every = time.Hour
	ends := map[int]int64{0: 1, 1: 1}
	asked := 0
	p.batcher.ends.lookup = func(context.Context) (map[int]int64, error) { asked++; return ends, nil }
	ctx := context.Background()
	base := clock.Unix()
	take := func(part int, off, ts int64) {
		t.Helper()
		m := record(off, "a", "b", ts)
		m.Partition, m.HighWaterMark = part, ends[part]
		if err := takeRecord(ctx, p, m); err != nil {
			t.Fatal(err)
		}
	}
	batch := func() {
		t.Helper()
		if err := p.batch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	take(0, 0, base)
	take(1, 0, base)
	batch()                            // the first check: the interval has passed since never
	clock = clock.Add(3 * time.Second) // both idle
	ends[0], ends[1] = 4, 2
	for i := int64(1); i <= 3; i++ {
		take(0, i, base+3600*i)
	}
	before := asked
	batch()
	if asked != before+1 {
		t.Errorf("the batch after an idle partition's neighbour's fetch asked the log end %d times; want once", asked-before)
	}
	take(1, 1, base+1)
	batch()
	if len(dlq.sent) != 0 {
		t.Errorf("%d records dead-lettered (%v); want none: partition 1's record was in the log when partition 0's fetch was mined", len(dlq.sent), dlq.sent)
	}
}
