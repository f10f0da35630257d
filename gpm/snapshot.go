package gpm

import "github.com/motifwatch/motifwatch/window"

// FromWindow returns the static graph of w's live edges: directions and
// timestamps dropped, parallel and reversed edges merged, self-loops
// removed. Vertices are renumbered densely (a window's ids have holes
// where nodes left) and keep their names. It reads w and must run where
// reading w is safe (the window's owner goroutine); the result is
// independent of w. Cost: O(E log E) time, 8 bytes per live edge plus
// the CSR.
func FromWindow(w *window.Window) *Graph {
	ids := w.IDs()
	dense := make([]uint32, ids.Cap())
	const unseen = ^uint32(0)
	for i := range dense {
		dense[i] = unseen
	}
	var names []string
	id := func(v uint32) uint32 {
		if dense[v] == unseen {
			dense[v] = uint32(len(names))
			names = append(names, ids.Name(v))
		}
		return dense[v]
	}
	pairs := make([]uint64, 0, w.Len())
	for p := w.First(); p < w.End(); p++ {
		s, d := w.Src(p), w.Dst(p)
		if s == d {
			continue
		}
		u, v := id(s), id(d)
		if u > v {
			u, v = v, u
		}
		pairs = append(pairs, uint64(u)<<32|uint64(v))
	}
	return fromPairs(len(names), [][]uint64{pairs}, names, 1)
}
