// Package bincache holds what the two loaders' binary caches of parsed
// files (ingest's edge cache, gpm's graph cache) share: the key of an
// input file (size, mtime and a hash of its head and tail), a cache file's
// frame (magic, format version, a header, a body, a CRC-32C of it all),
// written atomically and refused whole when anything in it is off, and the
// header's little-endian encoding. What a header and a body hold is each
// cache's own. It imports only the standard library.
package bincache
