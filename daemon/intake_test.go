package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/stream"
)

// burstSource serves records from make, decoded by dec, in chunks of
// up to 100, then waits for the end.
type burstSource struct {
	fakeSource
	dec  *ingest.Decoder
	n    int
	make func(i int) kafka.Message
	i    int
}

func (b *burstSource) Next(ctx context.Context) (*kafka.Chunk, error) {
	if b.i < b.n {
		c := &kafka.Chunk{Fetched: time.Now()}
		for ; b.i < b.n && len(c.Recs) < 100; b.i++ {
			m := b.make(b.i)
			e, err := b.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
			c.Recs, c.Edges, c.Errs = append(c.Recs, m), append(c.Edges, e), append(c.Errs, err)
		}
		return c, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestIntakeBoundsBytesOfLargeRecords reproduces issue 12's memory
// finding: 2,500 valid 400 KB records at one timestamp (window.max_bytes
// 16MiB, max_buffered 50000) took the daemon from 27 MB to 1.0 GB, as the
// reorder buffer kept every record's value and the fetch channel held
// 40,000 records. Now the bytes held before the window are bounded by
// window.max_buffered_bytes (16 MiB here): the fetcher's in-flight bytes
// by its quarter (ingest's TestFetcherBoundsInFlightBytes), and the
// reorder buffer keeps the decoded edges only, not the values. Every
// record is taken in and buffered (tied at the newest time), none lost.
func TestIntakeBoundsBytesOfLargeRecords(t *testing.T) {
	p, _, _ := capPipeline(t, stream.Options{MaxBytes: 16 << 20}, 0, time.Now())
	const n, size, capBytes = 2500, 400_000, 16 << 20
	pad := `,"pad":"` + strings.Repeat("x", size) + `"}`
	src := &burstSource{dec: p.parts.dec, n: n, make: func(i int) kafka.Message {
		v := make([]byte, 0, size+64)
		v = fmt.Appendf(v, `{"src":"a%d","dst":"b%d","time":1700000000`, i, i)
		return kafka.Message{Topic: "edges", Partition: 0, Offset: int64(i), HighWaterMark: n, Value: append(v, pad...)}
	}}
	useSource(p, src)
	p.batcher.size, p.maxWait, p.shutdownTimeout = 10_000, 10*time.Millisecond, 10*time.Second
	p.batcher.reorder.SetMaxBuffered(50_000)
	p.batcher.reorder.SetMaxBytes(capBytes - capBytes/4)

	var maxReorder int64
	runUntilTaken(t, p, n, func(BatchReport) {
		maxReorder = max(maxReorder, p.batcher.reorder.Bytes())
	})
	if maxReorder > int64(n*1024) {
		t.Errorf("reorder buffer held up to %d bytes for %d edges: the records' values were kept", maxReorder, n)
	}
	if held := int64(p.batcher.reorder.Len()); held != n || p.stats.Records != n || p.stats.Late+p.stats.DeadLettered != 0 {
		t.Errorf("buffered %d, stats %+v; want all %d records buffered, none late or dead-lettered", held, p.stats, n)
	}
	t.Logf("reorder buffer %d bytes for %d edges", maxReorder, p.batcher.reorder.Len())
}

// TestCappedReleasesKeepBatchesLarge: a backlog whose partitions run
// apart in event time (a partition read ahead of another, as a skewed
// topic replayed by one reader is) keeps the reorder buffer at its cap.
// Each early release must go into the batch in hand, not close a batch
// of its own: the pipeline once mined such a backlog a few edges per
// batch (242,560 batches for 0.9M edges), at 6,000 edges/s on 16 cores.
func TestCappedReleasesKeepBatchesLarge(t *testing.T) {
	p, _, _ := capPipeline(t, stream.Options{}, 0, time.Now())
	const n, capEdges, batchSize = 20_000, 500, 5_000
	src := &burstSource{dec: p.parts.dec, n: n, make: func(i int) kafka.Message {
		// Partition 1 runs 10^6 s ahead of partition 0, which sends one
		// record per 20 of partition 1's.
		part, t := 1, 1_700_000_000+1_000_000+i
		if i%20 == 0 {
			part, t = 0, 1_700_000_000+i
		}
		v := fmt.Appendf(nil, `{"src":"a%d","dst":"b%d","time":%d}`, i%97, i%89, t)
		return kafka.Message{Topic: "edges", Partition: part, Offset: int64(i), HighWaterMark: n, Value: v}
	}}
	useSource(p, src)
	p.batcher.size, p.maxWait, p.shutdownTimeout = batchSize, time.Hour, 10*time.Second
	p.batcher.reorder.SetMaxBuffered(capEdges)

	batches := 0
	runUntilTaken(t, p, n, func(BatchReport) { batches++ })
	if p.batcher.reorder.Forced() == 0 {
		t.Fatal("the cap never acted: the test does not test it")
	}
	// batch_size records per batch, give or take the early releases.
	if want := 2 * n / batchSize; batches > want {
		t.Errorf("%d batches for %d records (batch_size %d, cap %d); want at most %d", batches, n, batchSize, capEdges, want)
	}
	if got := p.stats.Appended + p.stats.Late + p.stats.DeadLettered + int64(p.batcher.reorder.Len()); got != n {
		t.Errorf("appended %d + late %d + dead-lettered %d + buffered %d = %d; want %d", p.stats.Appended, p.stats.Late, p.stats.DeadLettered, p.batcher.reorder.Len(), got, n)
	}
	t.Logf("%d batches, forced %d, late %d", batches, p.batcher.reorder.Forced(), p.stats.Late)
}

// runUntilTaken runs the pipeline until its batches have taken n records
// in, calling each (on the pipeline's goroutine) with every batch report,
// then stops it.
func runUntilTaken(t *testing.T, p *pipeline, n int, each func(BatchReport)) {
	t.Helper()
	taken := 0
	done := make(chan struct{})
	p.parts.onBatch = func(r BatchReport) {
		each(r)
		taken += r.Records
		if taken == n {
			close(done)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- p.run(ctx) }()
	select {
	case <-done:
	case err := <-errc:
		t.Fatalf("pipeline ended: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the records were not all taken in within 2 minutes")
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
