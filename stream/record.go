package stream

import (
	"math"
	"strconv"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/window"
)

// recorder turns final matches into alerts (enumerate mode) or counts.
type recorder struct {
	w    *window.Window
	meta *edgeMetas
	// labelCol is the node label column, or -1.
	labelCol int
	// shown caches the record form of window edges (ISO time, attributes)
	// for one batch: an edge is in many matches (a fan-in burst's edges in
	// thousands), and its alerts share the read-only values.
	shown map[int64]shownEdge
}

// shownEdge is what an alert record shows of a window edge besides its
// endpoints and origin.
type shownEdge struct {
	time  string
	attrs map[string]any
}

// forget empties the cache of shown edges for a new batch.
func (r *recorder) forget() {
	if len(r.shown) > 4096 {
		r.shown = nil // a cleared map keeps its size: let a burst's go
	} else {
		clear(r.shown)
	}
}

// report turns a final match into an alert or a count.
func (r *recorder) report(q *registered, edges []int64, out *Output) {
	name := q.Query.Query.Name
	if !q.Enumerate {
		out.Counts[name]++
		return
	}
	out.Alerts = append(out.Alerts, r.alert(q, edges))
}

// alert builds the alert record of a match given by window positions (in
// motif edge order): the edges with their origin, attributes and ISO
// times, the graph node of every motif node with its label, and the
// query's description.
func (r *recorder) alert(q *registered, edges []int64) alerts.Alert {
	w, ids, unit := r.w, r.w.IDs(), r.w.Schema().TimeUnit
	mq := q.Query.Query
	a := alerts.Alert{Kind: alerts.KindMatch, Query: mq.Name, Description: mq.Description,
		Edges: make([]alerts.Edge, len(edges)), Nodes: make(map[string]alerts.Node, len(mq.Nodes))}
	hasSeq := true
	for i, pos := range edges {
		m := r.meta.at(pos)
		src, dst := w.Src(pos), w.Dst(pos)
		shown := r.show(pos, unit)
		a.Edges[i] = alerts.Edge{Src: ids.Name(src), Dst: ids.Name(dst), T: w.T(pos), Time: shown.time,
			Seq: m.seq, Partition: int(m.partition), Offset: m.offset, Attrs: shown.attrs}
		hasSeq = hasSeq && m.hasSeq
		if i < len(mq.Edges) {
			me := mq.Edges[i]
			a.Nodes[mq.Nodes[me.From].Name] = alerts.Node{ID: a.Edges[i].Src, Label: r.label(src)}
			a.Nodes[mq.Nodes[me.To].Name] = alerts.Node{ID: a.Edges[i].Dst, Label: r.label(dst)}
		}
	}
	a.First, a.Last = a.Edges[0].T, a.Edges[len(edges)-1].T
	a.FirstTime, a.LastTime = a.Edges[0].Time, a.Edges[len(edges)-1].Time
	a.MatchID = alerts.MatchID(mq.Name, a.Edges, hasSeq)
	return a
}

// show returns the record form of the edge at pos, from the cache.
func (r *recorder) show(pos int64, unit time.Duration) shownEdge {
	if e, ok := r.shown[pos]; ok {
		return e
	}
	if r.shown == nil {
		r.shown = make(map[int64]shownEdge)
	}
	e := shownEdge{time: alerts.TickTime(r.w.T(pos), unit), attrs: r.edgeAttrs(pos)}
	r.shown[pos] = e
	return e
}

// edgeAttrs returns the window's attributes of the edge at pos, leaving
// out missing values (NaN numbers, empty strings); nil when it has none.
func (r *recorder) edgeAttrs(pos int64) map[string]any {
	var attrs map[string]any
	for col, at := range r.w.Schema().EdgeAttrs {
		v := r.w.EdgeAttr(col, pos)
		var val any
		if at.Kind == window.String {
			s := r.w.Strings().Value(uint32(v))
			if s == "" {
				continue
			}
			val = s
		} else {
			switch {
			case math.IsNaN(v):
				continue
			case math.IsInf(v, 0):
				val = strconv.FormatFloat(v, 'g', -1, 64) // JSON has no infinities
			default:
				val = v
			}
		}
		if attrs == nil {
			attrs = make(map[string]any, len(r.w.Schema().EdgeAttrs))
		}
		attrs[at.Name] = val
	}
	return attrs
}

// label returns node v's label, or "" when it has none.
func (r *recorder) label(v uint32) string {
	if r.labelCol < 0 {
		return ""
	}
	return r.w.Strings().Value(uint32(r.w.NodeAttr(r.labelCol, v)))
}
