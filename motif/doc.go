// Package motif defines temporal motif queries, compiles them into match
// plans, and mines them exactly on the CPU.
//
// Semantics (the same in every engine; see DESIGN.md in the repository):
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
// Layout: query.go (the model), parse.go (YAML), expr.go (predicate
// syntax), validate.go, everest.go (Everest's query format), library.go
// (named motifs), plan.go (compiler), engine.go (the Engine API),
// engine_cpu.go and engine_sched.go (the CPU miner and its work
// distribution). The oracle every engine is tested against lives in
// motif/oracle. Package motif reads windows but never imports kafka, cu or
// the ingest layer.
package motif
