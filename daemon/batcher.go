package daemon

import (
	"context"
	"math"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
)

// batcher is the stage that owns the reorder buffer: admission adds the
// records it takes to it, and the pipeline goroutine releases a batch
// from it at batch_size records or batch_max_wait (release), with the
// edges a cap made it release early since the last batch first. It
// keeps the buffer's caps, which its edges and those of the batches in
// flight share (overCap, runLimits), and its view of which partitions
// still have records to come (refreshPending).
type batcher struct {
	reorder *ingest.Reorder
	// size is batch_size; pending counts the records taken in since the
	// last batch, the first of them fetched at firstFetch (the start of
	// the batch's end-to-end latency).
	size       int
	pending    int
	firstFetch time.Time
	// early is the edges the reorder buffer released early (over a cap)
	// since the last batch, in order: the next batch mines them before
	// anything newer. Commits happen only in batch, after they are
	// processed, so the committed offsets never pass them. earlyBytes is
	// what they weighed in the buffer. They lie in the reorder buffer
	// (AppendReleaseRefs) until their batch is collected (Recycle).
	early      []*ingest.Edge
	earlyBytes int64
	// spare holds the collected batches' edge slices for the next
	// releases.
	spare [][]*ingest.Edge
	// maxBuffered and maxBufferedBytes are the reorder buffer's caps
	// (window.max_buffered, its share of max_buffered_bytes; 0: none),
	// which its edges and those of the batches in flight share.
	maxBuffered      int
	maxBufferedBytes int64
	// forcedSeen is the reorder buffer's Forced count already reported.
	forcedSeen int64
	// pos and ends: refreshPending.
	pos  *positions
	ends endCheck
}

// taken counts n records taken in, fetched at fetched.
func (b *batcher) taken(n int, fetched time.Time) {
	if b.pending == 0 {
		b.firstFetch = fetched
	}
	b.pending += n
}

// room is how many records may still be taken in before the batch
// closes.
func (b *batcher) room() int { return b.size - b.pending }

// full reports whether the batch in hand is closed: batch_size records
// taken in, or as many edges released early.
func (b *batcher) full() bool { return b.pending >= b.size || len(b.early) >= b.size }

// runLimits bounds a run of records added at once (admission.takeRun) so
// that the reorder buffer and the batches in flight (edges, bytes, of
// batches) stay within the caps together.
func (b *batcher) runLimits(edges int, bytes int64, batches int) ingest.RunLimits {
	lim := ingest.NoRunLimits
	if batches > 0 {
		if b.maxBuffered > 0 {
			lim.MaxLen = b.maxBuffered - edges
		}
		if b.maxBufferedBytes > 0 {
			lim.MaxBytes = b.maxBufferedBytes - bytes
		}
	}
	return lim
}

// overCap reports whether the reorder buffer's edges and those of the
// batches in flight (edges, bytes, of batches) together exceed a cap of
// the buffer (window.max_buffered, its share of max_buffered_bytes):
// taking more in waits for them, as it did before batches were mined
// beside the intake. (Over a cap on its own, the buffer releases early:
// releaseOverCap.)
func (b *batcher) overCap(edges int, bytes int64, batches int) bool {
	if batches == 0 {
		return false
	}
	return (b.maxBuffered > 0 && b.reorder.Len()+edges > b.maxBuffered) ||
		(b.maxBufferedBytes > 0 && b.reorder.Bytes()+bytes > b.maxBufferedBytes)
}

// releaseOverCap releases edges early from a reorder buffer over a cap,
// into the batch in hand.
func (b *batcher) releaseOverCap() {
	if b.reorder.OverCap() {
		before := b.reorder.Bytes()
		b.early, _ = b.reorder.AppendReleaseRefs(b.earlyEdges())
		b.earlyBytes += before - b.reorder.Bytes()
	}
}

// release releases what the watermark allows, after the edges released
// early, as a batch begun at start, and counts the records taken in
// anew. The batch's releasedEarly is what the caps released before the
// watermark passed them since the last release.
func (b *batcher) release(start time.Time) *minedBatch {
	// Edges released early go first: they precede everything still
	// buffered in (t, seq) order. (The watermark never moves back: this
	// release's covers theirs.)
	before := b.reorder.Bytes()
	edges, wm := b.reorder.AppendReleaseRefs(b.earlyEdges())
	j := &minedBatch{edges: edges, wm: wm, start: start, records: b.pending, firstFetch: b.firstFetch,
		inFlightBytes: b.earlyBytes + before - b.reorder.Bytes(), buffered: b.reorder.Len()}
	b.early, b.earlyBytes = nil, 0
	if f := b.reorder.Forced(); f > b.forcedSeen {
		j.releasedEarly = f - b.forcedSeen
		b.forcedSeen = f
	}
	b.pending = 0
	return j
}

// earlyEdges returns the slice the next early release appends to: the
// edges released early so far, or an empty one (a mined batch's, reused:
// growing a fresh one per batch of 100,000 edges was a third of the
// pipeline goroutine's time).
func (b *batcher) earlyEdges() []*ingest.Edge {
	if b.early != nil {
		return b.early
	}
	if n := len(b.spare); n > 0 {
		e := b.spare[n-1]
		b.spare = b.spare[:n-1]
		return e
	}
	return make([]*ingest.Edge, 0, b.size)
}

// keepSpare keeps a collected batch's edge slice for a later release.
func (b *batcher) keepSpare(edges []*ingest.Edge) {
	if cap(edges) > 0 && len(b.spare) < maxBatchesInFlight {
		b.spare = append(b.spare, edges[:0])
	}
}

// endCheck is when refreshPending asks for the log ends: every every,
// through lookup (nil: never), last at at.
type endCheck struct {
	lookup func(context.Context) (map[int]int64, error)
	every  time.Duration
	at     time.Time
}

// refreshPending asks the brokers, every ends.every, for the log end of
// the partitions this pipeline reads, and marks those with records it
// has not fetched yet as pending, which never go idle. Without it, a
// partition whose fetches stall (a slow broker, a rebalance, a loaded
// machine) for the idle timeout while the others flow looked idle: the
// watermark passed it and its records, once fetched, were late (seen in
// a loaded CI run: 920 records dead-lettered as late). Records clear the
// flag again when they reach the end (admission). A failed lookup changes
// nothing: an unreachable broker is an outage, which does not count
// towards idleness either (IgnoreSilenceBefore).
//
// It also asks, whatever the interval, before a batch whose new records
// could move the watermark past a partition that counts as idle: records
// come a fetch per partition, and the whole of one partition's fetch
// (hours of event time) could otherwise release the others' edges before
// their fetches, of records written at the same moment, came back
// (613 records late in one standby-takeover test run).
func (b *batcher) refreshPending(ctx context.Context) {
	if b.ends.lookup == nil || len(b.pos.next) == 0 {
		return
	}
	if time.Since(b.ends.at) < b.ends.every && (b.pending == 0 || !b.reorder.AnyIdle()) {
		return
	}
	b.ends.at = time.Now()
	cctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	ends, err := b.ends.lookup(cctx)
	if err != nil {
		return
	}
	pend := func(part int, next int64) {
		if end, ok := ends[part]; ok && end > next {
			b.reorder.SetPending(part, true)
		}
	}
	for part, next := range b.pos.next {
		pend(part, next)
	}
	// Partitions not read from yet, from where the window was built (a
	// reader that reaches them late must not find its records late).
	for part, start := range b.pos.readFrom {
		if _, read := b.pos.next[part]; !read {
			pend(part, start)
		}
	}
}

// endCheckInterval is how often refreshPending asks: four times per idle
// timeout, so a stalled partition is marked pending well before it could
// count as idle (never with idleness off; at most once a second).
func endCheckInterval(idle time.Duration) time.Duration {
	if idle <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return min(max(idle/4, 50*time.Millisecond), time.Second)
}
