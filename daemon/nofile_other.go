//go:build !unix

package daemon

// openFilesLimit is unknown here (0): metrics.max_connections is used as
// configured.
func openFilesLimit() uint64 { return 0 }
