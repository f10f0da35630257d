package kafka

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"golang.org/x/time/rate"
)

// Partitioning chooses the partition of each produced record.
type Partitioning uint8

const (
	// BySrc keys each record by its source node and picks the partition
	// with murmur2 of the key (the Java client's default partitioner), so
	// one account's outgoing edges stay in one partition, in order.
	BySrc Partitioning = iota
	// RoundRobin sends records to the partitions in turn, without a key.
	RoundRobin
)

// ParsePartitioning reads a partitioning name: "src" or "roundrobin".
func ParsePartitioning(s string) (Partitioning, error) {
	switch strings.ToLower(s) {
	case "src":
		return BySrc, nil
	case "roundrobin", "round-robin":
		return RoundRobin, nil
	}
	return 0, fmt.Errorf("produce: partitioning %q: want src or roundrobin", s)
}

// bySrcBalancer is BySrc's partitioner.
func bySrcBalancer() kafkago.Balancer { return &kafkago.Murmur2Balancer{Consistent: true} }

// SrcPartitioner returns the function that gives, for a record's source,
// the partition of a topic of n partitions that BySrc sends it to: for a
// producer that writes each partition on its own (monitor bench) and must
// agree with Produce.
func SrcPartitioner(n int) func(src string) int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	bal := bySrcBalancer()
	return func(src string) int { return bal.Balance(kafkago.Message{Key: []byte(src)}, ids...) }
}

func (p Partitioning) String() string {
	switch p {
	case BySrc:
		return "src"
	case RoundRobin:
		return "roundrobin"
	}
	return fmt.Sprintf("Partitioning(%d)", uint8(p))
}

// ProduceOptions configures Produce (and feed.ProduceWindow).
type ProduceOptions struct {
	Brokers []string
	// Transport carries the connection settings (Dial, TLS, SASL,
	// ClientID); nil means plain TCP. Produce copies them into a transport
	// of its own, so it never works from another client's stale metadata.
	Transport *kafkago.Transport
	// Topic must exist: create it first with EnsureTopics.
	Topic  string
	Format Format
	// Fields names the JSON fields; zero means DefaultFields.
	Fields Fields
	// OmitSeq leaves the seq field (JSON) or column (CSV) out. With it,
	// a consumer can order equal timestamps only by arrival, which differs
	// between partitions; keep seq to make the daemon agree with
	// `monitor mine` exactly.
	OmitSeq bool
	// TimeUnit is the duration of one tick of Record.T (default 1s): the
	// message timestamp is T×TimeUnit after the Unix epoch, truncated to
	// Kafka's milliseconds. feed.ProduceWindow uses the window's unit instead.
	TimeUnit     time.Duration
	Partitioning Partitioning
	// Rate limits the output to this many records per second (0: as fast
	// as the brokers acknowledge them).
	Rate float64
	// Speedup paces the output by the records' own times: a record T
	// ticks after the first one is sent T×TimeUnit/Speedup after the
	// start (0: no pacing). It excludes Rate.
	Speedup float64
	// BatchSize is the most records per write (default 1000). Every write
	// waits for the acknowledgements of all in-sync replicas.
	BatchSize int
	// Progress, if set, is called with the number of records acknowledged
	// so far after every write.
	Progress func(sent int)
}

const (
	defaultBatchSize = 1000
	// flushTimeout bounds one write, which runs to its end even after the
	// caller's context is done.
	flushTimeout = 10 * time.Second
)

// check validates o and fills in defaults.
func (o *ProduceOptions) check() error {
	switch {
	case len(o.Brokers) == 0:
		return ErrNoBrokers
	case o.Format != JSON && o.Format != CSV:
		return fmt.Errorf("produce: unknown format %v", o.Format)
	case o.Partitioning != BySrc && o.Partitioning != RoundRobin:
		return fmt.Errorf("produce: unknown partitioning %v", o.Partitioning)
	case o.TimeUnit < 0:
		return fmt.Errorf("produce: time unit %v must be positive", o.TimeUnit)
	case o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		return fmt.Errorf("produce: rate %v must be a positive number of records per second (0: unlimited)", o.Rate)
	case o.Speedup < 0 || math.IsNaN(o.Speedup) || math.IsInf(o.Speedup, 0):
		return fmt.Errorf("produce: speedup %v must be positive (0: no pacing)", o.Speedup)
	case o.Rate > 0 && o.Speedup > 0:
		return errors.New("produce: rate and speedup exclude each other")
	case o.BatchSize < 0:
		return fmt.Errorf("produce: batch size %d must be positive", o.BatchSize)
	}
	if err := checkTopicName(o.Topic); err != nil {
		return err
	}
	o.Fields = o.Fields.orDefault()
	if err := o.Fields.check(); err != nil {
		return err
	}
	if o.TimeUnit == 0 {
		o.TimeUnit = time.Second
	}
	if o.BatchSize == 0 {
		o.BatchSize = defaultBatchSize
	}
	return nil
}

// Produce writes the records of src to opts.Topic in order, paced by
// opts.Rate or opts.Speedup, and returns the number acknowledged by all
// in-sync replicas. It stops at the end of src, at the first error, or
// when ctx ends: then it pulls no more records, lets the write in flight
// finish, and returns ctx's error with the exact count written. Records
// are written in batches of up to BatchSize, sent when the batch is full,
// before a pacing pause, and at the end of src (so an unpaced src that
// yields slowly should be paced); each record is encoded before the next
// is pulled, so src may reuse it. An endless src (the demo feed) runs
// until ctx ends.
func Produce(ctx context.Context, src iter.Seq[Record], opts ProduceOptions) (int, error) {
	if err := opts.check(); err != nil {
		return 0, err
	}
	tr := transportLike(opts.Transport, 0)
	defer tr.CloseIdleConnections()
	if err := checkTopicExists(ctx, opts.Brokers, tr, opts.Topic); err != nil {
		return 0, err
	}
	var balancer kafkago.Balancer = bySrcBalancer()
	if opts.Partitioning == RoundRobin {
		balancer = &kafkago.RoundRobin{}
	}
	p := &producer{
		opts: opts,
		enc:  encoder{format: opts.Format, fields: opts.Fields, seq: !opts.OmitSeq},
		w: &kafkago.Writer{
			Addr:         kafkago.TCP(opts.Brokers...),
			Topic:        opts.Topic,
			Balancer:     balancer,
			Transport:    tr,
			RequiredAcks: kafkago.RequireAll,
			BatchSize:    opts.BatchSize,
			// Writes are synchronous and hand over whole batches, so the
			// only wait BatchTimeout adds is for a partition's last,
			// partial batch of each write.
			BatchTimeout: time.Millisecond,
		},
		msgs: make([]kafkago.Message, 0, opts.BatchSize),
	}
	n, err := p.run(ctx, src)
	if cerr := p.w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("produce: closing writer to topic %q: %w", opts.Topic, cerr)
	}
	return n, err
}

// checkTopicExists fails fast, with a clear message, for a topic the
// brokers do not have (kafka-go's Writer would retry for seconds).
func checkTopicExists(ctx context.Context, brokers []string, tr *kafkago.Transport, topic string) error {
	client := &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: tr}
	meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("produce: reading metadata of topic %q from %v: %w", topic, brokers, err)
	}
	for _, t := range meta.Topics {
		if t.Name != topic {
			continue
		}
		if errors.Is(t.Error, kafkago.UnknownTopicOrPartition) {
			return fmt.Errorf("produce: topic %q does not exist on %v: create it first", topic, brokers)
		}
		if t.Error != nil {
			return fmt.Errorf("produce: topic %q: %w", topic, t.Error)
		}
		return nil
	}
	return fmt.Errorf("produce: topic %q does not exist on %v: create it first", topic, brokers)
}

// producer is the state of one Produce call.
type producer struct {
	opts ProduceOptions
	enc  encoder
	w    *kafkago.Writer
	msgs []kafkago.Message
	buf  []byte // the pending messages' values, one after another
	ends []int  // where each pending value ends in buf
	sent int
}

func (p *producer) run(ctx context.Context, src iter.Seq[Record]) (int, error) {
	var limiter *rate.Limiter
	if p.opts.Rate > 0 {
		// A burst of ~50 ms of records: writes of a useful size at ~20 Hz,
		// and never more than that ahead of the rate after a stall.
		burst := min(max(int(p.opts.Rate/20), 1), p.opts.BatchSize)
		limiter = rate.NewLimiter(rate.Limit(p.opts.Rate), burst)
	}
	var (
		start time.Time
		t0    int64
		seen  bool
		index int
	)
	for r := range src {
		if err := ctx.Err(); err != nil {
			return p.sent, err
		}
		switch {
		case limiter != nil:
			if !limiter.Allow() {
				if err := p.flush(ctx); err != nil {
					return p.sent, err
				}
				// Reserve and sleep rather than Wait: Wait gives up at
				// once when the token comes after ctx's deadline, which
				// would end the run early instead of at the deadline.
				res := limiter.Reserve()
				if err := sleep(ctx, res.Delay()); err != nil {
					res.Cancel()
					return p.sent, err
				}
			}
		case p.opts.Speedup > 0:
			if !seen {
				start, t0, seen = time.Now(), r.T, true
			}
			due := start.Add(durationOf(float64(r.T-t0) * float64(p.opts.TimeUnit) / p.opts.Speedup))
			if d := time.Until(due); d > time.Millisecond {
				if err := p.flush(ctx); err != nil {
					return p.sent, err
				}
				if err := sleep(ctx, time.Until(due)); err != nil {
					return p.sent, err
				}
			}
		}
		if err := p.add(&r, index); err != nil {
			return p.sent, err
		}
		index++
		if len(p.msgs) >= p.opts.BatchSize {
			if err := p.flush(ctx); err != nil {
				return p.sent, err
			}
		}
	}
	if err := p.flush(ctx); err != nil {
		return p.sent, err
	}
	return p.sent, ctx.Err()
}

// add encodes r as a pending message; index is its 0-based place in the
// stream, for errors.
func (p *producer) add(r *Record, index int) error {
	ts, err := messageTime(r.T, p.opts.TimeUnit)
	if err != nil {
		return fmt.Errorf("produce: record %d (%s -> %s): %w", index, r.Src, r.Dst, err)
	}
	p.buf, err = p.enc.append(p.buf, r)
	if err != nil {
		return fmt.Errorf("produce: record %d (%s -> %s): %w", index, r.Src, r.Dst, err)
	}
	// The value is sliced out of p.buf at flush: p.buf may still move.
	p.ends = append(p.ends, len(p.buf))
	m := kafkago.Message{Time: ts}
	if p.opts.Partitioning == BySrc {
		m.Key = []byte(r.Src)
	}
	p.msgs = append(p.msgs, m)
	return nil
}

// flush writes the pending messages and waits for their acknowledgement.
func (p *producer) flush(ctx context.Context) error {
	if len(p.msgs) == 0 {
		return nil
	}
	start := 0
	for i, end := range p.ends {
		p.msgs[i].Value = p.buf[start:end:end]
		start = end
	}
	// A write is not cut short when ctx ends (kafka-go could still deliver
	// it after returning), so the count Produce returns is exact; a broker
	// that does not answer gets flushTimeout.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	if err := p.w.WriteMessages(wctx, p.msgs...); err != nil {
		return fmt.Errorf("produce: writing records %d to %d to topic %q: %w",
			p.sent, p.sent+len(p.msgs)-1, p.opts.Topic, err)
	}
	p.sent += len(p.msgs)
	clear(p.msgs)
	p.msgs = p.msgs[:0]
	p.ends = p.ends[:0]
	p.buf = p.buf[:0]
	if p.opts.Progress != nil {
		p.opts.Progress(p.sent)
	}
	return nil
}

// messageTime is the Kafka timestamp of an edge at t ticks of unit.
// Kafka timestamps are milliseconds since the epoch and must not be
// negative, so an edge before 1970 cannot be produced.
func messageTime(t int64, unit time.Duration) (time.Time, error) {
	if t < 0 {
		return time.Time{}, fmt.Errorf("time %d is before the Unix epoch: a Kafka timestamp cannot hold it", t)
	}
	if unit%time.Millisecond == 0 {
		ms := int64(unit / time.Millisecond)
		if t > math.MaxInt64/ms {
			return time.Time{}, fmt.Errorf("time %d × %v overflows a Kafka timestamp", t, unit)
		}
		return time.UnixMilli(t * ms), nil
	}
	if t > math.MaxInt64/int64(unit) {
		return time.Time{}, fmt.Errorf("time %d × %v overflows a Kafka timestamp", t, unit)
	}
	return time.UnixMilli(t * int64(unit) / int64(time.Millisecond)), nil
}

// durationOf converts nanoseconds to a Duration, saturating.
func durationOf(ns float64) time.Duration {
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
