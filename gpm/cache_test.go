package gpm

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadCached loads path with the cache in dir, checks the graph and
// stats against a parse without cache, and returns the cache's outcome.
func loadCached(t *testing.T, path, dir string) string {
	t.Helper()
	want, wantSt, err := LoadFile(path, LoadOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, st, err := LoadFile(path, LoadOptions{Workers: 2, CacheDir: dir})
	if err != nil {
		t.Fatalf("with cache: %v", err)
	}
	outcome := st.Cache
	st.Cache = ""
	if st != wantSt {
		t.Errorf("with cache (%s): stats %+v; want %+v", outcome, st, wantSt)
	}
	if !slices.Equal(g.off, want.off) || !slices.Equal(g.adj, want.adj) || !slices.Equal(g.names, want.names) || g.maxDeg != want.maxDeg {
		t.Errorf("with cache (%s): graph differs from a parse", outcome)
	}
	return outcome
}

func writeGraphFile(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "g.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCacheServesTheSameGraph(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 9))
		path := writeGraphFile(t, t.TempDir(), randomGraphFile(r, 2000))
		dir := t.TempDir()
		if got := loadCached(t, path, dir); got != "written" {
			t.Errorf("seed %d: first load: cache %q; want written", seed, got)
		}
		if got := loadCached(t, path, dir); got != "hit" {
			t.Errorf("seed %d: second load: cache %q; want hit", seed, got)
		}
	}
}

// TestCacheRebuildsDamaged: a cache file that is truncated, corrupted,
// of another format version, not a cache, or checksummed but not a
// valid CSR is never trusted: the load parses the text, says why, and
// writes a good cache again.
func TestCacheRebuildsDamaged(t *testing.T) {
	path := writeGraphFile(t, t.TempDir(), "# g\n3 3\na b\nb c\nc a\n")
	dir := t.TempDir()
	if got := loadCached(t, path, dir); got != "written" {
		t.Fatalf("first load: cache %q", got)
	}
	cachePath, err := filepath.Glob(filepath.Join(dir, "g.txt.*.mwg"))
	if err != nil || len(cachePath) != 1 {
		t.Fatalf("cache files %v (%v); want one", cachePath, err)
	}
	good, err := os.ReadFile(cachePath[0])
	if err != nil {
		t.Fatal(err)
	}
	// badCSR rewrites the last neighbour entry out of range with a valid
	// checksum: only the CSR check can refuse it.
	badCSR := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[len(b)-8:], 99)
		return withCRC(b)
	}
	for what, damage := range map[string]func([]byte) []byte{
		"truncated":      func(b []byte) []byte { return b[:len(b)-5] },
		"header cut":     func(b []byte) []byte { return b[:20] },
		"empty":          func([]byte) []byte { return nil },
		"flipped byte":   func(b []byte) []byte { b[len(b)-9] ^= 0x40; return b },
		"version":        func(b []byte) []byte { b[8]++; return b },
		"not a cache":    func([]byte) []byte { return []byte("hello, this is not a graph cache at all") },
		"huge count":     func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 1<<31); return b },
		"bad CSR":        badCSR,
		"trailing bytes": func(b []byte) []byte { return append(b, 0) },
	} {
		if err := os.WriteFile(cachePath[0], damage(slices.Clone(good)), 0o644); err != nil {
			t.Fatal(err)
		}
		got := loadCached(t, path, dir)
		t.Logf("%s: %s", what, got)
		if !strings.HasPrefix(got, "rebuilt (") {
			t.Errorf("%s: cache %q; want rebuilt (why)", what, got)
		}
		if got := loadCached(t, path, dir); got != "hit" {
			t.Errorf("%s: load after the rebuild: cache %q; want hit", what, got)
		}
	}
}

// withCRC rewrites the checksum at the end of a cache file's bytes.
func withCRC(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32c(b[:len(b)-4]))
	return b
}

// TestCacheRebuildsAfterChange: another size, mtime or content makes the
// cache stale.
func TestCacheRebuildsAfterChange(t *testing.T) {
	dir := t.TempDir()
	path := writeGraphFile(t, t.TempDir(), "a b\nb c\n")
	if got := loadCached(t, path, dir); got != "written" {
		t.Fatalf("first load: cache %q", got)
	}
	fi, _ := os.Stat(path)
	for i, text := range []string{"a b\nb d\n", "a b\nb c\nc d\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, fi.ModTime(), fi.ModTime()) // same mtime: the content tells
		if got := loadCached(t, path, dir); got != "rebuilt (input changed)" {
			t.Errorf("change %d: cache %q; want rebuilt (input changed)", i, got)
		}
	}
}

func TestCacheOnlyAboveMin(t *testing.T) {
	dir := t.TempDir()
	path := writeGraphFile(t, t.TempDir(), "a b\n")
	_, st, err := LoadFile(path, LoadOptions{CacheDir: dir, CacheMin: 1 << 20})
	if err != nil || st.Cache != "" {
		t.Fatalf("small file: cache %q, error %v; want no cache", st.Cache, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("cache dir holds %d files; want none", len(entries))
	}
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// TestCacheServesGzip: a gzip graph file is cached like a plain one and
// rebuilt when its compressed bytes change.
func TestCacheServesGzip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	in, dir := t.TempDir(), t.TempDir()
	for i, want := range []string{"written", "hit", "rebuilt (input changed)", "hit"} {
		if i%2 == 0 { // a new file
			writeGraphFile(t, in, string(gzipped(randomGraphFile(r, 2000+i))))
		}
		if got := loadCached(t, filepath.Join(in, "g.txt"), dir); got != want {
			t.Errorf("cache %q; want %s", got, want)
		}
	}
}
