package ingest

import (
	"math"
	"slices"
	"time"
)

// JumpRule keeps one record far ahead of its partition's time from
// moving the watermark (docs/EVENT-TIME.md says it for operators).
//
// Without it a partition's time is the largest T added from it, so a
// single record stamped an hour ahead (a producer's skewed clock) raised
// the watermark by an hour, and every on-time edge after it was late.
// With it, a partition's time moves only on evidence:
//
//   - The reference of an edge is the later of its partition's time and
//     the watermark plus the lateness plus one tick (the time every
//     partition that is not idle has reached). An edge at most MaxJump
//     after it is in range: it moves its partition's time, as before.
//   - An edge further ahead is held: buffered like any other (in the
//     caps, in MinOffsets, released in order once the watermark passes
//     it), but it does not move its partition's time.
//   - A held edge is caught up (an ordinary buffered edge from then on)
//     once its reference has come within MaxJump of it.
//   - Confirmations edges in a row from one partition, all held (no edge
//     in range between them), that spread over at least MaxJump of event
//     time confirm a jump: the partition's time moves to the newest of
//     them if each came within MaxJump of the others (the whole feed
//     moved), else to the oldest. A burst from one producer spreads over
//     milliseconds and confirms nothing. A partition without a time
//     before the first watermark (a fresh start) takes its first
//     Confirmations edges so, without the spread.
//   - A held edge is discarded (handed to the caller, which dead-letters
//     it as future) once its partition has moved on by MaxJump through
//     edges in range since it was held, and it is still ahead: the
//     stream went on at its old time. Edges in range that come within
//     the lateness of a held edge catch it up first, so no edge of a
//     stream whose disorder stays within the lateness is discarded.
//   - When every partition is idle the watermark moves to the latest
//     partition time, after the held edges dated at or before the wall
//     clock have been taken as confirmed (the input went quiet and they
//     are not in the future); later ones stay held.
//   - Over a buffer cap, held edges go first: those their partition has
//     contradicted (an edge in range came after them) are discarded, then
//     streaks of at least Confirmations edges are confirmed, then the rest
//     is discarded, before the cap releases anything early.
type JumpRule struct {
	// MaxJump, in ticks: how far after its reference an edge is still
	// believed (0: the rule is off, every edge moves its partition's
	// time). It should exceed the lateness.
	MaxJump int64
	// Confirmations is the number of held edges in a row that confirm a
	// jump (at least 2).
	Confirmations int
	// Tick is the duration of a tick, for the wall clock (0: the wall
	// clock confirms nothing).
	Tick time.Duration
}

func (j *JumpRule) on() bool { return j.MaxJump > 0 }

// SetJumpRule sets the rule for the edges added from then on (the zero
// JumpRule, the default, turns it off).
func (r *Reorder) SetJumpRule(j JumpRule) {
	j.MaxJump = max(j.MaxJump, 0)
	j.Confirmations = max(j.Confirmations, 2)
	r.jump = j
}

// jumpState is a partition's held edges and the evidence about them.
type jumpState struct {
	// cont is how far the partition's time has moved through edges in
	// range (confirmed jumps not counted), in ticks, saturating: held
	// edges are discarded by its progress since they were held.
	cont int64
	// held is the keys of the partition's buffered edges that came ahead
	// (held, or caught up since), a min-heap whose slots know their index
	// (slotMeta.pos); a release merges it with the runs and the heap.
	held []reorderKey
	// queue is the held edges in arrival order, from qhead on. An entry
	// whose edge was released, discarded or caught up since is dropped
	// when it reaches the head.
	queue []heldEntry
	qhead int
	// streak is the edges held in a row since the last edge in range.
	streak jumpStreak
}

type heldEntry struct {
	slot   int32
	arr    int64  // the edge's arrival number (its slot may be reused)
	contAt int64  // cont when it was held
	streak uint32 // the streak it came in
}

type jumpStreak struct {
	n        int
	min, max int64
	// coherent: each edge came within MaxJump of the streak's range, so its
	// times have no gap wider than MaxJump.
	coherent bool
	id       uint32
}

// end ends the current streak: later held edges start a new one.
func (st *jumpStreak) end() {
	if st.n > 0 {
		*st = jumpStreak{id: st.id + 1}
	}
}

// Discarded is an edge the jump rule dropped: held ahead of its
// partition's time and never confirmed. The caller dead-letters it
// (class future).
type Discarded struct {
	Edge Edge
	// PartitionTime is its partition's time when it was dropped.
	PartitionTime int64
	// Cap: dropped to bring the buffer within a cap (else: its partition
	// went on at its old time for MaxJump).
	Cap bool
}

// JumpEventKind says what happened to a partition's time.
type JumpEventKind uint8

const (
	// JumpHeld: edges came more than MaxJump ahead and are held.
	JumpHeld JumpEventKind = iota + 1
	// JumpConfirmed: later edges confirmed a jump of the partition's time.
	JumpConfirmed
	// JumpClock: the input went quiet; held edges dated at or before the
	// wall clock moved the partition's time.
	JumpClock
	// JumpDiscarded: held edges were discarded (the stream went on at its
	// old time, or a cap).
	JumpDiscarded
)

func (k JumpEventKind) String() string {
	switch k {
	case JumpHeld:
		return "held"
	case JumpConfirmed:
		return "confirmed"
	case JumpClock:
		return "clock"
	case JumpDiscarded:
		return "discarded"
	}
	return "unknown"
}

// JumpEvent is what the jump rule did to a partition since the events
// were last taken (AppendJumpEvents), one per kind and partition. Edges
// marked History (read again after a restart) make no events.
type JumpEvent struct {
	Kind      JumpEventKind
	Partition int
	// Edges is the number of edges held or discarded, or of jumps.
	Edges int
	// T is the first edge's time (held, discarded), or the partition's
	// time after the last jump (confirmed, clock).
	T int64
	// From is the partition's time at the first edge held or discarded,
	// or before the first jump (math.MinInt64: none yet).
	From int64
}

// event records one thing the rule did to p.
func (r *Reorder) event(kind JumpEventKind, p *partState, t, from int64) {
	for i := range r.events {
		if e := &r.events[i]; e.Kind == kind && e.Partition == p.id {
			e.Edges++
			if kind == JumpConfirmed || kind == JumpClock {
				e.T = t
			}
			return
		}
	}
	r.events = append(r.events, JumpEvent{Kind: kind, Partition: p.id, Edges: 1, T: t, From: from})
}

// AppendJumpEvents appends what the jump rule did since the last call
// to dst (in the order it first happened) and forgets it.
func (r *Reorder) AppendJumpEvents(dst []JumpEvent) []JumpEvent {
	dst = append(dst, r.events...)
	r.events = r.events[:0]
	return dst
}

// AppendDiscarded appends the edges the jump rule discarded since the
// last call to dst and forgets them. They have left the buffer (and
// MinOffsets): the caller dead-letters them before it commits past them.
func (r *Reorder) AppendDiscarded(dst []Discarded) []Discarded {
	dst = append(dst, r.discarded...)
	clear(r.discarded)
	r.discarded = r.discarded[:0]
	return dst
}

// Held returns the number of buffered edges that came more than MaxJump
// ahead of their reference (held, or caught up since).
func (r *Reorder) Held() int { return r.nHeld }

// StreamTime returns the latest partition time (math.MinInt64 before
// any): the newest edge time the buffer believes, held edges aside.
// Without the jump rule it is MaxT.
func (r *Reorder) StreamTime() int64 {
	if !r.jump.on() {
		return r.maxT
	}
	return r.stream
}

// PartitionTime is one partition's event time (AppendPartitionTimes).
type PartitionTime struct {
	Partition int
	// Time is the partition's time (math.MinInt64: none yet), Watermark
	// its share of the watermark: Time minus the lateness minus one tick.
	Time, Watermark int64
	// Idle: it does not hold the watermark back now.
	Idle bool
	// Held is its buffered edges that came ahead (Held).
	Held int
}

// AppendPartitionTimes appends every partition's time to dst, by
// partition.
func (r *Reorder) AppendPartitionTimes(dst []PartitionTime) []PartitionTime {
	now := r.now()
	n := len(dst)
	for _, p := range r.parts {
		w := int64(math.MinInt64)
		if p.maxT != math.MinInt64 {
			w = satSub(satSub(p.maxT, r.lateness), 1)
		}
		dst = append(dst, PartitionTime{Partition: p.id, Time: p.maxT, Watermark: w, Idle: r.idleAt(p, now), Held: len(p.held)})
	}
	slices.SortFunc(dst[n:], func(a, b PartitionTime) int { return a.Partition - b.Partition })
	return dst
}

// reference is the time an edge of p is measured against: the later of
// p's time and the time every partition that is not idle has reached
// (math.MinInt64: neither is known).
func (r *Reorder) reference(p *partState) int64 {
	ref := p.maxT
	if r.w != minWatermark {
		ref = max(ref, satAdd(satAdd(r.w, r.lateness), 1))
	}
	return ref
}

// ahead reports whether an edge of p at t is more than MaxJump after its
// reference (always, without a reference).
func (r *Reorder) ahead(p *partState, t int64) bool {
	ref := r.reference(p)
	return ref == math.MinInt64 || t > satAdd(ref, r.jump.MaxJump)
}

// bootstrapping reports whether p has held edges but no time yet, before
// the first watermark: its first edges are not known to be in range or
// not, and it holds the watermark back until they confirm a time.
func (r *Reorder) bootstrapping(p *partState) bool {
	return r.jump.on() && p.maxT == math.MinInt64 && r.w == minWatermark && len(p.held) > 0
}

// advance takes an edge of p at t in range under the rule: it moves p's
// time, ends p's streak of held edges, and settles the held edges.
func (r *Reorder) advance(p *partState, t int64) {
	if t > p.maxT {
		if p.maxT != math.MinInt64 {
			p.cont = satAdd(p.cont, satDiff(t, p.maxT))
		}
		p.maxT = t
		r.stream = max(r.stream, t)
	}
	p.streak.end()
	if p.qhead < len(p.queue) {
		r.settle(p)
	}
}

// hold takes the edge of key k (in its slot, its offset queued) as held.
func (r *Reorder) hold(p *partState, k reorderKey) {
	r.slotMeta(k.slot).held = true
	r.heldPush(p, k)
	r.nHeld++
	p.queue = append(p.queue, heldEntry{slot: k.slot, arr: k.arr, contAt: p.cont, streak: p.streak.id})
	st := &p.streak
	if st.n == 0 {
		st.min, st.max, st.coherent = k.t, k.t, true
	} else {
		if k.t < satSub(st.min, r.jump.MaxJump) || k.t > satAdd(st.max, r.jump.MaxJump) {
			st.coherent = false
		}
		st.min, st.max = min(st.min, k.t), max(st.max, k.t)
	}
	st.n++
	if r.reference(p) != math.MinInt64 && !r.slot(k.slot).History {
		// (A fresh partition's first edges wait for their own streak, and
		// History was told of before a restart: nothing to tell.)
		r.event(JumpHeld, p, k.t, p.maxT)
	}
}

// checkStreak confirms p's streak of held edges if it is long and wide
// enough.
func (r *Reorder) checkStreak(p *partState) {
	st := &p.streak
	if st.n < r.jump.Confirmations {
		return
	}
	fresh := p.maxT == math.MinInt64 && r.w == minWatermark
	if fresh || satDiff(st.max, st.min) >= r.jump.MaxJump {
		r.confirm(p)
	}
}

// confirm takes p's streak as a jump of its time.
func (r *Reorder) confirm(p *partState) {
	to := p.streak.min
	if p.streak.coherent {
		to = p.streak.max
	}
	from := p.maxT
	p.maxT = max(p.maxT, to)
	r.stream = max(r.stream, p.maxT)
	p.streak.end()
	if from != math.MinInt64 || r.w != minWatermark {
		r.event(JumpConfirmed, p, p.maxT, from)
	}
	r.sweep(p)
	r.settle(p)
}

// settle goes through p's held edges from the oldest: those released,
// discarded or caught up leave the queue; one held for MaxJump of p's
// progress in range is discarded; the first still waiting stops it (the
// later ones were held later).
func (r *Reorder) settle(p *partState) {
	for p.qhead < len(p.queue) {
		h := &p.queue[p.qhead]
		if k, ok := r.heldKey(p, h); ok {
			switch {
			case !r.ahead(p, k.t):
				r.unhold(p, k)
			case p.cont-h.contAt < r.jump.MaxJump:
				r.compactQueue(p)
				return
			default:
				r.discard(p, h.slot, false)
			}
		}
		p.qhead++
	}
	r.compactQueue(p)
}

// sweep goes through all of p's held edges after its time jumped: those
// caught up are ordinary buffered edges from then on.
func (r *Reorder) sweep(p *partState) {
	q := p.queue[:p.qhead]
	for i := p.qhead; i < len(p.queue); i++ {
		h := p.queue[i]
		k, ok := r.heldKey(p, &h)
		switch {
		case !ok:
		case !r.ahead(p, k.t):
			r.unhold(p, k)
		default:
			q = append(q, h)
		}
	}
	p.queue = q
	r.compactQueue(p)
}

// unhold moves a held edge that is caught up to the main heap: an
// ordinary buffered edge (its offset stays queued).
func (r *Reorder) unhold(p *partState, k reorderKey) {
	r.heldRemove(p, int(r.slotMeta(k.slot).pos))
	r.slotMeta(k.slot).held = false
	r.nHeld--
	r.push(k)
}

// settleAll settles every partition with held edges (the watermark
// moved: their references did).
func (r *Reorder) settleAll() {
	for _, p := range r.heldParts() {
		r.settle(p)
	}
}

func (r *Reorder) compactQueue(p *partState) {
	switch {
	case p.qhead == len(p.queue):
		p.queue, p.qhead = p.queue[:0], 0
	case p.qhead >= 64 && 2*p.qhead >= len(p.queue):
		n := copy(p.queue, p.queue[p.qhead:])
		p.queue, p.qhead = p.queue[:n], 0
	}
}

// heldKey returns the key of h's edge if it is still held in p (not
// released or discarded since).
func (r *Reorder) heldKey(p *partState, h *heldEntry) (reorderKey, bool) {
	m := r.slotMeta(h.slot)
	if !m.held || m.part != p || int(m.pos) >= len(p.held) || p.held[m.pos].arr != h.arr {
		return reorderKey{}, false
	}
	return p.held[m.pos], true
}

// heldParts returns the partitions with held edges, by id (the order
// discards happen in must not depend on a map's).
func (r *Reorder) heldParts() []*partState {
	var ps []*partState
	for _, p := range r.parts {
		if len(p.held) > 0 || p.qhead < len(p.queue) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b *partState) int { return a.id - b.id })
	return ps
}

// discard drops the held edge in slot: out of the buffer, into the
// discarded edges for the caller (byCap: to relieve a cap).
func (r *Reorder) discard(p *partState, slot int32, byCap bool) {
	m := r.slotMeta(slot)
	e := r.slot(slot)
	r.heldRemove(p, int(m.pos))
	r.nHeld--
	p.q.release(m.qi)
	p.n--
	p.bytes -= m.bytes
	r.n--
	r.bytes -= m.bytes
	r.discarded = append(r.discarded, Discarded{Edge: *e, PartitionTime: p.maxT, Cap: byCap})
	if !e.History {
		r.event(JumpDiscarded, p, e.T, p.maxT)
	}
	r.freeSlot(slot)
}

// emitHeld releases p's oldest held edge (a release's merge).
func (r *Reorder) emitHeld(p *partState) {
	k := r.heldRemove(p, 0)
	r.slotMeta(k.slot).held = false
	r.nHeld--
	r.emitHeap(k.slot)
}

// idleWatermark is the watermark when every partition is idle: the
// largest time added without the rule; with it, the latest partition
// time after the wall clock confirmed the held edges it could.
func (r *Reorder) idleWatermark(now time.Time) int64 {
	if !r.jump.on() {
		return r.maxT
	}
	if r.jump.Tick > 0 {
		wall := now.UnixNano() / int64(r.jump.Tick)
		for _, p := range r.heldParts() {
			to := int64(math.MinInt64)
			for _, k := range p.held {
				if k.t <= wall {
					to = max(to, k.t)
				}
			}
			if to > p.maxT {
				from := p.maxT
				p.maxT = to
				r.stream = max(r.stream, to)
				p.streak.end()
				r.event(JumpClock, p, to, from)
				r.sweep(p)
				r.settle(p)
			}
		}
	}
	return r.stream
}

// settleHeld runs after a release moved the watermark: every partition's
// held edges are settled, and a buffer still over a cap is relieved of
// held edges (relieve). It reports whether a jump was taken.
func (r *Reorder) settleHeld() bool {
	r.settleAll()
	return r.overCap() && r.relieve()
}

// relieve makes room in a buffer over a cap from held edges, before the
// cap releases anything early (which would move the watermark to them):
// first those their partition contradicted, then streaks long enough are
// taken as jumps, then the rest. It reports whether a jump was taken.
func (r *Reorder) relieve() (jumped bool) {
	ps := r.heldParts()
	discard := func(p *partState, pass func(h *heldEntry) bool) {
		for i := p.qhead; i < len(p.queue) && r.overCap(); i++ {
			h := &p.queue[i]
			if k, ok := r.heldKey(p, h); ok && pass(h) && r.ahead(p, k.t) {
				r.discard(p, h.slot, true)
			}
		}
	}
	for _, p := range ps {
		discard(p, func(h *heldEntry) bool { return p.streak.n == 0 || h.streak != p.streak.id })
	}
	for _, p := range ps {
		if r.overCap() && p.streak.n >= r.jump.Confirmations {
			r.confirm(p)
			jumped = true
		}
	}
	for _, p := range ps {
		discard(p, func(*heldEntry) bool { return true })
		r.settle(p)
	}
	return jumped
}

// The held heap of a partition: a binary min-heap by key whose slots
// know their index (slotMeta.pos), so that a discarded edge leaves it
// at once (a continuously skewed producer would otherwise leave a key
// per record behind for up to max_future).

func (r *Reorder) heldPush(p *partState, k reorderKey) {
	p.held = append(p.held, k)
	r.heldUp(p.held, len(p.held)-1)
}

// heldRemove removes and returns the key at index i of p's held heap.
func (r *Reorder) heldRemove(p *partState, i int) reorderKey {
	h := p.held
	k := h[i]
	last := len(h) - 1
	h[i] = h[last]
	h = h[:last]
	p.held = h
	if i < last {
		if i > 0 && h[i].less(&h[(i-1)/2]) {
			r.heldUp(h, i)
		} else {
			r.heldDown(h, i)
		}
	}
	return k
}

func (r *Reorder) heldUp(h []reorderKey, i int) {
	k := h[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !k.less(&h[parent]) {
			break
		}
		h[i] = h[parent]
		r.slotMeta(h[i].slot).pos = int32(i)
		i = parent
	}
	h[i] = k
	r.slotMeta(k.slot).pos = int32(i)
}

func (r *Reorder) heldDown(h []reorderKey, i int) {
	n := len(h)
	k := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(&h[c]) {
			c++
		}
		if !h[c].less(&k) {
			break
		}
		h[i] = h[c]
		r.slotMeta(h[i].slot).pos = int32(i)
		i = c
	}
	h[i] = k
	r.slotMeta(k.slot).pos = int32(i)
}

// satAdd is a + b for b >= 0, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

// satDiff is a - b for a >= b, saturating at math.MaxInt64.
func satDiff(a, b int64) int64 {
	if d := a - b; d >= 0 {
		return d
	}
	return math.MaxInt64
}
