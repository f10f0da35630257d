package ingest

import (
	"math"
	"time"
)

// Reorder is the reorder buffer between the decoders and the window: it
// holds edges until the watermark passes them and releases them in
// (T, Seq) order, equal (T, Seq) in arrival order.
//
// Seq is the record's own when Edge.HasSeq, else an arrival number that
// Add assigns (monotonic over the buffer's life) and writes into the
// released edge's Seq.
//
// The watermark: each partition (Origin.Partition) has a time, maxT_p:
// the largest T added from it, or with a JumpRule (SetJumpRule) the
// largest T it has confirmed, so that an edge far ahead moves nothing
// alone (reorder_jump.go). The watermark is the smallest
// maxT_p − lateness − 1 over the partitions that are not idle (the −1: an
// edge tied with its partition's newest time is never late, whatever the
// lateness), where a partition is idle when nothing was added from it for
// the idle duration. When every partition is idle the watermark is the
// largest T added (with a JumpRule: the latest partition time), and
// everything up to it is released.
// The watermark never decreases. An edge whose T is at or below the last
// released watermark is late: it would have to go before or among edges
// already released, so Add refuses it (the caller dead-letters it).
//
// Idleness is measured at Release: a partition that had an edge added
// since the previous Release counts as seen at this Release's now(). So
// its resolution is the interval between Release calls.
//
// A Reorder is not safe for concurrent use.
type Reorder struct {
	lateness int64
	idle     time.Duration
	now      func() time.Time

	w    int64 // the last released watermark
	maxT int64 // largest T added, over all partitions
	// jump is the rule against outliers (off: the zero rule); stream is
	// the latest partition time, nHeld the edges in the partitions' held
	// heaps; discarded and events wait for the caller (reorder_jump.go).
	jump      JumpRule
	stream    int64
	nHeld     int
	discarded []Discarded
	events    []JumpEvent
	// maxBuffered caps the edges held (0: no cap); forced counts edges a
	// release let go early because of it.
	maxBuffered int
	forced      int64
	arrivals    int64
	// bytes is the sum of Edge.Bytes over the buffered edges; maxBytes
	// caps it like maxBuffered caps their number (0: no cap).
	bytes, maxBytes int64

	// The buffered edges: each partition's edges that arrived in key
	// order wait in its run (partState.run, a FIFO of segments: stretches
	// of edges where they lie), the others in heap (out of order within
	// their partition: allowed lateness). Release merges the runs and the
	// heap: a few compares per edge instead of a heap of every buffered
	// edge.
	heap  []reorderKey
	n     int         // buffered edges: in runs and heap
	merge []mergeHead // Release's scratch
	// The edges Add copies in, in pages that never move (growing a slice
	// of them would copy every buffered edge), indexed by slot; meta
	// holds their bookkeeping. AddRun's edges stay in the caller's array.
	pages [][]Edge
	meta  [][]slotMeta
	free  []int32
	// order is a release's edges in release order (scratch), orderSlots
	// their slots (noSlot: in a caller's array); retired the slots handed
	// out by AppendReleaseRefs and not recycled yet, from retiredHead on.
	order       []*Edge
	orderSlots  []int32
	retired     []int32
	retiredHead int

	parts    map[int]*partState
	lastPart *partState // the partition of the previous Add (a cache)
	// quietFrom: silence before it does not count towards idleness (see
	// IgnoreSilenceBefore).
	quietFrom time.Time
	// flowing is when the first Release found an edge added: a partition
	// not heard from counts as silent from then at the earliest, so one
	// made known long before the stream starts is not idle at its first
	// edge.
	flowing time.Time
}

// reorderKey orders the heap; slot indexes the edge.
type reorderKey struct {
	t, seq, arr int64
	slot        int32
}

func (a *reorderKey) less(b *reorderKey) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.seq != b.seq {
		return a.seq < b.seq
	}
	return a.arr < b.arr
}

// slotMeta is the bookkeeping of an edge Add copied into a slot.
type slotMeta struct {
	part  *partState
	qi    int64 // index in part's offset queue (edges in the heap)
	bytes int64 // e.Bytes() when added
	// held: the edge is in part's held heap, at index pos (JumpRule).
	held bool
	pos  int32
}

// noSlot marks an edge that lies in a caller's array (AddRun).
const noSlot = -1

// partState is one partition's watermark input and its buffered offsets.
type partState struct {
	id int
	// maxT is the partition's time: the largest T added from it, or
	// confirmed under a JumpRule (jumpState).
	maxT    int64
	touched bool // an edge was added since the last Release
	seen    time.Time
	// pending: the consumer knows of records of this partition it has not
	// fetched yet (SetPending); such a partition is never idle.
	pending bool
	// heard: an edge (even a late one) was added from it. A partition
	// known only through SetPending holds the watermark until it is heard
	// from or idle (see AppendRelease).
	heard bool
	// n and bytes are its buffered edges and their Edge.Bytes (AppendAhead).
	n     int
	bytes int64

	// q holds the offsets of the partition's edges in the heap in
	// arrival order; its head is the earliest-added one still buffered.
	// (The run's are in offset order from its head.)
	q offsetQueue
	// run holds its buffered edges that arrived in key order (each after
	// the previous one in the run), oldest first.
	run edgeRun

	// The edges held by the JumpRule, and the evidence about them.
	jumpState
}

// minOffset returns the lowest offset among p's buffered edges.
func (p *partState) minOffset() (int64, bool) {
	off, ok := p.q.first()
	if p.run.len() > 0 {
		if o := p.run.headEdge().Origin.Offset; !ok || o < off {
			off, ok = o, true
		}
	}
	return off, ok
}

// segment is a stretch of a partition's run: edges in key order where
// they lie, edges[head:] still buffered. The edge of arrival number
// arr0+i is edges[i]. A segment of Add is the one edge in its slot.
type segment struct {
	edges []Edge
	head  int
	arr0  int64
	slot  int32 // noSlot: edges lie in the caller's array (AddRun)
}

// edgeRun is a FIFO of segments whose edges are in increasing key order.
type edgeRun struct {
	segs []segment
	head int
	n    int        // edges
	last reorderKey // the newest edge's key (n > 0)
}

func (q *edgeRun) len() int { return q.n }

// accepts reports whether k can join the run (after its last key).
func (q *edgeRun) accepts(k *reorderKey) bool {
	return q.n == 0 || q.last.less(k)
}

// push appends s, whose edges follow the run's in key order, the newest
// of key last. A full FIFO moves its segments to the front first when
// the popped ones are at least half of it (amortised O(1) per pop), else
// it grows.
func (q *edgeRun) push(s segment, last reorderKey) {
	if len(q.segs) == cap(q.segs) && q.head > 0 && 2*q.head >= len(q.segs) {
		n := copy(q.segs, q.segs[q.head:])
		clear(q.segs[n:])
		q.segs, q.head = q.segs[:n], 0
	}
	q.segs = append(q.segs, s)
	q.n += len(s.edges) - s.head
	q.last = last
}

// headEdge returns the oldest edge (the run is not empty).
func (q *edgeRun) headEdge() *Edge {
	s := &q.segs[q.head]
	return &s.edges[s.head]
}

// headKey returns the oldest edge's key (the run is not empty).
func (q *edgeRun) headKey() reorderKey {
	s := &q.segs[q.head]
	e := &s.edges[s.head]
	arr := s.arr0 + int64(s.head)
	seq := arr
	if e.HasSeq {
		seq = e.Seq
	}
	return reorderKey{t: e.T, seq: seq, arr: arr}
}

// pop removes the oldest edge; it returns the edge, its arrival number
// and its slot.
func (q *edgeRun) pop() (e *Edge, arr int64, slot int32) {
	s := &q.segs[q.head]
	e, arr, slot = &s.edges[s.head], s.arr0+int64(s.head), s.slot
	s.head++
	q.n--
	if s.head == len(s.edges) {
		*s = segment{} // the caller's array is not kept from the GC
		q.head++
		if q.head == len(q.segs) {
			q.segs, q.head = q.segs[:0], 0
		}
	}
	return e, arr, slot
}

// mergeHead is one source of a Release's merge: a partition's run, or
// its held heap (held), or the heap (p nil).
type mergeHead struct {
	k    reorderKey
	p    *partState
	held bool
}

// slotPage is the number of edges per page of Reorder.pages.
const slotPage = 1024

// minWatermark is the watermark before anything was released.
const minWatermark = math.MinInt64

// NewReorder returns an empty buffer that waits lateness ticks (negative
// counts as 0) and takes a partition as idle after idle without records
// (0 or less: never). now is the clock for idleness (nil: time.Now).
func NewReorder(lateness int64, idle time.Duration, now func() time.Time) *Reorder {
	if now == nil {
		now = time.Now
	}
	return &Reorder{
		lateness: max(lateness, 0),
		idle:     idle,
		now:      now,
		w:        minWatermark,
		maxT:     math.MinInt64,
		stream:   math.MinInt64,
		parts:    make(map[int]*partState),
	}
}

// Add buffers e, or reports it late (e.T at or below the last released
// watermark) and keeps nothing. A late edge still marks its partition as
// active.
//
// The edges of one partition must be added in offset order, as a Kafka
// consumer delivers them: MinOffsets relies on it.
func (r *Reorder) Add(e Edge) (late bool) { return r.AddFrom(&e) }

// AddFrom is Add for an edge given by pointer: *e is copied (into the
// buffer, once, and its Seq set there), never kept or changed.
func (r *Reorder) AddFrom(e *Edge) (late bool) {
	p := r.lastPart
	if p == nil || p.id != e.Origin.Partition {
		p = r.part(e.Origin.Partition)
		r.lastPart = p
	}
	p.touched, p.heard = true, true
	if e.T <= r.w && r.w != minWatermark {
		// Evidence that the partition goes on at its old time.
		p.streak.end()
		return true
	}
	held := false
	if r.jump.on() {
		if held = r.ahead(p, e.T); !held {
			r.advance(p, e.T)
		}
	} else {
		p.maxT = max(p.maxT, e.T)
	}
	r.maxT = max(r.maxT, e.T)

	arr := r.arrivals
	r.arrivals++
	seq := e.Seq
	if !e.HasSeq {
		seq = arr
	}
	slot := r.newSlot()
	size := int64(e.Bytes())
	r.bytes += size
	p.n++
	p.bytes += size
	se, m := r.slot(slot), r.slotMeta(slot)
	*se = *e
	se.Seq = seq
	*m = slotMeta{part: p, bytes: size}
	k := reorderKey{t: e.T, seq: seq, arr: arr, slot: slot}
	switch {
	case held:
		m.qi = p.q.push(e.Origin.Offset)
		r.hold(p, k)
	case p.run.accepts(&k):
		page, at := slot/slotPage, slot%slotPage
		p.run.push(segment{edges: r.pages[page][at : at+1 : at+1], arr0: arr, slot: slot}, k)
	default:
		m.qi = p.q.push(e.Origin.Offset)
		r.push(k)
	}
	r.n++
	if held {
		r.checkStreak(p)
	}
	return false
}

// newSlot returns a free slot, adding a page when there is none.
func (r *Reorder) newSlot() int32 {
	if n := len(r.free); n > 0 {
		slot := r.free[n-1]
		r.free = r.free[:n-1]
		return slot
	}
	slot := int32(len(r.pages) * slotPage)
	r.pages = append(r.pages, make([]Edge, slotPage))
	r.meta = append(r.meta, make([]slotMeta, slotPage))
	for i := slotPage - 1; i > 0; i-- {
		r.free = append(r.free, slot+int32(i))
	}
	return slot
}

// RunLimits bounds what AddRun takes, besides the buffer's own caps.
type RunLimits struct {
	// MaxLen and MaxBytes bound the buffer's edges and their Edge.Bytes
	// after the run (math.MaxInt, math.MaxInt64: no bound).
	MaxLen   int
	MaxBytes int64
	// MaxT is the largest T taken (math.MaxInt64: any).
	MaxT int64
}

// NoRunLimits bounds AddRun by the buffer's caps alone.
var NoRunLimits = RunLimits{MaxLen: math.MaxInt, MaxBytes: math.MaxInt64, MaxT: math.MaxInt64}

// AddRun buffers the longest prefix of edges that joins their
// partition's run as it lies, and returns its length: edges of one
// partition, in offset order, each after the previous one in (T, Seq)
// order (the first after the edges of the partition that arrived in
// order before), none late, none with T above lim.MaxT, and the buffer
// within its caps (SetMaxBuffered, SetMaxBytes: OverCap stays false) and
// lim's bounds. The edge after the prefix, if any, is for Add: it is
// late, out of order, or takes the buffer over a cap. What AddRun takes
// costs no copy and a few compares per edge; its result is the same as
// Adding the edges one by one.
//
// The edges taken stay where they are: the caller must neither change
// nor reuse edges[:n] from then on (the buffer writes their Seq when it
// releases them, and AppendReleaseRefs hands them out where they lie).
func (r *Reorder) AddRun(edges []Edge, lim RunLimits) int {
	if len(edges) == 0 {
		return 0
	}
	p := r.lastPart
	if id := edges[0].Origin.Partition; p == nil || p.id != id {
		p = r.part(id)
		r.lastPart = p
	}
	maxLen, maxBytes := lim.MaxLen, lim.MaxBytes
	if r.jump.on() {
		// Edges ahead are for Add, and so is every edge of a partition
		// with held edges: what each one settles depends on where it lies.
		ref := r.reference(p)
		if ref == math.MinInt64 || p.qhead < len(p.queue) {
			return 0
		}
		lim.MaxT = min(lim.MaxT, satAdd(ref, r.jump.MaxJump))
	}
	if r.maxBuffered > 0 {
		maxLen = min(maxLen, r.maxBuffered)
	}
	if r.maxBytes > 0 {
		maxBytes = min(maxBytes, r.maxBytes)
	}
	last, has := p.run.last, p.run.n > 0
	arr := r.arrivals
	n, bytes, maxT := r.n, r.bytes, p.maxT
	k := 0
	for ; k < len(edges); k++ {
		e := &edges[k]
		if (e.T <= r.w && r.w != minWatermark) || e.T > lim.MaxT || n >= maxLen {
			break
		}
		key := reorderKey{t: e.T, seq: arr + int64(k), arr: arr + int64(k)}
		if e.HasSeq {
			key.seq = e.Seq
		}
		if has && !last.less(&key) {
			break
		}
		b := int64(e.Bytes())
		if bytes+b > maxBytes {
			break
		}
		n++
		bytes += b
		last, has = key, true
		maxT = max(maxT, e.T)
	}
	if k == 0 {
		return 0
	}
	p.touched, p.heard = true, true
	if r.jump.on() {
		r.advance(p, maxT)
	} else {
		p.maxT = maxT
	}
	r.maxT = max(r.maxT, maxT)
	r.arrivals += int64(k)
	p.n += k
	p.bytes += bytes - r.bytes
	r.n, r.bytes = n, bytes
	p.run.push(segment{edges: edges[:k:k], arr0: arr, slot: noSlot}, last)
	return k
}

func (r *Reorder) part(id int) *partState {
	p := r.parts[id]
	if p == nil {
		// Silent since it became known: idleness counts from now.
		p = &partState{id: id, maxT: math.MinInt64, seen: r.now()}
		r.parts[id] = p
	}
	return p
}

// SetPending tells the buffer whether partition id has records the
// consumer has not fetched yet (from a fetched record's high-water mark,
// or the topic's end offsets at start). A partition with a backlog is
// never idle, and one that has sent nothing yet holds the watermark back:
// a consumer that drains a backlog one partition after another must not
// make the later partitions' older edges late. A partition first made
// known here without a backlog holds the watermark too until it sends an
// edge or has been silent for the idle duration (records may arrive
// after the end offsets were read, and its reader may start late).
func (r *Reorder) SetPending(id int, pending bool) {
	p := r.lastPart
	if p == nil || p.id != id {
		p = r.part(id)
	}
	p.pending = pending
}

// Release returns the buffered edges at or below the new watermark, in
// order, and the watermark (math.MinInt64 before anything was added).
func (r *Reorder) Release() (edges []Edge, watermark int64) { return r.AppendRelease(nil) }

// AppendRelease is Release appending to dst, so that a caller can reuse
// one batch buffer.
func (r *Reorder) AppendRelease(dst []Edge) (edges []Edge, watermark int64) {
	w := r.release()
	return r.copyOut(dst), w
}

// AppendReleaseRefs is AppendRelease handing out the released edges where
// they lie in the buffer instead of copying them (an edge is 184 bytes:
// copying it out, and the batch's readers reading the copy, was a third
// of the release's time). The edges stay valid, and unchanged, until
// Recycle gives their room back; Adds meanwhile use other room, so
// another goroutine may read them while this one adds (they are never
// written until recycled).
func (r *Reorder) AppendReleaseRefs(dst []*Edge) (edges []*Edge, watermark int64) {
	w := r.release()
	dst = append(dst, r.order...)
	r.retired = append(r.retired, r.orderSlots...)
	clear(r.order)
	r.order, r.orderSlots = r.order[:0], r.orderSlots[:0]
	return dst, w
}

// Recycle gives back the room of the n edges handed out first by
// AppendReleaseRefs and not recycled yet (release order: a caller
// recycles its batches in the order it released them). Those edges must
// not be used after.
func (r *Reorder) Recycle(n int) {
	n = min(n, len(r.retired)-r.retiredHead)
	for _, slot := range r.retired[r.retiredHead : r.retiredHead+n] {
		if slot != noSlot {
			r.freeSlot(slot)
		}
	}
	r.retiredHead += n
	if r.retiredHead == len(r.retired) {
		r.retired, r.retiredHead = r.retired[:0], 0
	} else if 2*r.retiredHead >= len(r.retired) {
		m := copy(r.retired, r.retired[r.retiredHead:])
		r.retired, r.retiredHead = r.retired[:m], 0
	}
}

// freeSlot gives slot's room back.
func (r *Reorder) freeSlot(slot int32) {
	*r.slot(slot) = Edge{} // drop references for the GC
	*r.slotMeta(slot) = slotMeta{}
	r.free = append(r.free, slot)
}

// Retired returns the number of edges handed out by AppendReleaseRefs
// and not recycled yet.
func (r *Reorder) Retired() int { return len(r.retired) - r.retiredHead }

// copyOut appends the edges of r.order (released) to dst and frees
// their room.
func (r *Reorder) copyOut(dst []Edge) []Edge {
	for i, e := range r.order {
		dst = append(dst, *e)
		if slot := r.orderSlots[i]; slot != noSlot {
			r.freeSlot(slot)
		}
	}
	clear(r.order)
	r.order, r.orderSlots = r.order[:0], r.orderSlots[:0]
	return dst
}

// release moves the edges at or below the new watermark, in order, into
// r.order (their room not freed yet) and returns the watermark.
func (r *Reorder) release() int64 {
	now := r.now()
	w := r.releaseTo(r.target(now))
	if r.jump.on() && r.settleHeld() {
		// A jump taken to make room: the watermark follows it first.
		w = r.releaseTo(r.target(now))
		r.settleAll()
	}
	// The caps: a burst at one timestamp, or a partition whose time never
	// moves, would otherwise be held without bound. Raise the watermark
	// to the oldest buffered edges' time until at most maxBuffered edges
	// of at most maxBytes remain; later edges at or below it are late
	// (dead-lettered, counted).
	for r.overCap() {
		n := len(r.order)
		w = r.releaseTo(r.minT())
		r.forced += int64(len(r.order) - n)
	}
	return w
}

// target computes the watermark from the partitions' times at now (a
// partition added to since the last call counts as seen now).
func (r *Reorder) target(now time.Time) int64 {
	w := int64(math.MaxInt64)
	active := false
	if r.flowing.IsZero() && r.n > 0 {
		r.flowing = now
	}
	for _, p := range r.parts {
		if p.touched {
			p.seen, p.touched = now, false
		}
		if r.idleAt(p, now) {
			continue
		}
		if p.maxT == math.MinInt64 {
			if r.awaited(p) || r.bootstrapping(p) {
				// Records to come (or, from a partition known but not heard
				// from and not yet idle, maybe: a reader that starts late must
				// not find its partition's edges late), none seen: nothing
				// can be released.
				active = true
				w = math.MinInt64
			}
			// Only late edges so far: no say in the watermark.
			continue
		}
		active = true
		// One tick below maxT_p − lateness: more edges at a partition's
		// newest time may follow (timestamps tie at the input's
		// resolution), and with lateness 0 they must not be late; once a
		// later time arrives, ties with the old newest are released. This
		// covers a restart too: the first record after the committed
		// offset may tie with the last one re-read as History.
		pw := satSub(satSub(p.maxT, r.lateness), 1)
		w = min(w, pw)
	}
	if !active {
		w = r.idleWatermark(now) // every partition idle: release everything
	}
	return w
}

// idleAt reports whether p counts as idle at now: silent for the idle
// duration (a partition added to since the last Release counts as seen
// now) and without records known to be unfetched.
func (r *Reorder) idleAt(p *partState, now time.Time) bool {
	if r.idle <= 0 || p.pending {
		return false
	}
	seen := p.seen
	if p.touched {
		seen = now
	}
	if !p.heard && (r.flowing.IsZero() || r.flowing.After(seen)) {
		seen = r.flowing
		if seen.IsZero() {
			seen = now
		}
	}
	if seen.Before(r.quietFrom) {
		seen = r.quietFrom
	}
	return now.Sub(seen) >= r.idle
}

// AnyIdle reports whether a partition counts as idle now: it no longer
// holds the watermark back.
func (r *Reorder) AnyIdle() bool {
	now := r.now()
	for _, p := range r.parts {
		if r.idleAt(p, now) {
			return true
		}
	}
	return false
}

// awaited reports whether p, with no edge taken yet, holds the watermark
// back: records of it are known to come, or it was made known without
// being heard from and is not idle yet.
func (r *Reorder) awaited(p *partState) bool {
	return p.pending || (!p.heard && r.idle > 0)
}

// AppendAhead appends to dst the partitions that run ahead in event time
// and should not be read further for now: each holds more than its half
// share of a cap (SetMaxBuffered, SetMaxBytes: the cap over the
// partitions known) while another partition that holds the watermark
// back is behind it (a smaller newest time, or none yet). A skewed
// backlog read at equal bytes per partition runs the sparse partitions
// ahead of the dense one, and their edges wait here for the watermark;
// past a cap they were released early and the dense partition's records
// made late. Pausing them instead keeps the buffer within its caps and
// nothing late: the partition furthest behind is never paused, so the
// watermark always moves on. Half a share leaves the other half for
// records fetched before the pause takes effect. No caps: none.
func (r *Reorder) AppendAhead(dst []int) []int {
	if (r.maxBuffered == 0 && r.maxBytes == 0) || len(r.parts) < 2 {
		return dst
	}
	now := r.now()
	behind := int64(math.MaxInt64)
	for _, p := range r.parts {
		if r.idleAt(p, now) {
			continue
		}
		if p.maxT == math.MinInt64 {
			if r.awaited(p) || r.bootstrapping(p) {
				behind = math.MinInt64
			}
			continue
		}
		behind = min(behind, p.maxT)
	}
	shares := int64(2 * len(r.parts))
	maxN, maxBytes := int64(r.maxBuffered)/shares, r.maxBytes/shares
	for _, p := range r.parts {
		over := (r.maxBuffered > 0 && int64(p.n) > maxN) || (r.maxBytes > 0 && p.bytes > maxBytes)
		if over && p.maxT > behind {
			dst = append(dst, p.id)
		}
	}
	return dst
}

// IgnoreSilenceBefore makes the partitions' silence before t not count
// towards idleness: the source could not deliver then (a broker outage),
// so a partition silent through it is not idle until it has been silent
// for the idle duration after t. t never moves back.
func (r *Reorder) IgnoreSilenceBefore(t time.Time) {
	if t.After(r.quietFrom) {
		r.quietFrom = t
	}
}

// SetMaxBuffered caps the edges the buffer holds (0: no cap). A release
// that would leave more raises the watermark early: the edges it lets go
// are counted in Forced, and later edges at or below the raised
// watermark are late.
func (r *Reorder) SetMaxBuffered(n int) { r.maxBuffered = max(n, 0) }

// SetMaxBytes caps the memory of the buffered edges (the sum of
// Edge.Bytes; 0: no cap) the way SetMaxBuffered caps their number.
func (r *Reorder) SetMaxBytes(n int64) { r.maxBytes = max(n, 0) }

// Bytes returns the memory of the buffered edges (the sum of Edge.Bytes).
func (r *Reorder) Bytes() int64 { return r.bytes }

// OverCap reports whether the buffer holds more than a cap allows
// (SetMaxBuffered, SetMaxBytes): the next Release will let edges go
// early. A caller that adds many edges between releases asks it to
// release sooner.
func (r *Reorder) OverCap() bool { return r.overCap() }

func (r *Reorder) overCap() bool {
	return r.n > 0 && ((r.maxBuffered > 0 && r.n > r.maxBuffered) || (r.maxBytes > 0 && r.bytes > r.maxBytes))
}

// Forced returns how many edges the buffer caps released early so far.
func (r *Reorder) Forced() int64 { return r.forced }

// Flush releases every buffered edge (at shutdown, or the end of a file)
// and raises the watermark to the largest T added.
func (r *Reorder) Flush() (edges []Edge, watermark int64) {
	w := r.releaseTo(r.maxT)
	return r.copyOut(nil), w
}

// Watermark returns the last released watermark.
func (r *Reorder) Watermark() int64 { return r.w }

// MaxT returns the largest T added (math.MinInt64 before any): the newest
// edge time the buffer has taken.
func (r *Reorder) MaxT() int64 { return r.maxT }

// Len returns the number of buffered edges.
func (r *Reorder) Len() int { return r.n }

// MinOffsets returns, for each partition with buffered edges, the lowest
// offset among them. A consumer may commit that offset (as the next to
// read) for such a partition, and the offset after the last record it
// handled for the others, once the released edges' alerts are durable.
func (r *Reorder) MinOffsets() map[int]int64 {
	m := make(map[int]int64)
	for id, p := range r.parts {
		if off, ok := p.minOffset(); ok {
			m[id] = off
		}
	}
	return m
}

// releaseTo pops the edges with T <= w (raised to the current watermark
// if lower) in key order into r.order and sets the watermark: a merge of
// the partitions' runs and the heap.
func (r *Reorder) releaseTo(w int64) int64 {
	w = max(w, r.w)
	r.w = w
	h := r.merge[:0]
	for _, p := range r.parts {
		if p.run.len() > 0 {
			if k := p.run.headKey(); k.t <= w {
				h = append(h, mergeHead{k: k, p: p})
			}
		}
		if len(p.held) > 0 && p.held[0].t <= w {
			h = append(h, mergeHead{k: p.held[0], p: p, held: true})
		}
	}
	if len(r.heap) > 0 && r.heap[0].t <= w {
		h = append(h, mergeHead{k: r.heap[0]})
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for len(h) > 0 {
		top := &h[0]
		// Advance the source; keep it while its next edge is released too.
		more := false
		if p := top.p; p != nil && top.held {
			r.emitHeld(p)
			if len(p.held) > 0 {
				top.k = p.held[0]
				more = top.k.t <= w
			}
		} else if p != nil {
			r.emitRun(p)
			if p.run.len() > 0 {
				top.k = p.run.headKey()
				more = top.k.t <= w
			}
		} else {
			r.emitHeap(top.k.slot)
			r.pop()
			if len(r.heap) > 0 {
				top.k = r.heap[0]
				more = top.k.t <= w
			}
		}
		if !more {
			last := len(h) - 1
			h[0] = h[last]
			h = h[:last]
		}
		if len(h) > 1 {
			siftDown(h, 0)
		}
	}
	clear(h[:cap(h)]) // no references to partitions kept between releases
	r.merge = h[:0]
	return w
}

// emitRun releases the oldest edge of p's run: it leaves the counts,
// gets its Seq if it had none, and joins r.order (its room, if a slot's,
// is freed by the caller: copyOut, or Recycle after AppendReleaseRefs).
func (r *Reorder) emitRun(p *partState) {
	e, arr, slot := p.run.pop()
	var size int64
	if slot != noSlot {
		size = r.slotMeta(slot).bytes
	} else {
		if !e.HasSeq {
			e.Seq = arr
		}
		size = int64(e.Bytes())
	}
	p.n--
	p.bytes -= size
	r.bytes -= size
	r.n--
	r.order = append(r.order, e)
	r.orderSlots = append(r.orderSlots, slot)
}

// emitHeap releases the edge in slot, from the heap, as emitRun does.
func (r *Reorder) emitHeap(slot int32) {
	m := r.slotMeta(slot)
	m.part.q.release(m.qi)
	m.part.n--
	m.part.bytes -= m.bytes
	r.bytes -= m.bytes
	r.n--
	r.order = append(r.order, r.slot(slot))
	r.orderSlots = append(r.orderSlots, slot)
}

func (r *Reorder) slot(i int32) *Edge         { return &r.pages[i/slotPage][i%slotPage] }
func (r *Reorder) slotMeta(i int32) *slotMeta { return &r.meta[i/slotPage][i%slotPage] }

// minT is the oldest buffered edge's time (the buffer is not empty).
func (r *Reorder) minT() int64 {
	t := int64(math.MaxInt64)
	if len(r.heap) > 0 {
		t = r.heap[0].t
	}
	for _, p := range r.parts {
		if p.run.len() > 0 {
			t = min(t, p.run.headEdge().T)
		}
		if len(p.held) > 0 {
			t = min(t, p.held[0].t)
		}
	}
	return t
}

// siftDown restores the min-heap order of h below i.
func siftDown(h []mergeHead, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].k.less(&h[c].k) {
			c++
		}
		if !h[c].k.less(&h[i].k) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// offsetQueue is a ring of offsets in arrival order with a released mark
// each. Entries have absolute indices (base is the head's); released
// entries leave once everything before them has.
type offsetQueue struct {
	offs []int64 // len is a power of two
	done []bool
	head int // ring position of index base
	n    int
	base int64
}

// push appends off and returns its absolute index.
func (q *offsetQueue) push(off int64) int64 {
	if q.n == len(q.offs) {
		q.grow()
	}
	i := (q.head + q.n) & (len(q.offs) - 1)
	q.offs[i], q.done[i] = off, false
	q.n++
	return q.base + int64(q.n-1)
}

func (q *offsetQueue) grow() {
	size := max(2*len(q.offs), 64)
	offs, done := make([]int64, size), make([]bool, size)
	for k := 0; k < q.n; k++ {
		i := (q.head + k) & (len(q.offs) - 1)
		offs[k], done[k] = q.offs[i], q.done[i]
	}
	q.offs, q.done, q.head = offs, done, 0
}

// first returns the offset of the earliest entry still queued.
func (q *offsetQueue) first() (int64, bool) {
	if q.n == 0 {
		return 0, false
	}
	return q.offs[q.head], true
}

// release marks absolute index qi released and drops the released
// entries at the head.
func (q *offsetQueue) release(qi int64) {
	mask := len(q.offs) - 1
	q.done[(q.head+int(qi-q.base))&mask] = true
	for q.n > 0 && q.done[q.head] {
		q.head = (q.head + 1) & mask
		q.n--
		q.base++
	}
}

func satSub(a, b int64) int64 {
	if s := a - b; s <= a {
		return s
	}
	return math.MinInt64
}

// push and pop keep r.heap a binary min-heap.
func (r *Reorder) push(k reorderKey) {
	h := append(r.heap, k)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !k.less(&h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = k
	r.heap = h
}

// pop removes the minimum. It is Floyd's bottom-up variant: the hole at
// the root goes down to a leaf along the smaller children (one compare a
// level), then the last key sifts up from there (rarely far, as it came
// from the bottom). About half the compares of the textbook sift-down.
func (r *Reorder) pop() reorderKey {
	h := r.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	r.heap = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(&h[c]) {
			c++
		}
		h[i] = h[c]
		i = c
	}
	for i > 0 {
		parent := (i - 1) / 2
		if !last.less(&h[parent]) {
			break
		}
		h[i] = h[parent]
		i = parent
	}
	h[i] = last
	return top
}
