// Package gpm is static graph pattern mining: exact clique and motif
// (connected induced subgraph) counting on an undirected simple graph, in
// the shape of DuMato (Ferraz et al., "Efficient Strategies for Graph
// Pattern Mining Algorithms on GPUs").
//
// The graph is a CSR (Graph) read from an edge file (LoadFile: parsed in
// parallel chunks, optionally through a binary graph cache) or taken from
// a snapshot of a live window (FromWindow): directions and timestamps are
// dropped, duplicates and self-loops removed.
//
// Enumeration follows DuMato's filter-process workflow over DFS-wide
// traversal-enumeration arrays (TE): Control decides whether a traversal
// is left to explore, Extend (the BFS step) writes the candidate vertices
// of the current traversal into one contiguous array per level, Filter
// invalidates candidates that break a property, Compact squeezes the
// survivors together, Aggregate counts complete subgraphs, and Move (the
// DFS step) appends the next candidate or backtracks. Clique and motif
// counting are written with those phases, line for line like the paper's
// Algorithm 4. The CPU engine counts cliques by default with
// the pattern-aware variant (DuMato's PA: ExtendAdjacent narrows the
// parent level's candidates to the newest vertex's neighbours, 15-20×
// faster at k = 8-12); CPUOptions.LiteralCliques runs Algorithm 4's
// clique steps instead. Patterns are canonicalised at run time: no
// precomputed dictionaries, any k up to MaxMotifK.
//
// The CPU engine runs one TE per worker over a static split of the root
// vertices; with balancing on, a coordinator implements the paper's
// CPU-driven redistribution: when fewer workers than a threshold are busy
// it stops them all in a consistent state and moves unexplored extensions
// from donors to idle workers round-robin.
// The GPU engine with the same API lives in package gpu (build tag cuda):
// the same workflow per warp (kernels/gpm.cu), pattern-aware cliques by
// default there too (GPMOptions.LiteralCliques for Algorithm 4's).
//
// The brute-force oracle the engines are tested against is gpm/oracle;
// the reference counts are in ARCHITECTURE.md ("Reference figures").
//
// Package gpm reads windows but never imports kafka, cu or the daemon.
package gpm
