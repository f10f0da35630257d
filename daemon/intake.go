package daemon

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/kafka"
)

// The intake runs ahead of the pipeline goroutine: a fetcher goroutine
// pulls records from the consumer into the fetch queue, and a decoder
// goroutine takes everything queued at once, decodes it in parallel and
// hands the chunk to the pipeline. So fetching and decoding of the next
// batch overlap the mining, alert writing and committing of this one,
// and the pipeline pays one channel operation per chunk, not per record.
//
// Memory: the fetch queue is bounded in bytes (fetchQueueBytes, a
// quarter of window.max_buffered_bytes): a record's bytes count from
// when it is fetched until the pipeline has taken its chunk in, whether
// it waits in the queue, is being decoded or waits in the chunk channel.
// The fetcher waits while the queue is full; one record is always
// admitted, so a record larger than the bound still passes, alone.

// chunk is a run of fetched records in fetch order, decoded.
type chunk struct {
	recs    []kafka.Message
	fetched []time.Time // when each record came out of the consumer
	edges   []ingest.Edge
	errs    []error
	bytes   int64
	// fetchTime is the time the fetcher spent in the consumer for these
	// records; decodeTime the wall time of their (parallel) decoding.
	fetchTime, decodeTime time.Duration
}

// fetchQueue holds fetched records until the decoder takes them, bounded
// in bytes (see above).
type fetchQueue struct {
	max int64

	mu        sync.Mutex
	recs      []kafka.Message
	fetched   []time.Time
	fetchTime time.Duration
	bytes     int64 // fetched and not yet released: queued, decoding, or in a chunk not yet taken in
	peak      int64 // the largest bytes seen (for tests and the bench)
	ready     chan struct{}
	space     chan struct{}
}

func newFetchQueue(maxBytes int64) *fetchQueue {
	return &fetchQueue{max: maxBytes, ready: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// recordBytes is what a fetched record holds: its key, value, headers
// and the message struct.
func recordBytes(m *kafka.Message) int64 {
	n := int64(cap(m.Key) + cap(m.Value) + 160)
	for _, h := range m.Headers {
		n += int64(len(h.Key)+cap(h.Value)) + 40
	}
	return n
}

// put queues m, fetched at at after spending took in the consumer. It
// waits while the queue is full (waited says whether it did), and
// returns ok false once ctx ends.
func (q *fetchQueue) put(ctx context.Context, m kafka.Message, at time.Time, took time.Duration) (ok, waited bool) {
	size := recordBytes(&m)
	q.mu.Lock()
	for q.bytes > 0 && q.bytes+size > q.max {
		q.mu.Unlock()
		waited = true
		select {
		case <-q.space:
		case <-ctx.Done():
			return false, waited
		}
		q.mu.Lock()
	}
	q.bytes += size
	q.peak = max(q.peak, q.bytes)
	q.recs = append(q.recs, m)
	q.fetched = append(q.fetched, at)
	q.fetchTime += took
	first := len(q.recs) == 1
	q.mu.Unlock()
	if first {
		signal(q.ready)
	}
	return true, waited
}

// take waits for records and moves all queued ones into c (whose slices
// it reuses). It returns false once ctx ends.
func (q *fetchQueue) take(ctx context.Context, c *chunk) bool {
	for {
		q.mu.Lock()
		if len(q.recs) > 0 {
			c.recs, q.recs = q.recs, c.recs[:0]
			c.fetched, q.fetched = q.fetched, c.fetched[:0]
			c.fetchTime, q.fetchTime = q.fetchTime, 0
			q.mu.Unlock()
			c.bytes = 0
			for i := range c.recs {
				c.bytes += recordBytes(&c.recs[i])
			}
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-ctx.Done():
			return false
		}
	}
}

// release returns the bytes of a chunk the pipeline has taken in.
func (q *fetchQueue) release(n int64) {
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
	signal(q.space)
}

// held returns the bytes fetched and not yet released, and the peak.
func (q *fetchQueue) held() (now, peak int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes, q.peak
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// chunksInFlight is how many chunks exist: one being filled and decoded,
// one waiting in the channel, one the pipeline takes in. They cycle, so
// their slices are allocated once.
const chunksInFlight = 3

// decodeChunks takes records from q, decodes them and sends the chunks
// to out until ctx ends. Chunks come back through free for reuse.
func decodeChunks(ctx context.Context, q *fetchQueue, dec *ingest.Decoder, out chan<- *chunk, free <-chan *chunk) {
	for {
		var c *chunk
		select {
		case c = <-free:
		case <-ctx.Done():
			return
		}
		if !q.take(ctx, c) {
			return
		}
		start := time.Now()
		decodeAll(dec, c)
		c.decodeTime = time.Since(start)
		select {
		case out <- c:
		case <-ctx.Done():
			return
		}
	}
}

// parallelDecodeMin is the chunk size from which decoding is spread over
// the cores: below it the goroutines cost more than they save.
const parallelDecodeMin = 2048

// decodeAll decodes every record of c, in parallel for a large chunk.
// The records' origins are set; the pipeline decides everything that
// depends on its state (history, replay, duty) when it takes them in.
func decodeAll(dec *ingest.Decoder, c *chunk) {
	n := len(c.recs)
	c.edges = growSlice(c.edges, n)
	c.errs = growSlice(c.errs, n)
	one := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m := &c.recs[i]
			c.edges[i], c.errs[i] = dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
		}
	}
	workers := min(runtime.GOMAXPROCS(0), n/(parallelDecodeMin/2))
	if workers <= 1 {
		one(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			one(lo, hi)
		}(lo, min(lo+per, n))
	}
	wg.Wait()
}

// growSlice returns s with length n, reusing its array when it is large
// enough (the elements are overwritten by the caller; recycle cleared
// them).
func growSlice[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// recycle drops c's references to records and edges (their bytes are
// released; a reused chunk must not keep them alive) and empties it.
func (c *chunk) recycle() {
	clear(c.recs)
	clear(c.edges)
	clear(c.errs)
	c.recs, c.fetched, c.edges, c.errs = c.recs[:0], c.fetched[:0], c.edges[:0], c.errs[:0]
}
