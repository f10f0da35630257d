package ingest

import "math"

// Partitions found, and lost, while the buffer runs. Kept apart from reorder.go:
// this is only how a partition joins, not the watermark's rule.

// AddPartition registers partition id, found while the stream runs: the
// topic grew, or the partition's log was reset (a topic deleted and
// created again), and its reader starts now. From then on it holds the
// watermark as a partition known from the start does (SetPending): with
// records to read (pending), until they come; without, until it sends an
// edge or has been silent for the idle duration, counted from now. So a
// partition found late is not taken as idle at once because nothing came
// from it before anyone read it (a partition known before and silent
// since, whose log was reset, starts its idleness afresh too), and the
// records written to it after it was found are not late merely because
// it was found late. Its edges at or below the watermark when they come
// are late, as any: those written before it was found may be (a refresh
// interval of them, less the allowed lateness).
func (r *Reorder) AddPartition(id int, pending bool) {
	p := r.part(id)
	p.seen, p.touched, p.heard = r.now(), false, false
	p.pending = pending
}

// RemovePartition tells the buffer that partition id no longer exists
// (deleted with its topic, or the topic created again with fewer): it
// stops holding the watermark at once, whatever the idle duration (with
// idleness off, a partition that sent edges holds it for ever), and its
// buffered edges are released as the other partitions' watermark passes
// them. AddPartition makes it known again.
func (r *Reorder) RemovePartition(id int) {
	p := r.parts[id]
	if p == nil {
		return
	}
	if p.n == 0 {
		delete(r.parts, id)
		if r.lastPart == p {
			r.lastPart = nil
		}
		return
	}
	// Kept for its buffered edges, with no say in the watermark (as a
	// partition that sent only late edges).
	p.maxT, p.pending, p.heard = math.MinInt64, false, true
}
