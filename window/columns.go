package window

// Bulk views of the columns, for engines that copy the window elsewhere
// (the GPU engine uploads only the positions it has not seen). The slices
// alias the window: read-only, valid until the next Append or Evict.

// Columns returns the src, dst and t columns of positions [lo, hi),
// First() <= lo <= hi <= End().
func (w *Window) Columns(lo, hi int64) (src, dst []uint32, t []int64) {
	a, b := lo-w.off, hi-w.off
	return w.src[a:b:b], w.dst[a:b:b], w.t[a:b:b]
}

// EdgeAttrColumn returns edge attribute column col for positions [lo, hi).
func (w *Window) EdgeAttrColumn(col int, lo, hi int64) []float64 {
	a, b := lo-w.off, hi-w.off
	return w.attrs[col][a:b:b]
}

// NodeAttrColumn returns node attribute column col indexed by node id. It
// may be shorter than IDs().Cap(): nodes past its end read as Missing.
func (w *Window) NodeAttrColumn(col int) []float64 {
	c := w.nodeAttrs[col]
	return c[:len(c):len(c)]
}

// Missing returns the value an unset node attribute of column col reads as
// (NaN for numbers, the code of "" for strings).
func (w *Window) Missing(col int) float64 { return w.missing(w.schema.NodeAttrs[col].Kind) }
