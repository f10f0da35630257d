package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// ConsumerOptions configures a Consumer.
type ConsumerOptions struct {
	Brokers  []string
	Topic    string
	Group    string
	ClientID string
	// Dialer carries TLS and SASL settings; nil dials plain TCP.
	Dialer *kafkago.Dialer
	// MinBytes and MaxBytes bound a fetch (defaults 1 and 10 MiB);
	// MaxWait is how long the broker may wait for MinBytes (default
	// 250ms: it bounds the latency of a quiet topic).
	MinBytes, MaxBytes int
	MaxWait            time.Duration
	// StartLatest makes a group without committed offsets start at the
	// end of each partition; by default it starts at the beginning.
	StartLatest bool
	// SessionTimeout is the group session timeout (0: kafka-go's 30s);
	// heartbeats go every third of it, at most every 3s, and rebalances
	// wait for members at most this long too.
	SessionTimeout time.Duration
	// Logger receives the Kafka client's errors at Warn; nil discards
	// them.
	Logger *slog.Logger
	// OnClientError, if set, is called for each error kafka-go's reader
	// reports and retries by itself (a fetch's i/o timeout, a lost
	// connection, a failed join): they never reach Fetch, so this is how
	// the caller counts them.
	OnClientError func()
}

// Consumer reads the edge topic as a member of a consumer group, without
// automatic commits: offsets move only by Commit, which the daemon calls
// once the alerts of everything before them are acknowledged.
//
// Fetch is for one goroutine; Commit, Lag and Close may be called from
// others.
type Consumer struct {
	r     *kafkago.Reader
	topic string

	mu  sync.Mutex
	lag map[int]int64
}

// NewConsumer returns a consumer; it joins the group on the first Fetch.
func NewConsumer(opts ConsumerOptions) (*Consumer, error) {
	switch {
	case len(opts.Brokers) == 0:
		return nil, errors.New("kafka consumer: no brokers")
	case opts.Topic == "":
		return nil, errors.New("kafka consumer: no topic")
	case opts.Group == "":
		return nil, errors.New("kafka consumer: no consumer group")
	case opts.MinBytes < 0 || opts.MaxBytes < 0 || opts.MaxWait < 0:
		return nil, fmt.Errorf("kafka consumer: min bytes %d, max bytes %d and max wait %v must not be negative",
			opts.MinBytes, opts.MaxBytes, opts.MaxWait)
	case opts.SessionTimeout < 0:
		return nil, fmt.Errorf("kafka consumer: session timeout %v must not be negative", opts.SessionTimeout)
	}
	if opts.MinBytes == 0 {
		opts.MinBytes = 1
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = 10 << 20
	}
	if opts.MinBytes > opts.MaxBytes {
		return nil, fmt.Errorf("kafka consumer: min bytes %d is above max bytes %d", opts.MinBytes, opts.MaxBytes)
	}
	if opts.MaxWait == 0 {
		opts.MaxWait = 250 * time.Millisecond
	}
	dialer := opts.Dialer
	if dialer == nil {
		dialer = &kafkago.Dialer{Timeout: 10 * time.Second, DualStack: true}
	}
	if opts.ClientID != "" {
		d := *dialer // the caller's dialer may be shared
		d.ClientID = opts.ClientID
		dialer = &d
	}
	start := kafkago.FirstOffset
	if opts.StartLatest {
		start = kafkago.LastOffset
	}
	cfg := kafkago.ReaderConfig{
		Brokers:        opts.Brokers,
		GroupID:        opts.Group,
		Topic:          opts.Topic,
		Dialer:         dialer,
		MinBytes:       opts.MinBytes,
		MaxBytes:       opts.MaxBytes,
		MaxWait:        opts.MaxWait,
		StartOffset:    start,
		CommitInterval: 0, // synchronous: CommitMessages returns the broker's answer
		// One member reads the whole topic (see wholeTopicBalancer);
		// range only for groups mixed with older releases.
		GroupBalancers: []kafkago.GroupBalancer{newWholeTopicBalancer(), kafkago.RangeGroupBalancer{}},
	}
	if opts.SessionTimeout > 0 {
		cfg.SessionTimeout = opts.SessionTimeout
		cfg.HeartbeatInterval = min(opts.SessionTimeout/3, 3*time.Second)
		// A member killed between joining and syncing holds the group's
		// rebalance for the rebalance timeout (kafka-go's default 30s, not
		// the session timeout): tie it to the session timeout, so that a
		// crash during start-up costs no more than a crash while running.
		cfg.RebalanceTimeout = opts.SessionTimeout
	}
	if opts.Logger != nil || opts.OnClientError != nil {
		l, counted := opts.Logger, opts.OnClientError
		cfg.ErrorLogger = kafkago.LoggerFunc(func(format string, args ...any) {
			if counted != nil {
				counted()
			}
			if l != nil {
				l.Warn("kafka consumer: "+fmt.Sprintf(format, args...), "topic", opts.Topic, "group", opts.Group)
			}
		})
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kafka consumer: %w", err)
	}
	return &Consumer{r: kafkago.NewReader(cfg), topic: opts.Topic, lag: make(map[int]int64)}, nil
}

// Fetch returns the next record. It blocks until one arrives or ctx ends
// (then it returns ctx's error). It commits nothing.
func (c *Consumer) Fetch(ctx context.Context) (kafkago.Message, error) {
	m, err := c.r.FetchMessage(ctx)
	if err != nil {
		return m, err
	}
	if m.HighWaterMark > 0 {
		c.mu.Lock()
		c.lag[m.Partition] = max(m.HighWaterMark-m.Offset-1, 0)
		c.mu.Unlock()
	}
	return m, nil
}

// Commit commits, per partition, the next offset to read (one past the
// last record whose effects are durable). It returns when the group
// coordinator has answered. An empty map commits nothing. It goes through
// the group's current generation: before the first Fetch has joined the
// group it waits (until ctx ends), and after a rebalance the coordinator
// may refuse it (the error says so; the partition's new owner re-reads
// from the last accepted commit).
func (c *Consumer) Commit(ctx context.Context, next map[int]int64) error {
	if len(next) == 0 {
		return nil
	}
	msgs := make([]kafkago.Message, 0, len(next))
	for p, off := range next {
		if off < 0 {
			return fmt.Errorf("kafka consumer: commit of offset %d for partition %d", off, p)
		}
		// kafka-go commits a message's offset + 1.
		msgs = append(msgs, kafkago.Message{Topic: c.topic, Partition: p, Offset: off - 1})
	}
	if err := c.r.CommitMessages(ctx, msgs...); err != nil {
		return fmt.Errorf("kafka consumer: committing offsets of %s: %w", c.topic, err)
	}
	return nil
}

// Lag returns, per partition this consumer has read, the records between
// the last one fetched and the partition's end as of that fetch.
func (c *Consumer) Lag() map[int]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.lag)
}

// Close leaves the group and closes the connections. Records fetched but
// not committed will be read again by the partition's next owner.
func (c *Consumer) Close() error { return c.r.Close() }

// Admin runs the metadata and offset queries that a restart needs, through
// kafka-go's Client (which routes each request to the right broker).
type Admin struct {
	c   *kafkago.Client
	own *kafkago.Transport // closed by Close when the Admin made it
}

// NewAdmin returns an Admin for the cluster at brokers. transport carries
// TLS and SASL settings; nil makes a plain one that Close releases.
func NewAdmin(brokers []string, transport kafkago.RoundTripper) (*Admin, error) {
	if len(brokers) == 0 {
		return nil, errors.New("kafka admin: no brokers")
	}
	a := &Admin{}
	if transport == nil {
		a.own = &kafkago.Transport{}
		transport = a.own
	}
	a.c = &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: transport, Timeout: 10 * time.Second}
	return a, nil
}

// Close closes the idle connections of a transport that NewAdmin made.
func (a *Admin) Close() {
	if a.own != nil {
		a.own.CloseIdleConnections()
	}
}

// Partitions returns the partition ids of topic.
func (a *Admin) Partitions(ctx context.Context, topic string) ([]int, error) {
	md, err := a.c.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return nil, fmt.Errorf("kafka admin: metadata of %s: %w", topic, err)
	}
	for _, t := range md.Topics {
		if t.Name != topic {
			continue
		}
		if t.Error != nil {
			return nil, fmt.Errorf("kafka admin: metadata of %s: %w", topic, t.Error)
		}
		ps := make([]int, len(t.Partitions))
		for i, p := range t.Partitions {
			ps[i] = p.ID
		}
		return ps, nil
	}
	return nil, fmt.Errorf("kafka admin: metadata of %s: %w", topic, kafkago.UnknownTopicOrPartition)
}

// OffsetsForTime returns, per partition of topic, the first offset whose
// record timestamp is at or after t; a partition with no such record
// gets its end offset (the next to be written). Reading from these
// offsets replays everything from t on: a restart uses it to rebuild the
// window.
func (a *Admin) OffsetsForTime(ctx context.Context, topic string, t time.Time) (map[int]int64, error) {
	if t.UnixMilli() < 0 {
		// Record timestamps are never negative, and the protocol reads
		// -1 and -2 as "latest" and "earliest": a time before 1970 (edge
		// times in seconds from 0, less a window span) means everything.
		return a.StartOffsets(ctx, topic)
	}
	parts, err := a.Partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	reqs := make([]kafkago.OffsetRequest, len(parts))
	for i, p := range parts {
		reqs[i] = kafkago.TimeOffsetOf(p, t)
	}
	got, err := a.listOffsets(ctx, topic, reqs)
	if err != nil {
		return nil, err
	}
	out := make(map[int]int64, len(parts))
	var ends []kafkago.OffsetRequest
	for _, po := range got {
		for off := range po.Offsets {
			if off >= 0 {
				out[po.Partition] = off
			}
		}
		if _, ok := out[po.Partition]; !ok {
			ends = append(ends, kafkago.LastOffsetOf(po.Partition))
		}
	}
	if len(ends) > 0 {
		got, err := a.listOffsets(ctx, topic, ends)
		if err != nil {
			return nil, err
		}
		for _, po := range got {
			out[po.Partition] = po.LastOffset
		}
	}
	for _, p := range parts {
		if _, ok := out[p]; !ok {
			return nil, fmt.Errorf("kafka admin: listing offsets of %s: no answer for partition %d", topic, p)
		}
	}
	return out, nil
}

// EndOffsets returns, per partition of topic, the offset the next record
// will get.
func (a *Admin) EndOffsets(ctx context.Context, topic string) (map[int]int64, error) {
	return a.logBounds(ctx, topic, kafkago.LastOffsetOf, func(po kafkago.PartitionOffsets) int64 { return po.LastOffset })
}

// StartOffsets returns, per partition of topic, the offset of the oldest
// record still stored (retention may have deleted earlier ones).
func (a *Admin) StartOffsets(ctx context.Context, topic string) (map[int]int64, error) {
	return a.logBounds(ctx, topic, kafkago.FirstOffsetOf, func(po kafkago.PartitionOffsets) int64 { return po.FirstOffset })
}

// logBounds asks for one end of every partition's log (req names it) and
// returns, per partition, the offset bound picks from the answer.
func (a *Admin) logBounds(ctx context.Context, topic string, req func(partition int) kafkago.OffsetRequest,
	bound func(kafkago.PartitionOffsets) int64) (map[int]int64, error) {
	parts, err := a.Partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	reqs := make([]kafkago.OffsetRequest, len(parts))
	for i, p := range parts {
		reqs[i] = req(p)
	}
	got, err := a.listOffsets(ctx, topic, reqs)
	if err != nil {
		return nil, err
	}
	out := make(map[int]int64, len(got))
	for _, po := range got {
		out[po.Partition] = bound(po)
	}
	return out, nil
}

func (a *Admin) listOffsets(ctx context.Context, topic string, reqs []kafkago.OffsetRequest) ([]kafkago.PartitionOffsets, error) {
	res, err := a.c.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{topic: reqs}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return nil, fmt.Errorf("kafka admin: listing offsets of %s: %w", topic, err)
	}
	pos := res.Topics[topic]
	for _, po := range pos {
		if po.Error != nil {
			return nil, fmt.Errorf("kafka admin: listing offsets of %s partition %d: %w", topic, po.Partition, po.Error)
		}
	}
	return pos, nil
}

// Replay reads each partition of topic from from[p] up to (not including)
// to[p], in partition order, calling fn for every record; a partition
// missing from either map, or with from >= to, is skipped. It reads
// outside any consumer group and commits nothing: a restart uses it to
// rebuild the window (records of different partitions are not interleaved
// in time: feed them through a Reorder and Flush, or sort them). dialer
// may be nil. to[p] should be an offset that a consumer reached (a
// committed or end offset): Replay stops at the record at to[p]-1 or
// past it, and waits (until ctx ends) if none comes.
func Replay(ctx context.Context, brokers []string, dialer *kafkago.Dialer, topic string, from, to map[int]int64, fn func(kafkago.Message) error) error {
	parts := make([]int, 0, len(from))
	for p := range from {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	for _, p := range parts {
		start, end := from[p], to[p]
		if _, ok := to[p]; !ok || start >= end {
			continue
		}
		if err := replayPartition(ctx, brokers, dialer, topic, p, start, end, fn); err != nil {
			return err
		}
	}
	return nil
}

func replayPartition(ctx context.Context, brokers []string, dialer *kafkago.Dialer, topic string, p int, start, end int64, fn func(kafkago.Message) error) error {
	r := kafkago.NewReader(kafkago.ReaderConfig{
		Brokers:   brokers,
		Topic:     topic,
		Partition: p,
		Dialer:    dialer,
		MinBytes:  1,
		MaxBytes:  10 << 20,
		MaxWait:   250 * time.Millisecond,
	})
	defer r.Close()
	if err := r.SetOffset(start); err != nil {
		return fmt.Errorf("replaying %s partition %d: %w", topic, p, err)
	}
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return fmt.Errorf("replaying %s partition %d from offset %d: %w", topic, p, start, err)
		}
		if m.Offset >= end {
			return nil
		}
		if err := fn(m); err != nil {
			return err
		}
		if m.Offset == end-1 {
			return nil
		}
	}
}
