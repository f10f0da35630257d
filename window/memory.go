package window

import "unsafe"

// Bytes returns the host memory the window holds, counted from slice
// capacities (what is allocated, not just what is used): edge columns,
// adjacency lists, the pair index, node attributes, both dictionaries
// and the eviction's scratch. Go maps and strings are counted as the
// runtime allocates them (mapBytes, stringBytes), so that Bytes bounds
// the live heap the window keeps (TestBytesBoundTheHeap checks it).
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
	b += w.strings.bytes()
	b += int64(cap(w.evictMark)) * 4
	for _, k := range w.evictKeys {
		b += int64(cap(k)) * 8
	}
	b += int64(cap(w.evictAll)) * 8
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

// mapBytes bounds the memory of a Go map (the runtime's swiss tables)
// that has held at most peak entries of slot bytes each (key and value
// with their padding) since it was made: a map never gives memory back
// when entries are deleted. A table is at least 7/16 full after it
// doubles; with deletions and insertions churning it, tombstones make it
// grow once more, and a map whose size hovers just above a power of two
// was measured at 2.8 slots per entry. Three slots per entry, each with
// its control byte, bound both (TestMapBytesBound measures it), at
// about 1.5 times what an average map holds.
func mapBytes(peak int, slot int64) int64 {
	if peak <= 0 {
		return mapHeader
	}
	return mapHeader + int64(max(3*peak, 8))*(slot+1)
}

// mapHeader is a map's own header and directory, about.
const mapHeader = 64

// stringBytes is what the runtime allocates for a string of n bytes:
// small objects are rounded up to their size class (8-byte steps to 32,
// 16-byte steps to 256, at most an eighth more above).
func stringBytes(n int) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 32:
		return int64((n + 7) &^ 7)
	case n <= 256:
		return int64((n + 15) &^ 15)
	default:
		return int64(n + n/8 + 8)
	}
}

// nameSlot is a map[string]uint32 slot: the string header and the
// value, padded.
const nameSlot = int64(unsafe.Sizeof(struct {
	k string
	v uint32
}{}))
