// Package gpmrun is `monitor gpm` without the command line: it counts
// k-cliques, or connected induced k-vertex subgraphs by pattern (motifs),
// in a static graph file, DuMato-style, in one batch. Run loads the graph
// (package gpm's parallel loader and its cache), builds the engine of a
// backend (package engine: CPU, GPU, or the GPU with the CPU as
// fallback), runs the job with progress lines, and returns a Report;
// Ctrl-C ends it with the counts so far where the engine keeps them.
//
// It may read the graph file and write notes and progress lines to
// Options.Log; it formats no report (the command prints Report as a
// table, JSON or CSV) and owns no flags or exit statuses. The algorithms
// stay in gpm and gpu.
package gpmrun
