package daemon

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// gateSink holds every write until the test opens its gate: a batch's
// alert write that takes as long as the test wants.
type gateSink struct {
	entered chan struct{}
	gate    chan struct{}
	n       int
}

func (g *gateSink) Write(ctx context.Context, as []alerts.Alert) error {
	g.entered <- struct{}{}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.n += len(as)
	return nil
}

func (g *gateSink) Close() error { return nil }

// chunkOf decodes records (src, dst, t) of partition 0 from offset on
// into one fetched chunk.
func chunkOf(t *testing.T, p *pipeline, offset int64, recs ...[3]any) *kafka.Chunk {
	t.Helper()
	c := &kafka.Chunk{Partition: 0, Fetched: time.Now()}
	for i, r := range recs {
		off := offset + int64(i)
		v := fmt.Appendf(nil, `{"src":%q,"dst":%q,"time":%d}`, r[0], r[1], r[2])
		e, err := p.parts.dec.Decode(v, ingest.Origin{Topic: "edges", Partition: 0, Offset: off})
		if err != nil {
			t.Fatal(err)
		}
		m := kafka.Message{Topic: "edges", Partition: 0, Offset: off, HighWaterMark: 1 << 40, Value: v}
		c.Recs, c.Edges, c.Errs = append(c.Recs, m), append(c.Edges, e), append(c.Errs, nil)
	}
	return c
}

// TestBatchMinedWhileNextTakenIn: a batch closed by batch_size is mined,
// alerted and committed on its own goroutine while the pipeline
// goroutine takes the next records in; its commit waits for its alerts
// and covers only the records it released, never those taken in while
// it was mined.
func TestBatchMinedWhileNextTakenIn(t *testing.T) {
	p, dlq, _ := capPipeline(t, stream.Options{}, 0, time.Now())
	sink := &gateSink{entered: make(chan struct{}, 8), gate: make(chan struct{})}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: time.Minute}, sink, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := router.SetQueries(map[string]alerts.QueryOptions{"path": {Mode: alerts.ModeEnumerate}}); err != nil {
		t.Fatal(err)
	}
	p.miner.router = router
	p.batcher.size = 3
	src := p.in.src.(*fakeSource)
	ctx := context.Background()

	// Offsets 0-2 close the first batch, which releases the edges before
	// the newest (a path a→b→c: one alert); offset 3, and offset 4, which
	// is undecodable, are taken in while it is mined.
	c := chunkOf(t, p, 0, [3]any{"a", "b", 1}, [3]any{"b", "c", 2}, [3]any{"x", "y", 3}, [3]any{"c", "d", 4})
	garbage := kafka.Message{Topic: "edges", Partition: 0, Offset: 4, HighWaterMark: 1 << 40, Value: []byte("not json")}
	e, err := p.parts.dec.Decode(garbage.Value, ingest.Origin{Topic: "edges", Partition: 0, Offset: 4})
	if err == nil {
		t.Fatal("the garbage record decoded")
	}
	c.Recs, c.Edges, c.Errs = append(c.Recs, garbage), append(c.Edges, e), append(c.Errs, err)
	if err := p.takeChunk(ctx, c); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.entered:
	case <-time.After(time.Minute):
		t.Fatal("the first batch's alerts were never written")
	}
	if len(p.miner.flight) == 0 {
		t.Fatal("no batch in flight while its alert write is held")
	}
	if p.admit.pos.next[0] != 5 || p.stats.Records != 5 {
		t.Fatalf("next offset %d, %d records taken in while the first batch is mined; want 5, 5", p.admit.pos.next[0], p.stats.Records)
	}
	if len(src.commits) != 0 {
		t.Fatalf("committed %v before the batch's alerts were written", src.commits)
	}
	close(sink.gate)
	if err := p.awaitMined(); err != nil {
		t.Fatal(err)
	}
	if len(src.commits) != 1 || src.commits[0][0] != 2 || sink.n != 1 || p.stats.Appended != 2 {
		t.Fatalf("commits %v, %d alerts, %d edges appended after the first batch; want offset 2 (its first edge not released), 1 alert, 2 edges",
			src.commits, sink.n, p.stats.Appended)
	}
	if len(dlq.sent) != 0 {
		t.Fatalf("the first batch wrote %d dead letters; want none (the undecodable record is the next batch's)", len(dlq.sent))
	}
	if err := p.batch(ctx); err != nil {
		t.Fatal(err)
	}
	if len(dlq.sent) != 1 || dlq.sent[0].msg.Offset != 4 || p.stats.DeadLettered != 1 {
		t.Fatalf("dead letters %v (%d counted) after the second batch; want offset 4's", dlq.sent, p.stats.DeadLettered)
	}
	if len(src.commits) != 2 || src.commits[1][0] != 3 || p.stats.Appended != 3 {
		t.Fatalf("commits %v, %d appended after the second batch; want offset 3 (the record taken in meanwhile still buffered), 3 edges",
			src.commits, p.stats.Appended)
	}
}

// TestTwoBatchesInFlight: while a batch's alert write is held, the
// pipeline releases the next batch behind it and goes on taking records
// in; the batches are mined, alerted and committed one at a time in
// release order, each commit covering only what its batch released.
func TestTwoBatchesInFlight(t *testing.T) {
	p, _, _ := capPipeline(t, stream.Options{}, 0, time.Now())
	sink := &gateSink{entered: make(chan struct{}, 8), gate: make(chan struct{})}
	router, err := alerts.NewRouter(alerts.RouterOptions{Interval: time.Minute}, sink, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := router.SetQueries(map[string]alerts.QueryOptions{"path": {Mode: alerts.ModeEnumerate}}); err != nil {
		t.Fatal(err)
	}
	p.miner.router = router
	p.batcher.size = 3
	src := p.in.src.(*fakeSource)
	ctx := context.Background()

	// Offsets 0-2 close the first batch (a→b, b→c released: one path),
	// 3-5 the second (x→y, c→d, d→e: two paths), 6 is taken in while
	// both are in flight.
	c := chunkOf(t, p, 0, [3]any{"a", "b", 1}, [3]any{"b", "c", 2}, [3]any{"x", "y", 3},
		[3]any{"c", "d", 4}, [3]any{"d", "e", 5}, [3]any{"u", "v", 6}, [3]any{"w", "z", 7})
	if err := p.takeChunk(ctx, c); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.entered:
	case <-time.After(time.Minute):
		t.Fatal("the first batch's alerts were never written")
	}
	if len(p.miner.flight) != 2 || len(p.miner.flight[0].edges) != 2 || len(p.miner.flight[1].edges) != 3 {
		t.Fatalf("%d batches in flight; want 2, of 2 and 3 edges", len(p.miner.flight))
	}
	if p.admit.pos.next[0] != 7 || p.stats.Records != 7 {
		t.Fatalf("next offset %d, %d records taken in; want 7, 7", p.admit.pos.next[0], p.stats.Records)
	}
	if len(src.commits) != 0 {
		t.Fatalf("committed %v before the first batch's alerts were written", src.commits)
	}
	close(sink.gate)
	if err := p.awaitMined(); err != nil {
		t.Fatal(err)
	}
	if len(p.miner.flight) != 0 || len(src.commits) != 2 || src.commits[0][0] != 2 || src.commits[1][0] != 5 {
		t.Fatalf("commits %v, %d in flight; want offsets 2 then 5, none", src.commits, len(p.miner.flight))
	}
	if sink.n != 3 || p.stats.Appended != 5 || p.batcher.reorder.Retired() != 0 {
		t.Fatalf("%d alerts, %d edges appended, %d edges not recycled; want 3, 5, 0", sink.n, p.stats.Appended, p.batcher.reorder.Retired())
	}
}
