package kafka

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/alerts"
)

// Kafka record headers set on every alert record.
const (
	HeaderKind  = "motifwatch-kind"
	HeaderQuery = "motifwatch-query"
)

// Defaults of AlertSinkOptions.
const (
	DefaultAlertBatchSize    = 100
	DefaultAlertBatchTimeout = 10 * time.Millisecond
	DefaultAlertWriteTimeout = 10 * time.Second
	DefaultAlertBackoffMin   = 100 * time.Millisecond
	DefaultAlertBackoffMax   = 5 * time.Second
)

// AlertSinkOptions configure a AlertSink. Zero durations and sizes take the
// defaults above.
type AlertSinkOptions struct {
	// Brokers are the bootstrap addresses (host:port); at least one.
	Brokers []string
	// Topic is the alert topic; it must exist (the sink never creates it).
	Topic string
	// Transport carries TLS and SASL settings and the connection pool. When
	// nil the sink makes its own plain-TCP transport and closes it on
	// Close; a transport passed in belongs to the caller.
	Transport *kafkago.Transport
	// BatchSize is the most records sent per partition in one produce
	// request.
	BatchSize int
	// BatchTimeout is how long a partial batch waits for more records.
	// Every Write waits for it once (kafka-go sends a batch only when full
	// or when this expires), so keep it small: writes are synchronous.
	BatchTimeout time.Duration
	// WriteTimeout bounds one produce request (and the metadata read before
	// it); a broker that does not answer within it counts as a transient
	// failure and is retried.
	WriteTimeout time.Duration
	// BackoffMin and BackoffMax bound the exponential wait between retries
	// of a Write after a transient error.
	BackoffMin, BackoffMax time.Duration
	// Logger receives one warning per retried attempt; nil discards.
	Logger *slog.Logger
	// OnRetry, if set, is called (on the writing goroutine) before each
	// backoff after a transient failure: a Write retries until its
	// context ends, so this is how its caller learns that the brokers are
	// unreachable meanwhile (readiness, metrics).
	OnRetry func(attempt int, err error)
}

// AlertSink writes alert records to a Kafka topic with kafka-go: one record
// per alert, keyed by query name (so one query's records stay in order on
// one partition), the Alert as its JSON value, headers motifwatch-kind and
// motifwatch-query, acknowledged by all in-sync replicas.
type AlertSink struct {
	w        *kafkago.Writer
	topic    string
	owned    *kafkago.Transport // made by NewAlertSink, closed by Close
	log      *slog.Logger
	min, max time.Duration
	onRetry  func(attempt int, err error)

	mu     sync.Mutex
	closed bool
}

var _ alerts.Sink = (*AlertSink)(nil)

// NewAlertSink returns a sink writing to opts.Topic. It does not contact
// the brokers: a bad address or a missing topic shows up as Write errors.
func NewAlertSink(opts AlertSinkOptions) (*AlertSink, error) {
	if len(opts.Brokers) == 0 {
		return nil, errors.New("alerts: kafka sink: no brokers")
	}
	for i, b := range opts.Brokers {
		if b == "" {
			return nil, fmt.Errorf("alerts: kafka sink: broker %d is empty", i)
		}
	}
	if opts.Topic == "" {
		return nil, errors.New("alerts: kafka sink: no topic")
	}
	if opts.BatchSize < 0 || opts.BatchTimeout < 0 || opts.WriteTimeout < 0 ||
		opts.BackoffMin < 0 || opts.BackoffMax < 0 {
		return nil, fmt.Errorf("alerts: kafka sink: negative batch size, timeout or backoff in %+v", opts)
	}
	s := &AlertSink{
		topic:   opts.Topic,
		log:     opts.Logger,
		min:     cmp.Or(opts.BackoffMin, DefaultAlertBackoffMin),
		max:     cmp.Or(opts.BackoffMax, DefaultAlertBackoffMax),
		onRetry: opts.OnRetry,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.max < s.min {
		s.max = s.min
	}
	transport := opts.Transport
	if transport == nil {
		// Not kafkago.DefaultTransport: that one is shared process-wide and
		// its connection pools are never closed.
		s.owned = &kafkago.Transport{}
		transport = s.owned
	}
	timeout := cmp.Or(opts.WriteTimeout, DefaultAlertWriteTimeout)
	s.w = &kafkago.Writer{
		Addr:         kafkago.TCP(opts.Brokers...),
		Topic:        opts.Topic,
		Balancer:     &kafkago.Hash{},
		RequiredAcks: kafkago.RequireAll,
		// One attempt per WriteMessages: kafka-go's own retry loop sleeps
		// without watching the context and keeps a batch (and Close)
		// busy after the caller gave up. Write retries instead, until its
		// context is done.
		MaxAttempts:  1,
		BatchSize:    cmp.Or(opts.BatchSize, DefaultAlertBatchSize),
		BatchTimeout: cmp.Or(opts.BatchTimeout, DefaultAlertBatchTimeout),
		WriteTimeout: timeout,
		ReadTimeout:  timeout,
		Transport:    transport,
	}
	return s, nil
}

// Write sends alerts and returns when all are acknowledged by all in-sync
// replicas. Transient failures (network errors, retriable broker errors
// such as NOT_ENOUGH_REPLICAS or LEADER_NOT_AVAILABLE, timeouts) are
// retried with exponential backoff until ctx is done, resending only the
// records not yet acknowledged; the returned error then wraps both
// ctx.Err() and the last write error. Permanent failures (a record over
// the broker's size limit, authorisation, a non-retriable broker error)
// return at once. Errors name the topic.
func (s *AlertSink) Write(ctx context.Context, batch []alerts.Alert) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return fmt.Errorf("writing alerts to kafka topic %q: %w", s.topic, alerts.ErrClosed)
	}
	if len(batch) == 0 {
		return nil
	}
	msgs := make([]kafkago.Message, len(batch))
	for i := range batch {
		m, err := message(&batch[i])
		if err != nil {
			return fmt.Errorf("writing alerts to kafka topic %q: %w", s.topic, err)
		}
		msgs[i] = m
	}
	for attempt := 0; ; attempt++ {
		err := s.w.WriteMessages(ctx, msgs...)
		if err == nil {
			return nil
		}
		if werrs, ok := err.(kafkago.WriteErrors); ok && len(werrs) == len(msgs) {
			// Resend only what failed: the rest is acknowledged. Report a
			// permanent error if any partition had one, else the first.
			failed := msgs[:0:0]
			err = nil
			for i, e := range werrs {
				if e == nil {
					continue
				}
				failed = append(failed, msgs[i])
				if err == nil || (transient(err) && !transient(e)) {
					err = e
				}
			}
			msgs = failed
			if len(msgs) == 0 { // cannot happen: WriteErrors has one
				return nil
			}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("writing %d alerts to kafka topic %q: %w (last error: %w)", len(msgs), s.topic, ctx.Err(), err)
		}
		if !transient(err) {
			return fmt.Errorf("writing %d alerts to kafka topic %q: %w", len(msgs), s.topic, err)
		}
		wait := backoff(attempt, s.min, s.max)
		s.log.Warn("alert write failed; retrying", "topic", s.topic, "records", len(msgs),
			"attempt", attempt+1, "backoff", wait, "err", err)
		if s.onRetry != nil {
			s.onRetry(attempt+1, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("writing %d alerts to kafka topic %q: %w (last error: %w)", len(msgs), s.topic, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// message encodes one alert as a Kafka record.
func message(a *alerts.Alert) (kafkago.Message, error) {
	v, err := json.Marshal(a)
	if err != nil {
		return kafkago.Message{}, fmt.Errorf("encoding %s alert of query %q: %w", a.Kind, a.Query, err)
	}
	return kafkago.Message{
		Key:   []byte(a.Query),
		Value: v,
		Headers: []kafkago.Header{
			{Key: HeaderKind, Value: []byte(a.Kind)},
			{Key: HeaderQuery, Value: []byte(a.Query)},
		},
		Time: a.DetectedAt,
	}, nil
}

// transient reports whether a failed write may succeed if retried.
func transient(err error) bool {
	var tooLarge kafkago.MessageTooLargeError
	var kerr kafkago.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The caller's context, not a broker timeout (those are
		// kafkago.RequestTimedOut or net.Error).
		return false
	case errors.Is(err, io.ErrClosedPipe): // the writer was closed
		return false
	case errors.As(err, &tooLarge):
		return false
	case errors.As(err, &kerr):
		return kerr.Temporary()
	}
	// Network errors, timeouts, EOFs, dial failures, TLS handshakes: the
	// broker may come back.
	return true
}

// backoff returns the wait before retry attempt+1: min·2^attempt, at most
// max.
func backoff(attempt int, min, max time.Duration) time.Duration {
	d := min
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}

// Close waits for writes in flight (each bounded by WriteTimeout) and
// releases the connections the sink opened. Writes after Close return
// ErrClosed.
func (s *AlertSink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.w.Close()
	if s.owned != nil {
		s.owned.CloseIdleConnections()
	}
	if err != nil {
		return fmt.Errorf("closing kafka writer for topic %q: %w", s.topic, err)
	}
	return nil
}
