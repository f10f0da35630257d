// Package motif is the query language of temporal motifs and what every
// engine shares: queries (the model, YAML files, where-expressions,
// validation, Everest import, the built-in library), the plan compiler,
// and the Engine interface (Request, Match, Sink, Result) with the
// engine-independent pieces on either side of it (interval ends saturated
// by AddTicks/SubTicks, Plan.Recheck for a held open match).
//
// Semantics (the same in every engine; ARCHITECTURE.md states them in full):
// a match maps the k motif edges, in temporal order, to graph edges
// e1 < e2 < … < ek in (t, seq) order, injectively on nodes, with
// t_k − t_1 ≤ Delta, optional per-hop limits t_{i+1} − t_i ≤ Within,
// anti-edges (no graph edge between two mapped nodes inside an interval
// after a motif edge), and predicates on edge and node attributes. Each
// edge sequence counts once.
//
// The engines' one primitive is "the matches whose LAST edge lies in the
// position range [lo, hi) of a window": streaming mines each new batch
// with it and batch mining is the same call over the whole window.
//
// The engines live in packages of their own, so that whoever only parses
// queries (config) gets no miner: motif/cpu (the exact CPU miner),
// motif/count3 (counters wrapped around any engine) and gpu; the oracle
// every engine is tested against is motif/oracle. Package motif imports
// none of them (internal/layering checks it), and reads windows but never
// imports kafka, cu or the ingest layer.
package motif
