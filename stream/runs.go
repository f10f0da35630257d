package stream

import "github.com/motifwatch/motifwatch/motif"

// run is a range of window positions to mine as last edges; replay runs
// hold Replayed edges and are mined against their partition's shutdown
// watermark.
type run struct {
	motif.Range
	replay  bool
	horizon int64 // replay runs only
	// mask is the engine's RootMask: false for positions in the range that
	// are no root (History, or another instance's partition); nil: all
	// are.
	mask     []bool
	lastRoot int64
}

// extend adds position Hi to the run, as a root or masked.
func (r *run) extend(root bool) {
	if !root && r.mask == nil {
		r.mask = make([]bool, r.Hi-r.Lo, r.Hi-r.Lo+64)
		for i := range r.mask {
			r.mask[i] = true
		}
	}
	if r.mask != nil {
		r.mask = append(r.mask, root)
	}
	if root {
		r.lastRoot = r.Hi
	}
	r.Hi++
}

// trim drops the masked positions at the run's end.
func (r *run) trim() {
	r.Hi = r.lastRoot + 1
	if r.mask != nil {
		r.mask = r.mask[:r.Hi-r.Lo]
	}
}

// addRun puts the edge at position pos into the runs to mine: it extends
// the last run, as a root or masked, or starts a new one at a root whose
// replay horizon differs. Masked positions inside a run cost the engine
// a skipped root; splitting at each would cost a Mine call. root,
// replayed and horizon are the edge's (see roots).
func addRun(runs []run, root, replayed bool, horizon int64, pos int64) []run {
	n := len(runs)
	contiguous := n > 0 && runs[n-1].Hi == pos
	switch {
	case !root && contiguous:
		runs[n-1].extend(false)
	case !root:
	case contiguous && runs[n-1].replay == replayed && runs[n-1].horizon == horizon:
		runs[n-1].extend(true)
	default:
		if n > 0 {
			runs[n-1].trim()
		}
		runs = append(runs, run{Range: motif.Range{Lo: pos, Hi: pos + 1}, replay: replayed, horizon: horizon, lastRoot: pos})
	}
	return runs
}
