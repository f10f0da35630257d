package daemon

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/ingest"
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
//     are dropped, not committed (committer.known), and the partition is
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

// positions is where the pipeline is in each partition, and what marks
// its records: the offsets taken in (next), where reading starts
// (readFrom), the history and resume state it began with, and the
// clamps of partitions reset. Admission reads and advances it; the
// partitions stage changes it as the topic changes; the batcher and the
// commits read it.
type positions struct {
	// next[p] is the offset after the last record taken from partition p.
	next map[int]int64
	// readFrom, resetAtStart, historyBefore and resume: see start.
	readFrom, resetAtStart, historyBefore map[int]int64
	resume                                map[int]resumeState
	// clamps hold reset partitions' commits (replaced, never written:
	// released batches read them).
	clamps map[int]commitClamp
}

// knows reports whether the pipeline reads, or will read, partition.
func (pos *positions) knows(partition int) bool {
	if _, ok := pos.next[partition]; ok {
		return true
	}
	_, ok := pos.readFrom[partition]
	return ok
}

// history reports whether the record at offset of partition is History:
// below the committed offset the pipeline started from.
func (pos *positions) history(partition int, offset int64) bool {
	hb, ok := pos.historyBefore[partition]
	return ok && offset < hb
}

// taken returns, per partition read, the offset up to which every record
// taken in has left the reorder buffer r: the committable offsets as of a
// batch's release, before the processor's held matches (miner.settled)
// lower them. Records taken in later (while the batch is mined) have
// higher offsets, so they never count as handled by it.
func (pos *positions) taken(r *ingest.Reorder) map[int]int64 {
	out := make(map[int]int64, len(pos.next))
	for part, next := range pos.next {
		out[part] = next
	}
	for part, off := range r.MinOffsets() {
		// Only partitions this pipeline has read: one whose buffer holds
		// History alone is at the commit it started from, and a member
		// standing by must never write its start position over the
		// active member's progress.
		if cur, ok := out[part]; ok && off < cur {
			out[part] = off
		}
	}
	return out
}

// liftClamps lifts the clamps whose old edges the watermark wm has
// released.
func (pos *positions) liftClamps(wm int64) {
	for part, c := range pos.clamps {
		if wm >= c.until {
			pos.clamps = withoutEntry(pos.clamps, part)
		}
	}
}

// partitions is the stage that keeps the pipeline's positions in step
// with the edge topic's partitions (see the top of this file), on the
// pipeline goroutine: from the source's positions (takePosition) and,
// before each release, the topic watch's view and the partitions commits
// found gone (applyTopicChanges). It tells the batcher's reorder buffer
// which partitions hold the watermark and the intake's source where to
// read; wait waits for the batches in flight before a partition's
// bookkeeping starts again (they commit what they took before).
type partitions struct {
	parts *pipelineParts
	pos   *positions
	b     *batcher
	in    *intake
	wait  func() error
	// gone is the partitions commits found gone (the committer's).
	gone *goneSet
	// lost[p] is where the pipeline was in partition p when it was found
	// gone: if it comes back, it is read from its new log's start;
	// seeking[p] is that offset while the source seeks there (recreate).
	lost, seeking map[int]int64
	// held[p]: the source holds partition p, found unknown at the topic
	// watch's look count held[p] (release).
	held map[int]uint64
	// applied is the topic watch's view last applied.
	applied topicView
}

// dropChunk reports whether c's records are to be dropped: they come
// from where the reader was in a partition being read again from its
// new log's start, and come again after the seek (recreate).
func (ps *partitions) dropChunk(c *kafka.Chunk) (bool, error) {
	if _, ok := ps.seeking[c.Partition]; ok {
		return true, nil
	}
	if asked, ok := ps.lost[c.Partition]; ok && len(c.Recs) > 0 {
		return true, ps.recreate(c.Partition, asked)
	}
	return false, nil
}

// takePosition takes in where the source starts or resumes reading a
// partition (a chunk without records).
func (ps *partitions) takePosition(ctx context.Context, part int, pos *kafka.Position) error {
	topic, reorder := ps.parts.topic, ps.b.reorder
	if pos.Gone {
		// The source holds the partition until told where to go on: from
		// where it was, or from its new log's start if the topic was
		// created again; a look at the topic newer than now says which
		// (applyTopicChanges).
		ps.held[part] = topic.current().looks
		topic.refreshNow()
		return nil
	}
	if asked, ok := ps.seeking[part]; ok {
		if !pos.Seek {
			// A new reader (a new generation of the group) started from
			// the group's offsets, not where this pipeline asked.
			ps.in.src.Seek(part, kafka.FirstOffset)
			return nil
		}
		delete(ps.seeking, part)
		return ps.resetPartition(part, pos, asked, reasonRecreated)
	}
	if asked, ok := ps.lost[part]; ok {
		return ps.recreate(part, asked)
	}
	pending := pos.LogEnd > pos.Offset
	if pos.Reset != nil {
		if asked, ok := ps.pos.resetAtStart[part]; ok && asked == pos.Reset.Asked {
			// The rebuild found this offset out of range and said so; the
			// source starts from the group's stale commit and finds it too.
			delete(ps.pos.resetAtStart, part)
			if _, read := ps.pos.next[part]; !read {
				ps.pos.readFrom[part] = pos.Offset
				reorder.SetPending(part, pending)
				return nil
			}
		}
		return ps.resetPartition(part, pos, pos.Reset.Asked, pos.Reset.Reason)
	}
	next, read := ps.pos.next[part]
	if !read {
		if !ps.pos.knows(part) {
			ps.register(part, pos.Offset, pending)
		} else {
			ps.pos.readFrom[part] = pos.Offset
			reorder.SetPending(part, pending)
		}
		return nil
	}
	// The source starts again (a new generation of the group) at the
	// group's committed offset: at or below what the pipeline took in
	// (those records come again and are skipped), unless the log itself
	// is shorter now.
	if pos.LogEnd < next {
		return ps.resetPartition(part, pos, next, kafka.ResetPastEnd)
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
func (ps *partitions) recreate(part int, asked int64) error {
	if _, ok := ps.seeking[part]; ok {
		return nil
	}
	// The batches in flight commit what they took before.
	if err := ps.wait(); err != nil {
		return err
	}
	delete(ps.pos.next, part)
	delete(ps.lost, part)
	ps.seeking[part] = asked
	ps.b.reorder.AddPartition(part, true) // records to read: it holds the watermark
	ps.in.src.Seek(part, kafka.FirstOffset)
	return nil
}

// register makes a partition found while running known: it holds the
// watermark from now on (ingest.Reorder.AddPartition).
func (ps *partitions) register(part int, from int64, pending bool) {
	ps.pos.readFrom[part] = from
	ps.b.reorder.AddPartition(part, pending)
	ps.gone.found(part)
}

// resetPartition starts a partition's bookkeeping again at pos: reading
// resumed at pos.Offset instead of asked.
func (ps *partitions) resetPartition(part int, pos *kafka.Position, asked int64, reason string) error {
	// The batches in flight commit what they took before the reset first.
	if err := ps.wait(); err != nil {
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
	ps.parts.log.Error(msg, "topic", ps.parts.cfg.Kafka.EdgeTopic, "partition", part, "offset", asked, "log_start", pos.LogStart, "log_end", pos.LogEnd,
		"reading_from", pos.Offset, "offset_reset", policy, "reason", reason)
	ps.parts.pm.offsetResets.WithLabelValues(strconv.Itoa(part), reason).Inc()
	reorder, p := ps.b.reorder, ps.pos
	if _, buffered := reorder.MinOffsets()[part]; buffered {
		p.clamps = withEntry(p.clamps, part, commitClamp{offset: pos.Offset, until: reorder.MaxT()})
	}
	p.next[part] = pos.Offset
	p.readFrom[part] = pos.Offset
	p.historyBefore = withoutEntry(p.historyBefore, part)
	p.resume = withoutEntry(p.resume, part)
	delete(p.resetAtStart, part)
	delete(ps.lost, part)
	reorder.AddPartition(part, pos.LogEnd > pos.Offset)
	ps.gone.found(part)
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
func (ps *partitions) applyTopicChanges() error {
	var gone, again []int
	if v := ps.parts.topic.current(); v.seq != ps.applied.seq && v.seq != 0 {
		prev, first := ps.applied, ps.applied.seq == 0
		ps.applied = topicView{seq: v.seq, parts: v.parts, exists: v.exists}
		recreated := false
		if !first {
			for _, part := range sortedKeys(prev.parts) {
				if _, ok := v.parts[part]; !ok {
					recreated = prev.exists && v.exists
					if ps.pos.knows(part) {
						gone = append(gone, part)
					}
				}
			}
		}
		for _, part := range sortedKeys(v.parts) {
			_, lost := ps.lost[part]
			_, read := ps.pos.next[part]
			switch {
			case lost || recreated && read:
				again = append(again, part)
			case !ps.pos.knows(part):
				b := v.parts[part]
				ps.register(part, b.Start, b.End > b.Start)
			}
		}
	}
	for _, part := range ps.gone.take() {
		if ps.pos.knows(part) && !slices.Contains(gone, part) {
			gone = append(gone, part)
		}
	}
	if len(gone) > 0 {
		ps.forget(gone)
	}
	for _, part := range again {
		asked, ok := ps.lost[part]
		if !ok {
			asked = ps.pos.next[part]
		}
		if err := ps.recreate(part, asked); err != nil {
			return err
		}
	}
	ps.release(ps.parts.topic.current())
	return nil
}

// release tells the source where to go on with the partitions it holds
// (found unknown: kafka.Position.Gone) once a look at the topic newer
// than that is applied: a partition read again from its new log
// (recreate) is the seek's; one gone stays held; the others go on where
// they were (the topic was not seen gone: a transient answer, or a topic
// created again and filled within the moment, which no look can tell).
func (ps *partitions) release(v topicView) {
	watched := ps.parts.topic != nil
	for part, looks := range ps.held {
		// (Without a topic watch, nothing is waited for.)
		if watched && v.looks <= looks {
			continue
		}
		delete(ps.held, part)
		if _, ok := ps.seeking[part]; ok {
			continue
		}
		if _, ok := v.parts[part]; !ok && watched {
			continue // gone: forgotten; held until it comes back
		}
		if next, ok := ps.pos.next[part]; ok {
			ps.in.src.Seek(part, next)
		} else if from, ok := ps.pos.readFrom[part]; ok {
			ps.in.src.Seek(part, from)
		} else {
			ps.in.src.Seek(part, kafka.FirstOffset)
		}
	}
}

// forget drops partitions the topic no longer has: their offsets are not
// committed again, and they no longer hold the watermark
// (ingest.Reorder.RemovePartition). Their edges stay (they happened).
func (ps *partitions) forget(parts []int) {
	slices.Sort(parts)
	dropped := map[int]int64{}
	p, pm := ps.pos, ps.parts.pm
	for _, part := range parts {
		if next, ok := p.next[part]; ok {
			dropped[part] = next
			ps.lost[part] = next
			pm.commitsDropped.WithLabelValues(strconv.Itoa(part)).Inc()
		}
		delete(p.next, part)
		delete(p.readFrom, part)
		delete(p.resetAtStart, part)
		delete(ps.seeking, part)
		p.historyBefore = withoutEntry(p.historyBefore, part)
		p.resume = withoutEntry(p.resume, part)
		p.clamps = withoutEntry(p.clamps, part)
		ps.b.reorder.RemovePartition(part)
		pm.lag.DeleteLabelValues(strconv.Itoa(part))
	}
	ps.parts.log.Error("kafka: partitions of the edge topic are gone: no longer read, their offsets dropped instead of committed", "topic", ps.parts.cfg.Kafka.EdgeTopic,
		"partitions", parts, "dropped_offsets", dropped)
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
