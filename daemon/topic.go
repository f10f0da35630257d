package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
)

// topicWatch follows the edge topic's partitions: every
// kafka.metadata_refresh it reads the topic's metadata and log bounds,
// logs what changed (partitions added at INFO; partitions, or the whole
// topic, gone and logs that moved backwards at ERROR), and compares the
// partitions the topic has with those the running pipeline fetches. It
// is what keeps the daemon from going blind without saying so when an
// operator changes the topic under it:
//
//   - the pipeline registers the partitions it shows before their reader
//     starts (pipeline.applyTopicChanges), so that they hold the
//     watermark and their records are not late for having been found
//     late;
//   - partitions of the topic that no member of the consumer group holds
//     (added since the group last assigned, or the topic was gone then),
//     or partitions held that the topic no longer has, make this member
//     rejoin the group (kafka.Member.Rejoin), so that its leader assigns
//     the partitions there are: every member looks, so the leader does
//     too (kafka-go's own partition watch ends a generation at once when
//     the topic is missing, over and over, and misses a topic that comes
//     back between the assignment and its first look);
//   - it confirms, for a commit the coordinator refused, that partitions
//     are gone (committer.known), so that they cannot hold ingest;
//   - a partition that this instance should read and does not fetch is
//     counted (motifwatch_edge_partitions_unread) and, once it stays
//     unread over two looks (a rebalance that assigns partitions just
//     found takes a moment), puts the degraded condition
//     partition_unread in force; partitions whose fetches fail are
//     counted at once (motifwatch_edge_partitions_fetch_failing) and, if
//     still failing at a look, put partition_fetch_failing in force.
//
// Its answers are snapshots: a watch that cannot reach the brokers keeps
// the last one (the broker probe reports the outage).
type topicWatch struct {
	topic string
	every time.Duration
	admin *kafka.Admin
	log   *slog.Logger
	pm    *pipelineMetrics
	// degraded takes the conditions partition_unread and
	// partition_fetch_failing (nil: none).
	degraded *lookout
	// group is the consumer group, rejoin ends this member's generation
	// (nil until the worker set them: setGroup).
	group  string
	rejoin func()

	mu   sync.Mutex
	view topicView
	// reader is the running pipeline's source (nil: none runs).
	reader partitionReader
	// unread is the partitions found unread at the last look, and since
	// when.
	unread      []int
	unreadSince time.Time
	// failing is the partitions whose last fetch failed, with the error.
	failing map[int]error
	// kick asks for a look now (refreshNow).
	kick chan struct{}
}

// partitionReader is what the watch asks of a pipeline's source: the
// partitions it fetches now (none while it stands by or joins its
// group), and those whose last fetch failed.
type partitionReader interface {
	Partitions() []int
	Failing() []int
}

// topicView is the edge topic as of the last metadata refresh.
type topicView struct {
	// seq counts the views that differed from the one before (0: none
	// read yet); looks counts every look that got an answer.
	seq, looks uint64
	// exists: the topic was found; parts are its partitions' log bounds.
	exists bool
	parts  map[int]kafka.Bounds
}

func newTopicWatch(topic string, every time.Duration, admin *kafka.Admin, log *slog.Logger, pm *pipelineMetrics, degraded *lookout) *topicWatch {
	return &topicWatch{topic: topic, every: every, admin: admin, log: log, pm: pm, degraded: degraded, failing: map[int]error{},
		kick: make(chan struct{}, 1)}
}

// run looks at the topic every w.every, and when asked (refreshNow),
// until ctx ends.
func (w *topicWatch) run(ctx context.Context) error {
	for {
		w.refresh(ctx)
		t := time.NewTimer(w.every)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		case <-w.kick:
			t.Stop()
		}
	}
}

// refreshNow asks for a look at the topic now (a fetch found a partition
// unknown: the pipeline waits for a view newer than that).
func (w *topicWatch) refreshNow() {
	if w == nil {
		return
	}
	select {
	case w.kick <- struct{}{}:
	default: // a look is asked for already
	}
}

// current returns the last view (its seq is 0 before the first look).
// Its map is never written after.
func (w *topicWatch) current() topicView {
	if w == nil {
		return topicView{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.view
}

// setGroup tells the watch the consumer group and how this member
// rejoins it; called before the run group starts.
func (w *topicWatch) setGroup(group string, rejoin func()) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.group, w.rejoin = group, rejoin
	w.mu.Unlock()
}

// setReader tells the watch which source the running pipeline reads from
// (nil: none runs).
func (w *topicWatch) setReader(r partitionReader) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.reader = r
	w.mu.Unlock()
}

// refresh reads the topic's metadata once and acts on what changed.
func (w *topicWatch) refresh(ctx context.Context) {
	lctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	parts, err := w.admin.LogBounds(lctx, w.topic)
	exists := err == nil
	if err != nil && !kafka.IsUnknownTopic(err) {
		return // an outage: the probe says so; keep the last view
	}
	w.mu.Lock()
	prev := w.view
	changed := prev.seq == 0 || prev.exists != exists || !slices.Equal(sortedKeys(prev.parts), sortedKeys(parts))
	next := topicView{seq: prev.seq, looks: prev.looks + 1, exists: exists, parts: parts}
	if changed {
		next.seq++
	}
	w.view = next
	reader, group, rejoin := w.reader, w.group, w.rejoin
	w.mu.Unlock()
	w.pm.topicPartitions.Set(float64(len(parts)))
	if prev.seq > 0 {
		w.logChanges(prev, next)
	}
	var unassigned []int
	if rejoin != nil {
		var stale []int
		unassigned, stale = w.assignment(lctx, group, next)
		if len(unassigned)+len(stale) > 0 {
			w.log.Info("kafka group: the group's assignment does not match the edge topic's partitions; rejoining so that it is made again", "topic", w.topic, "group", group,
				"unassigned", unassigned, "gone", stale, "partitions", len(parts))
			rejoin()
		}
	}
	if gap := w.checkReader(reader, next, unassigned); len(gap) > 0 && rejoin != nil && len(unassigned) == 0 {
		// This member's fetcher was made without them (its start read
		// metadata older than the group's assignment): a new generation
		// makes it again.
		w.log.Info("kafka group: this instance does not fetch partitions of the edge topic it should; rejoining so that its reader is made again", "topic", w.topic, "group", group,
			"unread", gap, "partitions", len(parts))
		rejoin()
	}
}

// assignment compares group's assignment, once the group is settled
// (Stable), with the topic's partitions: those no member holds, and
// those held that the topic no longer has. Nothing while the group
// rebalances, or when it cannot be told.
func (w *topicWatch) assignment(ctx context.Context, group string, v topicView) (unassigned, gone []int) {
	ga, err := w.admin.GroupAssignment(ctx, group, w.topic)
	if err != nil || ga.State != "Stable" {
		return nil, nil
	}
	for _, p := range sortedKeys(v.parts) {
		if !ga.Assigned[p] {
			unassigned = append(unassigned, p)
		}
	}
	for _, p := range sortedKeys(ga.Assigned) {
		if _, ok := v.parts[p]; !ok {
			gone = append(gone, p)
		}
	}
	return unassigned, gone
}

// logChanges logs what changed between two views of the topic.
func (w *topicWatch) logChanges(prev, next topicView) {
	switch {
	case prev.exists && !next.exists:
		w.log.Error("kafka: the edge topic is gone (deleted?): nothing to read; its partitions' offsets are no longer committed", "topic", w.topic, "partitions_before", len(prev.parts))
		return
	case !prev.exists && next.exists:
		w.log.Warn("kafka: the edge topic exists again; reading its partitions from their earliest offsets", "topic", w.topic, "partitions", len(next.parts))
		return
	case !next.exists:
		return
	}
	var added, gone []int
	for p := range next.parts {
		if _, ok := prev.parts[p]; !ok {
			added = append(added, p)
		}
	}
	for p := range prev.parts {
		if _, ok := next.parts[p]; !ok {
			gone = append(gone, p)
		}
	}
	slices.Sort(added)
	slices.Sort(gone)
	if len(added) > 0 {
		w.log.Info("kafka: the edge topic has new partitions; reading them from their earliest offsets", "topic", w.topic,
			"partitions_before", len(prev.parts), "partitions", len(next.parts), "added", added)
	}
	if len(gone) > 0 {
		w.log.Error("kafka: partitions of the edge topic are gone (the topic created again with fewer?); their offsets are no longer committed", "topic", w.topic,
			"partitions_before", len(prev.parts), "partitions", len(next.parts), "gone", gone)
	}
	// A log end never moves back in a healthy topic: it was truncated,
	// or the topic deleted and created again between two looks. The
	// reader resets its offset when it finds itself past the end
	// (kafka.offset_reset, logged there).
	for p, b := range next.parts {
		if pb, ok := prev.parts[p]; ok && b.End < pb.End {
			w.log.Error("kafka: an edge-topic partition's log moved backwards (truncated, the topic created again, or a broker restored from an older copy)", "topic", w.topic,
				"partition", p, "log_end_before", pb.End, "log_end", b.End, "log_start", b.Start)
		}
	}
}

// checkReader counts the partitions of the topic that no member of the
// group holds (unassigned) or that the running pipeline should read and
// does not fetch, and those whose fetches fail, and puts the degraded
// conditions in force or lifts them. It returns the partitions this
// member should fetch and has not fetched over two looks.
func (w *topicWatch) checkReader(reader partitionReader, v topicView, unassigned []int) (fetchGap []int) {
	unread := slices.Clone(unassigned)
	var gap, failing []int
	if reader != nil {
		read := reader.Partitions()
		// A source that fetches nothing stands by (or joins its group):
		// another instance reads the topic.
		if len(read) > 0 {
			for _, p := range sortedKeys(v.parts) {
				if !slices.Contains(read, p) && !slices.Contains(unread, p) {
					gap = append(gap, p)
				}
			}
			unread = append(unread, gap...)
			slices.Sort(unread)
		}
		failing = reader.Failing()
	}
	w.pm.unreadPartitions.Set(float64(len(unread)))
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case len(unread) == 0:
		w.unread = nil
		w.degraded.lift(condPartitionUnread)
	case !slices.Equal(unread, w.unread):
		w.unread, w.unreadSince = unread, time.Now()
	default:
		// Unread over two looks: not a rebalance under way.
		w.degraded.set(condPartitionUnread, fmt.Sprintf("partitions %v of topic %s (of %d) have no reader: no member of the group holds them, or this instance does not fetch them, since %s; their records are not mined",
			unread, w.topic, len(v.parts), w.unreadSince.Format(time.RFC3339)))
		fetchGap = gap
	}
	// The source's own view of failing partitions is the truth (a
	// fetcher closed at the end of a generation reports no recovery).
	next := make(map[int]error, len(failing))
	for _, p := range failing {
		next[p] = w.failing[p]
	}
	w.failing = next
	w.pm.failingPartitions.Set(float64(len(next)))
	if len(next) == 0 {
		w.degraded.lift(condFetchFailing)
		return fetchGap
	}
	var last error
	for _, p := range failing {
		if err := next[p]; err != nil {
			last = err
		}
	}
	w.degraded.set(condFetchFailing, fmt.Sprintf("fetches of partitions %v of topic %s fail (each retries): %v", failing, w.topic, last))
	return fetchGap
}

// fetchFailed records a failed fetch of partition (from its goroutine).
func (w *topicWatch) fetchFailed(partition int, err error) {
	w.pm.fetchErrors.WithLabelValues(fmt.Sprint(partition)).Inc()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failing[partition] = err
	w.pm.failingPartitions.Set(float64(len(w.failing)))
}

// fetchRecovered records partition's first successful fetch after
// failures.
func (w *topicWatch) fetchRecovered(partition int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.failing, partition)
	w.pm.failingPartitions.Set(float64(len(w.failing)))
	if len(w.failing) == 0 {
		w.degraded.lift(condFetchFailing)
	}
}

// gone returns those of partitions that the topic does not have now (all
// of them when the topic does not exist), reading its metadata afresh.
func (w *topicWatch) gone(ctx context.Context, partitions []int) ([]int, error) {
	lctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	have, err := w.admin.Partitions(lctx, w.topic)
	if err != nil && !kafka.IsUnknownTopic(err) {
		return nil, err
	}
	var out []int
	for _, p := range partitions {
		if !slices.Contains(have, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[int]V) []int {
	return slices.Sorted(maps.Keys(m))
}
