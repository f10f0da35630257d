package window

import "unsafe"

// Bytes returns the host memory the window holds, counted from slice
// capacities (what is allocated, not just what is used): edge columns,
// adjacency lists, node attributes and both dictionaries.
func (w *Window) Bytes() int64 {
	var b int64
	b += int64(cap(w.src))*4 + int64(cap(w.dst))*4 + int64(cap(w.t))*8
	for _, c := range w.attrs {
		b += int64(cap(c)) * 8
	}
	adj := int64(unsafe.Sizeof(Adj{}))
	hdr := int64(unsafe.Sizeof(adjList{}))
	b += int64(cap(w.out)+cap(w.in)) * hdr
	for i := range w.out {
		b += int64(cap(w.out[i].ents)+cap(w.in[i].ents)) * adj
	}
	b += w.pairBytes()
	for _, c := range w.nodeAttrs {
		b += int64(cap(c)) * 8
	}
	b += w.ids.bytes()
	for _, s := range w.strings.values {
		b += int64(len(s)) + 40
	}
	return b
}

// BytesPerEdge is Bytes divided by the number of live edges (0 if empty).
func (w *Window) BytesPerEdge() float64 {
	if w.Len() == 0 {
		return 0
	}
	return float64(w.Bytes()) / float64(w.Len())
}

// pairBytes is the memory of the pair index alone.
func (w *Window) pairBytes() int64 {
	adj := int64(unsafe.Sizeof(Adj{}))
	b := int64(cap(w.pairLists))*int64(unsafe.Sizeof(adjList{})) + int64(cap(w.pairFree))*4
	for i := range w.pairLists {
		b += int64(cap(w.pairLists[i].ents)) * adj
	}
	return b + w.pairs.bytes()
}
