package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

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
	// OffsetReset is where a partition's reading resumes when the offset
	// to read from lies outside its log (OFFSET_OUT_OF_RANGE):
	// ResetEarliest (the default) or ResetLatest. See Position.
	OffsetReset ResetPolicy
	// OnFetchError, if set, is called from a partition's goroutine with
	// each of its failed fetches or offset lookups (the partition retries
	// after a backoff); OnFetchOK with the first success after failures.
	OnFetchError func(partition int, err error)
	OnFetchOK    func(partition int)
	// HoldGone makes a partition whose fetch finds it unknown (the broker
	// answers UNKNOWN_TOPIC_OR_PARTITION, or the metadata lists it no
	// more: deleted with its topic?) stop, with a Position whose Gone is
	// set, until Seek says where to go on: its topic may be created
	// again, with a new log that the old position means nothing in, and
	// only the reader can tell (by the topic's metadata) whether to go on
	// where it was or from the new log's start. Without it, the
	// partition retries where it was.
	HoldGone bool
}

// ResetPolicy says where reading resumes when the offset to read from
// lies outside the partition's log, as a Kafka consumer's
// auto.offset.reset does.
type ResetPolicy uint8

const (
	// ResetEarliest resumes at the log's first record.
	ResetEarliest ResetPolicy = iota
	// ResetLatest resumes at the log's end: only records written from
	// then on are read.
	ResetLatest
)

func (r ResetPolicy) String() string {
	if r == ResetLatest {
		return "latest"
	}
	return "earliest"
}

// Why an offset was out of range (OffsetReset.Reason).
const (
	// ResetBeforeStart: the offset lies before the log's first record:
	// retention deleted records before they were read.
	ResetBeforeStart = "before_start"
	// ResetPastEnd: the offset lies past the log's end: the log is
	// shorter than what was read or committed (the topic was deleted and
	// created again, the log truncated, a broker restored from an older
	// copy).
	ResetPastEnd = "past_end"
)

// Position says where the reading of a partition starts or resumes. A
// Fetcher delivers one, in a chunk of its own without records, before
// the first records of each partition it reads, after each offset reset
// and after each Seek: the reader learns the partition's log bounds (for
// a partition it did not know, whether it has records to wait for) and
// every discontinuity, in order with the records.
type Position struct {
	// Offset is the next record read; LogStart and LogEnd are the
	// partition's first offset kept and the offset the next record
	// written will get, as looked up when the position was set.
	Offset, LogStart, LogEnd int64
	// Reset is set when the offset to read from lay outside the log and
	// reading resumed at Offset instead (FetcherOptions.OffsetReset).
	Reset *OffsetReset
	// Seek: the position follows a Seek (the partition's chunks fetched
	// before it came before it).
	Seek bool
	// Gone: a fetch found the partition unknown, and its reading holds
	// until Seek (FetcherOptions.HoldGone); Offset is where it was.
	Gone bool
}

// OffsetReset is an offset found outside its partition's log.
type OffsetReset struct {
	// Asked is the offset reading was to resume from.
	Asked int64
	// Reason is ResetBeforeStart or ResetPastEnd.
	Reason string
	// Policy is where reading resumed.
	Policy ResetPolicy
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
	hold    bool
	// metadataTTL is how often the transport refreshes its cached
	// metadata: kafka-go answers a fetch of a topic missing from that
	// cache itself (protocol.ErrNoTopic), which after a topic is created
	// again stays wrong until the next refresh (see staleGone).
	metadataTTL time.Duration
	reset       ResetPolicy
	onErr       func(int, error)
	onOK        func(int)
	budget      byteBudget
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
	// failing: the partition's last fetch or lookup failed (read's
	// goroutine only); failed mirrors it for Failing.
	failing bool
	failed  atomic.Bool
	// seek is an offset Seek asked for, not applied yet.
	seek atomic.Pointer[int64]
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
	// Position, when set, says where the partition's reading starts or
	// resumes; such a chunk has no records.
	Position *Position

	bytes int64 // counted in the in-flight bound until Done
	// keptEdges: Edges is still in use after Done (KeepEdges).
	keptEdges bool
	buf       []byte
	spans     []recordSpan
	from      *partFetch
}

// NewFetcher starts reading partition p of the topic at from[p], for
// every p in from (kafkago.FirstOffset and kafkago.LastOffset are looked
// up; an offset outside the log is reset by opts.OffsetReset).
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
	f := &Fetcher{topic: opts.Topic, dec: opts.Decoder, maxWait: opts.MaxWait, reset: opts.OffsetReset, hold: opts.HoldGone,
		onErr: opts.OnFetchError, onOK: opts.OnFetchOK,
		budget: byteBudget{max: opts.InFlightBytes, space: make(chan struct{}, 1)},
		keep:   opts.InFlightBytes / int64(chunksPerPartition*max(len(from), 1)),
		out:    make(chan *Chunk, max(len(from), 1)), errc: make(chan error, 1),
		parts: make(map[int]*partFetch, len(from)), lag: map[int]int64{}}
	transport := opts.Transport
	if transport == nil {
		f.own = &kafkago.Transport{}
		transport = f.own
	}
	f.metadataTTL = defaultMetadataTTL
	if t, ok := transport.(*kafkago.Transport); ok && t.MetadataTTL > 0 {
		f.metadataTTL = t.MetadataTTL
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
	c.Position = nil
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

// Seek moves the reading of partition to offset (kafkago.FirstOffset and
// LastOffset are looked up; one outside the log is reset as
// FetcherOptions.OffsetReset says) once its fetch under way, if any, is
// done: the chunks fetched before come first, then a Position with Seek
// set, then the records from there. A partition not read is ignored.
// It may be called from any goroutine.
func (f *Fetcher) Seek(partition int, offset int64) {
	pf := f.parts[partition]
	if pf == nil {
		return
	}
	pf.seek.Store(&offset)
	signal(pf.wake) // a paused partition moves too
}

// Partitions returns the partitions read, in increasing order.
func (f *Fetcher) Partitions() []int {
	ps := make([]int, 0, len(f.parts))
	for p := range f.parts {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// Failing returns the partitions whose last fetch or offset lookup
// failed (they retry by themselves), in increasing order.
func (f *Fetcher) Failing() []int {
	var ps []int
	for p, pf := range f.parts {
		if pf.failed.Load() {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
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
	// unknownSince: when fetches began to fail with the client's own
	// "no such topic" (zero: they do not), see staleGone.
	var unknownSince time.Time
	fail := func(err error) bool {
		if ctx.Err() != nil {
			return false
		}
		err = fmt.Errorf("kafka fetcher: %s partition %d at offset %d: %w", f.topic, pf.id, pf.next, CleanError(err))
		pf.failing = true
		pf.failed.Store(true)
		if f.onErr != nil {
			f.onErr(pf.id, err)
		}
		select {
		case f.errc <- err:
		default: // one error waiting is enough to tell
		}
		backoff = min(max(2*backoff, 50*time.Millisecond), 2*time.Second)
		return sleepCtx(ctx, backoff)
	}
	succeeded := func() {
		backoff = 0
		if pf.failing {
			pf.failing = false
			pf.failed.Store(false)
			if f.onOK != nil {
				f.onOK(pf.id)
			}
		}
	}
	// The partition's fetches go to its decoding goroutine in order.
	fetched := make(chan *Chunk, chunksPerPartition)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.decodeFetched(ctx, fetched)
	}()
	// placed finds where reading starts (or starts again after a seek)
	// and the log's bounds, retrying as fail says; nil: give up.
	placed := func() *Position {
		for {
			pos, err := f.place(ctx, pf)
			if pos != nil {
				succeeded()
				return pos
			}
			if err != nil && !fail(err) {
				return nil
			}
		}
	}
	pos := placed()
	if pos == nil {
		return
	}
	var c *Chunk
	select {
	case c = <-pf.free:
	case <-ctx.Done():
		return
	}
	c.Position, c.Fetched = pos, time.Now()
	select {
	case fetched <- c:
	case <-ctx.Done():
		return
	}
	for {
		for pf.paused.Load() && pf.seek.Load() == nil {
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
		if to := pf.seek.Swap(nil); to != nil {
			pf.next = *to
			unknownSince = time.Time{}
			pos := placed()
			if pos == nil {
				return
			}
			pos.Seek = true
			c.Position, c.Fetched = pos, time.Now()
			select {
			case fetched <- c:
			case <-ctx.Done():
				return
			}
			continue
		}
		if !f.budget.acquire(ctx, pf.maxBytes) {
			return
		}
		t0 := time.Now()
		err := f.fetch(ctx, pf, c)
		c.Fetched = time.Now()
		c.FetchTime = c.Fetched.Sub(t0)
		f.budget.adjust(pf.maxBytes, c.bytes)
		if err != nil && f.hold && unknownPartition(err) && !f.staleGone(err, &unknownSince) {
			fail(err) // counted and told; the wait is the seek's
			c.done()
			if !f.holdGone(ctx, pf, fetched) {
				return
			}
			continue
		}
		if err != nil {
			c.done()
			if !fail(err) {
				return
			}
			continue
		}
		succeeded()
		unknownSince = time.Time{}
		if len(c.Recs) == 0 && c.Position == nil {
			c.done()
			continue
		}
		if n := len(c.Recs); n > 0 {
			pf.next = c.Recs[n-1].Offset + 1
		}
		select {
		case fetched <- c:
		case <-ctx.Done():
			return
		}
	}
}

// unknownPartition reports whether a fetch error says that the partition
// does not exist (any more): the broker's UNKNOWN_TOPIC_OR_PARTITION, or
// kafka-go's metadata without the topic or partition.
func unknownPartition(err error) bool {
	return errors.Is(err, kafkago.UnknownTopicOrPartition) || errors.Is(err, protocol.ErrNoTopic) || errors.Is(err, protocol.ErrNoPartition)
}

// staleGone reports whether err, a fetch's unknown topic or partition,
// may come from the transport's stale metadata rather than from the
// broker, and is to be retried instead of held: kafka-go answers a fetch
// for a topic absent from its cached metadata itself, and after a topic
// is deleted and created again (the case Seek resumes) that answer is
// wrong until the cache's next refresh. The broker's own
// UNKNOWN_TOPIC_OR_PARTITION is believed at once; the client's only once
// it has lasted past a refresh (*since, when it began; zero: it had not).
func (f *Fetcher) staleGone(err error, since *time.Time) bool {
	if errors.Is(err, kafkago.UnknownTopicOrPartition) {
		return false
	}
	now := time.Now()
	if since.IsZero() {
		*since = now
	}
	return now.Sub(*since) <= f.metadataTTL+time.Second
}

// holdGone tells the reader that pf was found unknown (a Position with
// Gone set) and waits for a Seek; false once ctx ends.
func (f *Fetcher) holdGone(ctx context.Context, pf *partFetch, fetched chan<- *Chunk) bool {
	var c *Chunk
	select {
	case c = <-pf.free:
	case <-ctx.Done():
		return false
	}
	c.Position, c.Fetched = &Position{Offset: pf.next, LogStart: -1, LogEnd: -1, Gone: true}, time.Now()
	select {
	case fetched <- c:
	case <-ctx.Done():
		return false
	}
	for pf.seek.Load() == nil {
		select {
		case <-pf.wake:
		case <-ctx.Done():
			return false
		}
	}
	return true
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
		// pf.next lies outside the log: retention deleted the records
		// from it on before they were read, or the log is shorter than
		// it (truncated, or the topic created again). Reset it as the
		// policy says and tell the reader (the chunk's Position), which
		// reports it: whatever was skipped is lost to this reader.
		pos, err := f.place(ctx, pf)
		if err != nil {
			return err
		}
		if pos.Reset == nil {
			// Back in range by the time the bounds were read (a log
			// that grew meanwhile): still a discontinuity to tell.
			pos.Reset = &OffsetReset{Asked: pos.Offset, Reason: ResetPastEnd, Policy: f.reset}
		}
		c.Position = pos
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

// place looks up the partition's log bounds and settles pf.next: the
// bound it names when it is kafkago.FirstOffset or LastOffset, and the
// bound the reset policy picks when it lies outside the log (the
// position's Reset says so).
func (f *Fetcher) place(ctx context.Context, pf *partFetch) (*Position, error) {
	start, end, err := f.bounds(ctx, pf.id)
	if err != nil {
		return nil, err
	}
	pos := &Position{LogStart: start, LogEnd: end}
	switch {
	case pf.next == kafkago.FirstOffset:
		pf.next = start
	case pf.next == kafkago.LastOffset:
		pf.next = end
	case pf.next < start || pf.next > end:
		pos.Reset = &OffsetReset{Asked: pf.next, Reason: ResetPastEnd, Policy: f.reset}
		if pf.next < start {
			pos.Reset.Reason = ResetBeforeStart
		}
		pf.next = start
		if f.reset == ResetLatest {
			pf.next = end
		}
	}
	pos.Offset = pf.next
	return pos, nil
}

// bounds looks up a partition's first offset kept and its end offset.
func (f *Fetcher) bounds(ctx context.Context, partition int) (start, end int64, err error) {
	res, err := f.client.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{
		f.topic: {kafkago.FirstOffsetOf(partition), kafkago.LastOffsetOf(partition)}}})
	if err != nil {
		return 0, 0, err
	}
	for _, po := range res.Topics[f.topic] {
		if po.Partition != partition {
			continue
		}
		if po.Error != nil {
			return 0, 0, po.Error
		}
		return po.FirstOffset, po.LastOffset, nil
	}
	return 0, 0, fmt.Errorf("listing offsets: no answer for partition %d", partition)
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
