//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/motif/count3"
	"github.com/motifwatch/motifwatch/window"
)

// count3WinKernels are kernels/count3.cu's kernels of the counting over
// the window mirror (CountWindow).
var count3WinKernels = []string{"c3Entries", "c3Offsets", "c3Gather", "c3KeyIota", "c3KeyOf",
	"c3PieceCount", "c3Pieces", "c3PFill", "c3PHeads", "c3PSlots", "c3PieceKeys", "c3Sweep",
	"c3BGather", "c3Groups", "c3Forward", "c3FFill", "c3FOff", "c3Masks", "c3List", "c3Tasks", "c3Triangles"}

// Piece lengths of CountWindow: a centre's sequence is cut into pieces
// of at most centrePiece counted edges, a triangle's merged light sides
// into pieces of trianglePiece edges, each counted by one thread after a
// warm-up over the δ window before it, so that neither a hub's sequence
// nor a triangle of two heavy sides is one thread's serial walk.
const (
	centrePiece   = 1024
	trianglePiece = 128
)

var _ count3.WindowDevice = (*Counter)(nil)

// TimePhases makes every later CountWindow write one line to to with
// the time of each of its phases on the device (each phase then ends with
// a synchronisation); nil turns it off. A measurement aid: call it before
// the counter is used.
func (c *Counter) TimePhases(to io.Writer) { c.phases = to }

// maxWindowEdges bounds CountWindow's window: positions are packed above
// three flag bits in 32 (kernels/count3.cu), and its indexes are 32-bit.
const maxWindowEdges = 1 << 29

// CountWindow implements count3.WindowDevice: it brings the device's
// window mirror up to date with w and counts fam's families (Stars,
// Small, Triangles) over the mirror's edges [w.First(), s.Hi), building
// every sequence and pair list on the device (kernels/count3.cu,
// "Counting over the device's window mirror"). Only the scope's mask and
// the counters cross the bus. Its scratch takes several hundred bytes per
// window edge (BENCHMARKS.md); a device that has no room for it reports count3.ErrDeviceFull,
// and count3 counts on the host instead.
func (c *Counter) CountWindow(ctx context.Context, w *window.Window, delta int64, s count3.Scope, fam count3.Families) (count3.Raw, error) {
	var raw count3.Raw
	first := w.First()
	hi := min(s.Hi, w.End())
	if hi <= max(s.Lo, first) || delta < 0 || fam&(count3.Stars|count3.Small|count3.Triangles) == 0 {
		return raw, nil
	}
	if err := ctx.Err(); err != nil {
		return raw, err
	}
	if hi-first > maxWindowEdges {
		return raw, fmt.Errorf("gpu count3: a window of %d edges exceeds the device counter's %d", hi-first, maxWindowEdges)
	}
	d := c.d
	err := d.do(func() error {
		if err := d.syncWindow(w); err != nil {
			return err
		}
		wc := &winCount{d: d, delta: delta, first: first, t0: w.T(first), n: hi - first, centrePiece: c.centrePiece,
			trianglePiece: c.trianglePiece, timed: c.phases != nil, start: time.Now()}
		get, release := d.scratch()
		defer release()
		wc.get = get
		if err := wc.run(s, fam, &raw); err != nil {
			return err
		}
		if c.phases != nil {
			fmt.Fprintf(c.phases, "gpu count3 phases (ms):%s total %.1f\n", wc.marks.String(), time.Since(wc.start).Seconds()*1e3)
		}
		return nil
	})
	var oom *OutOfMemoryError
	if errors.As(err, &oom) {
		// The host counts it (count3.Count): a window whose counting
		// does not fit the device is no failed query.
		return count3.Raw{}, fmt.Errorf("gpu count3: %w: %w", count3.ErrDeviceFull, err)
	}
	if err != nil {
		return count3.Raw{}, fmt.Errorf("gpu count3: %w", err)
	}
	return raw, nil
}

// winCount is one CountWindow on the device's thread.
type winCount struct {
	d                          *device
	get                        func(int64) (cu.DevicePtr, error)
	delta, first, t0, n        int64
	centrePiece, trianglePiece int64
	verts, n2                  int64
	// A: the entries by centre, in position order.
	acentre, at, apf, aother, coff cu.DevicePtr
	raw                            cu.DevicePtr
	err                            error
	// timed: mark syncs the device and records each phase's time
	// (Counter.TimePhases).
	timed       bool
	start, last time.Time
	marks       strings.Builder
}

// mark ends a phase when timed.
func (wc *winCount) mark(name string) {
	if !wc.timed || wc.err != nil {
		return
	}
	if wc.err = wc.d.sync(name); wc.err != nil {
		return
	}
	now := time.Now()
	if wc.last.IsZero() {
		wc.last = wc.start
	}
	fmt.Fprintf(&wc.marks, " %s %.1f", name, now.Sub(wc.last).Seconds()*1e3)
	wc.last = now
}

// buf allocates a scratch buffer; the first failure sticks in wc.err.
func (wc *winCount) buf(bytes int64) cu.DevicePtr {
	if wc.err != nil {
		return 0
	}
	p, err := wc.get(bytes)
	wc.err = err
	return p
}

// launch runs a kernel over n items, threads of 256; the first failure
// sticks.
func (wc *winCount) launch(name string, n int64, args ...any) {
	if wc.err != nil || n <= 0 {
		return
	}
	wc.err = wc.d.launch(name, min(blocks(n, 256), wc.d.sms*64), 256, args...)
}

// scan is an exclusive prefix sum of n uint32s.
func (wc *winCount) scan(in, out cu.DevicePtr, n int64) {
	if wc.err == nil {
		wc.err = wc.d.scan(in, out, n)
	}
}

func (wc *winCount) sort(keys, vals cu.DevicePtr, n, bound int64) (cu.DevicePtr, cu.DevicePtr) {
	if wc.err != nil {
		return keys, vals
	}
	keys, vals, wc.err = wc.d.radixSort(keys, vals, n, bound, wc.get)
	return keys, vals
}

// scanTotal is d.scan (an exclusive prefix sum of n uint32s, in may
// equal out) that also returns the exact total: the scan's entries are
// uint32 and wrap past 2^32 − 1, its first level's tile sums (of 1024
// entries each) are read back and added in 64 bits. Exact while no tile's
// sum wraps, so for counts below 2^22 each (the callers' bounds).
func (wc *winCount) scanTotal(in, out cu.DevicePtr, n int64) int64 {
	const tile = 1024 // kernels/temporal.cu SCAN_TILE
	tiles := (n + tile - 1) / tile
	sums := wc.buf(tiles * 4)
	if wc.err != nil {
		return 0
	}
	d := wc.d
	if wc.err = d.launch("scanLocal", int(tiles), 256, in, out, n, sums); wc.err != nil {
		return 0
	}
	if tiles > 1 {
		scanned := wc.buf(tiles * 4)
		if wc.err == nil {
			wc.err = d.scan(sums, scanned, tiles)
		}
		if wc.err == nil {
			wc.err = d.launch("scanAdd", int(tiles), 256, out, n, scanned)
		}
	}
	host := make([]uint32, tiles)
	if wc.err == nil {
		wc.err = d.dtoh(unsafe.Pointer(&host[0]), sums, tiles*4)
	}
	return sum32(host)
}

// sumAt reads n uint32s back and adds them in 64 bits.
func (wc *winCount) sumAt(p cu.DevicePtr, n int64) int64 {
	if wc.err != nil || n == 0 {
		return 0
	}
	host := make([]uint32, n)
	wc.err = wc.d.dtoh(unsafe.Pointer(&host[0]), p, n*4)
	return sum32(host)
}

// fits32 fails the count (count3.ErrDeviceFull: the host counts) when a
// total is past the 32-bit indexes of kernels/count3.cu.
func (wc *winCount) fits32(what string, total int64) bool {
	if wc.err == nil && total > math.MaxUint32 {
		wc.err = fmt.Errorf("%w: %d %s exceed the device counter's 32-bit indexes", count3.ErrDeviceFull, total, what)
	}
	return wc.err == nil
}

// u32At reads one uint32 back (a size the next step allocates by).
func (wc *winCount) u32At(p cu.DevicePtr, i int64) int64 {
	if wc.err != nil {
		return 0
	}
	var v uint32
	wc.err = wc.d.dtoh(unsafe.Pointer(&v), p+cu.DevicePtr(i*4), 4)
	return int64(v)
}

func (wc *winCount) zero(p cu.DevicePtr, bytes int64) {
	if wc.err == nil {
		wc.err = wc.d.fail("clear", cu.MemsetD32(p, 0, bytes/4))
	}
}

func (wc *winCount) run(s count3.Scope, fam count3.Families, raw *count3.Raw) error {
	d := wc.d
	dw := &d.win
	wc.verts = dw.verts
	slot0 := wc.first - dw.base
	n := wc.n
	// Entries by centre: A.
	keys, vals := wc.buf(2*n*4), wc.buf(2*n*8)
	loops := wc.buf(4)
	wc.zero(loops, 4)
	wc.launch("c3Entries", n, dw.src, dw.dst, slot0, n, wc.verts, keys, vals, loops)
	keys, vals = wc.sort(keys, vals, 2*n, wc.verts+1)
	wc.n2 = 2*n - 2*wc.u32At(loops, 0)
	if wc.err != nil || wc.n2 == 0 {
		return wc.err
	}
	n2 := wc.n2
	wc.acentre = keys
	wc.coff = wc.buf((wc.verts + 1) * 4)
	wc.launch("c3Offsets", n2+1, keys, n2, wc.verts, wc.coff)
	lo := max(s.Lo, wc.first)
	var mask cu.DevicePtr
	if s.Mask != nil {
		m := s.Mask[lo-s.Lo : min(int64(len(s.Mask)), wc.first+n-s.Lo)]
		mask = wc.buf(int64(len(m)))
		if wc.err == nil && len(m) > 0 {
			wc.err = d.htod(mask, unsafe.Pointer(&m[0]), int64(len(m)))
		}
	}
	wc.at, wc.apf, wc.aother = wc.buf(n2*8), wc.buf(n2*4), wc.buf(n2*4)
	wc.launch("c3Gather", n2, vals, n2, keys, dw.src, dw.dst, dw.t, slot0, wc.first, lo, mask, wc.at, wc.apf, wc.aother)
	wc.raw = wc.buf(count3.RawLen * 8)
	wc.zero(wc.raw, count3.RawLen*8)
	wc.mark("entries")
	if fam&(count3.Stars|count3.Small) != 0 {
		wc.centres(fam)
	}
	if fam&count3.Triangles != 0 {
		wc.triangles()
	}
	if wc.err == nil {
		wc.err = d.sync("count3 over the window")
	}
	if wc.err == nil {
		wc.err = d.dtoh(unsafe.Pointer(&raw[0]), wc.raw, count3.RawLen*8)
	}
	return wc.err
}

// centres runs the centre pass: pieces, their neighbour slots, the sweep.
func (wc *winCount) centres(fam count3.Families) {
	verts, delta := wc.verts, wc.delta
	np := wc.buf((verts + 1) * 4)
	wc.launch("c3PieceCount", verts+1, wc.coff, verts, wc.centrePiece, np)
	pieceOff := wc.buf((verts + 1) * 4)
	wc.scan(np, pieceOff, verts+1)
	pieces := wc.u32At(pieceOff, verts)
	if wc.err != nil || pieces == 0 {
		return
	}
	pfrom, pcnt, pto := wc.buf(pieces*4), wc.buf(pieces*4), wc.buf(pieces*4)
	plen := wc.buf((pieces + 1) * 4)
	wc.launch("c3Pieces", pieces+1, wc.coff, pieceOff, verts, pieces, wc.at, delta, wc.centrePiece, pfrom, pcnt, pto, plen)
	// A piece's warm-up can be as long as its centre's sequence (a burst
	// within δ), so the pieces' entries are added in 64 bits here.
	entries := wc.sumAt(plen, pieces)
	if !wc.fits32("centre piece entries", entries) {
		return
	}
	poff := wc.buf((pieces + 1) * 4)
	wc.scan(plen, poff, pieces+1)
	wc.mark("pieces")
	keys, vals := wc.buf(entries*4), wc.buf(entries*8)
	pa, pq := wc.buf(entries*4), wc.buf(entries*4)
	wc.launch("c3PFill", entries, poff, pieces, entries, pfrom, wc.aother, keys, vals, pa, pq)
	keys, vals = wc.sort(keys, vals, entries, verts)
	wc.launch("c3KeyOf", entries, vals, entries, pq, keys)
	keys, vals = wc.sort(keys, vals, entries, pieces)
	head := wc.buf((entries + 1) * 4)
	wc.launch("c3PHeads", entries+1, vals, entries, pq, pa, wc.aother, head)
	e := wc.buf((entries + 1) * 4)
	wc.scan(head, e, entries+1)
	slots := wc.u32At(e, entries)
	pslot := wc.buf(entries * 4)
	wc.launch("c3PSlots", entries, vals, entries, head, e, pslot)
	pk, order := wc.buf(pieces*4), wc.buf(pieces*8)
	wc.launch("c3PieceKeys", pieces, pfrom, pto, pieces, pk, order)
	_, order = wc.sort(pk, order, pieces, 1<<16)
	wc.mark("slots")
	var st, sm cu.DevicePtr
	stars, small := int64(0), int64(0)
	if fam&count3.Stars != 0 {
		stars = 1
		st = wc.buf(slots * count3CentreState * 8)
		wc.zero(st, slots*count3CentreState*8)
	}
	if fam&count3.Small != 0 {
		small = 1
		sm = wc.buf(slots * count3SmallState * 8)
		wc.zero(sm, slots*count3SmallState*8)
	}
	if wc.err == nil {
		wc.err = wc.d.launch("c3Sweep", blocks(pieces, count3Block), count3Block,
			pieces, order, pfrom, pcnt, pto, poff, pslot, wc.at, wc.apf, delta, stars, small, st, sm, wc.raw)
	}
	wc.mark("sweep")
}

// count3SmallState is the Small family's per-slot state, in int64s.
const count3SmallState = 14

// triangles runs the triangle pass: pair groups, the forward adjacency,
// the listing, the counting tasks.
func (wc *winCount) triangles() {
	verts, n2, delta := wc.verts, wc.n2, wc.delta
	// B: A by (centre, neighbour), stable.
	keys, vals := wc.buf(n2*4), wc.buf(n2*8)
	wc.launch("c3KeyIota", n2, wc.aother, n2, keys, vals)
	keys, vals = wc.sort(keys, vals, n2, verts)
	wc.launch("c3KeyOf", n2, vals, n2, wc.acentre, keys)
	keys, vals = wc.sort(keys, vals, n2, verts)
	bcentre := keys
	bt, bpf, bother := wc.buf(n2*8), wc.buf(n2*4), wc.buf(n2*4)
	head, fin, fc, fci := wc.buf((n2+1)*4), wc.buf((n2+1)*4), wc.buf((n2+1)*4), wc.buf((n2+1)*4)
	wc.launch("c3BGather", n2+1, vals, n2, wc.acentre, wc.aother, wc.at, wc.apf, bt, bpf, bother, head, fin, fc, fci)
	e := wc.buf((n2 + 1) * 4)
	wc.scan(head, e, n2+1)
	wc.scan(fin, fin, n2+1)
	wc.scan(fc, fc, n2+1)
	wc.scan(fci, fci, n2+1)
	groups := wc.u32At(e, n2)
	if wc.err != nil || groups == 0 {
		return
	}
	wc.mark("pairs")
	gs := wc.buf((groups + 1) * 4)
	wc.launch("c3Groups", n2+1, head, e, n2, gs)
	fw := wc.buf((groups + 1) * 4)
	wc.launch("c3Forward", groups+1, gs, groups, bcentre, bother, wc.coff, e, fw)
	fidx := wc.buf((groups + 1) * 4)
	wc.scan(fw, fidx, groups+1)
	fg := wc.u32At(fidx, groups)
	if wc.err != nil || fg == 0 {
		return
	}
	fgs, fv := wc.buf(fg*4), wc.buf(fg*4)
	wc.launch("c3FFill", groups, fw, fidx, groups, gs, bother, fgs, fv)
	foff := wc.buf((verts + 1) * 4)
	wc.launch("c3FOff", verts+1, wc.coff, e, fidx, verts, foff)
	mask := wc.buf(groups * 8)
	wc.launch("c3Masks", groups, gs, groups, bt, wc.t0, max(delta, 1), mask)
	wc.mark("forward")
	tcount := wc.buf((fg + 1) * 4)
	wc.launch("c3List", fg+1, int64(0), fgs, fv, fg, foff, gs, bcentre, bt, mask, delta, tcount, cu.DevicePtr(0), cu.DevicePtr(0), cu.DevicePtr(0), wc.trianglePiece)
	// Each forward pair lists at most |F(v)| ≤ √(2·pairs) < 2^15
	// triangles (degree order), within scanTotal's bound.
	toff := wc.buf((fg + 1) * 4)
	tris := wc.scanTotal(tcount, toff, fg+1)
	if !wc.fits32("static triangles", tris) || tris == 0 {
		return
	}
	tr, tpc := wc.buf(tris*16), wc.buf((tris+1)*4)
	wc.launch("c3List", fg+1, int64(1), fgs, fv, fg, foff, gs, bcentre, bt, mask, delta, cu.DevicePtr(0), toff, tr, tpc, wc.trianglePiece)
	// A triangle's light sides hold fewer than the window's 2^29 edges:
	// fewer than 2^22 tasks of at least 128, within scanTotal's bound.
	tpoff := wc.buf((tris + 1) * 4)
	tasks := wc.scanTotal(tpc, tpoff, tris+1)
	if !wc.fits32("triangle tasks", tasks) {
		return
	}
	taskTri := wc.buf(tasks * 4)
	tk, order := wc.buf(tasks*4), wc.buf(tasks*8)
	wc.launch("c3Tasks", tris, tr, gs, tpoff, tris, wc.trianglePiece, taskTri, tk, order)
	_, order = wc.sort(tk, order, tasks, wc.trianglePiece+1)
	wc.mark("listing")
	if wc.err == nil {
		wc.err = wc.d.launch("c3Triangles", blocks(tasks, count3Block), count3Block,
			tr, tpoff, taskTri, order, tasks, gs, bt, bpf, fin, fc, fci, delta, wc.trianglePiece, wc.raw)
	}
	wc.mark("count")
}

// sum32 adds uint32 counts in 64 bits.
func sum32(v []uint32) int64 {
	var s int64
	for _, x := range v {
		s += int64(x)
	}
	return s
}
