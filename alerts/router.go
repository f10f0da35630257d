package alerts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// Mode says how a query's matches become records.
type Mode string

const (
	// ModeEnumerate writes one KindMatch record per match (the default).
	ModeEnumerate Mode = "enumerate"
	// ModeCount writes one KindCount record per interval with the number
	// of matches detected in it.
	ModeCount Mode = "count"
)

// ModeNames lists the modes' names, in the order messages give them.
func ModeNames() []string { return []string{string(ModeEnumerate), string(ModeCount)} }

// DefaultInterval is the count and rate-limit summary interval when
// RouterOptions.Interval is zero.
const DefaultInterval = time.Minute

// QueryOptions say how one query's matches are routed.
type QueryOptions struct {
	// Mode is ModeEnumerate ("" means the same) or ModeCount.
	Mode Mode
	// RateLimit is the most match records per second written for the
	// query, as a token bucket of size Burst; 0 means unlimited. Matches
	// over the limit are counted and summarised in one KindRateLimited
	// record per interval. It applies to enumerate mode only: count mode
	// writes at most one record per interval anyway, and ignores it.
	RateLimit float64
	// Burst is the bucket size: how many match records may be written at
	// once after a quiet spell. 0 means ceil(RateLimit), at least 1.
	Burst int
	// Group folds matches into incident records (enumerate mode only).
	// Every match counts in its incident, rate-limited ones included.
	Group Grouping
	// Meta is what the query's records carry for routing downstream
	// (severity, labels, annotations); it changes no routing here, and a
	// reload that changes only Meta keeps the query's tallies and bucket.
	Meta Meta
	// Nodes are the query's motif node names, which annotation templates
	// may name.
	Nodes []string
}

// equal reports whether o and p route alike (both normalized); Meta and
// Nodes are not routing.
func (o QueryOptions) equal(p QueryOptions) bool {
	return o.Mode == p.Mode && o.RateLimit == p.RateLimit && o.Burst == p.Burst && o.Group.equal(p.Group)
}

// Validate reports the first invalid field, naming it and its value.
func (o QueryOptions) Validate() error {
	switch o.Mode {
	case "", ModeEnumerate, ModeCount:
	default:
		return fmt.Errorf("mode %q: want %q or %q", o.Mode, ModeEnumerate, ModeCount)
	}
	if o.RateLimit < 0 || math.IsNaN(o.RateLimit) || math.IsInf(o.RateLimit, 0) {
		return fmt.Errorf("rate limit %v: want a finite number ≥ 0 (0 = unlimited)", o.RateLimit)
	}
	if o.Burst < 0 {
		return fmt.Errorf("burst %d: want ≥ 0 (0 = ceil(rate limit))", o.Burst)
	}
	if err := CheckLabels(o.Meta.Labels); err != nil {
		return err
	}
	if o.Group.enabled() {
		if o.Mode == ModeCount {
			return fmt.Errorf("group_by %v: incidents fold match records, and count mode writes none (use enumerate mode)", o.Group.By)
		}
		if o.Group.Within <= 0 {
			return fmt.Errorf("group window %v: want > 0", o.Group.Within)
		}
	}
	return nil
}

// normalized fills defaults and drops what the mode ignores, so that two
// options route alike exactly when they are equal.
func (o QueryOptions) normalized() QueryOptions {
	if o.Mode == "" {
		o.Mode = ModeEnumerate
	}
	if o.Mode == ModeCount || o.RateLimit == 0 {
		o.RateLimit, o.Burst = 0, 0
		return o
	}
	if o.Burst == 0 {
		o.Burst = max(1, int(math.Ceil(o.RateLimit)))
	}
	return o
}

// RouterOptions configure a Router.
type RouterOptions struct {
	// Interval is the period of count and rate-limit summary records;
	// 0 means DefaultInterval. Intervals are aligned to multiples of it
	// since the zero time (a 1m interval runs from :00 to :00 of each
	// minute).
	Interval time.Duration
	// Logger receives query changes and warnings; nil discards.
	Logger *slog.Logger
	// Written, if set, sees every batch of records once the sink has
	// acknowledged it (the daemon's status page keeps the last ones, the
	// Alertmanager notifier queues them). It runs on the Router's
	// goroutine and must not keep the slice.
	Written func([]Alert)
	// Source and StatusURL are set on every record: the daemon that
	// wrote it, and the address of its status page ("" leaves them out).
	Source    Source
	StatusURL string
}

// Router turns a query's matches into records according to its options
// and writes them through a Sink. Per batch the daemon calls Add with the
// batch's matches, then Flush, which returns once everything due is
// acknowledged; Tick, from the daemon's timer, writes the count and
// rate-limit summary records of an interval that has ended.
//
// Nothing is dropped: every match routed ends as a match record, or in
// the Count of a KindCount record, or in the Count of a KindRateLimited
// record, and Metrics counts which. Count and summary records are written
// only when their Count is non-zero: an interval with no matches, or with
// none held back, writes nothing.
//
// A KindRateLimited record lists the ids of the matches it held back (the
// first MaxRateLimitedMatchIDs of its interval, with the number left
// out), so that they can be looked up again.
//
// Records cover intervals [From, To) of detection time (the Router's
// clock when Flush routed the match). An interval's records are written
// by the first Flush or Tick at or after its end; when a query is removed
// or changes mode, or the Router closes, its pending counts are written
// with To = that moment.
//
// A Router is not safe for concurrent use: one goroutine calls all its
// methods (the daemon's batch loop, selecting on its timer for Tick).
type Router struct {
	sink     Sink
	m        *Metrics
	now      func() time.Time
	log      *slog.Logger
	interval time.Duration
	written  func([]Alert)
	source   Source
	status   string

	queries map[string]*route
	names   []string // keys of queries, sorted: records come out in this order
	unknown map[string]bool

	from, to time.Time // the current interval

	staged       []Alert          // added, not yet routed
	stagedCounts map[string]int64 // AddCount tallies, not yet routed
	out          []Alert          // routed, not yet acknowledged
	stamped      int              // out[:stamped] carry their Meta and Source
	// tmplFailed: the annotations (query/name) whose template failed on
	// a record, logged once each.
	tmplFailed map[string]bool
	// outSettles: once out is acknowledged, the matches of every Flush up
	// to this number are durable (out holds their interval's records).
	outSettles uint64

	flushed uint64 // successful Flush calls
	settled uint64 // see Settled
	closed  bool

	alerted, limited int64 // see Alerted
}

// route is one query's routing state.
type route struct {
	opts  QueryOptions
	lim   *rate.Limiter // nil: unlimited, or count mode
	since time.Time     // tallies below started at max(since, Router.from)
	count int64         // count mode: matches in the current interval
	held  int64         // enumerate mode: matches held back in it
	// heldIDs are the ids of the first held-back matches of the
	// interval (at most MaxRateLimitedMatchIDs), for its summary record.
	heldIDs []string
	// incidents are the open incidents by group key (Group set).
	incidents map[string]*incident

	matches, counted, limited prometheus.Counter
}

// NewRouter returns a Router writing to sink, with no queries (matches of
// a query it does not know are written as match records, unlimited, with
// a warning). metrics nil means unregistered metrics; now nil means
// time.Now. The Router does not close sink.
func NewRouter(opts RouterOptions, sink Sink, metrics *Metrics, now func() time.Time) (*Router, error) {
	if sink == nil {
		return nil, errors.New("alerts: router: nil sink")
	}
	if opts.Interval < 0 {
		return nil, fmt.Errorf("alerts: router: interval %v: want > 0 (0 = %v)", opts.Interval, DefaultInterval)
	}
	if metrics == nil {
		metrics, _ = NewMetrics(nil) // cannot fail unregistered
	}
	if now == nil {
		now = time.Now
	}
	r := &Router{
		sink:     sink,
		m:        metrics,
		now:      now,
		log:      opts.Logger,
		interval: cmp.Or(opts.Interval, DefaultInterval),
		written:  opts.Written,
		source:   opts.Source,
		status:   opts.StatusURL,
		queries:  make(map[string]*route),
		unknown:  make(map[string]bool),
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.from = now().UTC().Truncate(r.interval)
	r.to = r.from.Add(r.interval)
	return r, nil
}

// SetQueries replaces the set of queries (hot reload). New queries start
// with empty tallies; a removed query's, or one whose mode changed, pending
// count and summary are queued as records ending now and written by the
// next Flush, Tick or Close; a changed rate limit starts a full bucket and
// keeps the interval's held-back tally. If any options are invalid, the
// error names the query and the current set stays.
func (r *Router) SetQueries(queries map[string]QueryOptions) error {
	if r.closed {
		return ErrClosed
	}
	names := make([]string, 0, len(queries))
	for name, o := range queries {
		if err := o.Validate(); err != nil {
			return fmt.Errorf("alerts: query %q: %w", name, err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	t := r.now().UTC()
	r.advance(t)
	for _, name := range r.names {
		if _, ok := queries[name]; !ok {
			r.emit(name, r.queries[name], t, t)
			r.closeIncidents(name, r.queries[name], t, true)
			delete(r.queries, name)
			r.log.Info("alert query removed", "query", name)
		}
	}
	for _, name := range names {
		o := queries[name].normalized()
		q := r.queries[name]
		switch {
		case q == nil:
			q = &route{
				since:   t,
				matches: r.m.Matches.WithLabelValues(name),
				counted: r.m.Counted.WithLabelValues(name),
				limited: r.m.RateLimited.WithLabelValues(name),
			}
			r.queries[name] = q
			delete(r.unknown, name)
			r.log.Info("alert query added", "query", name, "mode", o.Mode, "rate_limit", o.RateLimit, "burst", o.Burst)
		case q.opts.equal(o):
			q.opts.Meta, q.opts.Nodes = o.Meta, o.Nodes
			continue
		default:
			if q.opts.Mode != o.Mode {
				r.emit(name, q, t, t)
				q.since = t
			}
			if !q.opts.Group.equal(o.Group) {
				r.closeIncidents(name, q, t, true)
			}
			r.log.Info("alert query changed", "query", name, "mode", o.Mode, "rate_limit", o.RateLimit, "burst", o.Burst)
		}
		q.opts = o
		q.lim = nil
		if o.RateLimit > 0 {
			q.lim = rate.NewLimiter(rate.Limit(o.RateLimit), o.Burst)
		}
	}
	r.names = names
	return nil
}

// Add stages match records (Kind is set to KindMatch; MatchID, Edges and
// times are the caller's) for the next Flush. The Router keeps the
// records, and their Edges, until then: the caller must not modify them.
func (r *Router) Add(matches []Alert) {
	for _, a := range matches {
		a.Kind = KindMatch
		r.staged = append(r.staged, a)
	}
}

// AddCount stages n matches of a count-mode query that the engine counted
// without enumerating them (the daemon tallies count-only queries in the
// engine; building a record per match just to count it would waste the
// tally). A query not in count mode gets them as a warning and a count
// record anyway: nothing is dropped.
func (r *Router) AddCount(query string, n int64) {
	if n <= 0 {
		return
	}
	if r.stagedCounts == nil {
		r.stagedCounts = make(map[string]int64)
	}
	r.stagedCounts[query] += n
}

// Flush routes the staged matches (enumerate: a record each, unless over
// the rate limit; count: tallied), first closing the current interval if
// it has ended, and writes everything due through the sink. It returns nil
// only when all of it is acknowledged.
//
// On an error nothing is lost: the staged matches are already routed and
// their records wait in the Router; call Flush again (without adding them
// again) to retry. Input offsets may be committed after Flush returns nil,
// up to what Settled allows.
func (r *Router) Flush(ctx context.Context) error {
	if r.closed {
		return ErrClosed
	}
	t := r.now().UTC()
	r.advance(t)
	r.closeDue(t)
	r.route(t)
	if err := r.write(ctx); err != nil {
		return err
	}
	r.flushed++
	if !r.tallying() {
		r.settled = max(r.settled, min(r.flushed, r.incidentFloor()))
	}
	return nil
}

// closeDue queues the records of the incidents that close by t.
func (r *Router) closeDue(t time.Time) {
	for _, name := range r.names {
		if q := r.queries[name]; len(q.incidents) > 0 {
			r.closeIncidents(name, q, t, false)
		}
	}
}

// Tick writes the count and summary records of the interval in progress
// if now is at or past its end (and any records a failed Flush left). The
// daemon calls it from a timer set to Due, so that quiet periods still
// report.
func (r *Router) Tick(ctx context.Context, now time.Time) error {
	if r.closed {
		return ErrClosed
	}
	r.advance(now.UTC())
	r.closeDue(now.UTC())
	if err := r.write(ctx); err != nil {
		return err
	}
	if !r.tallying() {
		r.settled = max(r.settled, min(r.flushed, r.incidentFloor()))
	}
	return nil
}

// Due returns the end of the current interval, or the close of the
// first open incident if sooner: a Tick at or after it writes the
// interval's count and summary records, or the incident's.
func (r *Router) Due() time.Time {
	if c := r.nextClose(); !c.IsZero() && c.Before(r.to) {
		return c
	}
	return r.to
}

// Settled returns n such that the matches of every Add made before the
// n-th successful Flush are durable: written as match records or counted
// in acknowledged count or summary records. Flush returning nil makes its
// match records durable, but count-mode matches and rate-limited ones sit
// in the Router's tallies until their interval ends, so a crash would
// lose them; for strict at-least-once, commit input offsets only up to
// batch Settled(). Settled is the latest Flush whenever no tallies are
// pending (no count-mode or rate-limited matches since the last
// interval's records).
func (r *Router) Settled() uint64 { return r.settled }

// Alerted returns the match records acknowledged by the sink so far, and
// the matches held back by a rate limit (reported in KindRateLimited
// records, not alerted one by one).
func (r *Router) Alerted() (alerted, rateLimited int64) { return r.alerted, r.limited }

// Close routes the staged matches and writes everything pending,
// including the tallies of the interval in progress (records with To =
// now). On an error the Router stays open and Close may be retried; after
// a nil return every other method returns ErrClosed. Close does not close
// the sink.
func (r *Router) Close(ctx context.Context) error {
	if r.closed {
		return nil
	}
	t := r.now().UTC()
	r.advance(t)
	r.route(t)
	for _, name := range r.names {
		r.emit(name, r.queries[name], t, t)
		r.closeIncidents(name, r.queries[name], t, true)
	}
	if err := r.write(ctx); err != nil {
		return err
	}
	r.flushed++
	r.settled = r.flushed
	r.closed = true
	return nil
}

// advance closes the current interval if t is at or past its end, and
// moves to the interval holding t.
func (r *Router) advance(t time.Time) {
	if t.Before(r.to) {
		return
	}
	for _, name := range r.names {
		r.emit(name, r.queries[name], t, r.to)
	}
	r.outSettles = r.flushed
	r.from = t.Truncate(r.interval)
	r.to = r.from.Add(r.interval)
}

// emit queues q's non-zero tallies as records ending at to, and clears
// them. Tallies cut short (to = t) at the very moment they started end
// 1ns later, so that [From, To) holds t.
func (r *Router) emit(name string, q *route, t, to time.Time) {
	from := r.from
	if q.since.After(from) {
		from = q.since
	}
	if !to.After(from) {
		to = from.Add(time.Nanosecond)
	}
	if q.count > 0 {
		r.out = append(r.out, Alert{Kind: KindCount, Query: name, Count: q.count, From: from, To: to, DetectedAt: t})
		q.count = 0
	}
	if q.held > 0 {
		r.out = append(r.out, Alert{Kind: KindRateLimited, Query: name, Count: q.held, MatchIDs: q.heldIDs,
			MatchIDsOmitted: q.held - int64(len(q.heldIDs)), From: from, To: to, DetectedAt: t})
		q.held, q.heldIDs = 0, nil // the record keeps the slice
	}
}

// route applies modes and rate limits to the staged matches.
func (r *Router) route(t time.Time) {
	for name, n := range r.stagedCounts {
		q := r.queries[name]
		if q == nil || q.opts.Mode != ModeCount {
			r.log.Warn("counted matches of a query not in count mode: writing a count record", "query", name, "count", n)
			r.m.Matches.WithLabelValues(name).Add(float64(n))
			r.m.Counted.WithLabelValues(name).Add(float64(n))
			r.out = append(r.out, Alert{Kind: KindCount, Query: name, Count: n, From: t, To: t, DetectedAt: t})
			continue
		}
		q.matches.Add(float64(n))
		q.count += n
		q.counted.Add(float64(n))
	}
	clear(r.stagedCounts)
	for _, a := range r.staged {
		q := r.queries[a.Query]
		if q == nil {
			r.m.Matches.WithLabelValues(a.Query).Inc()
			if !r.unknown[a.Query] {
				r.unknown[a.Query] = true
				r.log.Warn("match of an unknown query: writing it as a match record", "query", a.Query)
			}
		} else {
			q.matches.Inc()
			if q.opts.Group.enabled() && q.opts.Mode == ModeEnumerate {
				if a.DetectedAt.IsZero() {
					a.DetectedAt = t
				}
				q.fold(&a, t, r.flushed+1)
			}
			if q.opts.Mode == ModeCount {
				q.count++
				q.counted.Inc()
				continue
			}
			if q.lim != nil && !q.lim.AllowN(t, 1) {
				q.held++
				if len(q.heldIDs) < MaxRateLimitedMatchIDs {
					q.heldIDs = append(q.heldIDs, a.MatchID)
				}
				q.limited.Inc()
				r.limited++
				continue
			}
		}
		if a.DetectedAt.IsZero() {
			a.DetectedAt = t
		}
		r.out = append(r.out, a)
	}
	clear(r.staged)
	r.staged = r.staged[:0]
}

// tallying reports whether any query has matches counted or held back that
// no record written yet reports (open incidents: see incidentFloor).
func (r *Router) tallying() bool {
	for _, q := range r.queries {
		if q.count > 0 || q.held > 0 {
			return true
		}
	}
	return false
}

// write sends the queued records through the sink, keeping them queued on
// failure.
func (r *Router) write(ctx context.Context) error {
	if len(r.out) == 0 {
		return nil
	}
	r.stamp()
	start := time.Now()
	err := r.sink.Write(ctx, r.out)
	r.m.WriteSeconds.Observe(time.Since(start).Seconds())
	type key struct {
		query string
		kind  Kind
	}
	n := make(map[key]int)
	for i := range r.out {
		n[key{r.out[i].Query, r.out[i].Kind}]++
	}
	if err != nil {
		for k, c := range n {
			r.m.Failed.WithLabelValues(k.query).Add(float64(c))
		}
		return fmt.Errorf("alerts: writing %d records: %w", len(r.out), err)
	}
	for k, c := range n {
		r.m.Written.WithLabelValues(k.query, string(k.kind)).Add(float64(c))
		if k.kind == KindMatch {
			r.alerted += int64(c)
		}
	}
	if r.written != nil {
		r.written(r.out)
	}
	clear(r.out)
	r.out = r.out[:0]
	r.stamped = 0
	r.settled = max(r.settled, min(r.outSettles, r.incidentFloor()))
	return nil
}

// stamp sets the Meta of their query (severity, labels, annotations
// rendered) and the Source on the queued records that lack them. A
// record queued before a reload that changes its query's Meta gets the
// new one.
func (r *Router) stamp() {
	for i := r.stamped; i < len(r.out); i++ {
		a := &r.out[i]
		a.Source, a.StatusURL = r.source, r.status
		q := r.queries[a.Query]
		if q == nil {
			continue
		}
		m := q.opts.Meta
		a.Severity, a.Labels = m.Severity, m.Labels
		a.Annotations = m.Annotations.render(a, q.opts.Nodes, func(name string, err error) {
			key := a.Query + "/" + name
			if !r.tmplFailed[key] {
				if r.tmplFailed == nil {
					r.tmplFailed = make(map[string]bool)
				}
				r.tmplFailed[key] = true
				r.log.Warn("annotation template failed on a record: its text says why (logged once per query and annotation)",
					"query", a.Query, "annotation", name, "err", err)
			}
		})
	}
	r.stamped = len(r.out)
}
