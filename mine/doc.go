// Package mine is `monitor mine` without the command line: it mines
// temporal motifs in a whole edge file (or a synthetic graph) in one
// batch. Run collects the queries (query files, built-in motifs, SNAP's
// 3-edge grid), loads the graph through ingest's file loader and its
// cache, selects the engine (package engine: CPU or GPU), mines each
// query in count or enumerate mode, and returns a Report; Ctrl-C ends it
// with the counts so far, marked partial.
//
// It may read files (the graph, query files) and write notes and progress
// lines to Options.Log; it formats no report (the command prints Report
// as a table, JSON or CSV) and owns no flags or exit statuses. The
// algorithms stay in motif, motif/count3 and gpu, which do no I/O.
package mine
