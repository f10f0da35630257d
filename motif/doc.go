// Package motif defines temporal motif queries, compiles them into match
// plans, and mines them exactly on the CPU.
//
// Semantics (the same in every engine; ARCHITECTURE.md states them in full):
// a match maps the k motif edges, in temporal order, to graph edges
// e1 < e2 < … < ek in (t, seq) order, injectively on nodes, with
// t_k − t_1 ≤ Delta, optional per-hop limits t_{i+1} − t_i ≤ Within,
// anti-edges (no graph edge between two mapped nodes inside an interval
// after a motif edge), and predicates on edge and node attributes. Each
// edge sequence counts once.
//
// The engine's one primitive is "the matches whose LAST edge lies in the
// position range [lo, hi) of a window": streaming mines each new batch
// with it and batch mining is the same call over the whole window.
//
// The oracle every engine is tested against lives in motif/oracle.
// Package motif reads windows but never imports kafka, cu or the ingest
// layer.
package motif
