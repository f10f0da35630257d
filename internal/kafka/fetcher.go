package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/ingest"
)

// FetcherOptions configures a Fetcher.
type FetcherOptions struct {
	Brokers []string
	Topic   string
	// Transport carries TLS and SASL settings; nil: a plain one, released
	// by Close.
	Transport kafkago.RoundTripper
	// Decoder decodes every record, in its partition's goroutine.
	Decoder *ingest.Decoder
	// MaxWait bounds how long the broker holds a fetch of a partition with
	// nothing new (default 250ms: the latency of a quiet topic).
	MaxWait time.Duration
	// InFlightBytes bounds the memory of the chunks fetched and not yet
	// handed back through Done (default 4 MiB): their records, copies of
	// the keys and values, decoded edges (Chunk's arrays, counted by
	// capacity, and each edge's ingest.Edge.Bytes). A fetch waits for
	// room. One fetch is always admitted, so a record larger than the
	// bound still passes, alone. A chunk handed back keeps its arrays for
	// its partition's next fetch only while they cost at most its share of
	// the bound (InFlightBytes over the chunks of all partitions), so the
	// idle chunks hold at most InFlightBytes too.
	InFlightBytes int64
	// FetchBytes is the largest fetch of all partitions together (each
	// asks for its part of it; default and most: InFlightBytes/2, so
	// that one fetch per partition can wait for the pipeline while the
	// next is under way). Brokers return at least one whole record batch
	// even when it is larger.
	FetchBytes int64
	// OnClientError, if set, is called for each failed fetch or offset
	// lookup (the partition retries it after a backoff).
	OnClientError func()
}

// Fetcher reads a set of partitions of one topic, each from a given
// offset, outside any consumer group: one goroutine per partition fetches
// whole record batches (kafka-go's Client.Fetch) and copies them into the
// chunk's own buffer, and another decodes them there meanwhile, so a
// partition's next fetch is under way while its last one is decoded,
// partitions decode in parallel, and the reader of the chunks pays one
// channel operation per fetch, not per record. It commits nothing.
//
// Next and Done are for one goroutine; Pause, Lag, InFlight and Close
// may be called from others.
type Fetcher struct {
	topic   string
	client  *kafkago.Client
	own     *kafkago.Transport
	dec     *ingest.Decoder
	maxWait time.Duration
	onErr   func()
	budget  byteBudget
	// keep is the most an idle chunk keeps of its arrays (Chunk.done).
	keep   int64
	out    chan *Chunk
	errc   chan error
	parts  map[int]*partFetch
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool

	mu  sync.Mutex
	lag map[int]int64
}

// partFetch is one partition's reading state.
type partFetch struct {
	owner    *Fetcher
	id       int
	next     int64
	maxBytes int64
	// free holds the partition's chunks not in use (chunksPerPartition).
	free chan *Chunk
	// paused stops fetching (Pause); wake ends a wait on it.
	paused atomic.Bool
	wake   chan struct{}
}

// chunksPerPartition is how many fetches of one partition can be under
// way, being decoded or waiting for the reader at once: their buffers are
// reused. (The daemon sizes fetches so that two of them fit in what a
// partition paused for running ahead may still add to the reorder
// buffer: daemon's fetchOptions.)
const chunksPerPartition = 2

// Chunk is one fetch of one partition: its records in offset order,
// decoded.
type Chunk struct {
	Partition int
	// Recs are the records; their Key and Value point into the chunk's
	// buffer and are valid until Done.
	Recs []kafkago.Message
	// Edges and Errs are the records' decodings (Errs[i] nil: Edges[i]
	// is the edge). An edge's Raw is its record's value, if at most
	// ingest.RawKeepMax bytes, copied into a buffer of the fetch's own
	// that is never reused: edges outlive the chunk.
	Edges []ingest.Edge
	Errs  []error
	// Fetched is when the fetch's answer came; FetchTime how long the
	// fetch took (waiting for the broker included, for room not);
	// DecodeTime the decoding.
	Fetched               time.Time
	FetchTime, DecodeTime time.Duration

	bytes int64 // counted in the in-flight bound until Done
	// keptEdges: Edges is still in use after Done (KeepEdges).
	keptEdges bool
	buf       []byte
	spans     []recordSpan
	from      *partFetch
}

// NewFetcher starts reading partition p of the topic at from[p], for
// every p in from (kafkago.FirstOffset and kafkago.LastOffset are looked up).
func NewFetcher(opts FetcherOptions, from map[int]int64) (*Fetcher, error) {
	switch {
	case len(opts.Brokers) == 0:
		return nil, errors.New("kafka fetcher: no brokers")
	case opts.Topic == "":
		return nil, errors.New("kafka fetcher: no topic")
	case opts.Decoder == nil:
		return nil, errors.New("kafka fetcher: no decoder")
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 250 * time.Millisecond
	}
	if opts.InFlightBytes <= 0 {
		opts.InFlightBytes = 4 << 20
	}
	if opts.FetchBytes <= 0 || opts.FetchBytes > opts.InFlightBytes/2 {
		opts.FetchBytes = opts.InFlightBytes / 2
	}
	f := &Fetcher{topic: opts.Topic, dec: opts.Decoder, maxWait: opts.MaxWait, onErr: opts.OnClientError,
		budget: byteBudget{max: opts.InFlightBytes, space: make(chan struct{}, 1)},
		keep:   opts.InFlightBytes / int64(chunksPerPartition*max(len(from), 1)),
		out:    make(chan *Chunk, max(len(from), 1)), errc: make(chan error, 1),
		parts: make(map[int]*partFetch, len(from)), lag: map[int]int64{}}
	transport := opts.Transport
	if transport == nil {
		f.own = &kafkago.Transport{}
		transport = f.own
	}
	f.client = &kafkago.Client{Addr: kafkago.TCP(opts.Brokers...), Transport: transport, Timeout: 10 * time.Second}
	perPart := max(opts.FetchBytes/int64(max(len(from), 1)), minFetchBytes)
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	for p, off := range from {
		pf := &partFetch{owner: f, id: p, next: off, maxBytes: perPart, free: make(chan *Chunk, chunksPerPartition), wake: make(chan struct{}, 1)}
		for range chunksPerPartition {
			pf.free <- &Chunk{Partition: p, from: pf}
		}
		f.parts[p] = pf
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.read(ctx, pf)
		}()
	}
	return f, nil
}

// minFetchBytes is the least a partition asks for in one fetch.
const minFetchBytes = 4 << 10

// Next returns the next chunk of any partition, or the latest fetch
// error (the partition retries by itself after a backoff: the error is
// for readiness and logs). It blocks until one comes or ctx ends (then
// it returns ctx's error). Hand the chunk back with Done.
func (f *Fetcher) Next(ctx context.Context) (*Chunk, error) {
	select {
	case c := <-f.out:
		return c, nil
	case err := <-f.errc:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Done hands c back: its bytes leave the in-flight bound, and its
// buffers are reused by the partition's next fetch. c must not be used
// after. Done may be called after Close.
func (f *Fetcher) Done(c *Chunk) { c.done() }

// KeepEdges tells the source that c.Edges stays in use after Done (the
// reorder buffer holds edges where they lie: ingest.Reorder.AddRun): the
// partition's next fetch decodes into a new array instead of this one.
func (c *Chunk) KeepEdges() { c.keptEdges = true }

func (c *Chunk) done() {
	c.from.owner.budget.release(c.bytes)
	c.bytes = 0
	clear(c.Recs)
	clear(c.Errs)
	if c.keptEdges {
		c.Edges, c.keptEdges = nil, false // the next fetch decodes into a new array
	} else {
		clear(c.Edges)
		c.Edges = c.Edges[:0]
	}
	c.Recs, c.Errs = c.Recs[:0], c.Errs[:0]
	if c.arrayBytes() > c.from.owner.keep {
		// Larger than its share of the bound: an idle chunk would hold
		// memory that nothing counts. The next fetch allocates anew.
		c.Recs, c.Errs, c.Edges, c.buf, c.spans = nil, nil, nil, nil, nil
	}
	select {
	case c.from.free <- c:
	default: // never: only chunksPerPartition chunks exist
	}
}

// Pause stops the fetching of the partitions in paused (after the fetch
// under way, if any) and resumes every other one: see
// Reorder.AppendAhead.
func (f *Fetcher) Pause(paused []int) {
	for id, pf := range f.parts {
		stop := false
		for _, p := range paused {
			if p == id {
				stop = true
				break
			}
		}
		if pf.paused.Swap(stop) && !stop {
			signal(pf.wake)
		}
	}
}

// Lag returns, per partition fetched, the records between the last one
// fetched and the partition's end as of that fetch.
func (f *Fetcher) Lag() map[int]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.lag)
}

// InFlight returns the bytes fetched and not handed back, and their peak.
func (f *Fetcher) InFlight() (now, peak int64) { return f.budget.held() }

// Close stops reading; chunks not yet returned by Next are dropped.
func (f *Fetcher) Close() error {
	if f.closed.Swap(true) {
		return nil
	}
	f.cancel()
	f.wg.Wait()
	if f.own != nil {
		f.own.CloseIdleConnections()
	}
	return nil
}

// read fetches one partition until ctx ends.
func (f *Fetcher) read(ctx context.Context, pf *partFetch) {
	backoff := time.Duration(0)
	fail := func(err error) bool {
		if ctx.Err() != nil {
			return false
		}
		if f.onErr != nil {
			f.onErr()
		}
		select {
		case f.errc <- fmt.Errorf("kafka fetcher: %s partition %d at offset %d: %w", f.topic, pf.id, pf.next, CleanError(err)):
		default: // one error waiting is enough to tell
		}
		backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
		return sleepCtx(ctx, backoff)
	}
	for pf.next < 0 {
		if err := f.resolve(ctx, pf); err != nil && !fail(err) {
			return
		}
	}
	// The partition's fetches go to its decoding goroutine in order.
	fetched := make(chan *Chunk, chunksPerPartition)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.decodeFetched(ctx, fetched)
	}()
	for {
		for pf.paused.Load() {
			select {
			case <-pf.wake:
			case <-ctx.Done():
				return
			}
		}
		var c *Chunk
		select {
		case c = <-pf.free:
		case <-ctx.Done():
			return
		}
		if !f.budget.acquire(ctx, pf.maxBytes) {
			return
		}
		t0 := time.Now()
		err := f.fetch(ctx, pf, c)
		c.Fetched = time.Now()
		c.FetchTime = c.Fetched.Sub(t0)
		f.budget.adjust(pf.maxBytes, c.bytes)
		if err != nil || len(c.Recs) == 0 {
			c.done()
			if err != nil && !fail(err) {
				return
			}
			continue
		}
		backoff = 0
		pf.next = c.Recs[len(c.Recs)-1].Offset + 1
		select {
		case fetched <- c:
		case <-ctx.Done():
			return
		}
	}
}

// decodeFetched decodes one partition's fetches, in order, and hands them
// to the reader until ctx ends.
func (f *Fetcher) decodeFetched(ctx context.Context, fetched <-chan *Chunk) {
	for {
		var c *Chunk
		select {
		case c = <-fetched:
		case <-ctx.Done():
			return
		}
		t1 := time.Now()
		f.decode(c)
		c.DecodeTime = time.Since(t1)
		select {
		case f.out <- c:
		case <-ctx.Done():
			return
		}
	}
}

// fetch fills c with the records of one fetch from pf.next on.
func (f *Fetcher) fetch(ctx context.Context, pf *partFetch, c *Chunk) error {
	res, err := f.client.Fetch(ctx, &kafkago.FetchRequest{Topic: f.topic, Partition: pf.id, Offset: pf.next,
		MinBytes: 1, MaxBytes: pf.maxBytes, MaxWait: f.maxWait})
	if err == nil {
		err = res.Error
	}
	if errors.Is(err, kafkago.OffsetOutOfRange) {
		// Retention deleted the records from pf.next on before they were
		// read: go on from the oldest one kept (as kafka-go's reader does),
		// and say so: those records are lost to this reader.
		from := pf.next
		pf.next = kafkago.FirstOffset
		if err := f.resolve(ctx, pf); err != nil {
			return err
		}
		if pf.next > from {
			return fmt.Errorf("records from offset %d to %d were deleted (the topic's retention) before they were read; reading on from %d", from, pf.next, pf.next)
		}
		return nil
	}
	if err != nil {
		return err
	}
	hwm := res.HighWatermark
	buf, spans := c.buf[:0], c.spans[:0]
	var headers int64 // the records' headers' memory
	for {
		rec, err := res.Records.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rec.Offset < pf.next {
			continue // a record batch can start before the offset asked for
		}
		var sp recordSpan
		if buf, sp.key, err = appendBytes(buf, rec.Key); err != nil {
			return err
		}
		if buf, sp.value, err = appendBytes(buf, rec.Value); err != nil {
			return err
		}
		spans = append(spans, sp)
		closeBytes(rec.Key) // the response's pages go back to kafka-go's pool
		closeBytes(rec.Value)
		m := kafkago.Message{Topic: f.topic, Partition: pf.id, Offset: rec.Offset, HighWaterMark: hwm, Time: rec.Time}
		for _, h := range rec.Headers {
			m.Headers = append(m.Headers, kafkago.Header{Key: h.Key, Value: h.Value})
			headers += int64(unsafe.Sizeof(h)) + int64(len(h.Key)+len(h.Value))
		}
		c.Recs = append(c.Recs, m)
	}
	// Keys and values point into buf once it has stopped growing.
	for i := range c.Recs {
		c.Recs[i].Key = spans[i].key.in(buf)
		c.Recs[i].Value = spans[i].value.in(buf)
	}
	c.buf, c.spans = buf, spans
	c.bytes = c.arrayBytes() + headers
	if n := len(c.Recs); n > 0 {
		f.mu.Lock()
		f.lag[pf.id] = max(hwm-c.Recs[n-1].Offset-1, 0)
		f.mu.Unlock()
	} else if hwm >= 0 {
		f.mu.Lock()
		f.lag[pf.id] = max(hwm-pf.next, 0)
		f.mu.Unlock()
	}
	return nil
}

// Sizes of a chunk's array elements, for arrayBytes.
const (
	messageBytes = int64(unsafe.Sizeof(kafkago.Message{}))
	spanBytes    = int64(unsafe.Sizeof(recordSpan{}))
	errBytes     = int64(unsafe.Sizeof(error(nil)))
	edgeBytes    = int64(unsafe.Sizeof(ingest.Edge{}))
)

// arrayBytes is the memory of c's arrays, by capacity: what it holds
// besides its decoded edges' own (their strings and raw values, counted
// by decode).
func (c *Chunk) arrayBytes() int64 {
	return int64(cap(c.buf)) + int64(cap(c.Recs))*messageBytes + int64(cap(c.spans))*spanBytes +
		int64(cap(c.Errs))*errBytes + int64(cap(c.Edges))*edgeBytes
}

// decodedErrBytes is what a decoding error holds, about: its message.
const decodedErrBytes = 128

// span is where a key or value lies in a chunk's buffer (n -1: nil).
type span struct{ at, n int }

type recordSpan struct{ key, value span }

func (s span) in(buf []byte) []byte {
	if s.n < 0 {
		return nil
	}
	return buf[s.at : s.at+s.n : s.at+s.n]
}

// appendBytes copies b (nil: a nil span) to the end of buf.
func appendBytes(buf []byte, b interface {
	io.Reader
	Len() int
}) ([]byte, span, error) {
	if b == nil {
		return buf, span{n: -1}, nil
	}
	n := b.Len()
	at := len(buf)
	if len(buf)+n > cap(buf) {
		nb := make([]byte, len(buf), max(2*cap(buf), len(buf)+n, 64<<10))
		copy(nb, buf)
		buf = nb
	}
	buf = buf[:at+n]
	if _, err := io.ReadFull(b, buf[at:]); err != nil {
		return buf, span{}, err
	}
	return buf, span{at, n}, nil
}

func closeBytes(b io.Closer) {
	if b != nil {
		b.Close()
	}
}

// decode decodes c's records into its edges and errors, and gives each
// edge its Raw value (one allocation per fetch, not per record).
func (f *Fetcher) decode(c *Chunk) {
	fetched := c.arrayBytes() // as counted by fetch, before the arrays below grow
	n := len(c.Recs)
	if cap(c.Edges) < n {
		c.Edges = make([]ingest.Edge, n)
	}
	if cap(c.Errs) < n {
		c.Errs = make([]error, n)
	}
	c.Edges, c.Errs = c.Edges[:n], c.Errs[:n]
	raws := 0
	for i := range c.Recs {
		if v := len(c.Recs[i].Value); v <= ingest.RawKeepMax {
			raws += v
		}
	}
	raw := make([]byte, 0, raws)
	was := c.bytes
	c.bytes = c.arrayBytes() + (was - fetched)
	for i := range c.Recs {
		m := &c.Recs[i]
		c.Edges[i], c.Errs[i] = f.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
		if len(m.Value) <= ingest.RawKeepMax && c.Errs[i] == nil {
			at := len(raw)
			raw = append(raw, m.Value...)
			c.Edges[i].Raw = raw[at:len(raw):len(raw)]
		}
		// The edge's strings, attributes and raw value: what Bytes
		// counts beyond the struct, which arrayBytes has (Bytes' own
		// struct size includes the reorder buffer's bookkeeping: a
		// little over).
		if c.Errs[i] == nil {
			c.bytes += int64(c.Edges[i].Bytes()) - edgeBytes
		} else {
			c.bytes += decodedErrBytes
		}
	}
	f.budget.adjust(was, c.bytes)
}

// resolve looks up pf.next when it is kafkago.FirstOffset or LastOffset.
func (f *Fetcher) resolve(ctx context.Context, pf *partFetch) error {
	res, err := f.client.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{
		f.topic: {{Partition: pf.id, Timestamp: pf.next}}}})
	if err != nil {
		return err
	}
	for _, po := range res.Topics[f.topic] {
		if po.Partition != pf.id {
			continue
		}
		if po.Error != nil {
			return po.Error
		}
		if pf.next == kafkago.FirstOffset {
			pf.next = po.FirstOffset
		} else {
			pf.next = po.LastOffset
		}
		return nil
	}
	return fmt.Errorf("listing offsets: no answer for partition %d", pf.id)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// byteBudget bounds the bytes held between fetching and Done.
type byteBudget struct {
	max   int64
	space chan struct{}

	mu   sync.Mutex
	now  int64
	peak int64
}

// acquire waits until n more bytes fit (or nothing is held), and takes
// them; false once ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int64) bool {
	b.mu.Lock()
	for b.now > 0 && b.now+n > b.max {
		b.mu.Unlock()
		select {
		case <-b.space:
		case <-ctx.Done():
			return false
		}
		b.mu.Lock()
	}
	b.now += n
	b.mu.Unlock()
	return true
}

// adjust replaces a reservation of was bytes by the is bytes fetched.
func (b *byteBudget) adjust(was, is int64) {
	b.mu.Lock()
	b.now += is - was
	b.peak = max(b.peak, b.now)
	b.mu.Unlock()
	if is < was {
		signal(b.space)
	}
}

func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.now -= n
	b.mu.Unlock()
	signal(b.space)
}

func (b *byteBudget) held() (now, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now, b.peak
}
