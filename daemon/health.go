package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Broker operations that are retried while the brokers are unreachable:
// the values of the operation label of motifwatch_kafka_errors_total and
// motifwatch_kafka_reconnects_total, and the names /readyz reports.
const (
	opFetch      = "fetch"       // consuming the edge topic
	opCommit     = "commit"      // committing offsets
	opAlertWrite = "alert_write" // writing alerts to the alert topic
	opDeadLetter = "dead_letter" // writing to the dead-letter topic
	opProbe      = "probe"       // the periodic metadata request of watchBrokers
)

// probeInterval is how often watchBrokers asks the brokers for metadata:
// kafka-go's reader retries a lost connection for seconds before a fetch
// fails, and a quiet pipeline may have nothing to write, so without the
// probe readiness would learn of an outage late or never.
const probeInterval = time.Second

// watchBrokers probes the brokers every probeInterval until ctx ends; a
// failed probe marks the daemon not ready (and is retried with backoff)
// until one succeeds.
func watchBrokers(ctx context.Context, r *retrier, probe func(context.Context) error) error {
	for {
		pctx, cancel := context.WithTimeout(ctx, probeInterval)
		err := probe(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		wait := probeInterval
		if err != nil {
			wait = r.failed(err, true)
		} else {
			r.succeeded()
		}
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// Backoff bounds of every retried broker operation: exponential from
// backoffMin, doubling per consecutive failure, never above backoffMax.
const (
	backoffMin = 100 * time.Millisecond
	backoffMax = 5 * time.Second
)

// health is the daemon's readiness: the pipeline is consuming and no
// broker operation is failing. The pipeline and its fetcher report
// failures and recoveries from their goroutines; /readyz reads it.
// Methods on a nil *health do nothing (unit tests build bare pipelines).
//
// Ready is not the same as seeing: a running pipeline can still be blind
// to part of its input (a partition nobody reads, edges all arriving
// late, a query set the operator changed but the daemon refused). Those
// are degraded conditions (degraded.go): the daemon keeps consuming, so
// /readyz stays 200, but says "degraded" with the reasons, and each
// condition is a metric with an alerting rule.
type health struct {
	mu      sync.Mutex
	running bool
	// degraded holds the conditions in force, by name (degraded.go's
	// cond* constants), each with its reason.
	degraded map[string]string
	// connecting: the start is waiting for the brokers' first answer
	// (see connect); the probe's failure is why.
	connecting bool
	failing    map[string]error // by operation
	// recovered is when the last failing operation recovered (see
	// quietFrom).
	recovered time.Time
}

func newHealth() *health { return &health{failing: map[string]error{}, degraded: map[string]string{}} }

func (h *health) setRunning(running bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.running = running
	h.mu.Unlock()
}

func (h *health) setConnecting(connecting bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.connecting = connecting
	h.mu.Unlock()
}

func (h *health) fail(op string, err error) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.failing[op] = err
	h.mu.Unlock()
}

func (h *health) ok(op string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	if _, was := h.failing[op]; was {
		delete(h.failing, op)
		if len(h.failing) == 0 {
			h.recovered = time.Now()
		}
	}
	h.mu.Unlock()
}

// quietFrom is the time before which a partition's silence says nothing
// about it: now while a broker operation fails, else when the last
// outage ended. Records cannot arrive during an outage, so the reorder
// buffer must not count it towards a partition's idleness: a partition
// whose backlog the consumer reaches only after the others' would have
// its edges left behind the watermark (late).
func (h *health) quietFrom() time.Time {
	if h == nil {
		return time.Time{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.failing) > 0 {
		return time.Now()
	}
	return h.recovered
}

// status reports readiness and, when not ready, why: the failing
// operations with their last errors, so that a probe's answer says what
// to look at. A ready daemon with degraded conditions reports ready;
// state tells the two apart.
func (h *health) status() (bool, string) {
	st, why := h.state()
	return st != stateNotReady, why
}

// Readiness states, as /readyz and the status page name them.
const (
	stateReady    = "ready"
	stateDegraded = "degraded"
	stateNotReady = "not ready"
)

// state is stateReady, stateDegraded (consuming, but blind to part of the
// input: the reasons follow) or stateNotReady (with why).
func (h *health) state() (string, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok, why := h.readyLocked()
	if !ok {
		return stateNotReady, why
	}
	if len(h.degraded) == 0 {
		return stateReady, ""
	}
	conds := slices.Sorted(maps.Keys(h.degraded))
	for i, c := range conds {
		conds[i] = c + ": " + h.degraded[c]
	}
	return stateDegraded, strings.Join(conds, "; ")
}

// degrade puts condition cond in force with reason (replacing an earlier
// reason); clear lifts it.
func (h *health) degrade(cond, reason string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.degraded[cond] = reason
	h.mu.Unlock()
}

func (h *health) clear(cond string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	delete(h.degraded, cond)
	h.mu.Unlock()
}

// conditions returns the degraded conditions in force with their reasons.
func (h *health) conditions() map[string]string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.degraded)
}

// unreachable reports whether the brokers do not answer (the start still
// connecting, or the probe or the fetches failing), with the last error:
// the status page shows every lag as unknown then.
func (h *health) unreachable() (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, op := range []string{opProbe, opFetch} {
		if err := h.failing[op]; err != nil {
			return true, fmt.Sprintf("kafka %s failing: %v", op, err)
		}
	}
	if h.connecting {
		return true, "connecting: no answer from the brokers yet"
	}
	return false, ""
}

func (h *health) readyLocked() (bool, string) {
	if h.connecting {
		if err := h.failing[opProbe]; err != nil {
			return false, "connecting: " + err.Error()
		}
		return false, "connecting: no answer from the brokers yet"
	}
	if !h.running {
		return false, "pipeline not running"
	}
	if len(h.failing) == 0 {
		return true, ""
	}
	ops := make([]string, 0, len(h.failing))
	for op := range h.failing {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for i, op := range ops {
		ops[i] = fmt.Sprintf("kafka %s failing: %v", op, h.failing[op])
	}
	return false, strings.Join(ops, "; ")
}

// retrier retries one broker operation with bounded exponential backoff
// and reports the outage: every failure is logged with its attempt and
// wait, counted in motifwatch_kafka_errors_total and marks the daemon
// not ready; the first success after failures is logged with the
// outage's length, counted in motifwatch_kafka_reconnects_total and
// restores readiness. It belongs to one goroutine. A nil *retrier runs
// the operation once.
type retrier struct {
	op       string
	log      *slog.Logger
	health   *health
	errors   prometheus.Counter
	recovers prometheus.Counter
	failures int       // consecutive failures
	since    time.Time // the first of them
}

func newRetrier(op string, log *slog.Logger, h *health, m *pipelineMetrics) *retrier {
	return &retrier{op: op, log: log, health: h,
		errors: m.kafkaErrors.WithLabelValues(op), recovers: m.kafkaReconnects.WithLabelValues(op)}
}

// failed records a failure (logging it when logIt; a component that logs
// its own retries passes false) and returns the wait before the next
// attempt.
func (r *retrier) failed(err error, logIt bool) time.Duration {
	if r.failures == 0 {
		r.since = time.Now()
	}
	r.failures++
	r.errors.Inc()
	r.health.fail(r.op, err)
	wait := backoff(r.failures)
	if logIt {
		r.log.Warn("kafka "+r.op+" failed; retrying", "attempt", r.failures, "backoff", wait, "err", err)
	}
	return wait
}

// succeeded records a success, ending an outage if there was one.
func (r *retrier) succeeded() {
	if r.failures == 0 {
		return
	}
	r.log.Info("kafka "+r.op+" recovered", "failed_attempts", r.failures, "outage", time.Since(r.since).Round(time.Millisecond))
	r.failures = 0
	r.recovers.Inc()
	r.health.ok(r.op)
}

// do runs fn until it succeeds or ctx ends (then it returns fn's last
// error). attempt, if positive, bounds each call: a broker that accepts
// connections but never answers must not hold the pipeline without
// readiness going down.
func (r *retrier) do(ctx context.Context, attempt time.Duration, fn func(context.Context) error) error {
	for {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if attempt > 0 {
			actx, cancel = context.WithTimeout(ctx, attempt)
		}
		err := fn(actx)
		cancel()
		if r == nil {
			return err
		}
		if err == nil {
			r.succeeded()
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		if !sleep(ctx, r.failed(err, true)) {
			return err
		}
	}
}

// backoff is the wait after the n-th consecutive failure (n ≥ 1):
// backoffMin·2^(n-1), at most backoffMax.
func backoff(n int) time.Duration {
	d := backoffMin
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// sleep waits d or until ctx ends; it reports whether the wait was full.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
