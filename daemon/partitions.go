package daemon

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
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
//     pipeline read, or the first of a partition that was gone, resets
//     the partition: logged at ERROR, counted, and its bookkeeping (next
//     offset, history, resume state) starts again at the new position.
//     (A new generation's start below what the pipeline committed is no
//     sign: the group's offsets are read when the generation starts, and
//     a commit of the one before may land after.)
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

// reasonRecreated is the reset reason, besides kafka's (ResetBeforeStart,
// ResetPastEnd), of a partition that was gone and is read again.
const reasonRecreated = "recreated"

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
	if pos.Gone {
		// The source holds the partition until told where to go on: from
		// where it was, or from its new log's start if the topic was
		// created again; a look at the topic newer than now says which
		// (applyTopicChanges).
		p.held[part] = p.topic.current().looks
		p.topic.refreshNow()
		return nil
	}
	if asked, ok := p.seeking[part]; ok {
		if !pos.Seek {
			// A new reader (a new generation of the group) started from
			// the group's offsets, not where this pipeline asked.
			p.src.Seek(part, kafka.FirstOffset)
			return nil
		}
		delete(p.seeking, part)
		return p.resetPartition(part, pos, asked, reasonRecreated)
	}
	if asked, ok := p.lost[part]; ok {
		return p.recreate(part, asked)
	}
	pending := pos.LogEnd > pos.Offset
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
	// group's committed offset: at or below what the pipeline took in
	// (those records come again and are skipped), unless the log itself
	// is shorter now.
	if pos.LogEnd < next {
		return p.resetPartition(part, pos, next, kafka.ResetPastEnd)
	}
	return nil
}

// recreate reads a partition again from the start of its new log: the
// topic was deleted and created again (the topic watch saw it gone, or
// with fewer partitions than before; records of a partition gone came
// again). Its offsets in the old log mean nothing in the new one, whose
// records may already reach past them. The pipeline stops committing
// it, asks the source to read it from its first record (the group's
// offsets may be stale: written after the topic came back), and drops
// its chunks until the source says it has (a Position with Seek); then
// the partition's bookkeeping starts again (resetPartition: logged,
// counted). asked is where the pipeline was in the old log.
func (p *pipeline) recreate(part int, asked int64) error {
	if _, ok := p.seeking[part]; ok {
		return nil
	}
	// The batches in flight commit what they took before.
	if err := p.awaitMined(); err != nil {
		return err
	}
	delete(p.next, part)
	delete(p.lost, part)
	p.seeking[part] = asked
	p.reorder.AddPartition(part, true) // records to read: it holds the watermark
	p.src.Seek(part, kafka.FirstOffset)
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
	switch {
	case pos.Reset != nil:
		policy = pos.Reset.Policy.String()
	case reason == reasonRecreated:
		policy = kafka.ResetEarliest.String() // a new log, from its first record (recreate)
	}
	msg := "kafka: offset out of range: reading resumes as kafka.offset_reset says; records between are not read"
	switch {
	case reason == kafka.ResetBeforeStart:
		msg = "kafka: offset out of range: records were deleted (retention) before they were read; reading resumes as kafka.offset_reset says"
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

// applyTopicChanges, before a release, registers the partitions the
// topic watch found that the pipeline does not know yet (they hold the
// watermark before their reader starts), forgets those the topic lost or
// that commits found gone, and reads again from their new logs'
// start the partitions of a topic created again. A partition is lost
// when the watch saw it go, between two of its views this pipeline
// applied: the first view it applies may be older than what its start
// read, and a partition absent from it is not gone. A topic never loses
// partitions but by being deleted and created again: when the watch saw
// the topic gone, or with fewer partitions, the partitions it has now
// are new logs.
func (p *pipeline) applyTopicChanges() error {
	var gone, again []int
	if v := p.topic.current(); v.seq != p.topicSeq && v.seq != 0 {
		prev, prevExists, first := p.topicParts, p.topicExists, p.topicSeq == 0
		p.topicSeq, p.topicParts, p.topicExists = v.seq, v.parts, v.exists
		recreated := false
		if !first {
			for _, part := range sortedKeys(prev) {
				if _, ok := v.parts[part]; !ok {
					recreated = prevExists && v.exists
					if p.knows(part) {
						gone = append(gone, part)
					}
				}
			}
		}
		for _, part := range sortedKeys(v.parts) {
			_, lost := p.lost[part]
			_, read := p.next[part]
			switch {
			case lost || recreated && read:
				again = append(again, part)
			case !p.knows(part):
				b := v.parts[part]
				p.registerPartition(part, b.Start, b.End > b.Start)
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
	for _, part := range again {
		asked, ok := p.lost[part]
		if !ok {
			asked = p.next[part]
		}
		if err := p.recreate(part, asked); err != nil {
			return err
		}
	}
	p.release(p.topic.current())
	return nil
}

// release tells the source where to go on with the partitions it holds
// (found unknown: kafka.Position.Gone) once a look at the topic newer
// than that is applied: a partition read again from its new log
// (recreate) is the seek's; one gone stays held; the others go on where
// they were (the topic was not seen gone: a transient answer, or a topic
// created again and filled within the moment, which no look can tell).
func (p *pipeline) release(v topicView) {
	for part, looks := range p.held {
		// (Without a topic watch, nothing is waited for.)
		if p.topic != nil && v.looks <= looks {
			continue
		}
		delete(p.held, part)
		if _, ok := p.seeking[part]; ok {
			continue
		}
		if _, ok := v.parts[part]; !ok && p.topic != nil {
			continue // gone: forgotten; held until it comes back
		}
		if next, ok := p.next[part]; ok {
			p.src.Seek(part, next)
		} else if from, ok := p.readFrom[part]; ok {
			p.src.Seek(part, from)
		} else {
			p.src.Seek(part, kafka.FirstOffset)
		}
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
		delete(p.seeking, part)
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
