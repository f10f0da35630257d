package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/motifwatch/motifwatch/ingest"
)

// cacheFlags are --cache and --no-cache, the parsed-file cache of `mine`
// (temporal edges) and `gpm` (the static graph).
type cacheFlags struct {
	dir string
	off bool
}

func (c *cacheFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.dir, "cache", "", "keep a binary copy of the parsed graph in this directory and load from it while the file is unchanged (default: motifwatch/edges in the user cache directory, $XDG_CACHE_HOME or ~/.cache, for files of 32 MiB and more; with --cache, files of any size)")
	f.BoolVar(&c.off, "no-cache", false, "neither read nor write the graph cache")
}

func (c *cacheFlags) check(command string) error {
	if c.off && c.dir != "" {
		return usageError{fmt.Errorf("%s: --cache and --no-cache exclude each other", command)}
	}
	return nil
}

// where returns the cache directory and the smallest input size cached
// ("" when off).
func (c *cacheFlags) where() (dir string, minSize int64) {
	switch {
	case c.off:
		return "", 0
	case c.dir != "":
		return c.dir, 0
	}
	return ingest.DefaultCacheDir(), ingest.DefaultCacheMin
}
