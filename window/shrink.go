package window

import "slices"

// Shrink gives back memory the window no longer uses: after a large
// eviction the columns, adjacency lists, pair index and id dictionary
// keep the capacity of their peak (slices and Go maps never shrink by
// themselves), so Bytes would not go down. Shrink copies each into a
// tight allocation, drops trailing free dense ids, and rebuilds the maps.
// It changes no contents and no positions; dense ids of live nodes stay.
// It costs O(live edges + live nodes + pairs): call it after evicting a
// large part of the window, not per batch.
func (w *Window) Shrink() {
	w.shrinkColumns()
	for i := range w.out {
		shrinkList(&w.out[i])
		shrinkList(&w.in[i])
	}
	if w.pairsOn.Load() {
		w.shrinkPairs()
	}
	n := w.ids.shrink()
	w.out = slices.Clip(w.out[:min(n, len(w.out))])
	w.in = slices.Clip(w.in[:min(n, len(w.in))])
	w.out, w.in = slices.Clone(w.out), slices.Clone(w.in)
	for col, c := range w.nodeAttrs {
		w.nodeAttrs[col] = slices.Clone(c[:min(n, len(c))])
	}
}

// tight returns a copy of s with room for an eighth more (at least one),
// so the next appends do not double it at once.
func tight[T any](s []T) []T {
	out := make([]T, len(s), len(s)+len(s)/8+1)
	copy(out, s)
	return out
}

func (w *Window) shrinkColumns() {
	h := w.head
	w.src, w.dst, w.t = tight(w.src[h:]), tight(w.dst[h:]), tight(w.t[h:])
	for i := range w.attrs {
		w.attrs[i] = tight(w.attrs[i][h:])
	}
	w.off += int64(h)
	w.head = 0
}

func shrinkList(l *adjList) {
	live := l.live()
	if len(live) == 0 {
		l.ents, l.head = nil, 0
		return
	}
	if cap(l.ents) > 2*len(live)+8 {
		l.ents, l.head = tight(live), 0
	}
}

// shrinkPairs renumbers the live pair lists densely and rebuilds the map.
func (w *Window) shrinkPairs() {
	lists := make([]adjList, 0, w.pairs.len())
	pairs := newPairTable(w.pairs.len())
	w.pairs.each(func(key uint64, i int32) {
		l := w.pairLists[i]
		shrinkList(&l)
		pairs.put(key, int32(len(lists)))
		lists = append(lists, l)
	})
	w.pairs, w.pairLists, w.pairFree = pairs, lists, nil
}

// shrink drops the free ids above the largest live one, clips names and
// rebuilds the map, and returns the new Cap.
func (d *IDs) shrink() int {
	n := len(d.names)
	for n > 0 && d.names[n-1] == "" && !d.isLive(uint32(n-1)) {
		n--
	}
	free := d.free[:0]
	for _, id := range d.free {
		if int(id) < n {
			free = append(free, id)
		}
	}
	d.free = slices.Clone(free)
	d.names = slices.Clone(d.names[:n])
	// The ids above n start again at stamp 1 when handed out anew: an
	// entry of InternKey's table naming one of them could pass for live,
	// so the table goes (it refills at the next edge of each node).
	d.stamps = slices.Clone(d.stamps[:n])
	d.forgetKeys()
	byName := make(map[string]uint32, len(d.byName))
	for k, v := range d.byName {
		byName[k] = v
	}
	d.byName, d.mapPeak = byName, len(byName)
	return n
}

// isLive reports whether dense id holds a live name ("" is a valid node
// id, so an empty name alone does not mean free).
func (d *IDs) isLive(id uint32) bool {
	got, ok := d.byName[d.names[id]]
	return ok && got == id
}
