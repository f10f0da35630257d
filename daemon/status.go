package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/engine"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/buildinfo"
	"github.com/motifwatch/motifwatch/motif/estimate"
	"github.com/motifwatch/motifwatch/stream"
)

// recentAlerts is how many of the last alert records the status page
// shows (enough that filtering by query leaves some).
const recentAlerts = 100

// rateSpan is the span over which the status page's rates are taken.
const rateSpan = time.Minute

// statusBoard is what the status page, /api/status and the periodic
// status line show. The pipeline goroutine writes it after every batch
// (and the router, on the same goroutine, as it writes records); HTTP
// handlers and the status logger read copies under its lock.
type statusBoard struct {
	mu      sync.Mutex
	now     func() time.Time
	started time.Time
	tick    time.Duration
	engine  EngineStatus
	queries []QueryStatus
	// state, if set, is the readiness state and its reasons (/readyz:
	// health.state).
	state func() (string, string)

	records, edges int64
	matches        map[string]int64
	lag            int64
	watermark      int64
	hasWatermark   bool
	windowEdges    int
	windowBytes    int64
	buffered       int
	samples        []statusSample // newest last, spanning about rateSpan
	recent         []alerts.Alert // newest last
	lastMatch      map[string]time.Time
	estimates      map[string]estimate.Estimate // running estimates of estimated queries

	// The console's sources besides the pipeline's batches, set before
	// the HTTP server starts (daemon.go): the metrics registry (input
	// health, per query and per partition figures, batch latency), the
	// degraded conditions in force, whether the brokers are unreachable
	// (lag is unknown then, never 0), the header.
	gather      prometheus.Gatherer
	conditions  func() map[string]string
	unreachable func() (bool, string)
	header      HeaderStatus
	reload      *ReloadStatus
	hist        *historyRing
	histPrev    *historyTotals
}

// statusSample is the running totals at one moment, for rates.
type statusSample struct {
	at      time.Time
	edges   int64
	matches map[string]int64
}

func newStatusBoard(tick time.Duration, engine EngineStatus, now func() time.Time) *statusBoard {
	if now == nil {
		now = time.Now
	}
	started := now()
	// The first sample's rates are since the start, from zero: the
	// registry is the daemon's own, its counters start with it.
	return &statusBoard{now: now, started: started, tick: tick, engine: engine, matches: map[string]int64{},
		lastMatch: map[string]time.Time{}, estimates: map[string]estimate.Estimate{}, hist: newHistoryRing(), histPrev: &historyTotals{at: started}}
}

// setBrokers records the brokers the daemon reached (the embedded
// broker's addresses are known only once it runs).
func (b *statusBoard) setBrokers(brokers []string) {
	b.mu.Lock()
	b.header.Brokers = slices.Clone(brokers)
	b.mu.Unlock()
}

// reloaded records the last query reload's result
// (config.QueryWatcher.Settled).
func (b *statusBoard) reloaded(result string, err error) {
	r := &ReloadStatus{Result: result}
	if err != nil {
		r.Error = err.Error()
	}
	b.mu.Lock()
	r.At = b.now()
	b.reload = r
	b.mu.Unlock()
}

// brokersDown reports whether the brokers are unreachable, and why.
func (b *statusBoard) brokersDown() (bool, string) {
	if b.unreachable == nil {
		return false, ""
	}
	return b.unreachable()
}

// setEngine records the engine once it is chosen (the page serves
// before: while the daemon connects to the brokers).
func (b *statusBoard) setEngine(e EngineStatus) {
	b.mu.Lock()
	b.engine = e
	b.mu.Unlock()
}

// setQueries records the registered query set (at start and on reload).
func (b *statusBoard) setQueries(qs []stream.Query, opts map[string]alerts.QueryOptions) {
	out := make([]QueryStatus, len(qs))
	for i, q := range qs {
		mq := q.Query
		mode := string(alerts.ModeEnumerate)
		if !q.Enumerate {
			mode = string(alerts.ModeCount)
		}
		out[i] = QueryStatus{Name: mq.Name, Description: mq.Description, Text: mq.Summary(), Delta: mq.Delta.String(), Mode: mode,
			GroupBy: opts[mq.Name].Group.By}
		if !q.Enumerate && mq.Estimate > 0 {
			out[i].Estimate = &QueryEstimate{Epsilon: mq.Estimate} // filled by snapshot
		}
	}
	slices.SortFunc(out, func(a, c QueryStatus) int { return strings.Compare(a.Name, c.Name) })
	b.mu.Lock()
	b.queries = out
	b.mu.Unlock()
}

// batchStatus is what one batch adds to the board.
type batchStatus struct {
	records, edges int
	matches        map[string]int64 // final matches per query, counted or enumerated
	estimates      map[string]estimate.Estimate
	lag            int64
	watermark      int64
	hasWatermark   bool
	// hasWindow: windowEdges and windowBytes were measured (a batch that
	// processed edges; the window does not change otherwise).
	hasWindow   bool
	windowEdges int
	windowBytes int64
	buffered    int
}

// matchesOf tallies a batch's matches per query.
func matchesOf(out *stream.Output) map[string]int64 {
	m := make(map[string]int64, len(out.Counts))
	for _, a := range out.Alerts {
		m[a.Query]++
	}
	for q, n := range out.Counts {
		m[q] += n
	}
	return m
}

func (b *statusBoard) batch(s batchStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.records += int64(s.records)
	b.edges += int64(s.edges)
	now := b.now()
	for q, n := range s.matches {
		b.matches[q] += n
		if n > 0 {
			b.lastMatch[q] = now
		}
	}
	for q, e := range s.estimates {
		b.estimates[q] = e
	}
	b.lag, b.buffered = s.lag, s.buffered
	if s.hasWindow {
		b.windowEdges, b.windowBytes = s.windowEdges, s.windowBytes
	}
	if s.hasWatermark {
		b.watermark, b.hasWatermark = s.watermark, true
	}
	if n := len(b.samples); n > 0 && now.Sub(b.samples[n-1].at) < time.Second {
		return // at most a sample a second: the rates need no more
	}
	b.samples = append(b.samples, statusSample{at: now, edges: b.edges, matches: maps.Clone(b.matches)})
	// Keep one sample at or before the span's start, so the rate covers it.
	i := 0
	for i+1 < len(b.samples) && now.Sub(b.samples[i+1].at) >= rateSpan {
		i++
	}
	b.samples = slices.Delete(b.samples, 0, i)
}

// written keeps the last records the router wrote (alerts.RouterOptions.Written).
func (b *statusBoard) written(as []alerts.Alert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(as) > recentAlerts {
		as = as[len(as)-recentAlerts:]
	}
	b.recent = append(b.recent, as...)
	if drop := len(b.recent) - recentAlerts; drop > 0 {
		b.recent = slices.Delete(b.recent, 0, drop)
	}
}

// watermarkTime returns the watermark as a wall-clock time, when there is
// one and the window's ticks have a unit (the lookout's delay check).
func (b *statusBoard) watermarkTime() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.hasWatermark {
		return time.Time{}, false
	}
	return tickTime(b.watermark, b.tick)
}

// Status is the daemon's state as /api/status serves it.
type Status struct {
	Now           time.Time `json:"now"`
	Started       time.Time `json:"started"`
	UptimeSeconds float64   `json:"uptime_seconds"`
	// State is what /readyz answers: "ready", "degraded" (consuming but
	// blind to part of the input; Degraded says why) or "not ready"
	// (NotReady says why). Ready is true in the first two.
	State    string `json:"state"`
	Ready    bool   `json:"ready"`
	NotReady string `json:"not_ready,omitempty"`
	Degraded string `json:"degraded,omitempty"`
	// Conditions are the degraded conditions in force (degraded.go), by
	// name.
	Conditions []ConditionStatus `json:"conditions"`
	// Brokers says whether the brokers answer: while they do not, every
	// lag is unknown (null), never 0.
	Brokers      BrokersStatus     `json:"brokers"`
	Header       HeaderStatus      `json:"header"`
	Engine       EngineStatus      `json:"engine"`
	Ingest       IngestStatus      `json:"ingest"`
	Input        InputStatus       `json:"input"`
	Partitions   []PartitionStatus `json:"partitions"`
	Queries      []QueryStatus     `json:"queries"`
	LastReload   *ReloadStatus     `json:"last_reload,omitempty"`
	History      History           `json:"history"`
	RecentAlerts []alerts.Alert    `json:"recent_alerts"`
}

// ConditionStatus is one degraded condition in force.
type ConditionStatus struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// BrokersStatus is whether the brokers answer, and if not why.
type BrokersStatus struct {
	Reachable bool   `json:"reachable"`
	Problem   string `json:"problem,omitempty"`
}

// HeaderStatus names the running daemon: its build and where it reads
// and writes.
type HeaderStatus struct {
	Build           buildinfo.Info `json:"build"`
	Brokers         []string       `json:"brokers"`
	EdgeTopic       string         `json:"edge_topic"`
	AlertTopic      string         `json:"alert_topic"`
	DeadLetterTopic string         `json:"dead_letter_topic"`
	Group           string         `json:"group"`
	// ConfigFile is the configuration's file ("" for the built-in demo).
	ConfigFile string `json:"config_file"`
}

// headerStatus is the header of a daemon running cfg.
func headerStatus(cfg *config.Config, build buildinfo.Info) HeaderStatus {
	return HeaderStatus{Build: build, Brokers: slices.Clone(cfg.Kafka.Brokers), EdgeTopic: cfg.Kafka.EdgeTopic,
		AlertTopic: cfg.Kafka.AlertTopic, DeadLetterTopic: cfg.Kafka.DeadLetterTopic, Group: cfg.Kafka.Group, ConfigFile: cfg.Source}
}

// EngineStatus is the mining backend in use.
type EngineStatus struct {
	Backend string   `json:"backend"`
	Workers int      `json:"workers"`
	Devices []string `json:"devices"`
}

// IngestStatus is the edge stream's progress. Rates are over the last
// minute (or since start).
type IngestStatus struct {
	Records        int64   `json:"records"`
	Edges          int64   `json:"edges"`
	EdgesPerSecond float64 `json:"edges_per_second"`
	// LagRecords is null (unknown) while the brokers are unreachable.
	LagRecords *int64 `json:"lag_records"`
	// Watermark is in window ticks (absent before the first edge);
	// WatermarkTime is the same as an ISO-8601 time.
	Watermark     *int64 `json:"watermark,omitempty"`
	WatermarkTime string `json:"watermark_time,omitempty"`
	WindowEdges   int    `json:"window_edges"`
	WindowBytes   int64  `json:"window_bytes"`
	Buffered      int    `json:"reorder_buffered"`
}

// InputStatus is the input's health since start: what came in, what was
// mined, what was not and why.
type InputStatus struct {
	RecordsReceived int64 `json:"records_received"`
	EdgesAccepted   int64 `json:"edges_accepted"`
	// Outcomes are the records by outcome (motifwatch_pipeline_records_total).
	Outcomes map[string]int64 `json:"outcomes"`
	// DeadLettered and DeadLetterLost are by reason class (decode,
	// oversize, late, future, node_cap).
	DeadLettered   map[string]int64 `json:"dead_lettered"`
	DeadLetterLost map[string]int64 `json:"dead_letter_lost"`
	Late           int64            `json:"late"`
	// Future is the records dead-lettered as too far ahead; HeldFuture,
	// the edges held as such now, waiting for confirmation.
	Future     int64 `json:"future"`
	HeldFuture int64 `json:"held_future"`
	// WatermarkDelaySeconds is how far the watermark trails the wall
	// clock (absent before the first watermark).
	WatermarkDelaySeconds *float64 `json:"watermark_delay_seconds,omitempty"`
}

// PartitionStatus is one edge-topic partition as this instance reads it.
type PartitionStatus struct {
	Partition int   `json:"partition"`
	Records   int64 `json:"records"`
	// Lag is null (unknown) while the brokers are unreachable or before
	// the first fetch.
	Lag *int64 `json:"lag"`
	// Watermark is the partition's share of the watermark in ticks;
	// TrailsSeconds, how far its time trails the wall clock.
	Watermark     *int64   `json:"watermark,omitempty"`
	WatermarkTime string   `json:"watermark_time,omitempty"`
	TrailsSeconds *float64 `json:"trails_seconds,omitempty"`
	FetchErrors   int64    `json:"fetch_errors"`
}

// ReloadStatus is the last query reload's result.
type ReloadStatus struct {
	At     time.Time `json:"at"`
	Result string    `json:"result"` // applied, rejected, restored
	Error  string    `json:"error,omitempty"`
}

// QueryStatus is one registered query and its matches.
type QueryStatus struct {
	Name             string   `json:"name"`
	Description      string   `json:"description,omitempty"`
	Text             string   `json:"text"`
	Delta            string   `json:"delta"`
	Mode             string   `json:"mode"`
	GroupBy          []string `json:"group_by,omitempty"`
	Matches          int64    `json:"matches"`
	MatchesPerMinute float64  `json:"matches_per_minute"`
	// AlertsWritten are the records acknowledged by the sink (every
	// kind), AlertsFailed the failed writes; RateLimited the matches a
	// rate limit held back; Truncated the batches a cap cut short.
	AlertsWritten int64      `json:"alerts_written"`
	AlertsFailed  int64      `json:"alerts_failed"`
	RateLimited   int64      `json:"rate_limited"`
	Truncated     int64      `json:"truncated"`
	LastMatch     *time.Time `json:"last_match,omitempty"`
	// Estimate is an estimated query's running estimate (its Matches stay
	// 0: an estimate is never counted or alerted).
	Estimate *QueryEstimate `json:"estimate,omitempty"`
}

// QueryEstimate is an estimated query's count since it was registered:
// Value, with the interval [Lo, Hi] at Confidence, from RootsSampled of
// Roots root edges (Exact while every root was mined).
type QueryEstimate struct {
	Value        float64 `json:"value"`
	Lo           float64 `json:"lo"`
	Hi           float64 `json:"hi"`
	Confidence   float64 `json:"confidence"`
	Epsilon      float64 `json:"epsilon"`
	RootsSampled int64   `json:"roots_sampled"`
	Roots        int64   `json:"roots"`
	Exact        bool    `json:"exact"`
}

// snapshot returns a copy of the board's state.
func (b *statusBoard) snapshot() Status {
	state, why := stateReady, ""
	if b.state != nil {
		state, why = b.state() // outside b.mu: the health lock stays unordered with it
	}
	var conds map[string]string
	if b.conditions != nil {
		conds = b.conditions()
	}
	down, problem := b.brokersDown()
	m := b.readMetrics()
	ready := state != stateNotReady
	notReady, degraded := "", ""
	if state == stateNotReady {
		notReady = why
	} else {
		degraded = why
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	s := Status{State: state, Ready: ready, NotReady: notReady, Degraded: degraded, Now: now, Started: b.started, UptimeSeconds: now.Sub(b.started).Seconds(), Engine: b.engine,
		RecentAlerts: slices.Clone(b.recent), Conditions: []ConditionStatus{}, Brokers: BrokersStatus{Reachable: !down, Problem: problem},
		Header: b.header, History: b.hist.history()}
	s.Header.Brokers = slices.Clone(b.header.Brokers)
	for _, c := range slices.Sorted(maps.Keys(conds)) {
		s.Conditions = append(s.Conditions, ConditionStatus{Name: c, Reason: conds[c]})
	}
	if b.reload != nil {
		r := *b.reload
		s.LastReload = &r
	}
	s.Engine.Devices = slices.Clone(b.engine.Devices)
	if s.RecentAlerts == nil {
		s.RecentAlerts = []alerts.Alert{}
	}
	slices.Reverse(s.RecentAlerts) // newest first
	s.Ingest = IngestStatus{Records: b.records, Edges: b.edges, WindowEdges: b.windowEdges,
		WindowBytes: b.windowBytes, Buffered: b.buffered}
	if !down {
		lag := b.lag
		s.Ingest.LagRecords = &lag
	}
	if b.hasWatermark {
		wm := b.watermark
		s.Ingest.Watermark = &wm
		s.Ingest.WatermarkTime = alerts.TickTime(wm, b.tick)
	}
	s.Input = m.input()
	if !b.hasWatermark {
		s.Input.WatermarkDelaySeconds = nil // the gauge reads 0 before the first watermark
	}
	s.Partitions = b.partitions(m, down, now)
	var first statusSample
	var span float64
	if len(b.samples) > 0 {
		first = b.samples[0]
		span = now.Sub(first.at).Seconds()
	}
	rate := func(now, then int64) float64 {
		if span < 1 {
			return 0
		}
		return float64(now-then) / span
	}
	s.Ingest.EdgesPerSecond = rate(b.edges, first.edges)
	s.Queries = make([]QueryStatus, len(b.queries))
	for i, q := range b.queries {
		q.Matches = b.matches[q.Name]
		q.MatchesPerMinute = 60 * rate(q.Matches, first.matches[q.Name])
		q.GroupBy = slices.Clone(q.GroupBy)
		if qm := m.queries[q.Name]; qm != nil {
			q.AlertsWritten, q.AlertsFailed, q.RateLimited, q.Truncated = int64(qm.written), int64(qm.failed), int64(qm.rateLimited), int64(qm.truncated)
		}
		if t, ok := b.lastMatch[q.Name]; ok {
			q.LastMatch = &t
		}
		if e, ok := b.estimates[q.Name]; ok && q.Estimate != nil {
			q.Estimate = &QueryEstimate{Value: e.Value, Lo: e.Lo, Hi: e.Hi, Confidence: e.Confidence, Epsilon: q.Estimate.Epsilon,
				RootsSampled: e.Sampled, Roots: e.Roots, Exact: e.Exact}
		} else if q.Estimate != nil {
			q.Estimate = &QueryEstimate{Epsilon: q.Estimate.Epsilon, Exact: true}
		}
		s.Queries[i] = q
	}
	return s
}

// input is the input's health from the registry's counters.
func (m *statusMetrics) input() InputStatus {
	ints := func(f map[string]float64) map[string]int64 {
		out := make(map[string]int64, len(f))
		for k, v := range f {
			out[k] = int64(v)
		}
		return out
	}
	return InputStatus{RecordsReceived: int64(m.consumed), EdgesAccepted: int64(m.outcomes["appended"]), Outcomes: ints(m.outcomes),
		DeadLettered: ints(m.deadLettered), DeadLetterLost: ints(m.deadLost), Late: int64(m.late), Future: int64(m.deadLettered[ingest.ClassFuture]),
		HeldFuture: int64(m.heldNow), WatermarkDelaySeconds: m.watermarkDelay}
}

// partitions lists the partitions the registry knows, in order: a lag
// only while the brokers answer, a watermark with how far it trails now.
func (b *statusBoard) partitions(m *statusMetrics, down bool, now time.Time) []PartitionStatus {
	out := []PartitionStatus{}
	for _, p := range slices.Sorted(maps.Keys(m.partitions)) {
		pm := m.partitions[p]
		ps := PartitionStatus{Partition: p, Records: int64(pm.consumed), FetchErrors: int64(pm.fetchErrors)}
		if pm.lag != nil && !down {
			lag := int64(*pm.lag)
			ps.Lag = &lag
		}
		if pm.watermark != nil && !math.IsNaN(*pm.watermark) && math.Abs(*pm.watermark) < 1<<62 {
			wm := int64(*pm.watermark)
			ps.Watermark = &wm
			if t, ok := tickTime(wm, b.tick); ok {
				ps.WatermarkTime = t.UTC().Format(time.RFC3339Nano)
				trails := now.Sub(t).Seconds()
				ps.TrailsSeconds = &trails
			}
		}
		out = append(out, ps)
	}
	return out
}

// tickTime is t ticks of unit after the Unix epoch, if unit is one and
// the time fits.
func tickTime(t int64, unit time.Duration) (time.Time, bool) {
	if unit <= 0 {
		return time.Time{}, false
	}
	u := int64(unit)
	if t > 0 && t > math.MaxInt64/u || t < 0 && t < math.MinInt64/u {
		return time.Time{}, false
	}
	return time.Unix(0, t*u), true
}

// statusLogger logs a status line every interval: what a person tailing
// the log wants to see, as Kafka and NATS servers print theirs.
type statusLogger struct {
	b    *statusBoard
	log  *slog.Logger
	last Status
	had  bool
}

// line logs the status since the previous line (rates over that span).
func (l *statusLogger) line() {
	s := l.b.snapshot()
	span := s.UptimeSeconds
	prevEdges := int64(0)
	prevMatches := map[string]int64{}
	if l.had {
		span = s.Now.Sub(l.last.Now).Seconds()
		prevEdges = l.last.Ingest.Edges
		for _, q := range l.last.Queries {
			prevMatches[q.Name] = q.Matches
		}
	}
	eps := 0.0
	if span > 0 {
		eps = float64(s.Ingest.Edges-prevEdges) / span
	}
	var matches []string
	for _, q := range s.Queries {
		matches = append(matches, fmt.Sprintf("%s=%d", q.Name, q.Matches-prevMatches[q.Name]))
	}
	wm := "none"
	if s.Ingest.Watermark != nil {
		wm = s.Ingest.WatermarkTime
		if wm == "" {
			wm = fmt.Sprint(*s.Ingest.Watermark)
		}
	}
	lag := "unknown"
	if s.Ingest.LagRecords != nil {
		lag = fmt.Sprint(*s.Ingest.LagRecords)
	}
	l.log.Info("status", "edges_per_s", math.Round(eps*10)/10, "lag", lag, "watermark", wm,
		"window_edges", s.Ingest.WindowEdges, "window_bytes", s.Ingest.WindowBytes, "matches", strings.Join(matches, " "),
		"edges", s.Ingest.Edges)
	l.last, l.had = s, true
}

// tick calls f every d until ctx ends (the first call after d), and
// returns nil: the run group's actors that work on a timer.
func tick(ctx context.Context, d time.Duration, f func()) error {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			f()
		}
	}
}

// logStatus logs a status line every interval until ctx ends.
func logStatus(ctx context.Context, l *statusLogger, every time.Duration) error {
	return tick(ctx, every, l.line)
}

// engineStatus describes the engine for the status page.
func engineStatus(sel *engine.Selected, cfg *config.Config) EngineStatus {
	e := EngineStatus{Backend: sel.Backend.String(), Workers: engineWorkers(sel, cfg), Devices: []string{}}
	if sel.GPU != nil {
		for _, d := range sel.GPU.Devices() {
			e.Devices = append(e.Devices, fmt.Sprintf("GPU %d (ordinal %d): %s, %d SMs, %.1f GiB", d.Index, d.Ordinal, d.Name,
				d.Multiprocessors, float64(d.TotalBytes)/(1<<30)))
		}
	}
	return e
}
