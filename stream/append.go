package stream

import (
	"fmt"
	"math"
	"slices"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/internal/fanout"
	"github.com/motifwatch/motifwatch/window"
)

// appender adds released batches to the window, the one way edges go in.
// A batch takes three passes:
//
//  1. flags: per range of the batch, which edges are self-loops, roots
//     and Replayed, and whether the range is in time order;
//  2. fill: per range, each edge's time, number attributes, metadata and
//     the ids the window's dictionary finds by key (window.IDs.KeyID),
//     written at the edge's final position;
//  3. take, on this goroutine in batch order: the node cap, the ids not
//     found by key (interned, so ids come out in batch order), string
//     attributes and node labels (window.Strings codes in batch order),
//     order errors and the runs to mine. It touches an edge again only
//     for what it must do in order.
//
// Passes 1 and 2 run on the window's workers for a batch of at least
// parallelMin edges, on this goroutine otherwise. The result does not
// depend on the number of workers.
type appender struct {
	w     *window.Window
	meta  *edgeMetas
	roots *roots
	nodes nodeCap
	attrs []window.Attr // the schema's edge attributes
	// labelCol is the node label column, or -1.
	labelCol int
	// lastT is the time of the last edge appended: evict keeps the span
	// before it.
	lastT    int64
	hasLastT bool

	// Scratch, kept at the largest batch's size (counted in Bytes): the
	// batch's edges as the window takes them, one flags byte per edge, a
	// part per worker.
	cols  window.Columns
	flags []uint8
	parts []part
}

// part is what pass 1 found in one range of the batch, and where pass 2
// writes the range's edges.
type part struct {
	n           int // edges that are no self-loop
	first, last int64
	sorted      bool
	start       int // the range's first edge's index in the columns
}

// Per-edge flags of pass 1.
const (
	flagSelfLoop uint8 = 1 << iota
	flagRoot
	flagReplayed
)

// parallelMin is the batch from which the window's workers share passes 1
// and 2: below it, starting them costs more than they save.
const parallelMin = 4096

// noID marks an endpoint pass 2 did not find by key.
const noID = ^uint32(0)

// append adds the batch to the window (window.Window.AppendBatch: the
// adjacency lists filled by the window's workers) and returns the
// position runs of its root edges: the ranges to mine. On an edge out of
// order, the edges before it go in and the error names it.
func (a *appender) append(batch []*ingest.Edge, out *Output) ([]run, error) {
	workers := 1
	if len(batch) >= parallelMin {
		workers = a.w.Workers()
	}
	n, sorted := a.flag(batch, workers)
	first := a.w.End()
	meta := a.meta.grow(first, n)
	a.fill(batch, workers, n, meta)
	return a.take(batch, first, meta, sorted, out)
}

// flag is pass 1. It returns the edges that are no self-loop, and whether
// they are in time order after the window's last edge.
func (a *appender) flag(batch []*ingest.Edge, workers int) (n int, sorted bool) {
	if cap(a.flags) < len(batch) {
		a.flags = make([]uint8, len(batch))
	}
	if cap(a.parts) < workers {
		a.parts = make([]part, workers)
	}
	flags, parts := a.flags[:len(batch)], a.parts[:workers]
	fanout.Ranges(len(batch), workers, func(k, lo, hi int) {
		pt := part{sorted: true}
		for i, e := range batch[lo:hi] {
			if selfLoop(e) {
				flags[lo+i] = flagSelfLoop
				continue
			}
			if pt.n == 0 {
				pt.first = e.T
			} else if e.T < pt.last {
				pt.sorted = false
			}
			pt.last = e.T
			pt.n++
			var f uint8
			if a.roots.root(e) {
				f |= flagRoot
			}
			if e.Replayed {
				f |= flagReplayed
			}
			flags[lo+i] = f
		}
		parts[k] = pt
	})
	sorted = true
	lastT := a.w.LastT()
	for k := range parts {
		pt := &parts[k]
		pt.start = n
		n += pt.n
		if pt.n == 0 {
			continue
		}
		sorted = sorted && pt.sorted && pt.first >= lastT
		lastT = pt.last
	}
	return n, sorted
}

// fill is pass 2: the columns and meta, n edges long, at the edges' final
// positions (before the node cap takes any out).
func (a *appender) fill(batch []*ingest.Edge, workers, n int, meta []edgeMeta) {
	c := &a.cols
	c.Src, c.Dst, c.T = slices.Grow(c.Src[:0], n)[:n], slices.Grow(c.Dst[:0], n)[:n], slices.Grow(c.T[:0], n)[:n]
	if len(c.Attrs) != len(a.attrs) {
		c.Attrs = make([][]float64, len(a.attrs))
	}
	for j := range c.Attrs {
		c.Attrs[j] = slices.Grow(c.Attrs[j][:0], n)[:n]
	}
	ids := a.w.IDs()
	flags, parts := a.flags, a.parts
	fanout.Ranges(len(batch), workers, func(k, lo, hi int) {
		pos := parts[k].start
		for i, e := range batch[lo:hi] {
			if flags[lo+i]&flagSelfLoop != 0 {
				continue
			}
			c.Src[pos], c.Dst[pos], c.T[pos] = knownID(ids, e.SrcKey), knownID(ids, e.DstKey), e.T
			meta[pos] = edgeMeta{seq: e.Seq, offset: e.Origin.Offset, partition: int32(e.Origin.Partition), hasSeq: e.HasSeq}
			for j, at := range a.attrs {
				if at.Kind != window.String {
					c.Attrs[j][pos] = number(e, j)
				}
			}
			pos++
		}
	})
}

// take is pass 3: edges the node cap refuses leave the columns (the
// later ones move up), the others get their ids, string attributes,
// labels and runs; then the columns go into the window.
func (a *appender) take(batch []*ingest.Edge, first int64, meta []edgeMeta, sorted bool, out *Output) ([]run, error) {
	c := &a.cols
	ids := a.w.IDs()
	lastT := a.w.LastT()
	var runs []run
	to, from := 0, 0 // an edge's index in the columns, and where pass 2 put it
	for i, f := range a.flags[:len(batch)] {
		if f&flagSelfLoop != 0 {
			out.SelfLoops++
			continue
		}
		e := batch[i]
		if !a.nodes.admit(ids, e, out) {
			from++
			continue
		}
		if to != from {
			a.move(meta, to, from)
		}
		from++
		if c.Src[to] == noID {
			c.Src[to], _ = ids.InternKey(e.SrcKey, e.Src)
		}
		if c.Dst[to] == noID {
			c.Dst[to], _ = ids.InternKey(e.DstKey, e.Dst)
		}
		if !sorted {
			if e.T < lastT {
				return runs, a.outOfOrder(e, first, to, meta, out)
			}
			lastT = e.T
		}
		a.strings(e, to)
		var horizon int64
		if f&flagReplayed != 0 {
			horizon = a.roots.horizon(e.Origin)
		}
		runs = addRun(runs, f&flagRoot != 0, f&flagReplayed != 0, horizon, first+int64(to))
		to++
	}
	a.keep(to, len(meta), out)
	if _, err := a.w.AppendBatch(*c); err != nil {
		return runs, fmt.Errorf("stream: appending %d edges at position %d: %w", len(c.T), first, err)
	}
	if n := len(runs); n > 0 {
		runs[n-1].trim()
	}
	a.meta.lastBatch = out.Appended
	return runs, nil
}

// move puts the edge pass 2 wrote at index from at index to (< from).
func (a *appender) move(meta []edgeMeta, to, from int) {
	c := &a.cols
	c.Src[to], c.Dst[to], c.T[to] = c.Src[from], c.Dst[from], c.T[from]
	for j := range c.Attrs {
		c.Attrs[j][to] = c.Attrs[j][from]
	}
	meta[to] = meta[from]
}

// keep cuts the columns and the n new metadata entries to the first to
// edges, the ones that go in, and counts them.
func (a *appender) keep(to, n int, out *Output) {
	c := &a.cols
	c.Src, c.Dst, c.T = c.Src[:to], c.Dst[:to], c.T[:to]
	for j := range c.Attrs {
		c.Attrs[j] = c.Attrs[j][:to]
	}
	a.meta.drop(n - to)
	out.Appended += to
	if to > 0 {
		a.lastT, a.hasLastT = c.T[to-1], true
	}
}

// outOfOrder appends the edges before e (at index to, its ids interned)
// and returns why e cannot follow them, as Append says it.
func (a *appender) outOfOrder(e *ingest.Edge, first int64, to int, meta []edgeMeta, out *Output) error {
	c := &a.cols
	src, dst := c.Src[to], c.Dst[to]
	a.keep(to, len(meta), out)
	_, err := a.w.AppendBatch(*c)
	if err == nil {
		_, err = a.w.Append(window.Edge{Src: src, Dst: dst, T: e.T, Attrs: make([]float64, len(c.Attrs))})
	}
	return fmt.Errorf("stream: edge %s->%s at %d from partition %d offset %d: %w",
		e.Src, e.Dst, e.T, e.Origin.Partition, e.Origin.Offset, err)
}

// strings sets, in batch order, what takes a code from the window's
// strings: e's string attributes (at index to) and its nodes' labels.
func (a *appender) strings(e *ingest.Edge, to int) {
	c := &a.cols
	for j, at := range a.attrs {
		if at.Kind != window.String {
			continue
		}
		var code uint32
		if j < len(e.Attrs) && e.Attrs[j].Set {
			// Held by the edge, released with it (not pinned): see window.Strings.
			code = a.w.Strings().Code(e.Attrs[j].Str)
		}
		c.Attrs[j][to] = float64(code)
	}
	if a.labelCol < 0 {
		return
	}
	if e.SrcLabel != "" {
		a.w.SetNodeAttr(a.labelCol, c.Src[to], float64(a.w.Strings().Intern(e.SrcLabel)))
	}
	if e.DstLabel != "" {
		a.w.SetNodeAttr(a.labelCol, c.Dst[to], float64(a.w.Strings().Intern(e.DstLabel)))
	}
}

// number returns e's value of number attribute col, NaN when missing.
func number(e *ingest.Edge, col int) float64 {
	if col >= len(e.Attrs) || !e.Attrs[col].Set {
		return math.NaN()
	}
	return e.Attrs[col].Num
}

// bytes is the scratch's memory.
func (a *appender) bytes() int64 {
	c := &a.cols
	b := int64(cap(c.Src)+cap(c.Dst))*4 + int64(cap(c.T))*8 + int64(cap(a.flags))
	for _, col := range c.Attrs {
		b += int64(cap(col)) * 8
	}
	return b
}

// selfLoop reports e.Src == e.Dst, from their keys when they tell (no
// string compare: the names lie apart from the edge, in the decoders'
// dictionary).
func selfLoop(e *ingest.Edge) bool {
	if same, ok := window.SameNode(e.SrcKey, e.DstKey); ok {
		return same
	}
	return e.Src == e.Dst
}

// knownID returns the id the window's dictionary holds for key k, or noID
// when it must be looked up by name (or interned). An id found stays
// right while take interns the others: interning neither releases an id
// nor rebinds a name.
func knownID(ids *window.IDs, k window.Key) uint32 {
	if id, ok := ids.KeyID(k); ok {
		return id
	}
	return noID
}
