package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/promreg"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/motif"
)

// scaleOut runs a scaled-out instance (kafka.scale_out): a member of the
// consumer group that reads every partition of the edge topic and mines
// only the matches whose last edge comes from the partitions the group
// assigned to it. Each generation of the group gets a fresh pipeline
// whose window is rebuilt from Kafka (see ARCHITECTURE.md, Scale-out):
// duty for a partition starts exactly at its committed offset, and the
// previous owner's handover commit says what it had already reported.
type scaleOut struct {
	cfg    *config.Config
	log    *slog.Logger
	parts  *pipelineParts
	k      kafkaClients
	m      *scaleOutMetrics
	member *kafka.Member
	// queries is the query set in force, for the next generation.
	queries   querySet
	totalsPtr atomic.Pointer[pipelineStats]
}

// newScaleOut joins the group and returns the instance, mining qs.
func newScaleOut(parts *pipelineParts, k kafkaClients, qs querySet) (*scaleOut, error) {
	cfg := parts.cfg
	m, err := newScaleOutMetrics(parts.reg)
	if err != nil {
		return nil, err
	}
	so := &cfg.Kafka.ScaleOut
	member, err := kafka.NewMember(kafka.MemberOptions{Brokers: k.brokers, Topic: cfg.Kafka.EdgeTopic, Group: cfg.Kafka.Group,
		ClientID: cfg.Kafka.ClientID, Dialer: k.dialer, Transport: k.transport, HeartbeatInterval: so.HeartbeatInterval,
		SessionTimeout: so.SessionTimeout, RebalanceTimeout: so.RebalanceTimeout, Logger: parts.log})
	if err != nil {
		return nil, err
	}
	s := &scaleOut{cfg: cfg, log: parts.log, parts: parts, k: k, m: m, member: member, queries: qs}
	// Partitions the group has not assigned (added to the topic, or the
	// topic gone when it last assigned) start a generation that does,
	// with windows rebuilt over every partition.
	parts.topic.setGroup(cfg.Kafka.Group, member.Rejoin)
	s.totalsPtr.Store(&pipelineStats{})
	return s, nil
}

// totals returns the record accounting over every generation so far.
func (s *scaleOut) totals() pipelineStats { return *s.totalsPtr.Load() }

// run takes part in the group until ctx ends, then leaves it (after the
// last generation's handover commit).
func (s *scaleOut) run(ctx context.Context) error {
	defer s.member.Close()
	for {
		gen, err := s.next(ctx)
		if err != nil || gen == nil {
			return err
		}
		err = s.generation(ctx, gen)
		gen.Release()
		if err != nil {
			return err
		}
	}
}

// next waits for the group's next generation, answering query updates
// meanwhile; it returns nil, nil once ctx ends. Errors joining the group
// are logged and retried (kafka-go backs off between attempts).
func (s *scaleOut) next(ctx context.Context) (*kafka.Generation, error) {
	type result struct {
		g   *kafka.Generation
		err error
	}
	for {
		got := make(chan result, 1)
		nctx, cancel := context.WithCancel(ctx)
		go func() {
			g, err := s.member.Next(nctx)
			got <- result{g, err}
		}()
		var r result
		for waiting := true; waiting; {
			select {
			case r = <-got:
				waiting = false
			case qs := <-s.parts.updates:
				qs.done <- s.checkQueries(qs)
			}
		}
		cancel()
		switch {
		case ctx.Err() != nil:
			if r.g != nil {
				r.g.Release()
			}
			return nil, nil
		case r.err != nil:
			s.log.Warn("kafka group: no generation yet; retrying", "err", r.err)
			continue
		}
		s.m.generations.Inc()
		s.m.owned.Set(float64(len(r.g.Partitions)))
		s.log.Info("kafka group: new generation", "generation", r.g.ID, "member", r.g.MemberID, "partitions", r.g.Partitions)
		return r.g, nil
	}
}

// checkQueries answers a query update while no pipeline runs: the set is
// compiled on a scratch processor and router, and kept for the next
// pipeline.
func (s *scaleOut) checkQueries(qs querySet) error {
	// A scratch processor and router must not touch the real series.
	if _, _, err := s.parts.newMiner(qs, nil); err != nil {
		return err
	}
	s.queries = querySet{stream: qs.stream, alerts: qs.alerts}
	return nil
}

// generation runs one generation: a pipeline over the owned partitions
// until the group rebalances (or ctx ends), then the handover commit.
// A fenced commit is no failure: the group moved on without this member;
// the new owners resume from the last accepted commit.
func (s *scaleOut) generation(ctx context.Context, gen *kafka.Generation) error {
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-gen.Ending:
			cancel()
		case <-gctx.Done():
		}
	}()
	if len(gen.Partitions) == 0 {
		return s.idle(gctx)
	}
	st, err := s.rebuild(gctx, gen)
	if gctx.Err() != nil {
		return nil // stopped, or the group rebalanced, while rebuilding: nothing mined, nothing to hand over
	}
	if err != nil {
		return err
	}
	fopts := s.parts.fetchOptions()
	fopts.Brokers, fopts.Topic, fopts.Transport = s.k.brokers, s.cfg.Kafka.EdgeTopic, s.k.transport
	fetcher, err := kafka.NewFetcher(fopts, st.readFrom)
	if err != nil {
		return err
	}
	defer fetcher.Close()
	p, err := s.parts.newPipeline(s.queries, st,
		mode{src: fetcher, commits: generationCommits{gen}, duty: newOwnedPartitions(gen.Partitions), guard: noTakeover{}})
	if err != nil {
		return err
	}
	err = p.run(gctx)
	s.queries = p.queries()
	tot := s.totals()
	tot.add(p.stats)
	s.totalsPtr.Store(&tot)
	if errors.Is(err, kafka.ErrFenced) {
		s.m.handovers.WithLabelValues("fenced").Inc()
		s.log.Warn("kafka group: the group moved on before this instance handed its partitions over; their new owners resume from the last accepted commit (alerts since then may repeat)",
			"generation", gen.ID, "partitions", gen.Partitions, "err", err)
		return nil
	}
	if err == nil && ctx.Err() == nil {
		s.m.handovers.WithLabelValues("committed").Inc()
	}
	return err
}

// idle waits out a generation that assigned this instance no partition
// (more instances than partitions), answering query updates.
func (s *scaleOut) idle(ctx context.Context) error {
	s.parts.health.setRunning(true)
	defer s.parts.health.setRunning(false)
	for {
		select {
		case <-ctx.Done():
			return nil
		case qs := <-s.parts.updates:
			qs.done <- s.checkQueries(qs)
		}
	}
}

// rebuild returns where a generation's pipeline starts, and so where to
// read each partition from. Duty for an owned partition starts at its committed
// offset (its first offset if none); its records before that are
// History. Every partition is read from the span (plus lateness) before
// the oldest duty start, so that matches ending at owned edges find
// their earlier edges wherever they come from. A handover commit's
// resume state marks the records its owner had already mined as
// Replayed.
func (s *scaleOut) rebuild(ctx context.Context, gen *kafka.Generation) (start, error) {
	topic := s.cfg.Kafka.EdgeTopic
	parts, err := s.k.admin.Partitions(ctx, topic)
	if err != nil {
		return start{}, err
	}
	offsets, states, err := committed(ctx, s.k.admin, s.cfg.Kafka.Group, topic, parts)
	if err != nil {
		return start{}, err
	}
	first, err := s.k.admin.StartOffsets(ctx, topic)
	if err != nil {
		return start{}, err
	}
	end, err := s.k.admin.EndOffsets(ctx, topic)
	if err != nil {
		return start{}, err
	}
	// Committed offsets outside the log are reset as kafka.offset_reset
	// says (see checkCommitted).
	resets := s.parts.checkCommitted(gen.Partitions, offsets, states, first, end)
	duty, before := map[int]int64{}, map[int]int64{}
	resume := map[int]resumeState{}
	fromStart := false
	for _, part := range gen.Partitions {
		duty[part] = first[part]
		if off, ok := offsets[part]; ok {
			duty[part] = off
		}
		if r, ok := resets[part]; ok {
			duty[part] = r.to
		}
		if duty[part] > first[part] {
			before[part] = duty[part] - 1
		} else {
			fromStart = true // nothing before the duty start to date it by
		}
		if st, ok := states[part]; ok {
			resume[part] = st
		}
	}
	from := first
	if !fromStart {
		f, found, err := historyStart(ctx, s.k, s.cfg, before, duty, s.span())
		if err != nil {
			return start{}, err
		}
		if found {
			from = f
		} // else the records before the duty starts are gone: read everything
	}
	for part, d := range duty {
		from[part] = min(from[part], d)
	}
	reorder := s.parts.newReorder()
	for _, part := range parts {
		reorder.SetPending(part, end[part] > from[part])
	}
	s.log.Info("scale-out: window rebuilt for the generation", "generation", gen.ID, "owned", gen.Partitions,
		"duty_from", duty, "read_from", from, "resumed", len(resume))
	return start{reorder: reorder, historyBefore: duty, resume: resume, readFrom: from}, nil
}

// span is the window span of the query set in force.
func (s *scaleOut) span() time.Duration {
	var qs []*motif.Query
	for _, q := range s.queries.stream {
		qs = append(qs, q.Query)
	}
	return s.cfg.WindowSpan(qs)
}

// scaleOutMetrics are the series of a scaled-out instance.
type scaleOutMetrics struct {
	generations prometheus.Counter
	owned       prometheus.Gauge
	handovers   *prometheus.CounterVec
}

func newScaleOutMetrics(reg prometheus.Registerer) (*scaleOutMetrics, error) {
	m := &scaleOutMetrics{
		generations: prometheus.NewCounter(prometheus.CounterOpts{Name: "motifwatch_group_generations_total",
			Help: "Consumer-group generations this scaled-out instance took part in (each rebuilds its window)."}),
		owned: prometheus.NewGauge(prometheus.GaugeOpts{Name: "motifwatch_group_owned_partitions",
			Help: "Edge-topic partitions whose matches this scaled-out instance mines and alerts."}),
		handovers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "motifwatch_group_handovers_total",
			Help: "Generation ends by result: committed (the handover commit was accepted: exactly once), fenced (the group had moved on: alerts since the last commit may repeat)."}, []string{"result"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.generations = promreg.Register(reg, m.generations, &err)
	m.owned = promreg.Register(reg, m.owned, &err)
	m.handovers = promreg.Register(reg, m.handovers, &err)
	return m, err
}
