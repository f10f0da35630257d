package stream

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
	"time"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/estimate"
	"github.com/motifwatch/motifwatch/window"
)

// registered is a query compiled for the window.
type registered struct {
	Query
	plan *motif.Plan
	// running is the estimate of a count-mode query with an estimate
	// option (motif.Query.Estimate), nil otherwise: such a query's
	// matches are estimated from a sample of each batch's roots, never
	// counted into Output.Counts (so never alerted).
	running *estimate.Running
}

// countOnly: the query's matches are counted by the engine, never
// enumerated (count mode without anti-edges: none is ever open).
func (q *registered) countOnly() bool {
	return !q.Enumerate && len(q.plan.Antis) == 0 && q.running == nil
}

// newRunning returns the running estimate of q (an estimated count-mode
// query), its sample seeded by the query's name.
func newRunning(q Query, plan *motif.Plan) (*estimate.Running, error) {
	name := q.Query.Name
	switch {
	case q.Enumerate:
		return nil, fmt.Errorf("stream: query %q: estimate %v needs count mode: an estimate raises no alerts", name, q.Query.Estimate)
	case len(plan.Antis) > 0:
		return nil, fmt.Errorf("stream: query %q: estimate %v needs a query without anti-edges (not:): their open matches are held one by one", name, q.Query.Estimate)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	r, err := estimate.NewRunning(estimate.Options{Epsilon: q.Query.Estimate, Seed: h.Sum64()})
	if err != nil {
		return nil, fmt.Errorf("stream: query %q: %w", name, err)
	}
	return r, nil
}

// miner mines the registered queries over a batch's runs for the matches
// that end in them: final ones are reported (recorder), open ones held
// (holder), within the per-batch caps (see Caps).
type miner struct {
	engine  motif.Engine
	backend string
	caps    mineCaps
	w       *window.Window
	queries []*registered
	span    int64 // largest delta of the registered queries, in ticks
	held    *holder
	rec     *recorder
	meta    *edgeMetas // names a truncated batch's offsets in the log
	capLog  *capLog
	metrics *metrics
}

// mineCaps are the caps on one query's mining of one batch (0: off):
// Options.MaxMatchesPerBatch, MaxMineSteps and MaxMineTime.
type mineCaps struct {
	matches int
	steps   int64
	time    time.Duration
}

// set compiles and registers qs (see Processor.SetQueries) and returns
// their names; on error nothing changes.
func (m *miner) set(qs []Query) (map[string]bool, error) {
	next := make([]*registered, 0, len(qs))
	var span int64
	names := map[string]bool{}
	for _, q := range qs {
		if names[q.Query.Name] {
			return nil, fmt.Errorf("stream: query %q registered twice", q.Query.Name)
		}
		names[q.Query.Name] = true
		plan, err := motif.Compile(q.Query, m.w)
		if err != nil {
			return nil, err
		}
		span = max(span, plan.Delta)
		r := &registered{Query: q, plan: plan}
		if q.Query.Estimate > 0 {
			// An unchanged query keeps its running estimate over a reload.
			for _, old := range m.queries {
				if old.running != nil && old.Enumerate == q.Enumerate && reflect.DeepEqual(old.Query.Query, q.Query) {
					r.running = old.running
				}
			}
			if r.running == nil {
				if r.running, err = newRunning(q, plan); err != nil {
					return nil, err
				}
			}
		}
		next = append(next, r)
	}
	for _, old := range m.queries {
		if old.running != nil && !names[old.Query.Query.Name] {
			m.metrics.forgetEstimate(old.Query.Query.Name)
		}
	}
	// An engine that counts some shapes (motif/count3) counts the count
	// queries' families of a batch in one run when it knows them.
	if e, ok := m.engine.(interface{ Expect(...*motif.Plan) }); ok {
		var counted []*motif.Plan
		for _, q := range next {
			if !q.Enumerate {
				counted = append(counted, q.plan)
			}
		}
		e.Expect(counted...)
	}
	m.queries, m.span = next, span
	return names, nil
}

// mineAll mines every registered query over runs: the batchable
// count-only ones together, the others one by one.
func (m *miner) mineAll(ctx context.Context, runs []run, watermark int64, out *Output) error {
	batched := m.batchable()
	if len(batched) > 0 && len(runs) > 0 {
		if err := m.mineBatch(ctx, batched, runs, watermark, out); err != nil {
			return err
		}
	}
	for _, q := range m.queries {
		if len(batched) > 0 && q.countOnly() {
			continue
		}
		if q.running != nil {
			if err := m.estimate(ctx, q, runs, watermark, out); err != nil {
				return err
			}
			continue
		}
		if err := m.mine(ctx, q, runs, watermark, out); err != nil {
			return err
		}
	}
	return nil
}

// estimate adds the batch's runs to an estimated query's running
// estimate (replayed runs are skipped: counted before the restart) and
// reports the running total in Output.Estimates and the metrics.
func (m *miner) estimate(ctx context.Context, q *registered, runs []run, watermark int64, out *Output) error {
	name := q.Query.Query.Name
	start := time.Now()
	for _, r := range runs {
		if r.replay {
			continue
		}
		if err := q.running.Add(ctx, m.engine, m.w, q.plan, motif.Request{Range: r.Range, Horizon: watermark, RootMask: r.mask}); err != nil {
			return fmt.Errorf("estimating %s: %w", name, err)
		}
	}
	e := q.running.Total()
	out.Estimates[name] = e
	m.metrics.estimated(name, e)
	m.metrics.mined(name, m.backend, 0, time.Since(start))
	return nil
}

// batchable returns the count-only queries to mine together (a
// BatchMiner engine, at least two of them, no per-query work cap), or nil.
func (m *miner) batchable() []*registered {
	if _, ok := m.engine.(BatchMiner); !ok || m.caps.steps > 0 || m.caps.time > 0 {
		return nil
	}
	var qs []*registered
	for _, q := range m.queries {
		if q.countOnly() {
			qs = append(qs, q)
		}
	}
	if len(qs) < 2 {
		return nil
	}
	return qs
}

// mineBatch counts the count-only queries qs over the batch's runs with
// one MineBatch call per run (replayed runs are skipped, as mine skips
// them for such queries: their matches were final, and counted, before
// the restart). Each query's mining-time metric gets an equal share of
// the calls' time.
func (m *miner) mineBatch(ctx context.Context, qs []*registered, runs []run, watermark int64, out *Output) error {
	start := time.Now()
	plans := make([]*motif.Plan, len(qs))
	for i, q := range qs {
		plans[i] = q.plan
	}
	matches := make([]int64, len(qs))
	bm := m.engine.(BatchMiner)
	for _, r := range runs {
		if r.replay {
			continue
		}
		rs, err := bm.MineBatch(ctx, m.w, plans, motif.Request{Range: r.Range, Horizon: watermark, RootMask: r.mask})
		if err != nil {
			return fmt.Errorf("mining %d count queries together: %w", len(qs), err)
		}
		if len(rs) != len(qs) {
			return fmt.Errorf("mining %d count queries together: %d results", len(qs), len(rs))
		}
		for i, res := range rs {
			matches[i] += res.Matches
		}
	}
	share := time.Since(start) / time.Duration(len(qs))
	for i, q := range qs {
		name := q.Query.Query.Name
		out.Counts[name] += matches[i]
		m.metrics.mined(name, m.backend, matches[i], share)
	}
	return nil
}

// mine runs one query over the batch's runs.
func (m *miner) mine(ctx context.Context, q *registered, runs []run, watermark int64, out *Output) error {
	name := q.Query.Query.Name
	start := time.Now()
	var matches int64
	// Count-mode queries without anti-edges can never be open: let the
	// engine tally them. Everything else is enumerated to a sink that
	// holds open matches and reports final ones.
	countOnly := q.countOnly()
	replaying := false
	limit := &matchCap{limit: m.caps.matches}
	var steps int64 // the batch's work on this query so far
	var deadline time.Time
	if m.caps.time > 0 {
		deadline = start.Add(m.caps.time)
	}
	sink := motif.SinkFunc(func(mt *motif.Match) error {
		if err := limit.take(); err != nil {
			return err
		}
		if mt.Open {
			m.held.hold(q, mt, out)
			return nil
		}
		if replaying {
			return nil // final by the shutdown watermark: alerted before
		}
		matches++
		m.rec.report(q, mt.Edges, out)
		return nil
	})
	for _, r := range runs {
		req := motif.Request{Range: r.Range, Horizon: watermark, RootMask: r.mask, Deadline: deadline}
		if m.caps.steps > 0 {
			req.Budget = max(m.caps.steps-steps, 1)
		}
		replaying = r.replay
		if replaying {
			if countOnly {
				continue // no anti-edges: every match was final, and alerted
			}
			// Mined against the shutdown horizon, the matches that were
			// held then come back Open; settle reports them once the
			// current watermark has passed their intervals. The others
			// were decided before the shutdown (reported or discarded)
			// and are dropped, even where the current watermark is still
			// below the shutdown's: so the horizon is the shutdown's, not
			// the lower of the two (which would hold, and report again,
			// matches whose intervals closed between them).
			req.Horizon = r.horizon
		}
		if !countOnly {
			req.Sink = sink
		}
		res, err := m.engine.Mine(ctx, m.w, q.plan, req)
		if err != nil {
			return fmt.Errorf("mining %s: %w", name, err)
		}
		steps += res.Steps
		if countOnly {
			matches += res.Matches
			out.Counts[name] += res.Matches
		}
		if limit.truncated {
			m.truncated(q, runs, capMatches, "max_matches_per_batch", int64(limit.limit))
			break
		}
		if res.Truncated {
			if m.caps.steps > 0 && steps > m.caps.steps {
				m.truncated(q, runs, capMineSteps, "max_mine_steps", m.caps.steps)
			} else {
				m.truncated(q, runs, capMineTime, "max_mine_time", m.caps.time)
			}
			break
		}
	}
	m.metrics.mined(name, m.backend, matches, time.Since(start))
	return nil
}

// truncated records that q's mining stopped at a cap (its config key
// and limit named in the log) in this batch.
func (m *miner) truncated(q *registered, runs []run, cap, key string, limit any) {
	name := q.Query.Query.Name
	m.metrics.truncated.WithLabelValues(name).Inc()
	lo, hi := runs[0].Lo, runs[len(runs)-1].Hi-1
	first, last := m.meta.at(lo), m.meta.at(hi)
	msg := "match cap reached: the rest of this batch's matches of the query are not reported"
	if cap != capMatches {
		msg = "mining budget reached: the rest of this batch's matches of the query are not reported"
	}
	m.capLog.act(cap, name, msg,
		"query", name, "window."+key, limit, "from_t", m.w.T(lo), "to_t", m.w.T(hi),
		"from", fmt.Sprintf("%d@%d", first.partition, first.offset), "to", fmt.Sprintf("%d@%d", last.partition, last.offset))
}
