//go:build cuda

package gpu

import (
	"math/bits"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/motifwatch/motifwatch/window"
)

// devWindow mirrors a host window on one device: edge columns in slots
// (slot = position − base) and, per direction, a CSR of time-ordered
// adjacency (offsets per vertex; entry time, position, other endpoint).
// Each sync uploads only the positions the device has not seen and
// maintains the CSR on the device: evicted entries drop out, new edges
// are radix-sorted by vertex and appended after each vertex's survivors.
type devWindow struct {
	owner      *window.Window
	first, end int64 // mirrored positions [first, end)
	base       int64 // position of slot 0
	cap        int64 // column slots
	src, dst   cu.DevicePtr
	t          cu.DevicePtr
	eattr      cu.DevicePtr
	ncols      int
	nattr      cu.DevicePtr
	ncap       int64
	verts      int64 // vertices in the CSRs
	out, in    csr
	// pairs is the out-adjacency again, each vertex's entries ordered by
	// (other endpoint, position) instead of position: the edges u→v of one
	// pair form a time-ordered run found by binary search, so a closing
	// edge's candidates, an anti-edge's existence and the corrections of a
	// counted last step cost O(log degree) instead of a scan of a
	// (possibly hub-sized) list. It shares out.off; built lazily, when a
	// mining call whose plan uses it finds it older than the adjacency
	// (pairsFresh): its anti-edges.
	pairs      pairList
	pairsFresh bool
	// ranks holds, per column slot (edge e = u→v), where e falls in the
	// four lists of its endpoints: its index in out(u) and in(v), and how
	// many of in(u) and out(v) come before it. A step whose run ends
	// before the next motif edge in time, taken from a list of one of that
	// edge's endpoints, reads the run's end here instead of searching.
	// uint32 each, [4][rankCap]; rebuilt lazily after a sync (ranksFresh).
	ranks      cu.DevicePtr
	rankCap    int64
	ranksFresh bool
	win        cu.DevicePtr // the kernel's Win struct
}

type pairList struct {
	t, pos  cu.DevicePtr // int64 per entry
	other   cu.DevicePtr // uint32 per entry
	entries int64        // allocated entries
}

type csr struct {
	off            cu.DevicePtr // verts+1 uint32
	t, pos         cu.DevicePtr // int64 per entry
	other          cu.DevicePtr // uint32 per entry
	total, entries int64        // live entries, allocated entries
	offCap         int64
}

// winSlots is the kernel's Win struct: 24 eight-byte slots.
const winSlots = 24

// Bytes per window edge on the device: columns (src, dst, t: 16), two
// adjacency entries (out, in; t, pos, other: 20 each), four ranks (16),
// the pair-ordered entry when a query needs it (20), 8 per edge attribute.
func deviceBytesPerEdge(attrs int) int64 { return 16 + 40 + 16 + 20 + 8*int64(attrs) }

// syncWindow brings the mirror up to date with all of w.
func (d *device) syncWindow(w *window.Window) error { return d.syncRange(w, w.First(), w.End()) }

// syncRange makes the mirror hold exactly positions [newFirst, hi) of w.
// Ranges that only move forward (a stream; the time partitions of a batch
// run in order) are incremental: evict below newFirst, append up to hi.
func (d *device) syncRange(w *window.Window, newFirst, hi int64) error {
	dw := &d.win
	if dw.owner != w || newFirst < dw.first || hi < dw.end || dw.win == 0 {
		if err := d.resetWindow(w, newFirst); err != nil {
			return err
		}
	}
	lo := max(dw.end, newFirst)
	if lo == hi && newFirst == dw.first && int64(w.IDs().Cap()) <= dw.verts {
		return d.syncNodeAttrs(w)
	}
	if err := d.ensureSlots(w, newFirst, lo, hi); err != nil {
		return err
	}
	if err := d.uploadColumns(w, lo, hi); err != nil {
		return err
	}
	verts := int64(w.IDs().Cap())
	if verts < dw.verts {
		verts = dw.verts
	}
	if err := d.rebuild(&dw.out, dw.src, dw.dst, newFirst, lo, hi, verts); err != nil {
		return err
	}
	if err := d.rebuild(&dw.in, dw.dst, dw.src, newFirst, lo, hi, verts); err != nil {
		return err
	}
	dw.first, dw.end, dw.verts = newFirst, hi, verts
	dw.pairsFresh, dw.ranksFresh = false, false
	if err := d.syncNodeAttrs(w); err != nil {
		return err
	}
	return d.writeWin()
}

func (d *device) resetWindow(w *window.Window, first int64) error {
	dw := &d.win
	for _, p := range []cu.DevicePtr{dw.src, dw.dst, dw.t, dw.eattr, dw.nattr, dw.out.off, dw.out.t, dw.out.pos, dw.out.other,
		dw.in.off, dw.in.t, dw.in.pos, dw.in.other, dw.pairs.t, dw.pairs.pos, dw.pairs.other, dw.ranks} {
		d.pool.put(p)
	}
	winPtr := dw.win
	*dw = devWindow{owner: w, first: first, end: first, base: first, ncols: len(w.Schema().EdgeAttrs), win: winPtr}
	if dw.win == 0 {
		var err error
		if dw.win, err = d.pool.get(d, winSlots*8); err != nil {
			return err
		}
	}
	return nil
}

// ensureSlots makes room for positions up to hi. When the slots run out,
// the live positions [newFirst, lo) move to fresh buffers at slot 0 (of
// twice the live size), which both compacts and grows.
func (d *device) ensureSlots(w *window.Window, newFirst, lo, hi int64) error {
	dw := &d.win
	if hi-dw.base <= dw.cap {
		return nil
	}
	live := hi - newFirst
	ncap := max(2*live, 1<<16)
	src, err := d.pool.get(d, ncap*4)
	if err != nil {
		return err
	}
	dst, err := d.pool.get(d, ncap*4)
	if err != nil {
		return err
	}
	t, err := d.pool.get(d, ncap*8)
	if err != nil {
		return err
	}
	var eattr cu.DevicePtr
	if dw.ncols > 0 {
		if eattr, err = d.pool.get(d, ncap*8*int64(dw.ncols)); err != nil {
			return err
		}
	}
	keep := lo - newFirst
	if keep > 0 {
		from := newFirst - dw.base
		if err := d.launch("moveU32", blocks(keep, 256), 256, dw.src, src, from, keep); err != nil {
			return err
		}
		if err := d.launch("moveU32", blocks(keep, 256), 256, dw.dst, dst, from, keep); err != nil {
			return err
		}
		if err := d.launch("moveI64", blocks(keep, 256), 256, dw.t, t, from, keep); err != nil {
			return err
		}
		for c := 0; c < dw.ncols; c++ {
			srcCol := dw.eattr + cu.DevicePtr(int64(c)*dw.cap*8)
			dstCol := eattr + cu.DevicePtr(int64(c)*ncap*8)
			if err := d.launch("moveI64", blocks(keep, 256), 256, srcCol, dstCol, from, keep); err != nil {
				return err
			}
		}
		if err := d.sync("compact window columns"); err != nil {
			return err
		}
	}
	d.pool.put(dw.src)
	d.pool.put(dw.dst)
	d.pool.put(dw.t)
	d.pool.put(dw.eattr)
	dw.src, dw.dst, dw.t, dw.eattr, dw.cap, dw.base = src, dst, t, eattr, ncap, newFirst
	return nil
}

// uploadColumns copies positions [lo, hi): the only bytes of a batch that
// cross the bus.
func (d *device) uploadColumns(w *window.Window, lo, hi int64) error {
	n := hi - lo
	if n == 0 {
		return nil
	}
	dw := &d.win
	src, dst, t := w.Columns(lo, hi)
	slot := lo - dw.base
	if err := d.htod(dw.src+cu.DevicePtr(slot*4), unsafe.Pointer(&src[0]), n*4); err != nil {
		return err
	}
	if err := d.htod(dw.dst+cu.DevicePtr(slot*4), unsafe.Pointer(&dst[0]), n*4); err != nil {
		return err
	}
	if err := d.htod(dw.t+cu.DevicePtr(slot*8), unsafe.Pointer(&t[0]), n*8); err != nil {
		return err
	}
	for c := 0; c < dw.ncols; c++ {
		col := w.EdgeAttrColumn(c, lo, hi)
		if err := d.htod(dw.eattr+cu.DevicePtr((int64(c)*dw.cap+slot)*8), unsafe.Pointer(&col[0]), n*8); err != nil {
			return err
		}
	}
	return nil
}

// syncNodeAttrs uploads the node attribute columns, padded with each
// column's missing value to the vertex count. Node attributes are small
// (one value per live vertex) and may change on any edge, so they are
// copied whole.
func (d *device) syncNodeAttrs(w *window.Window) error {
	dw := &d.win
	cols := len(w.Schema().NodeAttrs)
	if cols == 0 {
		return nil
	}
	ncap := max(int64(w.IDs().Cap()), dw.verts, 1)
	if ncap > dw.ncap {
		d.pool.put(dw.nattr)
		var err error
		if dw.nattr, err = d.pool.get(d, 2*ncap*8*int64(cols)); err != nil {
			return err
		}
		dw.ncap = 2 * ncap
	}
	buf := make([]float64, dw.ncap)
	for c := 0; c < cols; c++ {
		col := w.NodeAttrColumn(c)
		copy(buf, col)
		miss := w.Missing(c)
		for i := len(col); i < len(buf); i++ {
			buf[i] = miss
		}
		if err := d.htod(dw.nattr+cu.DevicePtr(int64(c)*dw.ncap*8), unsafe.Pointer(&buf[0]), dw.ncap*8); err != nil {
			return err
		}
	}
	return d.writeWin()
}

// writeWin uploads the kernel's view of the window (layout: struct Win).
func (d *device) writeWin() error {
	dw := &d.win
	s := [winSlots]uint64{
		uint64(dw.src), uint64(dw.dst), uint64(dw.t), uint64(dw.base),
		uint64(dw.out.off), uint64(dw.out.t), uint64(dw.out.pos), uint64(dw.out.other),
		uint64(dw.in.off), uint64(dw.in.t), uint64(dw.in.pos), uint64(dw.in.other),
		uint64(dw.eattr), uint64(dw.cap), uint64(dw.nattr), uint64(dw.ncap), uint64(dw.verts),
		uint64(dw.pairs.t), uint64(dw.pairs.pos), uint64(dw.pairs.other),
		uint64(dw.ranks), uint64(dw.rankCap),
	}
	return d.htod(dw.win, unsafe.Pointer(&s[0]), winSlots*8)
}

// rebuild maintains one direction's CSR for the positions [newFirst, hi):
// old entries before newFirst drop out, the new edges [lo, hi) are
// appended, all on the device. owner is the column that names an entry's
// vertex (src for out-lists), other the column of its other endpoint.
func (d *device) rebuild(c *csr, owner, other cu.DevicePtr, newFirst, lo, hi, verts int64) error {
	dw := &d.win
	n := hi - lo
	oldVerts := dw.verts
	if c.off == 0 {
		oldVerts = 0
	}
	get, release := d.scratch()
	defer release()
	// 1. The new edges sorted by owner vertex, stable in position order.
	keys, err := get(n * 4)
	if err != nil {
		return err
	}
	vals, err := get(n * 8)
	if err != nil {
		return err
	}
	if n > 0 {
		if err := d.launch("gatherKeys", blocks(n, 256), 256, owner, lo-dw.base, lo, n, keys, vals); err != nil {
			return err
		}
		if keys, vals, err = d.radixSort(keys, vals, n, verts, get); err != nil {
			return err
		}
	}
	// 2. Survivors per vertex, new counts, new offsets.
	start, err := get(verts * 4)
	if err != nil {
		return err
	}
	keep, err := get(verts * 4)
	if err != nil {
		return err
	}
	cnt, err := get(verts * 4)
	if err != nil {
		return err
	}
	firstIdx, err := get(verts * 4)
	if err != nil {
		return err
	}
	size, err := get((verts + 1) * 4)
	if err != nil {
		return err
	}
	if err := d.launch("liveStart", blocks(verts, 256), 256, c.off, c.pos, oldVerts, verts, newFirst, start, keep); err != nil {
		return err
	}
	if err := d.fail("clear counts", cu.MemsetD32(cnt, 0, verts)); err != nil {
		return err
	}
	if err := d.launch("countNew", blocks(n, 256), 256, keys, n, cnt, firstIdx); err != nil {
		return err
	}
	if err := d.launch("addSizes", blocks(verts+1, 256), 256, keep, cnt, size, verts); err != nil {
		return err
	}
	newOff, err := d.pool.get(d, (verts+1)*4)
	if err != nil {
		return err
	}
	if err := d.scan(size, newOff, verts+1); err != nil {
		return err
	}
	var total32 uint32
	if err := d.dtoh(unsafe.Pointer(&total32), newOff+cu.DevicePtr(verts*4), 4); err != nil {
		return err
	}
	total := int64(total32)
	// 3. Scatter survivors and new entries into fresh arrays.
	var nc csr
	nc.off, nc.offCap, nc.total, nc.entries = newOff, verts+1, total, max(total, 1)
	if nc.t, err = d.pool.get(d, nc.entries*8); err != nil {
		return err
	}
	if nc.pos, err = d.pool.get(d, nc.entries*8); err != nil {
		return err
	}
	if nc.other, err = d.pool.get(d, nc.entries*4); err != nil {
		return err
	}
	if c.total > 0 {
		if err := d.launch("scatterOld", blocks(c.total, 256), 256, c.t, c.pos, c.other, c.total, newFirst,
			owner, dw.base, start, newOff, nc.t, nc.pos, nc.other); err != nil {
			return err
		}
	}
	if n > 0 {
		if err := d.launch("scatterNew", blocks(n, 256), 256, keys, vals, n, other, dw.t, dw.base,
			newOff, keep, firstIdx, nc.t, nc.pos, nc.other); err != nil {
			return err
		}
	}
	if err := d.sync("maintain adjacency"); err != nil {
		return err
	}
	d.pool.put(c.off)
	d.pool.put(c.t)
	d.pool.put(c.pos)
	d.pool.put(c.other)
	*c = nc
	return nil
}

// buildIndexes brings the derived search structures up to date with the
// adjacency: the ranks always, the pair-ordered adjacency when pairs.
func (d *device) buildIndexes(pairs bool) error {
	if err := d.buildRanks(); err != nil {
		return err
	}
	if pairs {
		return d.buildPairs()
	}
	return nil
}

// buildRanks computes each live edge's ranks (see devWindow.ranks): own
// indices by a scatter over the two CSRs, cross ranks by one binary
// search per edge and list.
func (d *device) buildRanks() error {
	dw := &d.win
	if dw.ranksFresh {
		return nil
	}
	// Ranks are indexed by column slot, so they take the columns' capacity
	// (up to twice the live edges). Sizing them to the mirrored edges
	// would save ~16 bytes per edge; not yet run on a device.
	if dw.cap > dw.rankCap {
		d.pool.put(dw.ranks)
		dw.ranks, dw.rankCap = 0, 0
		var err error
		if dw.ranks, err = d.pool.get(d, 4*dw.cap*4); err != nil {
			return err
		}
		dw.rankCap = dw.cap
	}
	if live := dw.end - dw.first; live > 0 {
		if err := d.launch("rankOwn", blocks(dw.out.total, 256), 256, dw.out.pos, dw.out.total, dw.out.off, dw.src, dw.base,
			dw.ranks+cu.DevicePtr(0*dw.rankCap*4)); err != nil {
			return err
		}
		if err := d.launch("rankOwn", blocks(dw.in.total, 256), 256, dw.in.pos, dw.in.total, dw.in.off, dw.dst, dw.base,
			dw.ranks+cu.DevicePtr(1*dw.rankCap*4)); err != nil {
			return err
		}
		if err := d.launch("rankCross", blocks(live, 256), 256, dw.src, dw.dst, dw.first-dw.base, live, dw.base,
			dw.in.off, dw.in.pos, dw.out.off, dw.out.pos, dw.ranks+cu.DevicePtr(2*dw.rankCap*4), dw.ranks+cu.DevicePtr(3*dw.rankCap*4)); err != nil {
			return err
		}
		if err := d.sync("build ranks"); err != nil {
			return err
		}
	}
	dw.ranksFresh = true
	return d.writeWin()
}

// buildPairs derives the pair-ordered out-adjacency from the out CSR:
// entry indices stable-sorted by other endpoint, then stable-sorted by
// owner, give each owner's entries in (other, position) order (the out
// CSR lists them in position order); the entries are then gathered. The
// owners' segments keep out.off's offsets.
func (d *device) buildPairs() error {
	dw := &d.win
	if dw.pairsFresh {
		return nil
	}
	n := dw.out.total
	get, release := d.scratch()
	defer release()
	if n > dw.pairs.entries {
		d.pool.put(dw.pairs.t)
		d.pool.put(dw.pairs.pos)
		d.pool.put(dw.pairs.other)
		dw.pairs = pairList{}
		ent := max(n, 1)
		var err error
		if dw.pairs.t, err = d.pool.get(d, ent*8); err != nil {
			return err
		}
		if dw.pairs.pos, err = d.pool.get(d, ent*8); err != nil {
			return err
		}
		if dw.pairs.other, err = d.pool.get(d, ent*4); err != nil {
			return err
		}
		dw.pairs.entries = ent
	}
	if n > 0 {
		keys, err := get(n * 4)
		if err != nil {
			return err
		}
		vals, err := get(n * 8)
		if err != nil {
			return err
		}
		if err := d.launch("pairKeys", blocks(n, 256), 256, dw.out.other, n, keys, vals); err != nil {
			return err
		}
		if keys, vals, err = d.radixSort(keys, vals, n, dw.verts, get); err != nil {
			return err
		}
		if err := d.launch("pairOwners", blocks(n, 256), 256, vals, n, dw.out.pos, dw.src, dw.base, keys); err != nil {
			return err
		}
		if keys, vals, err = d.radixSort(keys, vals, n, dw.verts, get); err != nil {
			return err
		}
		if err := d.launch("pairGather", blocks(n, 256), 256, vals, n, dw.out.t, dw.out.pos, dw.out.other,
			dw.pairs.t, dw.pairs.pos, dw.pairs.other); err != nil {
			return err
		}
		if err := d.sync("build pair adjacency"); err != nil {
			return err
		}
	}
	dw.pairsFresh = true
	return d.writeWin()
}

// scratch hands out pool buffers that release returns to the pool
// together (the temporaries of one maintenance step).
func (d *device) scratch() (get func(bytes int64) (cu.DevicePtr, error), release func()) {
	var held []cu.DevicePtr
	get = func(bytes int64) (cu.DevicePtr, error) {
		p, err := d.pool.get(d, max(bytes, 8))
		if err == nil {
			held = append(held, p)
		}
		return p, err
	}
	release = func() {
		for _, p := range held {
			d.pool.put(p)
		}
	}
	return get, release
}

// radixSort sorts n (key, value) pairs by key (< verts), stably, 8 bits a
// pass; only as many passes as the largest vertex id needs.
func (d *device) radixSort(keys, vals cu.DevicePtr, n, verts int64, get func(int64) (cu.DevicePtr, error)) (cu.DevicePtr, cu.DevicePtr, error) {
	const tile = 4096
	tiles := (n + tile - 1) / tile
	k2, err := get(n * 4)
	if err != nil {
		return 0, 0, err
	}
	v2, err := get(n * 8)
	if err != nil {
		return 0, 0, err
	}
	hist, err := get(tiles * 256 * 4)
	if err != nil {
		return 0, 0, err
	}
	keyBits := bits.Len64(uint64(max(verts-1, 1)))
	for shift := 0; shift < keyBits; shift += 8 {
		if err := d.launch("radixHist", int(tiles), 256, keys, n, int64(shift), hist, tiles); err != nil {
			return 0, 0, err
		}
		if err := d.scan(hist, hist, tiles*256); err != nil {
			return 0, 0, err
		}
		if err := d.launch("radixScatter", int(tiles), 256, keys, vals, k2, v2, n, int64(shift), hist, tiles); err != nil {
			return 0, 0, err
		}
		keys, k2 = k2, keys
		vals, v2 = v2, vals
	}
	return keys, vals, nil
}

// scan is an exclusive prefix sum of n uint32s (in may equal out).
func (d *device) scan(in, out cu.DevicePtr, n int64) error {
	const tile = 1024
	tiles := (n + tile - 1) / tile
	sums, err := d.pool.get(d, tiles*4)
	if err != nil {
		return err
	}
	defer d.pool.put(sums)
	if err := d.launch("scanLocal", int(tiles), 256, in, out, n, sums); err != nil {
		return err
	}
	if tiles == 1 {
		return nil
	}
	scanned, err := d.pool.get(d, tiles*4)
	if err != nil {
		return err
	}
	defer d.pool.put(scanned)
	if err := d.scan(sums, scanned, tiles); err != nil {
		return err
	}
	return d.launch("scanAdd", int(tiles), 256, out, n, scanned)
}

// deviceBytes is what the mirror holds on the device now.
func (dw *devWindow) deviceBytes() int64 {
	return dw.cap*(16+8*int64(dw.ncols)) + (dw.out.entries+dw.in.entries+dw.pairs.entries)*20 + (dw.out.offCap+dw.in.offCap)*4 + dw.ncap*8 + dw.rankCap*16
}
