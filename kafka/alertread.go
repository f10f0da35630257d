package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
)

// AlertReadOptions say which alert records ReadAlerts delivers.
type AlertReadOptions struct {
	// Brokers are the bootstrap addresses (host:port); at least one.
	Brokers []string
	// Topic is the alert topic.
	Topic string
	// Transport (metadata, offsets) and Dialer (fetches) carry TLS and
	// SASL settings; nil means plain TCP.
	Transport *kafkago.Transport
	Dialer    *kafkago.Dialer
	// Follow keeps reading new records until ctx ends; otherwise ReadAlerts
	// returns once it has delivered every record that was on the topic
	// when it started.
	Follow bool
	// Undecoded delivers the records as they are, not decoded as alert
	// records (Alert and Err stay zero): for the dead-letter topic, read
	// with the same client.
	Undecoded bool
}

// AlertRecord is one record read from the alert topic: the raw value, where
// it was, and the decoded alert (Err set instead when the value is not
// an alert record).
type AlertRecord struct {
	Partition int
	Offset    int64
	Value     []byte
	// Headers are the record's headers by key (the last of a repeated
	// key): a dead letter's motifwatch-* headers say where it came from
	// and why.
	Headers map[string]string
	Alert   alerts.Alert
	Err     error
}

// ReadAlerts reads the alert topic from the beginning of each partition and
// calls fn with every record, in offset order within a partition
// (partitions interleave), on one goroutine. It returns fn's first error,
// or a reading error naming the topic and partition, or nil when done
// (Follow: when ctx ends).
func ReadAlerts(ctx context.Context, opts AlertReadOptions, fn func(AlertRecord) error) error {
	if len(opts.Brokers) == 0 || opts.Topic == "" {
		return errors.New("alerts: read: brokers and topic are required")
	}
	tr := opts.Transport
	if tr == nil {
		tr = &kafkago.Transport{DialTimeout: 10 * time.Second}
		defer tr.CloseIdleConnections()
	}
	client := &kafkago.Client{Addr: kafkago.TCP(opts.Brokers...), Transport: tr, Timeout: 10 * time.Second}
	meta, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{opts.Topic}})
	err = CleanError(err) // no kafka-go method names in messages
	if err != nil {
		return fmt.Errorf("kafka %v: reading the metadata of topic %q: %w", opts.Brokers, opts.Topic, err)
	}
	if len(meta.Topics) != 1 || meta.Topics[0].Error != nil {
		var terr error
		if len(meta.Topics) == 1 {
			terr = meta.Topics[0].Error
		}
		return fmt.Errorf("kafka %v: topic %q: %v", opts.Brokers, opts.Topic, terr)
	}
	var reqs []kafkago.OffsetRequest
	for _, p := range meta.Topics[0].Partitions {
		reqs = append(reqs, kafkago.FirstOffsetOf(p.ID), kafkago.LastOffsetOf(p.ID))
	}
	resp, err := client.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{opts.Topic: reqs}})
	err = CleanError(err)
	if err != nil {
		return fmt.Errorf("kafka %v: listing the offsets of topic %q: %w", opts.Brokers, opts.Topic, err)
	}
	offsets := resp.Topics[opts.Topic]
	slices.SortFunc(offsets, func(a, b kafkago.PartitionOffsets) int { return a.Partition - b.Partition })

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make(chan AlertRecord)
	errs := make(chan error, len(offsets))
	running := 0
	for _, po := range offsets {
		if po.Error != nil {
			return fmt.Errorf("kafka: topic %q partition %d: %w", opts.Topic, po.Partition, po.Error)
		}
		if !opts.Follow && po.LastOffset <= po.FirstOffset {
			continue // empty when we started
		}
		running++
		go func(p int, first, end int64) {
			errs <- readAlertPartition(ctx, opts, p, first, end, recs)
		}(po.Partition, po.FirstOffset, po.LastOffset)
	}
	var first error
	for running > 0 {
		select {
		case r := <-recs:
			if first == nil {
				if err := fn(r); err != nil {
					first = err
					cancel()
				}
			}
		case err := <-errs:
			running--
			if err != nil && first == nil && ctx.Err() == nil {
				first = err
				cancel()
			}
		}
	}
	return first
}

// readPartition sends the records of partition p from offset first on
// (up to end, exclusive, unless following) until ctx ends.
func readAlertPartition(ctx context.Context, opts AlertReadOptions, p int, first, end int64, out chan<- AlertRecord) error {
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: opts.Brokers, Topic: opts.Topic, Partition: p, Dialer: opts.Dialer,
		MaxWait: 250 * time.Millisecond})
	defer r.Close()
	if err := r.SetOffset(first); err != nil {
		return fmt.Errorf("kafka: topic %q partition %d: %w", opts.Topic, p, err)
	}
	for opts.Follow || r.Offset() < end {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("kafka: reading topic %q partition %d at offset %d: %w", opts.Topic, p, r.Offset(), CleanError(err))
		}
		rec := AlertRecord{Partition: m.Partition, Offset: m.Offset, Value: m.Value}
		if len(m.Headers) > 0 {
			rec.Headers = make(map[string]string, len(m.Headers))
			for _, h := range m.Headers {
				rec.Headers[h.Key] = string(h.Value)
			}
		}
		if opts.Undecoded {
			// Nothing to decode.
		} else if err := rec.Alert.UnmarshalJSONStrict(m.Value); err != nil {
			rec.Err = fmt.Errorf("topic %q partition %d offset %d: not an alert record: %w", opts.Topic, p, m.Offset, err)
		}
		select {
		case out <- rec:
		case <-ctx.Done():
			return nil
		}
		if !opts.Follow && m.Offset+1 >= end {
			return nil
		}
	}
	return nil
}
