// Package textfile holds what the two edge-file loaders (ingest's
// temporal loader and gpm's static one) share to parse a large text file
// in parallel: opening it with its size, or through a decompressor when
// it is compressed (Open), cutting a byte range into chunks that start at
// line starts (Chunks) and running one parser per chunk (Parallel), or
// cutting a stream into blocks of whole lines parsed as they are read
// (Blocks, ParseBlocks), and dictionaries that give tokens dense codes in the order
// of their first appearance, per chunk (Dict) and then across chunks in
// file order (Merge), so that a parallel parse numbers ids exactly as one
// pass over the file would.
//
// It knows nothing of line syntax: each loader keeps its own. It imports
// the standard library and github.com/klauspost/compress's gzip and zstd
// readers.
package textfile
