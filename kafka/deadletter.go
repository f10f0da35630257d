package kafka

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Dead-letter headers: the reason and where the record came from.
const (
	HeaderReason          = "motifwatch-reason"
	HeaderSourceTopic     = "motifwatch-source-topic"
	HeaderSourcePartition = "motifwatch-source-partition"
	HeaderSourceOffset    = "motifwatch-source-offset"
	// HeaderSourceTime is the source record's timestamp in RFC 3339 (the
	// dead-letter record itself is stamped when written, so that
	// time-based retention of the dead-letter topic counts from then).
	HeaderSourceTime = "motifwatch-source-time"
)

// Headers of a dead letter cut to the size cap (DeadLetterOptions.MaxBytes).
// The value then holds only the source value's first bytes; these say
// what was cut and identify the whole, which stays in the source topic
// at the source offset until its retention ends.
const (
	// HeaderTruncated lists what was cut, comma-separated, from "value"
	// (a prefix kept), "key" (a prefix kept) and "headers" (the source
	// record's headers dropped).
	HeaderTruncated = "motifwatch-truncated"
	// HeaderOriginalSize is the source value's length in bytes.
	HeaderOriginalSize = "motifwatch-original-size"
	// HeaderOriginalSHA256 is the hex SHA-256 of the whole source value.
	HeaderOriginalSHA256 = "motifwatch-original-sha256"
)

// Dead-letter size limits.
const (
	// DefaultDeadLetterMaxBytes is the default cap of a dead-letter
	// record (key, value and headers): a quarter of Kafka's default
	// message.max.bytes (1 MiB), so that the source headers and the
	// motifwatch-* ones never push a record that the broker accepted on
	// the edge topic over the limit on the dead-letter topic.
	DefaultDeadLetterMaxBytes = 256 << 10
	// MinDeadLetterMaxBytes is the smallest cap: the motifwatch-* headers
	// and a useful prefix of the value must fit.
	MinDeadLetterMaxBytes = 4 << 10
	// minimalDeadLetterBytes is the size of the last form tried when the
	// broker refuses a capped dead letter (a topic whose
	// max.message.bytes is below the cap): no source headers, a short
	// prefix of key and value.
	minimalDeadLetterBytes = 2 << 10
	// deadLetterBatchBytes bounds one produce request per partition,
	// before compression: Kafka's default message.max.bytes (1 MiB)
	// applies to a whole record batch, compressed.
	deadLetterBatchBytes = 1 << 20
)

// DeadLetterOptions configures a DeadLetter.
type DeadLetterOptions struct {
	Brokers []string
	Topic   string
	// Transport carries TLS and SASL settings; nil makes a plain one that
	// Close releases.
	Transport kafkago.RoundTripper
	// MaxBytes caps a dead-letter record, counted as kafka-go does (key,
	// value, headers and their framing). A larger one is written
	// truncated (see HeaderTruncated). 0: DefaultDeadLetterMaxBytes.
	MaxBytes int
	// WriteTimeout bounds one produce request (0: 10s).
	WriteTimeout time.Duration
}

// DeadLetter writes records that could not become edges (undecodable,
// oversized, late) to the dead-letter topic: the original key, value and
// headers, plus the motifwatch-* headers, cut to a size cap; batches go
// snappy-compressed (zstd compresses better but halved the rate of a
// flood of small records, which is when the rate matters) and are
// acknowledged by all in-sync replicas. Safe for concurrent use.
type DeadLetter struct {
	w     *kafkago.Writer
	own   *kafkago.Transport // closed by Close when NewDeadLetter made it
	topic string
	max   int
}

// DeadRecord is one record for the dead-letter topic, why, and its reason
// class (ClassDecode, ClassLate, ...: the caller's, for counting).
type DeadRecord struct {
	Msg    kafkago.Message
	Reason string
	Class  string
}

// DeadOutcome is what became of the records given to Write.
type DeadOutcome struct {
	// Written are acknowledged by the broker.
	Written []DeadRecord
	// Truncated counts those of Written cut to the cap.
	Truncated int
	// Refused counts the writes the broker refused for good (a record
	// refused in a batch, alone and minimal counts 3).
	Refused int
	// Lost were refused for good (too large even in the minimal form, an
	// invalid record, no authorisation, ...): they are not on the
	// dead-letter topic and only the source topic holds them.
	Lost []LostRecord
	// Retry failed transiently (a broker unreachable, a leader moving, a
	// timeout) and were not written: write them again.
	Retry []DeadRecord
}

// LostRecord is a dead letter the broker refused for good, and its last
// error.
type LostRecord struct {
	DeadRecord
	Err error
}

// NewDeadLetter returns a writer to opts.Topic. Records are partitioned by
// key.
func NewDeadLetter(opts DeadLetterOptions) (*DeadLetter, error) {
	switch {
	case len(opts.Brokers) == 0:
		return nil, errors.New("dead-letter writer: no brokers")
	case opts.Topic == "":
		return nil, errors.New("dead-letter writer: no topic")
	case opts.MaxBytes != 0 && opts.MaxBytes < MinDeadLetterMaxBytes:
		return nil, fmt.Errorf("dead-letter writer: max bytes %d is below the minimum of %d", opts.MaxBytes, MinDeadLetterMaxBytes)
	case opts.WriteTimeout < 0:
		return nil, fmt.Errorf("dead-letter writer: write timeout %v must not be negative", opts.WriteTimeout)
	}
	d := &DeadLetter{topic: opts.Topic, max: opts.MaxBytes}
	if d.max == 0 {
		d.max = DefaultDeadLetterMaxBytes
	}
	transport := opts.Transport
	if transport == nil {
		d.own = &kafkago.Transport{}
		transport = d.own
	}
	timeout := opts.WriteTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	d.w = &kafkago.Writer{
		Addr:         kafkago.TCP(opts.Brokers...),
		Topic:        opts.Topic,
		Balancer:     &kafkago.Hash{},
		RequiredAcks: kafkago.RequireAll,
		Compression:  kafkago.Snappy,
		// One attempt per WriteMessages: Write sorts failures into
		// permanent and transient, and the caller retries the transient
		// ones with its own backoff (kafka-go's loop would also retry
		// what can never succeed).
		MaxAttempts: 1,
		BatchSize:   4096,
		// A record at the cap must fit a batch by itself.
		BatchBytes:   int64(max(deadLetterBatchBytes, d.max)),
		BatchTimeout: deadLetterBatchWait,
		WriteTimeout: timeout,
		ReadTimeout:  timeout,
		Transport:    transport,
	}
	return d, nil
}

// deadLetterBatchWait is how long a write waits for more records to share
// its batch: kafka-go's writer holds a partial batch for its batch
// timeout (1s by default), which would be the latency of every Write.
const deadLetterBatchWait = 2 * time.Millisecond

// Write writes recs in batches (one produce request per partition and
// batch) and returns once each is acknowledged, refused for good, or
// failed transiently; the outcome sorts them. The error is nil when
// nothing is left to retry, else the last transient error.
//
// A record over the cap is written truncated. One the broker refuses for
// its size is written again alone (a batch over a topic's
// max.message.bytes is refused whole), then in a minimal form; one
// refused in every form, or refused for good for another reason (no
// authorisation, an invalid record), is Lost. A transient failure leaves a record to Retry: some of a batch may
// have been written (duplicates in the dead-letter topic are harmless,
// and carry their source offsets).
func (d *DeadLetter) Write(ctx context.Context, recs []DeadRecord) (DeadOutcome, error) {
	var out DeadOutcome
	if len(recs) == 0 {
		return out, nil
	}
	msgs := make([]kafkago.Message, len(recs))
	cut := make([]bool, len(recs))
	for i, r := range recs {
		msgs[i], cut[i] = deadMessage(r, d.max)
	}
	errs := d.write(ctx, msgs)
	out.Written = make([]DeadRecord, 0, len(recs))
	var lastErr error
	var refused []int
	for i, err := range errs {
		switch {
		case err == nil:
			out.Written = append(out.Written, recs[i])
			if cut[i] {
				out.Truncated++
			}
		case Permanent(err):
			out.Refused++
			refused = append(refused, i)
		default:
			out.Retry = append(out.Retry, recs[i])
			lastErr = err
		}
	}
	for _, i := range refused {
		if !tooLarge(errs[i]) {
			// Authorisation, an invalid record, ...: no smaller form helps.
			out.Lost = append(out.Lost, LostRecord{DeadRecord: recs[i], Err: errs[i]})
			continue
		}
		if err := d.writeAlone(ctx, recs[i], errs[i], len(recs) > 1, &out); err != nil {
			lastErr = err
		}
	}
	if len(out.Retry) > 0 {
		return out, fmt.Errorf("dead-letter writer: writing %d of %d records to %s: %w", len(out.Retry), len(recs), d.topic, lastErr)
	}
	return out, nil
}

// writeAlone writes a record the broker refused for good in a batch,
// alone (when it was not alone) and then in the minimal form, recording
// the outcome. It returns the transient error that leaves it to retry.
func (d *DeadLetter) writeAlone(ctx context.Context, r DeadRecord, err error, batched bool, out *DeadOutcome) error {
	forms := make([]int, 0, 2)
	if batched {
		forms = append(forms, d.max)
	}
	if d.max > minimalDeadLetterBytes {
		forms = append(forms, minimalDeadLetterBytes)
	}
	for _, limit := range forms {
		m, cut := deadMessage(r, limit)
		err = d.write(ctx, []kafkago.Message{m})[0]
		switch {
		case err == nil:
			out.Written = append(out.Written, r)
			if cut {
				out.Truncated++
			}
			return nil
		case !Permanent(err):
			out.Retry = append(out.Retry, r)
			return err
		}
		out.Refused++
	}
	out.Lost = append(out.Lost, LostRecord{DeadRecord: r, Err: err})
	return nil
}

// write sends msgs and returns each one's error (nil: acknowledged).
func (d *DeadLetter) write(ctx context.Context, msgs []kafkago.Message) []error {
	errs := make([]error, len(msgs))
	err := d.w.WriteMessages(ctx, msgs...)
	var werrs kafkago.WriteErrors
	switch {
	case err == nil:
	case errors.As(err, &werrs) && len(werrs) == len(msgs):
		copy(errs, werrs)
	default:
		// The whole call failed (metadata, a closed writer, a record
		// over the writer's batch bytes, ctx): the same error for all.
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// Permanent reports whether a failed write can never succeed by retrying
// the same record: the broker refused it (too large, invalid, no
// authorisation, a non-retriable error), or the client did (larger than a
// batch). Network errors, timeouts, kafka-go's retriable broker errors
// (leader moving, not enough replicas, ...) and the unknown server error
// are transient; so is the end of the caller's context (the caller
// decides).
func Permanent(err error) bool {
	var tooLarge kafkago.MessageTooLargeError
	var kerr kafkago.Error
	switch {
	case err == nil:
		return false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case errors.As(err, &tooLarge):
		return true
	case errors.As(err, &kerr):
		return kerr != kafkago.Unknown && !kerr.Temporary()
	}
	return false
}

// tooLarge reports whether err refused a record, or the batch holding
// it, for its size: written alone or smaller, it may pass.
func tooLarge(err error) bool {
	var tl kafkago.MessageTooLargeError
	return errors.As(err, &tl) || errors.Is(err, kafkago.MessageSizeTooLarge) || errors.Is(err, kafkago.RecordListTooLarge)
}

// deadMessage builds the dead letter of r, cut to limit bytes (as kafka-go
// counts a record's size) if larger; it reports whether it cut.
func deadMessage(r DeadRecord, limit int) (kafkago.Message, bool) {
	src := r.Msg
	own := []kafkago.Header{
		{Key: HeaderReason, Value: []byte(r.Reason)},
		{Key: HeaderSourceTopic, Value: []byte(src.Topic)},
		{Key: HeaderSourcePartition, Value: strconv.AppendInt(nil, int64(src.Partition), 10)},
		{Key: HeaderSourceOffset, Value: strconv.AppendInt(nil, src.Offset, 10)},
	}
	if !src.Time.IsZero() {
		own = append(own, kafkago.Header{Key: HeaderSourceTime, Value: src.Time.UTC().AppendFormat(nil, time.RFC3339Nano)})
	}
	size := recordSize(src.Key, src.Value, src.Headers, own)
	if size <= limit {
		h := make([]kafkago.Header, 0, len(src.Headers)+len(own))
		h = append(append(h, src.Headers...), own...)
		return kafkago.Message{Key: src.Key, Value: src.Value, Headers: h}, false
	}

	// Over the cap: the reason may be long (a decode error quotes the
	// record), the key and source headers may be huge too. Keep what fits,
	// in order of use: the motifwatch-* headers, the source headers if
	// small, a prefix of the key, then as much of the value as is left.
	var parts []string
	if len(r.Reason) > limit/8 {
		own[0].Value = own[0].Value[:limit/8]
	}
	sum := sha256.Sum256(src.Value)
	own = append(own,
		kafkago.Header{Key: HeaderOriginalSize, Value: strconv.AppendInt(nil, int64(len(src.Value)), 10)},
		kafkago.Header{Key: HeaderOriginalSHA256, Value: hex.AppendEncode(nil, sum[:])},
		kafkago.Header{Key: HeaderTruncated}, // set below
	)
	headers := src.Headers
	if recordSize(nil, nil, headers, nil) > limit/4 {
		headers, parts = nil, append(parts, "headers")
	}
	key := src.Key
	if len(key) > limit/8 {
		key, parts = key[:limit/8], append(parts, "key")
	}
	own[len(own)-1].Value = []byte(strings.Join(append(parts, "value"), ","))
	room := max(limit-recordSize(key, nil, headers, own), 0)
	value := src.Value
	if room < len(value) {
		value = value[:room]
	} else {
		own[len(own)-1].Value = []byte(strings.Join(parts, ","))
	}
	h := make([]kafkago.Header, 0, len(headers)+len(own))
	h = append(append(h, headers...), own...)
	return kafkago.Message{Key: key, Value: value, Headers: h}, true
}

// recordSize bounds kafka-go's size of a record from above (its
// Message.totalSize: fixed fields, key, value, and each header's key and
// value with varint lengths), so that a record cut to a limit by this
// measure never trips the writer's BatchBytes check.
func recordSize(key, value []byte, headers ...[]kafkago.Header) int {
	n := 4 + 1 + 1 + 4 + len(key) + 4 + len(value) + 8 + 5
	for _, hs := range headers {
		for _, h := range hs {
			n += 10 + len(h.Key) + len(h.Value)
		}
	}
	return n
}

// Close flushes and closes the writer.
func (d *DeadLetter) Close() error {
	err := d.w.Close()
	if d.own != nil {
		d.own.CloseIdleConnections()
	}
	return err
}
