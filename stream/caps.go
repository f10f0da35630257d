package stream

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/ratelog"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Caps bound what hostile input or load can make the processor hold or
// do. Each is off at 0. When one acts it is counted
// (motifwatch_cap_actions_total{cap}) and logged at most once per cap
// and query every capLogEvery, with the number of actions in between:
// nothing is lost silently.
//
//   - MaxBytes (window_bytes): after a batch, if the memory held for the
//     window (Processor.Bytes, the motifwatch_window_bytes gauge: the
//     window, the decoders' node dictionary, the edges' metadata) is above
//     MaxBytes, the oldest edges are evicted early until it is at most
//     3/4 of MaxBytes (the slack keeps the cap from acting on every
//     batch) and the window is shrunk (window.Window.Shrink). Edges
//     evicted early are counted (motifwatch_window_evicted_early_total):
//     matches that needed them are missed. A held match whose edges are
//     evicted early is reported at once, provisional, like one over
//     MaxHeld. A batch can take the window above the cap before it acts.
//   - MaxNodes (nodes): an edge whose new node ids would take the live ids
//     past MaxNodes is not appended; it is returned in Output.Refused
//     (class ingest.ClassNodeCap) for the caller to dead-letter. Ids leave
//     with their last edge, so the cap frees up as the window slides.
//   - MaxMatchesPerBatch (matches_per_batch): a query whose mining in one
//     batch reaches more than this many matches (final and open) stops
//     for that batch: the first MaxMatchesPerBatch are reported, the rest
//     of the batch's matches of that query are not, and their number is
//     not known (counting them would cost the work the cap bounds). The
//     query is counted in motifwatch_matches_truncated_total{query} and
//     the log line names the batch's time and offset range, for mining it
//     again offline. Count-mode queries without anti-edges are tallied by
//     the engine without enumeration and are not capped.
//   - MaxMineSteps (mine_steps) and MaxMineTime (mine_time): a query whose
//     mining of one batch takes more than MaxMineSteps engine steps
//     (motif.Request.Budget: root and candidate edges tried, summed over
//     the batch's runs) or more than MaxMineTime of wall-clock time stops
//     for that batch, every mode included: the matches found so far are
//     reported, the rest are not, exactly as for MaxMatchesPerBatch
//     (motifwatch_matches_truncated_total{query}, the log line with the
//     range to mine again). A hub that makes one batch quadratic (30k
//     edges into it, 30k out) costs at most the budget, not minutes. The
//     step count depends only on the data, so the step cap acts the same
//     on every run; the time cap is a backstop that depends on the load.
const (
	capLogEvery = 10 * time.Second

	capWindowBytes = "window_bytes"
	capNodes       = "nodes"
	capMatches     = "matches_per_batch"
	capMineSteps   = "mine_steps"
	capMineTime    = "mine_time"
)

// CapFuture labels the daemon's window.max_future cap, which acts before
// the processor (on records, before the reorder buffer) but is counted
// with the others: see NoteCap.
const CapFuture = "future"

// CapReorder labels the daemon's window.max_buffered cap on the reorder
// buffer, also applied outside the processor.
const CapReorder = "reorder_buffer"

// NoteCap counts an action of a cap applied outside the processor in
// motifwatch_cap_actions_total{cap}.
func (p *Processor) NoteCap(cap string) { p.metrics.capActions.WithLabelValues(cap).Inc() }

// SetCapLimit publishes the limit of a cap applied outside the processor
// in motifwatch_cap_limit{cap}, and creates its action series at 0.
func (p *Processor) SetCapLimit(cap string, limit float64) {
	p.metrics.capLimit.WithLabelValues(cap).Set(limit)
	p.metrics.capActions.WithLabelValues(cap)
}

// Refused is an edge the processor did not take, and why. Unless it is
// History (handled before a restart), the caller dead-letters it.
type Refused struct {
	Edge ingest.Edge
	// Class is the dead-letter class (ingest.ClassNodeCap); Reason the
	// dead-letter reason.
	Class, Reason string
}

// capLog counts a cap's actions and logs them, rate-limited per cap and
// query.
type capLog struct {
	log     *slog.Logger
	limiter *ratelog.Limiter
	actions *prometheus.CounterVec
}

// act counts an action of cap (on query, or "") and logs msg with args.
func (l *capLog) act(cap, query, msg string, args ...any) {
	l.actions.WithLabelValues(cap).Inc()
	ok, suppressed := l.limiter.Allow(cap + "\x00" + query)
	if !ok {
		return
	}
	l.log.Warn(msg, append(args, slog.String("cap", cap), slog.Int("suppressed_since_last_log", suppressed))...)
}

// nodeCap is MaxNodes: see Caps.
type nodeCap struct {
	limit int
	log   *capLog
}

// admit applies the node cap to e before its ids are interned.
func (c *nodeCap) admit(ids *window.IDs, e *ingest.Edge, out *Output) bool {
	if c.limit <= 0 || ids.Len()+2 <= c.limit {
		return true // the fast path: room for two new ids
	}
	return c.check(ids, e, out)
}

// check is admit past its fast path.
func (c *nodeCap) check(ids *window.IDs, e *ingest.Edge, out *Output) bool {
	added := 0
	for _, name := range [2]string{e.Src, e.Dst} {
		if _, ok := ids.Lookup(name); !ok {
			added++
		}
	}
	if added == 0 || ids.Len()+added <= c.limit {
		return true
	}
	reason := fmt.Sprintf("node cap: edge %s->%s would add %d node id(s) to the %d live (window.max_nodes %d)",
		e.Src, e.Dst, added, ids.Len(), c.limit)
	out.Refused = append(out.Refused, Refused{Edge: *e, Class: ingest.ClassNodeCap, Reason: reason})
	c.log.act(capNodes, "", "node cap reached: edges with new node ids go to the dead-letter topic until ids leave the window",
		"max_nodes", c.limit, "live", ids.Len(), "partition", e.Origin.Partition, "offset", e.Origin.Offset)
	return false
}

// matchCap counts the matches a query's sink sees in one batch and stops
// the engine past the cap.
type matchCap struct {
	limit, seen int
	truncated   bool
}

// take reports whether one more match may be handled; past the cap it
// marks the batch truncated and returns motif.ErrStop for the sink.
func (c *matchCap) take() error {
	if c.limit > 0 && c.seen >= c.limit {
		c.truncated = true
		return motif.ErrStop
	}
	c.seen++
	return nil
}

// capBytes applies the memory cap after a batch (see Caps) and returns
// the memory held for the window after it: Bytes walks every adjacency
// list, so a batch measures it once, here, for the cap, the gauge and
// Output.WindowBytes alike.
func (p *Processor) capBytes(out *Output) int64 {
	b := p.Bytes()
	limit := p.opts.MaxBytes
	if limit <= 0 || b <= limit {
		return b
	}
	// The decoders' node dictionary may hold the names of nodes long gone
	// (it renews itself only when a new name comes): dropping them loses
	// nothing but a lookup.
	if k := p.opts.NodeKeys; k != nil && k.Renew() {
		if b = p.Bytes(); b <= limit {
			return b
		}
	}
	before, target := b, limit/4*3
	evicted := 0
	// Bytes per edge overestimates what evicting one edge frees (part of
	// Bytes does not shrink with the edges, e.g. arrays indexed by the
	// peak dense id), so a few rounds may be needed; stop when a round
	// frees little, rather than empty the window for memory it cannot give.
	for round := 0; round < 4 && b > target && p.w.Len() > 0; round++ {
		n := int64((b-target)/max(b/int64(p.w.Len()), 1)) + 1
		to := min(p.w.First()+n, p.w.End())
		p.held.release(to, out)
		evicted += p.w.EvictTo(to)
		p.w.Shrink()
		p.meta.compact(p.w.First())
		p.limitKeys(true) // fewer live nodes: fewer names kept
		freed := b - p.Bytes()
		b -= freed
		p.log.Debug("window memory cap round", "round", round, "evicted", n, "freed", freed, "bytes", b, "target", target, "edges", p.w.Len())
		if freed < (b-target)/8 {
			break
		}
	}
	out.Evicted += evicted
	out.EvictedEarly += evicted
	p.metrics.evictedEarly.Add(float64(evicted))
	p.caps.act(capWindowBytes, "", "window memory cap reached: oldest edges evicted early; matches needing them are missed",
		"max_bytes", limit, "bytes_before", before, "bytes_after", b, "evicted_early", evicted, "edges_left", p.w.Len())
	return b
}
