package count3

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

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
	// Small: the two-edge and the two-node four-edge cells, counted in
	// the centre pass beside Stars (on the host when a Device runs Stars
	// over host-built sequences; on a WindowDevice, there).
	Small
	// Paths: the four-node, three-edge paths (the path pass; the
	// triangle pass runs too, to take off the triangles the path pass
	// counts).
	Paths
	// Cycles4: the four-node, four-edge cycles (cycle4.go).
	Cycles4
	// Paws: the four-node, four-edge paws, triangles with a tail
	// (paw.go).
	Paws
	// Grid3: SNAP's 36 cells and the four-node stars.
	Grid3 = Stars | Triangles
	// All families: every cell.
	All = Grid3 | Small | Paths | Cycles4 | Paws
)

// Family returns the pass that counts cell c.
func Family(c Cell) Families {
	switch {
	case c >= Paw:
		return Paws
	case c >= Cycle4:
		return Cycles4
	case c >= Path4:
		return Paths
	}
	if c >= Pair2 {
		return Small
	}
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
// host then: it walks pair lists, not sequences (a WindowDevice builds
// its own).
type Device interface {
	CountSequences(ctx context.Context, s *Sequences, delta int64) (Raw, error)
}

// WindowDevice counts over a window that it mirrors itself (package
// gpu's Counter): it builds every sequence and pair list it needs from its
// copy of the window's edges and runs the centre pass (Stars, Small) and
// the triangle pass (Triangles) there. Its counters must equal Count's on
// the host, counter for counter. Count hands it every family but Paths,
// which stay on the host.
type WindowDevice interface {
	CountWindow(ctx context.Context, w *window.Window, delta int64, s Scope, fam Families) (Raw, error)
}

// ErrDeviceFull is what a WindowDevice returns (wrapped) when it has no
// room to count a window: Count then counts on the host.
var ErrDeviceFull = errors.New("count3: the device has no room to count the window")

// Scope is the part of a request a WindowDevice counts: the triples
// whose last edge lies in [Lo, Hi) and, with a Mask, has Mask[p − Lo]
// set. Hi is at most the window's end and above its first position; the
// edges at or after Hi take no part. Delta is not negative.
type Scope struct {
	Lo, Hi int64
	Mask   []bool
}

// Options configure Count.
type Options struct {
	// Workers is the number of goroutines (at least 1).
	Workers int
	// Device, if set, runs the centre pass over sequences the host
	// builds; if it is also a WindowDevice, it runs the centre and
	// triangle passes over its own copy of the window instead.
	Device Device
	// Families are the families an Engine counts (zero: All); the
	// shapes of the others go to the wrapped engine. Count ignores it.
	Families Families
	// Phases, if set, receives one line per Count timing its passes
	// (`monitor mine --count-phases`): a measurement aid.
	Phases io.Writer
	// AlwaysCount makes an Engine count every count-mode request of a
	// counted shape over at least 1/MinShare of the window, without
	// weighing enumeration against counting (choose.go): tests of the
	// counters, and callers that know enumeration is hopeless.
	AlwaysCount bool
	// CycleCells, if not zero, restricts Count's four-cycles to the cells
	// Cycle4 + i of its set bits i; the others' counters stay zero. A few
	// cells cost a fraction of the 32 (cycle4sparse.go). An Engine sets
	// it per run from its requests and ignores the field in its own
	// options.
	CycleCells uint32
	// PawCells, if not empty, restricts Count's paws to its cells; the
	// others' counters stay zero. Up to eight cells go through sparse
	// tables, one for about a quarter of all 160's time (pawsparse.go),
	// and a set of M3's and M9's kin walks heavy triangles on their light
	// sides only (pawlight.go).
	// An Engine sets it per run from its requests and ignores the field
	// in its own options.
	PawCells PawMask
}

// CountSequences runs the centre pass over s on the CPU, sequence by
// sequence: the reference for a Device. A negative delta admits no
// triple.
func CountSequences(s *Sequences, delta int64) Raw {
	var raw Raw
	if delta < 0 {
		return raw
	}
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

// grow is resize without the clearing, for a buffer the caller then
// writes whole (a permutation's target, a value per index): a hub's
// groups' buffers are megabytes, cleared only to be overwritten.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Count returns the raw counters of the triples of the requested families
// in w, with window delta, whose last edge lies in req.Range and is not
// masked by req.RootMask. Totals do not depend on the worker count. Times
// and delta may lie anywhere in the int64 range: window tests take exact
// differences (apart) and searched bounds are saturated (motif.AddTicks,
// motif.SubTicks), never wrapped. A negative delta admits no triple.
func Count(ctx context.Context, w *window.Window, delta int64, req motif.Request, fam Families, opts Options) (Raw, error) {
	var raw Raw
	if err := req.CheckRootMask(); err != nil {
		return raw, err
	}
	sc := scope{lo: req.Range.Lo, hi: min(req.Range.Hi, w.End()), mask: req.RootMask}
	if sc.hi <= max(sc.lo, w.First()) || w.Len() == 0 || delta < 0 {
		return raw, nil
	}
	if wd, ok := opts.Device.(WindowDevice); ok && fam&(Stars|Triangles|Small) != 0 {
		return countOnDevice(ctx, wd, w, delta, req, sc, fam, opts)
	}
	// Node ids index the window's dictionary, so its size bounds them: a
	// scan of the edges for the largest id cost 15–30 ms a call on a
	// 10M-edge window.
	nodes := w.IDs().Cap()
	c := &counter{w: w, sc: sc, delta: delta, nodes: nodes, workers: max(opts.Workers, 1), dev: opts.Device}
	if fam&Cycles4 != 0 {
		c.cycleTab = cycleTables(opts.CycleCells)
		c.wedgeTab = newWedgeTables(opts.CycleCells)
	}
	if fam&Paws != 0 {
		c.pawTab = pawTablesOf(opts.PawCells)
		if c.pawTab != nil {
			c.pawLight = pawLightTablesOf(c.pawTab.raws)
		}
	}
	c.ph = newPhases(fam, c.workers, opts.Phases)
	defer c.ph.done()
	if err := c.centres(ctx, fam); err != nil {
		return raw, err
	}
	c.ph.mark("centres")
	if fam&(Triangles|Paths) != 0 {
		if err := c.triangles(ctx); err != nil {
			return raw, err
		}
	}
	if fam&Paths != 0 {
		if err := c.paths(ctx); err != nil {
			return raw, err
		}
		c.ph.mark("paths")
	}
	if fam&(Cycles4|Paws) != 0 {
		if err := c.fourEdgePasses(ctx, fam); err != nil {
			return raw, err
		}
	}
	for i := range c.raws {
		raw.Add(&c.raws[i].Raw)
	}
	if fam&Cycles4 != 0 && opts.CycleCells != 0 {
		// The full window counts every cell: keep the asked ones.
		for r := rawCycle; r < RawLen; r++ {
			if cl := rawCell[r]; cl >= 0 && opts.CycleCells>>(cl-Cycle4)&1 == 0 {
				raw[r] = 0
			}
		}
	}
	if fam&Paws != 0 && opts.PawCells != (PawMask{}) {
		// The dense pass counts every cell: keep the asked ones.
		for r := rawPaw; r < rawCycle; r++ {
			if cl := rawCell[r]; cl >= Paw && !opts.PawCells.Has(int(cl-Paw)) {
				raw[r] = 0
			}
		}
	}
	if fam&Paths != 0 {
		raw.dropTriangles()
		if fam&Triangles == 0 { // counted for the paths alone
			clear(raw[rawTri:rawStar4])
		}
	}
	return raw, nil
}

// countOnDevice counts fam's families but the host's (Paths, Cycles4,
// Paws) on wd and those, if asked, on the host; all of them on the host
// if wd has no room.
func countOnDevice(ctx context.Context, wd WindowDevice, w *window.Window, delta int64, req motif.Request, sc scope, fam Families, opts Options) (Raw, error) {
	const hostOnly = Paths | Cycles4 | Paws
	ph := newPhases(fam&^hostOnly, 1, opts.Phases)
	raw, err := wd.CountWindow(ctx, w, delta, Scope{Lo: sc.lo, Hi: sc.hi, Mask: sc.mask}, fam&(Stars|Triangles|Small))
	if errors.Is(err, ErrDeviceFull) {
		host := opts
		host.Device = nil
		return Count(ctx, w, delta, req, fam, host)
	}
	if err != nil {
		return Raw{}, err
	}
	ph.mark("device")
	ph.done()
	if fam&hostOnly != 0 {
		host := opts
		host.Device = nil
		rest, err := Count(ctx, w, delta, req, fam&hostOnly, host)
		if err != nil {
			return Raw{}, err
		}
		raw.Add(&rest)
	}
	return raw, nil
}

// paddedRaw keeps workers' counters on separate cache lines.
type paddedRaw struct {
	Raw
	_ [128]byte
}

type counter struct {
	ph      *phases
	w       *window.Window
	sc      scope
	delta   int64
	nodes   int
	workers int
	dev     Device
	raws    []paddedRaw
	// cycleTab, if set, restricts the cycle pass to a few cells' patterns
	// (Options.CycleCells).
	cycleTab *sparseTables
	// pawTab, if set, restricts the paw pass to a few cells' patterns
	// (Options.PawCells).
	pawTab *pawTables
	// pawLight, if set, counts pawTab's cells by the light-side walk
	// where a triangle's heavy side is laid out (pawHeavyOf) and heavy
	// enough (pawlight.go).
	pawLight   *pawLightTables
	pawHeavyOf *pawHeavy
	// wedgeTab: the wedge pairs the cycle pass's wedge sweeps count
	// (cycle4wedge.go).
	wedgeTab *wedgeTables
	// builders are the workers' centre builders, made on first use and
	// kept for every pass (their node-sized arrays are most of a worker's
	// memory).
	builders []*centreBuilder

	// Static graph, for triangles: node v's distinct neighbours and their
	// edge counts at nbr[off[v] : off[v]+deg[v]].
	off  []int64
	deg  []int32
	nbr  []uint32
	mult []int32
}

// parallel runs fn over [0, n) in chunks claimed by the workers.
func (c *counter) parallel(ctx context.Context, n, chunk int, fn func(worker, lo, hi int)) error {
	if c.ph != nil {
		inner := fn
		fn = func(wk, lo, hi int) { t0 := time.Now(); inner(wk, lo, hi); c.ph.add(wk, time.Since(t0)) }
	}
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
// alone; then the rest in chunks, claimed from the same pool.
func (c *counter) heavyFirst(ctx context.Context, n, chunk int, total int64, weight func(i int) int64, fn func(worker, i int)) error {
	return c.heavySplit(ctx, n, chunk, total, weight, 1, func(wk, i, _, _ int) { fn(wk, i) })
}

// heavySplit is heavyFirst for items whose work can be cut into parts
// that run apart: a heavy item of weight w runs as min(ceil(w/limit),
// maxParts) parts (limit: the heavy items' least weight), the heaviest
// item's first, fn(worker, i, part, parts) doing part part of parts; the
// rest run whole, part 0 of 1. A hub that carries most of a pass's work
// then keeps every worker busy instead of one. Each part scans the whole
// item's input to find its share, so a caller caps the parts: enough to
// spread a hub over every worker, few enough that the repeated scans stay
// small beside the item's work.
func (c *counter) heavySplit(ctx context.Context, n, chunk int, total int64, weight func(i int) int64, maxParts int64, fn func(worker, i, part, parts int)) error {
	limit := max(total/int64(16*c.workers), 1)
	type piece struct {
		i, part, parts int
		w              int64 // the whole item's
	}
	var heavy []piece
	for i := range n {
		if w := weight(i); w >= limit {
			parts := min((w+limit-1)/limit, maxParts)
			for p := range parts {
				heavy = append(heavy, piece{i, int(p), int(parts), w})
			}
		}
	}
	// The heaviest item's parts first: a hub's work grows faster than its
	// weight (its groups are the largest), so its parts lead.
	slices.SortStableFunc(heavy, func(a, b piece) int { return cmp.Compare(b.w, a.w) })
	// One pool, no barrier: the heavy items first, then the chunks, so
	// workers done with theirs take chunks while the heaviest still runs.
	chunks := (n + chunk - 1) / chunk
	return c.parallel(ctx, len(heavy)+chunks, 1, func(wk, item, _ int) {
		if item < len(heavy) {
			h := heavy[item]
			fn(wk, h.i, h.part, h.parts)
			return
		}
		lo := (item - len(heavy)) * chunk
		for i := lo; i < min(lo+chunk, n); i++ {
			if weight(i) < limit {
				fn(wk, i, 0, 1)
			}
		}
	})
}

// inPart reports whether node v falls in part part of parts (a hash, so
// that parts of a hub's work are alike whatever the ids' order).
func inPart(v uint32, part, parts int) bool {
	return parts == 1 || int(uint64(v*0x9E3779B1)*uint64(parts)>>32) == part
}

// builder returns worker wk's centre builder.
func (c *counter) builder(wk int) *centreBuilder {
	if c.builders[wk] == nil {
		c.builders[wk] = newCentreBuilder(c.w, c.sc, c.nodes)
	}
	return c.builders[wk]
}

// degree is node v's incident edges in the window (its centre pass's cost).
func (c *counter) degree(v int) int64 {
	return int64(len(c.w.Out(uint32(v))) + len(c.w.In(uint32(v))))
}

// pieces cuts centre v's sequence into ranges of about limit edges by
// position. Each range but the first starts its warm-up at the first
// position whose time is within δ of its first counted position's: every
// edge in the δ window of a counted edge of the range is then in it, and
// scanCentre's counts, which depend only on that window, equal the whole
// sequence's.
func (c *counter) pieces(v uint32, limit int64) []centreRange {
	out, in := c.w.Out(v), c.w.In(v)
	b := centreBuilder{w: c.w}
	before := func(p int64) int64 { return int64(b.firstAt(out, p) + b.firstAt(in, p)) }
	first, hi := c.w.First(), c.sc.hi
	total := before(hi)
	n := min((total+limit-1)/limit, int64(8*c.workers))
	var rs []centreRange
	lo := first
	for k := int64(1); k <= n && lo < hi; k++ {
		end := hi
		if k < n {
			want := k * total / n
			end = first + int64(sort.Search(int(hi-first), func(i int) bool { return before(first+int64(i)) >= want }))
		}
		if end <= lo {
			continue
		}
		from := first
		if lo > first {
			t := motif.SubTicks(c.w.T(lo), c.delta)
			from = first + int64(sort.Search(int(lo-first), func(i int) bool { return c.w.T(first+int64(i)) >= t }))
		}
		rs = append(rs, centreRange{from: from, to: end, count: lo})
		lo = end
	}
	return rs
}

// centres runs the centre pass (Stars, Small) and, for Triangles, records
// each node's distinct neighbours.
func (c *counter) centres(ctx context.Context, fam Families) error {
	c.raws = make([]paddedRaw, c.workers)
	c.builders = make([]*centreBuilder, c.workers)
	tri := fam&(Triangles|Paths|Cycles4|Paws) != 0
	if tri {
		c.off = make([]int64, c.nodes+1)
		for v := range c.nodes {
			c.off[v+1] = c.off[v] + int64(len(c.w.Out(uint32(v)))+len(c.w.In(uint32(v))))
		}
		c.deg = make([]int32, c.nodes)
		c.nbr = make([]uint32, c.off[c.nodes])
		c.mult = make([]int32, c.off[c.nodes])
	}
	small := fam&Small != 0
	stars := fam&Stars != 0
	var seqs *seqBuilder
	if c.dev != nil && stars {
		seqs = newSeqBuilder(c.nodes)
	}
	// The pass builds each centre's sequence when it counts anything; a
	// sequence ends a counted shape only if it holds two edges (Small) or
	// three (Stars).
	events := stars || small
	shortest := 3
	if small {
		shortest = 2
	}
	builder := c.builder
	states := make([][]nbrState, c.workers)
	smallStates := make([][]smallState, c.workers)
	scanSmallOf := func(wk int, b *centreBuilder) {
		smallStates[wk] = resize(smallStates[wk], len(b.nbrs))
		scanSmall(b.ev, smallStates[wk], c.delta, &c.raws[wk].Raw)
	}
	// countEvents runs the host's scans over a sequence that can end a
	// counted shape; scan checks that first.
	countEvents := func(wk int, b *centreBuilder) {
		if stars && len(b.ev) >= 3 {
			states[wk] = resize(states[wk], len(b.nbrs))
			scanCentre(b.ev, states[wk], c.delta, &c.raws[wk].Raw)
		}
		if small {
			scanSmallOf(wk, b)
		}
	}
	scan := func(wk int, b *centreBuilder) {
		if len(b.ev) >= shortest && anyCounted(b.ev) {
			countEvents(wk, b)
		}
	}
	whole := func(wk, v int) {
		b := builder(wk)
		if events {
			b.build(uint32(v))
		} else {
			b.neighbours(uint32(v))
		}
		if tri {
			c.deg[v] = int32(len(b.nbrs))
			copy(c.nbr[c.off[v]:], b.nbrs)
			copy(c.mult[c.off[v]:], b.mult)
		}
		switch {
		case !events || len(b.ev) < shortest || !anyCounted(b.ev):
		case seqs != nil:
			if len(b.ev) >= 3 {
				seqs.put(v, b.ev, len(b.nbrs))
			}
			if small {
				scanSmallOf(wk, b)
			}
		default:
			countEvents(wk, b)
		}
	}
	// Heavy centres first, heaviest first (a hub can hold a third of all
	// edge ends): on the host each is cut into pieces of about limit edges
	// that count apart, so that a hub is not one worker's alone; its
	// neighbours for the triangle pass are then a task of their own.
	limit := max(2*int64(c.w.Len())/int64(16*c.workers), 1)
	var heavy []int
	for v := range c.nodes {
		if c.degree(v) >= limit {
			heavy = append(heavy, v)
		}
	}
	slices.SortFunc(heavy, func(a, b int) int { return cmp.Compare(c.degree(b), c.degree(a)) })
	type task struct {
		v     int
		r     centreRange
		piece bool
	}
	var tasks []task
	for _, v := range heavy {
		if !events || seqs != nil {
			tasks = append(tasks, task{v: v})
			continue
		}
		for _, r := range c.pieces(uint32(v), limit) {
			tasks = append(tasks, task{v: v, r: r, piece: true})
		}
		if tri {
			tasks = append(tasks, task{v: v}) // the neighbours alone: events are off there
		}
	}
	// One pool: the heavy tasks first, then the other nodes in chunks of
	// 16 (ids need not be random: tgraphgen's Zipf hubs are the low ids,
	// and a chunk of 256 low ids held several times a worker's share on 16
	// cores), without a barrier between them, so that workers done with
	// the heavy tasks take chunks while the heaviest still runs.
	const chunk = 16
	chunks := (c.nodes + chunk - 1) / chunk
	err := c.parallel(ctx, len(tasks)+chunks, 1, func(wk, item, _ int) {
		if item >= len(tasks) {
			lo := (item - len(tasks)) * chunk
			for v := lo; v < min(lo+chunk, c.nodes); v++ {
				if c.degree(v) < limit {
					whole(wk, v)
				}
			}
			return
		}
		t := tasks[item]
		if !t.piece {
			if events && seqs == nil { // a cut hub's neighbours
				b := builder(wk)
				b.neighbours(uint32(t.v))
				c.deg[t.v] = int32(len(b.nbrs))
				copy(c.nbr[c.off[t.v]:], b.nbrs)
				copy(c.mult[c.off[t.v]:], b.mult)
				return
			}
			whole(wk, t.v)
			return
		}
		b := builder(wk)
		b.buildRange(uint32(t.v), t.r)
		scan(wk, b)
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
