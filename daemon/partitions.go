package daemon

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/internal/kafka"
)

// How a pipeline keeps up with the edge topic's partitions changing under
// it (the topic grown, a partition's log reset, partitions gone), so
// that it neither goes blind nor holds ingest:
//
//   - Partitions found: the topic watch's view (topic.go) and the
//     source's positions (kafka.Position: where each partition's reading
//     starts, with the log's bounds) register a partition the pipeline
//     did not know in the reorder buffer (ingest.Reorder.AddPartition)
//     before its first record: it holds the watermark until its records
//     come, so those written after it was found are not late.
//   - Offsets out of range: a position that resumes elsewhere than asked
//     (the fetcher found its offset outside the log:
//     kafka.offset_reset), or that shows the log shorter than what the
//     pipeline read, or below what it committed (the group's offsets
//     dropped with the topic), resets the partition: logged at ERROR,
//     counted, and its bookkeeping (next offset, history, resume state)
//     starts again at the new position.
//   - Partitions gone: offsets of a partition the topic no longer has
//     are dropped, not committed (commitKnown), and the partition is
//     forgotten: a commit refused for it must not be retried forever.

// commitClamp holds a reset partition's commits at the offset reading
// resumed from while the reorder buffer may still hold edges read from
// its old log: the buffer's lowest offset per partition is that of the
// earliest-added edge, which is one of those, not one of the new log's,
// so it cannot bound the new log's commits. Once the watermark has
// passed until (the buffer's newest time at the reset), every old edge
// has been released and the clamp is lifted.
type commitClamp struct {
	offset, until int64
}

// goneSet is the partitions that commits found gone (mining goroutine),
// for the pipeline goroutine to forget.
type goneSet struct {
	mu    sync.Mutex
	parts map[int]bool
	// logged: the partitions whose dropped offsets were logged already.
	logged map[int]bool
}

func (g *goneSet) add(parts []int) (fresh []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.parts == nil {
		g.parts, g.logged = map[int]bool{}, map[int]bool{}
	}
	for _, p := range parts {
		g.parts[p] = true
		if !g.logged[p] {
			g.logged[p] = true
			fresh = append(fresh, p)
		}
	}
	return fresh
}

// take returns the partitions added since the last take.
func (g *goneSet) take() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Sorted(maps.Keys(g.parts))
	clear(g.parts)
	return out
}

// found tells the set that partition exists again (a commit refused for
// it later is logged afresh).
func (g *goneSet) found(partition int) {
	g.mu.Lock()
	delete(g.logged, partition)
	g.mu.Unlock()
}

// Reset reasons besides kafka's (ResetBeforeStart, ResetPastEnd), for
// motifwatch_offset_resets_total: a position below the pipeline's own
// last commit (the group's offsets dropped with the topic, or reset), and
// a partition that was gone and came back.
const (
	reasonGroupLowered = "group_offset_lowered"
	reasonRecreated    = "recreated"
)

// outOfRange is a committed offset found outside its partition's log at
// start, and where reading resumes instead.
type outOfRange struct {
	asked, to int64
	reason    string
}

// checkCommitted finds, among partitions, the committed offsets that lie
// outside their partition's log [first, end] — a topic deleted and
// created again, a truncated log, a broker restored from an older copy
// (past the end), or records deleted by retention before they were read
// (before the start) — and resets them as kafka.offset_reset says: each
// is logged at ERROR with the log's bounds and counted, and removed from
// offsets and states (a resume state speaks of the old log), so that the
// window's rebuild neither waits for records that will never come nor
// takes the new log's records for history. It returns where reading
// each of them resumes.
func (s *pipelineParts) checkCommitted(partitions []int, offsets map[int]int64, states map[int]resumeState, first, end map[int]int64) map[int]outOfRange {
	out := map[int]outOfRange{}
	for _, part := range partitions {
		off, ok := offsets[part]
		if !ok {
			continue
		}
		start, stop := first[part], end[part]
		if off >= start && off <= stop {
			continue
		}
		r := outOfRange{asked: off, to: start, reason: kafka.ResetPastEnd}
		if off < start {
			r.reason = kafka.ResetBeforeStart
		}
		if s.cfg.Kafka.OffsetReset == config.OffsetLatest {
			r.to = stop
		}
		out[part] = r
		delete(offsets, part)
		delete(states, part)
		s.log.Error("kafka: committed offset out of range: reading resumes as kafka.offset_reset says; records between are not read", "topic", s.cfg.Kafka.EdgeTopic,
			"partition", part, "offset", off, "log_start", start, "log_end", stop, "reading_from", r.to, "offset_reset", s.cfg.Kafka.OffsetReset, "reason", r.reason)
		s.pm.offsetResets.WithLabelValues(strconv.Itoa(part), r.reason).Inc()
	}
	return out
}

// resetPolicy is kafka.offset_reset as the fetcher's policy.
func resetPolicy(cfg *config.Config) kafka.ResetPolicy {
	if cfg.Kafka.OffsetReset == config.OffsetLatest {
		return kafka.ResetLatest
	}
	return kafka.ResetEarliest
}

// knows reports whether the pipeline reads, or will read, partition.
func (p *pipeline) knows(partition int) bool {
	if _, ok := p.next[partition]; ok {
		return true
	}
	_, ok := p.readFrom[partition]
	return ok
}

// takePosition takes in where the source starts or resumes reading a
// partition (a chunk without records).
func (p *pipeline) takePosition(ctx context.Context, part int, pos *kafka.Position) error {
	pending := pos.LogEnd > pos.Offset
	if asked, ok := p.lost[part]; ok {
		// The partition was gone and is read again.
		if pos.Reset != nil {
			return p.resetPartition(part, pos, pos.Reset.Asked, pos.Reset.Reason)
		}
		return p.resetPartition(part, pos, asked, reasonRecreated)
	}
	if pos.Reset != nil {
		if asked, ok := p.resetAtStart[part]; ok && asked == pos.Reset.Asked {
			// The rebuild found this offset out of range and said so; the
			// source starts from the group's stale commit and finds it too.
			delete(p.resetAtStart, part)
			if _, read := p.next[part]; !read {
				p.readFrom[part] = pos.Offset
				p.reorder.SetPending(part, pending)
				return nil
			}
		}
		return p.resetPartition(part, pos, pos.Reset.Asked, pos.Reset.Reason)
	}
	next, read := p.next[part]
	if !read {
		if !p.knows(part) {
			p.registerPartition(part, pos.Offset, pending)
		} else {
			p.readFrom[part] = pos.Offset
			p.reorder.SetPending(part, pending)
		}
		return nil
	}
	// The source starts again (a new generation of the group) at the
	// group's committed offset: normally at or below what the pipeline
	// took in (those records come again and are skipped), unless the log
	// itself was reset.
	if pos.LogEnd < next {
		return p.resetPartition(part, pos, next, kafka.ResetPastEnd)
	}
	// What the pipeline committed last is read on the mining goroutine's
	// side of the queue: wait for it.
	if err := p.awaitMined(); err != nil {
		return err
	}
	if last, ok := p.unsettled.last[part]; ok && pos.Offset < last {
		return p.resetPartition(part, pos, last, reasonGroupLowered)
	}
	return nil
}

// registerPartition makes a partition found while running known: it
// holds the watermark from now on (ingest.Reorder.AddPartition).
func (p *pipeline) registerPartition(part int, from int64, pending bool) {
	p.readFrom[part] = from
	p.reorder.AddPartition(part, pending)
	p.gone.found(part)
}

// resetPartition starts a partition's bookkeeping again at pos: reading
// resumed at pos.Offset instead of asked.
func (p *pipeline) resetPartition(part int, pos *kafka.Position, asked int64, reason string) error {
	// The batches in flight commit what they took before the reset first.
	if err := p.awaitMined(); err != nil {
		return err
	}
	// Where reading resumed: as kafka.offset_reset says when the source
	// found the offset out of range, else where the group's committed
	// offset (or, without one, the log's start) put it.
	policy := "group"
	if pos.Reset != nil {
		policy = pos.Reset.Policy.String()
	}
	msg := "kafka: offset out of range: reading resumes as kafka.offset_reset says; records between are not read"
	switch {
	case reason == kafka.ResetBeforeStart:
		msg = "kafka: offset out of range: records were deleted (retention) before they were read; reading resumes as kafka.offset_reset says"
	case reason == reasonGroupLowered:
		msg = "kafka: the group's committed offset fell below this daemon's last commit (the topic deleted and created again, or its offsets reset): reading follows it"
	case reason == reasonRecreated:
		msg = "kafka: a partition of the edge topic that was gone is read again, from its new log; what the old log held past the offset was not read"
	case pos.Reset == nil:
		msg = "kafka: the partition's log is shorter than what this daemon read (truncated, or the topic created again): reading follows the group's offset"
	}
	p.log.Error(msg, "topic", p.cfg.Kafka.EdgeTopic, "partition", part, "offset", asked, "log_start", pos.LogStart, "log_end", pos.LogEnd,
		"reading_from", pos.Offset, "offset_reset", policy, "reason", reason)
	p.pm.offsetResets.WithLabelValues(strconv.Itoa(part), reason).Inc()
	if _, buffered := p.reorder.MinOffsets()[part]; buffered {
		p.clamps = withEntry(p.clamps, part, commitClamp{offset: pos.Offset, until: p.reorder.MaxT()})
	}
	p.next[part] = pos.Offset
	p.readFrom[part] = pos.Offset
	p.historyBefore = withoutEntry(p.historyBefore, part)
	p.resume = withoutEntry(p.resume, part)
	delete(p.resetAtStart, part)
	delete(p.lost, part)
	p.reorder.AddPartition(part, pos.LogEnd > pos.Offset)
	p.gone.found(part)
	return nil
}

// partitionBack reports a partition that was gone and whose records come
// again without a position saying where its reading resumed: the source
// read on from where it was in the old log (the new log had grown past
// it before the reader noticed), so the new log's records below offset
// were not read. Without topic ids (kafka-go has none) that is all that
// can be known.
func (p *pipeline) partitionBack(part int, offset int64) {
	asked := p.lost[part]
	delete(p.lost, part)
	p.log.Error("kafka: a partition of the edge topic that was gone is read again from where it was: the topic was created again and grew past that offset before it was read; records below it were not read", "topic", p.cfg.Kafka.EdgeTopic,
		"partition", part, "offset", asked, "reading_from", offset, "reason", reasonRecreated)
	p.pm.offsetResets.WithLabelValues(strconv.Itoa(part), reasonRecreated).Inc()
	p.gone.found(part)
}

// applyTopicChanges, before a release, registers the partitions the
// topic watch found that the pipeline does not know yet (they hold the
// watermark before their reader starts) and forgets those the topic
// lost, or that commits found gone.
func (p *pipeline) applyTopicChanges() {
	var gone []int
	if v := p.topic.current(); v.seq != p.topicSeq && v.seq != 0 {
		p.topicSeq = v.seq
		for _, part := range sortedKeys(v.parts) {
			if !p.knows(part) {
				b := v.parts[part]
				p.registerPartition(part, b.Start, b.End > b.Start)
			}
		}
		for _, part := range p.partitionsKnown() {
			if _, ok := v.parts[part]; !ok {
				gone = append(gone, part)
			}
		}
	}
	for _, part := range p.gone.take() {
		if p.knows(part) && !slices.Contains(gone, part) {
			gone = append(gone, part)
		}
	}
	if len(gone) > 0 {
		p.forget(gone)
	}
}

// partitionsKnown returns the partitions the pipeline reads or will read.
func (p *pipeline) partitionsKnown() []int {
	known := slices.Collect(maps.Keys(p.next))
	for part := range p.readFrom {
		if _, ok := p.next[part]; !ok {
			known = append(known, part)
		}
	}
	slices.Sort(known)
	return known
}

// forget drops partitions the topic no longer has: their offsets are not
// committed again, and they no longer hold the watermark
// (ingest.Reorder.RemovePartition). Their edges stay (they happened).
func (p *pipeline) forget(parts []int) {
	slices.Sort(parts)
	dropped := map[int]int64{}
	for _, part := range parts {
		if next, ok := p.next[part]; ok {
			dropped[part] = next
			p.lost[part] = next
			p.pm.commitsDropped.WithLabelValues(strconv.Itoa(part)).Inc()
		}
		delete(p.next, part)
		delete(p.readFrom, part)
		delete(p.resetAtStart, part)
		p.historyBefore = withoutEntry(p.historyBefore, part)
		p.resume = withoutEntry(p.resume, part)
		p.clamps = withoutEntry(p.clamps, part)
		p.reorder.RemovePartition(part)
		p.pm.lag.DeleteLabelValues(strconv.Itoa(part))
	}
	p.log.Error("kafka: partitions of the edge topic are gone: no longer read, their offsets dropped instead of committed", "topic", p.cfg.Kafka.EdgeTopic,
		"partitions", parts, "dropped_offsets", dropped)
}

// liftClamps lifts the clamps whose old edges the watermark wm has
// released.
func (p *pipeline) liftClamps(wm int64) {
	for part, c := range p.clamps {
		if wm >= c.until {
			p.clamps = withoutEntry(p.clamps, part)
		}
	}
}

// commitKnown commits offsets with commit. When the coordinator refuses
// some partitions as unknown and the topic's metadata, read again, shows
// them gone, their offsets are dropped (ERROR, counted) and the others
// committed at once: a partition deleted with its topic must not hold
// ingest with a commit retried forever. The pipeline forgets them before
// its next release.
func (p *pipeline) commitKnown(ctx context.Context, offsets map[int]int64, commit func(context.Context, map[int]int64) error) error {
	err := commit(ctx, offsets)
	var ce *kafka.CommitError
	if !errors.As(err, &ce) || p.topic == nil {
		return err
	}
	unknown := ce.Unknown()
	if len(unknown) == 0 {
		return err
	}
	gone, lerr := p.topic.gone(ctx, unknown)
	if lerr != nil || len(gone) == 0 {
		return err
	}
	rest := maps.Clone(offsets)
	dropped := map[int]int64{}
	for _, part := range gone {
		dropped[part] = rest[part]
		delete(rest, part)
	}
	if fresh := p.gone.add(gone); len(fresh) > 0 {
		p.log.Error("kafka: committing offsets: partitions of the edge topic are gone; their offsets are dropped, not committed", "topic", p.cfg.Kafka.EdgeTopic,
			"partitions", gone, "dropped_offsets", dropped)
	}
	for _, part := range gone {
		p.pm.commitsDropped.WithLabelValues(strconv.Itoa(part)).Inc()
	}
	if len(rest) == 0 {
		return nil
	}
	return commit(ctx, rest)
}

// withEntry and withoutEntry return m changed, leaving m as it was: the
// maps a released batch took along (minedBatch.floor, clamps) are read
// on its own goroutine meanwhile.
func withEntry[V any](m map[int]V, k int, v V) map[int]V {
	out := maps.Clone(m)
	if out == nil {
		out = map[int]V{}
	}
	out[k] = v
	return out
}

func withoutEntry[V any](m map[int]V, k int) map[int]V {
	if _, ok := m[k]; !ok {
		return m
	}
	out := maps.Clone(m)
	delete(out, k)
	return out
}
