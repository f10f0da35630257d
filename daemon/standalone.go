package daemon

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
)

// standalone is an instance without scale-out: one pipeline over the
// consumer group (kafka.GroupFetcher), to which the group's whole-topic protocol
// (ingest/balancer.go) assigns every partition while other instances
// stand by. Its window is rebuilt at start from the history before the
// committed offsets; a standby handed the partitions later exits with
// ErrTookOver (standbyGuard) so that its restart rebuilds.
type standalone struct {
	p        *pipeline
	consumer *kafka.GroupFetcher
}

// newStandalone rebuilds the window, joins the group and returns the
// instance, mining qs.
func newStandalone(ctx context.Context, s *pipelineParts, c kafkaClients, qs querySet, span time.Duration) (*standalone, error) {
	cfg := s.cfg
	// Restart: rebuild the window from the history before the committed
	// offsets, and learn what a clean shutdown left to report.
	st, err := rebuild(ctx, s, c, span)
	if err != nil {
		return nil, err
	}
	fopts := s.fetchOptions()
	fopts.Transport = c.transport
	consumer, err := kafka.NewGroupFetcher(kafka.MemberOptions{Brokers: c.brokers, Topic: cfg.Kafka.EdgeTopic,
		Group: cfg.Kafka.Group, ClientID: cfg.Kafka.ClientID, Dialer: c.dialer, Transport: c.transport, Logger: s.log,
		SessionTimeout: cfg.Kafka.SessionTimeout, HeartbeatInterval: heartbeat(cfg.Kafka.SessionTimeout),
		// A member killed between joining and syncing holds the group's
		// rebalance for the rebalance timeout (kafka-go's default 30s, not
		// the session timeout): tie it to the session timeout, so that a
		// crash during start-up costs no more than a crash while running.
		RebalanceTimeout: cfg.Kafka.SessionTimeout}, fopts)
	if err != nil {
		return nil, err
	}
	// A committed offset the rebuild found out of range stays the group's
	// until this instance commits: it is no sign of a takeover.
	builtTo := maps.Clone(st.readFrom)
	for part, asked := range st.resetAtStart {
		builtTo[part] = max(builtTo[part], asked)
	}
	guard := &standbyGuard{log: s.log, builtTo: builtTo, committed: func(ctx context.Context) (map[int]int64, error) {
		return c.admin.Committed(ctx, cfg.Kafka.Group, cfg.Kafka.EdgeTopic)
	}}
	commits := withResumeGroup{commitPolicy: groupCommits{consumer}, admin: c.admin, group: cfg.Kafka.Group, topic: cfg.Kafka.EdgeTopic, log: s.log}
	// Partitions the group has not assigned (added to the topic, or the
	// topic gone when it last assigned) rebalance it, so that the active
	// member is assigned every partition there is.
	s.topic.setGroup(cfg.Kafka.Group, consumer.Rejoin)
	p, err := s.newPipeline(qs, st, mode{src: consumer, commits: commits, duty: everyPartition{}, guard: guard})
	if err != nil {
		return nil, errors.Join(err, consumer.Close())
	}
	return &standalone{p: p, consumer: consumer}, nil
}

// run runs the pipeline until ctx ends, then leaves the group: its final
// commit (with the resume state) is written by then.
func (a *standalone) run(ctx context.Context) error {
	err := a.p.run(ctx)
	return errors.Join(err, a.consumer.Close())
}

// totals returns the record accounting, once run has returned.
func (a *standalone) totals() pipelineStats { return a.p.stats }

// rebuild refills the window after a restart: the records within the
// window span before the committed offsets are read back as History (in
// the window, never alerted), and a clean shutdown's metadata marks the
// records it had already handled as Replayed.
func rebuild(ctx context.Context, s *pipelineParts, c kafkaClients, span time.Duration) (start, error) {
	cfg, log, admin, brokers, dialer := s.cfg, s.log, c.admin, c.brokers, c.dialer
	log.Info("reading the group's committed offsets and the window's history", "group", cfg.Kafka.Group, "topic", cfg.Kafka.EdgeTopic, "span", span)
	parts, err := admin.Partitions(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return start{}, err
	}
	offsets, states, err := committed(ctx, c.admin, cfg.Kafka.Group, cfg.Kafka.EdgeTopic, parts)
	if err != nil {
		return start{}, err
	}
	// Partitions with records the consumer will read hold the watermark
	// until it has reached them (see ingest.Reorder.SetPending).
	first, err := admin.StartOffsets(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return start{}, err
	}
	end, err := admin.EndOffsets(ctx, cfg.Kafka.EdgeTopic)
	if err != nil {
		return start{}, err
	}
	// Committed offsets outside the log (a topic created again, a
	// truncated log, a restored broker, retention) are reset as
	// kafka.offset_reset says: the rebuild must not wait for records that
	// will never come.
	resets := s.checkCommitted(parts, offsets, states, first, end)
	st := start{reorder: s.newReorder(), readFrom: make(map[int]int64, len(end)), resetAtStart: map[int]int64{}}
	for part, e := range end {
		begin := first[part]
		if off, ok := offsets[part]; ok {
			begin = off
		}
		if r, ok := resets[part]; ok {
			begin = r.to
			st.resetAtStart[part] = r.asked
		}
		st.readFrom[part] = begin
		st.reorder.SetPending(part, e > begin)
	}
	if len(offsets) == 0 {
		return st, nil // first start of this group, or nothing committed is in the log now
	}
	last := map[int]int64{}
	for part, off := range offsets {
		if off > first[part] {
			last[part] = off - 1
		}
	}
	from, found, err := historyStart(ctx, c, cfg, last, offsets, span)
	if err != nil {
		return start{}, err
	}
	if !found {
		return st, nil // the records before the committed offsets are gone
	}
	n := 0
	if err := kafka.Replay(ctx, brokers, dialer, cfg.Kafka.EdgeTopic, from, offsets, func(m kafka.Message) error {
		e, err := s.dec.Decode(m.Value, ingest.Origin{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset})
		if err != nil {
			return nil // dead-lettered when it was first read
		}
		e.History = true
		st.reorder.Add(e)
		n++
		return nil
	}); err != nil {
		return start{}, fmt.Errorf("rebuilding the window: %w", err)
	}
	// Commits below these offsets would re-read history as new.
	st.historyBefore = offsets
	clean := len(states) == len(offsets)
	if clean {
		st.resume = states
	} // else after a crash: at least once, duplicates possible
	log.Info("window rebuilt from history", "records", n, "from", from, "to", offsets, "clean_shutdown", clean)
	return st, nil
}

// heartbeat is the group heartbeat interval for a session timeout: a
// third of it, at most 3s (0: kafka-go's default).
func heartbeat(session time.Duration) time.Duration {
	if session <= 0 {
		return 0
	}
	return min(session/3, 3*time.Second)
}
