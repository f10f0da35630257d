package count3

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// Families selects counting passes.
type Families uint8

const (
	// Stars: the centre pass, which counts the two-node and star cells.
	Stars Families = 1 << iota
	// Triangles: static triangles and the triangle pass.
	Triangles
	// All families: the whole grid.
	All = Stars | Triangles
)

// Family returns the pass that counts cell c.
func Family(c Cell) Families {
	for i, rc := range rawCell {
		if rc == c && i >= rawTri && i < rawStar4 {
			return Triangles
		}
	}
	return Stars
}

// Sequences are the centre pass's inputs laid out flat for a device:
// centre i's incident edges are Events[Off[i]:Off[i+1]], with Slots[i]
// neighbour slots.
type Sequences struct {
	Off    []int64
	Slots  []int32
	Events []Event
}

// Device runs the centre pass over Sequences (package gpu's CUDA kernel);
// its counters must equal CountSequences'. The triangle pass stays on the
// host: it walks pair lists, not sequences.
type Device interface {
	CountSequences(ctx context.Context, s *Sequences, delta int64) (Raw, error)
}

// Options configure Count.
type Options struct {
	// Workers is the number of goroutines (at least 1).
	Workers int
	// Device, if set, runs the passes; the host then only builds their
	// inputs.
	Device Device
}

// CountSequences runs the centre pass over s on the CPU, sequence by
// sequence: the reference for a Device.
func CountSequences(s *Sequences, delta int64) Raw {
	var raw Raw
	var ns []nbrState
	for i := range len(s.Off) - 1 {
		ev := s.Events[s.Off[i]:s.Off[i+1]]
		if len(ev) < 3 {
			continue
		}
		ns = resize(ns, int(s.Slots[i]))
		scanCentre(ev, ns, delta, &raw)
	}
	return raw
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Count returns the raw counters of the triples of the requested families
// in w, with window delta, whose last edge lies in req.Range and is not
// masked by req.RootMask. Totals do not depend on the worker count.
func Count(ctx context.Context, w *window.Window, delta int64, req motif.Request, fam Families, opts Options) (Raw, error) {
	var raw Raw
	if err := req.CheckRootMask(); err != nil {
		return raw, err
	}
	sc := scope{lo: req.Range.Lo, hi: min(req.Range.Hi, w.End()), mask: req.RootMask}
	if sc.hi <= max(sc.lo, w.First()) || w.Len() == 0 {
		return raw, nil
	}
	var nodes uint32
	for p := w.First(); p < sc.hi; p++ {
		nodes = max(nodes, w.Src(p)+1, w.Dst(p)+1)
	}
	c := &counter{w: w, sc: sc, delta: delta, nodes: int(nodes), workers: max(opts.Workers, 1), dev: opts.Device}
	if err := c.centres(ctx, fam); err != nil {
		return raw, err
	}
	if fam&Triangles != 0 {
		if err := c.triangles(ctx); err != nil {
			return raw, err
		}
	}
	for i := range c.raws {
		raw.Add(&c.raws[i].Raw)
	}
	return raw, nil
}

// paddedRaw keeps workers' counters on separate cache lines.
type paddedRaw struct {
	Raw
	_ [128]byte
}

type counter struct {
	w       *window.Window
	sc      scope
	delta   int64
	nodes   int
	workers int
	dev     Device
	raws    []paddedRaw

	// Static graph, for triangles: node v's distinct neighbours and their
	// edge counts at nbr[off[v] : off[v]+deg[v]].
	off  []int64
	deg  []int32
	nbr  []uint32
	mult []int32
}

// parallel runs fn over [0, n) in chunks claimed by the workers.
func (c *counter) parallel(ctx context.Context, n, chunk int, fn func(worker, lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for wk := range c.workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(int64(chunk))) - chunk
				if i >= n {
					return
				}
				fn(wk, i, min(i+chunk, n))
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// heavyFirst runs fn(worker, i) for every i in [0, n): first, one at a
// time and heaviest first, the items whose weight is at least
// 1/(16·workers) of total (a hub's centre, which can hold a large share of
// all edge ends), so that no worker starts one of them late and finishes
// alone; then the rest in chunks.
func (c *counter) heavyFirst(ctx context.Context, n, chunk int, total int64, weight func(i int) int64, fn func(worker, i int)) error {
	limit := max(total/int64(16*c.workers), 1)
	var heavy []int
	for i := range n {
		if weight(i) >= limit {
			heavy = append(heavy, i)
		}
	}
	slices.SortFunc(heavy, func(a, b int) int { return cmp.Compare(weight(b), weight(a)) })
	err := c.parallel(ctx, len(heavy), 1, func(wk, lo, hi int) {
		for _, i := range heavy[lo:hi] {
			fn(wk, i)
		}
	})
	if err != nil {
		return err
	}
	return c.parallel(ctx, n, chunk, func(wk, lo, hi int) {
		for i := lo; i < hi; i++ {
			if weight(i) < limit {
				fn(wk, i)
			}
		}
	})
}

// degree is node v's incident edges in the window (its centre pass's cost).
func (c *counter) degree(v int) int64 {
	return int64(len(c.w.Out(uint32(v))) + len(c.w.In(uint32(v))))
}

// centres runs the centre pass (Stars) and, for Triangles, records each
// node's distinct neighbours.
func (c *counter) centres(ctx context.Context, fam Families) error {
	c.raws = make([]paddedRaw, c.workers)
	tri := fam&Triangles != 0
	if tri {
		c.off = make([]int64, c.nodes+1)
		for v := range c.nodes {
			c.off[v+1] = c.off[v] + int64(len(c.w.Out(uint32(v)))+len(c.w.In(uint32(v))))
		}
		c.deg = make([]int32, c.nodes)
		c.nbr = make([]uint32, c.off[c.nodes])
		c.mult = make([]int32, c.off[c.nodes])
	}
	stars := fam&Stars != 0
	var seqs *seqBuilder
	if c.dev != nil && stars {
		seqs = newSeqBuilder(c.nodes)
	}
	builders := make([]*centreBuilder, c.workers)
	states := make([][]nbrState, c.workers)
	err := c.heavyFirst(ctx, c.nodes, 256, 2*int64(c.w.Len()), c.degree, func(wk, v int) {
		b := builders[wk]
		if b == nil {
			b = newCentreBuilder(c.w, c.sc, c.nodes)
			builders[wk] = b
		}
		b.build(uint32(v))
		if tri {
			c.deg[v] = int32(len(b.nbrs))
			copy(c.nbr[c.off[v]:], b.nbrs)
			copy(c.mult[c.off[v]:], b.mult)
		}
		if !stars || len(b.ev) < 3 || !anyCounted(b.ev) {
			return
		}
		if seqs != nil {
			seqs.put(v, b.ev, len(b.nbrs))
			return
		}
		states[wk] = resize(states[wk], len(b.nbrs))
		scanCentre(b.ev, states[wk], c.delta, &c.raws[wk].Raw)
	})
	if err != nil || seqs == nil {
		return err
	}
	return c.onDevice(ctx, seqs.sequences())
}

func (c *counter) onDevice(ctx context.Context, s *Sequences) error {
	raw, err := c.dev.CountSequences(ctx, s, c.delta)
	if err != nil {
		return err
	}
	c.raws[0].Add(&raw)
	return nil
}

func anyCounted(ev []Event) bool {
	for i := range ev {
		if ev[i].Flags&fCounted != 0 {
			return true
		}
	}
	return false
}

// seqBuilder collects sequences for a device, each at the index of its
// centre so the layout does not depend on the worker schedule.
type seqBuilder struct {
	ev    [][]Event
	slots []int32
}

func newSeqBuilder(n int) *seqBuilder {
	return &seqBuilder{ev: make([][]Event, n), slots: make([]int32, n)}
}

func (s *seqBuilder) put(i int, ev []Event, slots int) {
	s.ev[i] = slices.Clone(ev) // distinct indices: no lock needed
	s.slots[i] = int32(slots)
}

// sequences lays the collected sequences out flat, longest first (ties by
// index), so that a device's neighbouring threads get similar lengths.
func (s *seqBuilder) sequences() *Sequences {
	var order []int
	total := 0
	for i, ev := range s.ev {
		if len(ev) > 0 {
			order = append(order, i)
			total += len(ev)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(s.ev[b]) - len(s.ev[a]) })
	out := &Sequences{Off: make([]int64, 1, len(order)+1), Events: make([]Event, 0, total)}
	for _, i := range order {
		out.Events = append(out.Events, s.ev[i]...)
		out.Off = append(out.Off, int64(len(out.Events)))
		out.Slots = append(out.Slots, s.slots[i])
	}
	return out
}
