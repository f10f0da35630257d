package stream

import (
	"unsafe"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// held is an open match waiting for the watermark to pass its anti-edge
// intervals.
type held struct {
	q         *registered
	edges     []int64
	nodes     []uint32
	openUntil int64
}

// holder keeps the open matches until the watermark passes their
// intervals (settle), up to max (Options.MaxHeld; 0: no bound); past it,
// and when the memory cap evicts a held match's edges (release), a match
// is reported at once, provisional.
type holder struct {
	list    []held
	max     int
	rec     *recorder
	metrics *metrics
}

// hold keeps an open match until the watermark passes its intervals, or
// reports it at once (provisional) when max matches are already held.
func (h *holder) hold(q *registered, m *motif.Match, out *Output) {
	if h.max > 0 && len(h.list) >= h.max {
		h.early(q, m.Edges, out)
		return
	}
	h.list = append(h.list, held{q: q, edges: append([]int64(nil), m.Edges...),
		nodes: append([]uint32(nil), m.Nodes...), openUntil: m.OpenUntil})
}

// early reports an open match before its intervals closed, provisional.
func (h *holder) early(q *registered, edges []int64, out *Output) {
	out.Provisional++
	h.metrics.provisional.Inc()
	h.rec.report(q, edges, out)
	if q.Enumerate {
		out.Alerts[len(out.Alerts)-1].Provisional = true
	}
}

// settle re-checks held matches whose intervals the watermark has passed.
func (h *holder) settle(w *window.Window, watermark int64, out *Output) {
	keep := h.list[:0]
	for _, m := range h.list {
		if m.openUntil > watermark {
			keep = append(keep, m)
			continue
		}
		valid, open, until := m.q.plan.Recheck(w, m.edges, m.nodes, watermark)
		switch {
		case !valid:
			out.Discarded++
			h.metrics.discarded.Inc()
		case open: // cannot happen once the watermark passed openUntil; keep it safe
			m.openUntil = until
			keep = append(keep, m)
		default:
			h.rec.report(m.q, m.edges, out)
		}
	}
	h.list = keep
}

// release reports, provisional, every held match with an edge before
// position to: its edges are about to be evicted early.
func (h *holder) release(to int64, out *Output) {
	keep := h.list[:0]
	for _, m := range h.list {
		if m.edges[0] >= to {
			keep = append(keep, m)
			continue
		}
		h.early(m.q, m.edges, out)
	}
	h.list = keep
}

// keep drops the held matches of queries not in names.
func (h *holder) keep(names map[string]bool) {
	keep := h.list[:0]
	for _, m := range h.list {
		if names[m.q.Query.Query.Name] {
			keep = append(keep, m)
		}
	}
	h.list = keep
}

// oldest returns the earlier of t and the time of the first edge of any
// held match: eviction must keep their edges (their node ids must stay
// bound for Recheck).
func (h *holder) oldest(w *window.Window, t int64) int64 {
	for _, m := range h.list {
		t = min(t, w.T(m.edges[0]))
	}
	return t
}

// minOffsets returns, per partition, the lowest offset of the last edge
// of a held match (see Processor.HeldMinOffsets).
func (h *holder) minOffsets(meta *edgeMetas) map[int]int64 {
	mins := map[int]int64{}
	for _, m := range h.list {
		e := meta.at(m.edges[len(m.edges)-1])
		part := int(e.partition)
		if cur, ok := mins[part]; !ok || e.offset < cur {
			mins[part] = e.offset
		}
	}
	return mins
}

// bytes is the memory the held matches take.
func (h *holder) bytes() int64 {
	b := int64(cap(h.list)) * int64(unsafe.Sizeof(held{}))
	for i := range h.list {
		b += int64(cap(h.list[i].edges))*8 + int64(cap(h.list[i].nodes))*4
	}
	return b
}
