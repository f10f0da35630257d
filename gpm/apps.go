package gpm

import "math/bits"

// This file is the paper's Algorithm 4: clique and motif counting written
// with the workflow phases. Each app's step is the body of the loop
//
//	for te.Control() { step(te) }
//
// that a driver (the CPU worker, or a GPU warp in kernels/gpm.cu) runs for
// every TE; Move at its end is the loop's advance.

// app is one algorithm.
type app interface {
	// step processes the current traversal: Extend, Filter, Compact,
	// Aggregate when it is one vertex short of k, then Move.
	step(te *TE, out *tally) error
	genEdges() bool
}

// tally is what a worker accumulates.
type tally struct {
	count uint64     // clique count
	raw   *RawCounts // motif counts by raw code
	found uint64     // motif subgraphs tallied in raw (for Progress)
	steps uint64
	// emit, when set, receives every completed subgraph (enumerate mode)
	// instead of the counters.
	emit func(sub []uint32, raw uint64) error
}

// cliqueApp counts k-cliques on a Ranked graph (edges point to higher
// ranks, so a clique is listed once, in increasing rank order).
type cliqueApp struct{ k int }

func (a cliqueApp) genEdges() bool { return false }

func (a cliqueApp) step(te *TE, out *tally) error {
	te.Extend(0, 1)        // [EX] candidates: the first vertex's (upward) neighbours
	te.Filter(lower)       // [FL] keep those ranked above the last vertex
	te.Compact()           // [CP]
	te.Filter(isClique)    // [FL] keep those adjacent to every traversal vertex
	te.Compact()           // [CP]
	if te.Len() == a.k-1 { // [A1] each survivor completes a k-clique
		if out.emit != nil {
			if err := te.AggregateEach(out.emit); err != nil {
				return err
			}
		} else {
			out.count += te.AggregateCount()
		}
	}
	te.Move(false) // [MV]
	return nil
}

// cliquePAApp counts k-cliques as DuMato's pattern-aware variant does:
// each level's candidates are the parent's narrowed to the newest
// vertex's neighbours (ExtendAdjacent), so the work per level is a merge
// of two shrinking lists, and a traversal whose candidates cannot fill
// the clique stops there. Same counts as cliqueApp, which follows the
// paper's generic workflow step by step.
type cliquePAApp struct{ k int }

func (a cliquePAApp) genEdges() bool { return false }

func (a cliquePAApp) step(te *TE, out *tally) error {
	te.ExtendAdjacent() // [EX] + [FL]: the parent's candidates adjacent to the newest vertex
	switch need := a.k - te.Len(); {
	case need == 1: // [A1] each candidate completes a k-clique
		if out.emit != nil {
			if err := te.AggregateEach(out.emit); err != nil {
				return err
			}
		} else {
			out.count += te.AggregateCount()
		}
	case len(te.Ext()) < need: // every further vertex comes from these candidates
		te.Discard()
	}
	te.Move(false) // [MV]
	return nil
}

// lower is the clique's canonical-candidate filter: extensions ranked
// above the traversal's last vertex, so each clique is built in one order.
func lower(te *TE, e Ext) bool { return e.V > te.Tr[len(te.Tr)-1] }

// isClique keeps extensions adjacent to every traversal vertex (Extend
// read only the first vertex's list). The extension ranks above each of
// them, so it is in their upward lists.
func isClique(te *TE, e Ext) bool {
	for _, u := range te.Tr[1:] {
		if !te.g.HasEdge(u, e.V) {
			return false
		}
	}
	return true
}

// motifApp counts connected induced k-vertex subgraphs by pattern.
type motifApp struct{ k int }

func (a motifApp) genEdges() bool { return true }

func (a motifApp) step(te *TE, out *tally) error {
	te.Extend(0, te.Len()) // [EX] candidates: neighbours of every traversal vertex
	te.Filter(isCanonical) // [FL] keep canonical candidates only
	te.Compact()           // [CP]
	if te.Len() == a.k-1 { // [A2] tally each completed subgraph by shape
		if out.emit != nil {
			if err := te.AggregateEach(out.emit); err != nil {
				return err
			}
		} else {
			out.found += te.AggregateCount()
			te.AggregatePattern(out.raw)
		}
	}
	te.Move(true) // [MV], generating the induced edges
	return nil
}

// isCanonical is the canonical-extension rule of Arabesque (Teixeira et
// al., SOSP'15) that makes every connected vertex set come out exactly
// once, in one order: the first vertex is the set's smallest, and a new
// vertex v must be larger than every traversal vertex after the first one
// it is adjacent to. (Induction: of the orders in which a connected set
// can be grown one neighbour at a time, exactly one passes this test at
// every step.) Extend's Adj bits give v's first neighbour in O(1).
func isCanonical(te *TE, e Ext) bool {
	tr := te.Tr
	if e.V < tr[0] {
		return false
	}
	for _, u := range tr[bits.TrailingZeros32(e.Adj)+1:] {
		if u > e.V {
			return false
		}
	}
	return true
}
