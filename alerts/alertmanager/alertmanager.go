package alertmanager

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/ratelog"
)

// Defaults of Options' zero fields.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultQueueBytes = 16 << 20
	DefaultEndsAfter  = time.Hour
	// MinBackoff and MaxBackoff bound the pause after a failed POST: it
	// starts at MinBackoff and doubles up to MaxBackoff while POSTs fail.
	MinBackoff = 500 * time.Millisecond
	MaxBackoff = 30 * time.Second
	// maxBatchAlerts bounds the alerts of one POST; a batch also stays
	// within a quarter of the queue's bytes.
	maxBatchAlerts = 500
)

// Drop reasons (the reason label of motifwatch_alertmanager_dropped_total).
const (
	// DropQueueFull: the queue was full (Alertmanager away or slow); the
	// oldest alerts went.
	DropQueueFull = "queue_full"
	// DropRejected: Alertmanager refused the batch (a 4xx other than 429).
	DropRejected = "rejected"
	// DropShutdown: still queued when Close's deadline passed.
	DropShutdown = "shutdown"
)

// Options configure a Notifier.
type Options struct {
	// URL is the Alertmanager's base URL: alerts go to URL/api/v2/alerts.
	URL string
	// Timeout bounds one POST (0: DefaultTimeout).
	Timeout time.Duration
	// QueueBytes bounds the encoded alerts waiting to be posted, the batch
	// being posted included (0: DefaultQueueBytes).
	QueueBytes int64
	// EndsAfter is an alert's endsAt after its startsAt (0: DefaultEndsAfter).
	EndsAfter time.Duration
	// Client posts (nil: a client with Timeout).
	Client *http.Client
	// Logger receives failures, drops and recoveries (nil: discarded).
	Logger *slog.Logger
	// Registerer receives the metrics (nil: unregistered).
	Registerer prometheus.Registerer
}

// Notifier queues alert records and posts them to Alertmanager from a
// goroutine of its own, which Close stops and waits for. Send is safe for
// concurrent use.
type Notifier struct {
	endpoint  string
	client    *http.Client
	timeout   time.Duration
	limit     int64
	endsAfter time.Duration
	log       *slog.Logger
	logs      *ratelog.Limiter
	m         *metrics

	mu       sync.Mutex
	queue    [][]byte // encoded alerts, oldest first
	bytes    int64    // of queue and the batch being posted
	closed   bool
	wake     chan struct{} // a send to it (buffered 1) says the queue grew
	stop     chan struct{} // closed by Close
	deadline chan struct{} // closed when Close's ctx is done: stop retrying
	done     chan struct{} // closed when the goroutine has returned
}

// New returns a Notifier posting to o.URL, its goroutine started.
func New(o Options) (*Notifier, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("alertmanager: url %q: want an absolute http:// or https:// URL", o.URL)
	}
	m, err := newMetrics(o.Registerer)
	if err != nil {
		return nil, err
	}
	n := &Notifier{
		endpoint:  strings.TrimSuffix(u.String(), "/") + "/api/v2/alerts",
		client:    o.Client,
		timeout:   cmp.Or(o.Timeout, DefaultTimeout),
		limit:     cmp.Or(o.QueueBytes, DefaultQueueBytes),
		endsAfter: cmp.Or(o.EndsAfter, DefaultEndsAfter),
		log:       o.Logger,
		logs:      ratelog.New(10*time.Second, nil),
		m:         m,
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		deadline:  make(chan struct{}),
		done:      make(chan struct{}),
	}
	if n.client == nil {
		n.client = &http.Client{Timeout: n.timeout}
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	go n.run()
	return n, nil
}

// Send queues as (records the alert topic has acknowledged) for
// Alertmanager. It never waits for the network: when the queue is full
// the oldest alerts are dropped to make room (counted, logged). It keeps
// nothing of as. After Close it drops them (counted as shutdown).
func (n *Notifier) Send(as []alerts.Alert) {
	if len(as) == 0 {
		return
	}
	enc := make([][]byte, 0, len(as))
	for i := range as {
		b, err := encode(&as[i], n.endsAfter)
		if err != nil { // cannot happen for a record of strings, numbers and times
			n.drop(DropRejected, 1, err)
			continue
		}
		enc = append(enc, b)
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		n.drop(DropShutdown, len(enc), errors.New("notifier closed"))
		return
	}
	var dropped int
	for _, b := range enc {
		size := int64(len(b))
		for n.bytes+size > n.limit && len(n.queue) > 0 {
			n.bytes -= int64(len(n.queue[0]))
			n.queue[0] = nil
			n.queue = n.queue[1:]
			dropped++
		}
		if n.bytes+size > n.limit { // the batch in flight holds the rest
			dropped++
			continue
		}
		n.queue = append(n.queue, b)
		n.bytes += size
	}
	n.gauges()
	n.mu.Unlock()
	if dropped > 0 {
		n.drop(DropQueueFull, dropped, nil)
	}
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Close stops taking alerts and posts what is queued until ctx is done;
// what is left then is dropped (counted as shutdown). It waits for the
// goroutine and returns nil, or ctx's error when alerts were left.
func (n *Notifier) Close(ctx context.Context) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		<-n.done
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	close(n.stop)
	select {
	case <-n.done:
		return nil
	case <-ctx.Done():
		close(n.deadline)
		<-n.done
		return ctx.Err()
	}
}

// run posts batches until Close: on failure it waits (growing pauses)
// and tries the same alerts again, the newest queued behind them.
func (n *Notifier) run() {
	defer close(n.done)
	backoff := time.Duration(0)
	failing := false
	for {
		batch, size := n.take()
		if batch == nil {
			select {
			case <-n.wake:
				continue
			case <-n.stop:
				n.mu.Lock()
				empty := len(n.queue) == 0 // closed: nothing is queued after this
				n.mu.Unlock()
				if empty {
					return
				}
				continue
			}
		}
		err := n.post(batch)
		var refused *refusedError
		switch {
		case err == nil:
			n.m.sent.Add(float64(len(batch)))
			n.release(size)
			if failing {
				n.log.Info("alertmanager: posting again", "url", n.endpoint)
			}
			failing, backoff = false, 0
			continue
		case errors.As(err, &refused):
			n.release(size)
			n.drop(DropRejected, len(batch), err)
			continue
		}
		n.m.errors.Inc()
		failing = true
		backoff = min(max(2*backoff, MinBackoff), MaxBackoff)
		if ok, held := n.logs.Allow("post"); ok {
			n.log.Warn("alertmanager: POST failed: retrying; the alert topic is not held back", "url", n.endpoint,
				"err", err, "alerts", len(batch), "retry_in", backoff, "failures_not_logged", held)
		}
		n.putBack(batch)
		select {
		case <-time.After(backoff):
		case <-n.deadline:
			n.mu.Lock()
			left := len(n.queue)
			n.queue, n.bytes = nil, 0
			n.gauges()
			n.mu.Unlock()
			n.drop(DropShutdown, left, err)
			return
		}
	}
}

// take removes the next batch from the queue (its bytes stay counted
// until release or putBack); nil when the queue is empty.
func (n *Notifier) take() ([][]byte, int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var size int64
	k := 0
	for k < len(n.queue) && k < maxBatchAlerts && (k == 0 || size+int64(len(n.queue[k])) <= n.limit/4) {
		size += int64(len(n.queue[k]))
		k++
	}
	if k == 0 {
		return nil, 0
	}
	batch := n.queue[:k:k]
	n.queue = n.queue[k:]
	return batch, size
}

// release forgets a posted (or refused) batch's bytes.
func (n *Notifier) release(size int64) {
	n.mu.Lock()
	n.bytes -= size
	n.gauges()
	n.mu.Unlock()
}

// putBack returns a batch that failed to the front of the queue (it is
// the oldest), then drops the oldest alerts while the queue is over its
// bound (alerts queued meanwhile may have filled it).
func (n *Notifier) putBack(batch [][]byte) {
	n.mu.Lock()
	n.queue = append(batch[:len(batch):len(batch)], n.queue...) // its bytes are still counted
	var dropped int
	for n.bytes > n.limit && len(n.queue) > 0 {
		n.bytes -= int64(len(n.queue[0]))
		n.queue = n.queue[1:]
		dropped++
	}
	n.gauges()
	n.mu.Unlock()
	if dropped > 0 {
		n.drop(DropQueueFull, dropped, nil)
	}
}

// gauges updates the queue gauges (n.mu held).
func (n *Notifier) gauges() {
	n.m.queueBytes.Set(float64(n.bytes))
	n.m.queued.Set(float64(len(n.queue)))
}

// drop counts k alerts dropped for reason and logs it (once per
// interval per reason, with the drops held back since).
func (n *Notifier) drop(reason string, k int, err error) {
	if k == 0 {
		return
	}
	n.m.dropped.WithLabelValues(reason).Add(float64(k))
	if ok, held := n.logs.Allow("drop " + reason); ok {
		args := []any{"reason", reason, "alerts", k, "url", n.endpoint, "drop_lines_not_logged", held}
		if err != nil {
			args = append(args, "err", err)
		}
		n.log.Warn("alertmanager: alerts dropped (counted in motifwatch_alertmanager_dropped_total); the alert topic has them all", args...)
	}
}

// refusedError is an answer that retrying cannot change (a 4xx other
// than 429).
type refusedError struct {
	status int
	body   string
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("alertmanager refused the alerts: %d %s: %s", e.status, http.StatusText(e.status), e.body)
}

// post sends one batch as a JSON array.
func (n *Notifier) post(batch [][]byte) error {
	var body bytes.Buffer
	body.WriteByte('[')
	for i, b := range batch {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(b)
	}
	body.WriteByte(']')
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.endpoint, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests:
		return &refusedError{resp.StatusCode, strings.TrimSpace(string(msg))}
	}
	return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(msg)))
}
