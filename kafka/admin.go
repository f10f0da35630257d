package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

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

// NewWatchAdmin returns an Admin whose answers about the cluster's
// topics and partitions are at most ttl old: kafka-go serves metadata
// from its transport's cache, refreshed every MetadataTTL (6 s by
// default), so an Admin on a shared transport sees a topic change that
// late. It uses a transport of its own with transport's connection
// settings (TLS, SASL, client id; nil: plain), released by Close.
func NewWatchAdmin(brokers []string, transport *Transport, ttl time.Duration) (*Admin, error) {
	if len(brokers) == 0 {
		return nil, errors.New("kafka admin: no brokers")
	}
	own := transportLike(transport, ttl)
	return &Admin{c: &kafkago.Client{Addr: kafkago.TCP(brokers...), Transport: own, Timeout: 10 * time.Second}, own: own}, nil
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

// Bounds are a partition's log bounds: the offset of its first record
// kept (Start) and the offset its next record will get (End).
type Bounds struct{ Start, End int64 }

// LogBounds returns the log bounds of every partition of topic. A topic
// the cluster does not know is an error wrapping
// kafkago.UnknownTopicOrPartition (see IsUnknownTopic).
func (a *Admin) LogBounds(ctx context.Context, topic string) (map[int]Bounds, error) {
	parts, err := a.Partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	reqs := make([]kafkago.OffsetRequest, 0, 2*len(parts))
	for _, p := range parts {
		reqs = append(reqs, kafkago.FirstOffsetOf(p), kafkago.LastOffsetOf(p))
	}
	got, err := a.listOffsets(ctx, topic, reqs)
	if err != nil {
		return nil, err
	}
	out := make(map[int]Bounds, len(got))
	for _, po := range got {
		out[po.Partition] = Bounds{Start: po.FirstOffset, End: po.LastOffset}
	}
	for _, p := range parts {
		if _, ok := out[p]; !ok {
			return nil, fmt.Errorf("kafka admin: listing offsets of %s: no answer for partition %d", topic, p)
		}
	}
	return out, nil
}

// IsUnknownTopic reports whether err says that a topic or partition does
// not exist (UNKNOWN_TOPIC_OR_PARTITION).
func IsUnknownTopic(err error) bool { return errors.Is(err, kafkago.UnknownTopicOrPartition) }

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
		// An offset past the log's end is an error, not a wait for
		// records that may never come (the caller checks its offsets
		// against the log first; this covers a log truncated since).
		OffsetOutOfRangeError: true,
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
