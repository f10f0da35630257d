package window

import "slices"

// Reserve prepares a bulk load: it makes room for n more edges in the edge
// columns and for out[v] more out-edges and in[v] more in-edges of each
// dense id v (out and in may be shorter than IDs().Cap(), or nil), so the
// appends that follow never regrow a slice. It changes no contents: a
// window filled with or without Reserve reads the same, only its memory
// (Bytes) differs.
func (w *Window) Reserve(n int, out, in []int) {
	w.src = slices.Grow(w.src, n)
	w.dst = slices.Grow(w.dst, n)
	w.t = slices.Grow(w.t, n)
	for i := range w.attrs {
		w.attrs[i] = slices.Grow(w.attrs[i], n)
	}
	if k := max(len(out), len(in)); k > len(w.out) {
		w.out = slices.Grow(w.out, k-len(w.out))
		w.in = slices.Grow(w.in, k-len(w.in))
		w.grow(uint32(k - 1))
	}
	for v, k := range out {
		w.out[v].ents = slices.Grow(w.out[v].ents, k)
	}
	for v, k := range in {
		w.in[v].ents = slices.Grow(w.in[v].ents, k)
	}
}
