package ingest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadCached loads path with the cache in dir and checks the window and
// stats against a load without cache; it returns the cache outcome.
func loadCached(t *testing.T, path, dir string, opts FileOptions) string {
	t.Helper()
	want, wantSt, wantErr := LoadFile(path, opts)
	opts.CacheDir = dir
	got, st, err := LoadFile(path, opts)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("with cache: error %v; without: %v", err, wantErr)
	}
	if err != nil {
		return st.Cache
	}
	outcome := st.Cache
	st.Cache = ""
	if fmt.Sprint(st) != fmt.Sprint(wantSt) {
		t.Errorf("with cache (%s): stats %+v; without: %+v", outcome, st, wantSt)
	}
	if g, w := rawDump(got), rawDump(want); g != w {
		t.Errorf("with cache (%s): window differs from a parse:\n%s", outcome, diffLines(g, w))
	}
	return outcome
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: got %.200q, want %.200q", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d vs %d lines", len(al), len(bl))
}

func TestCacheServesTheSameWindow(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 5))
		path := writeFile(t, fmt.Sprintf("e%d.txt", seed), randomEdgeFile(r, 2000, seed%2 == 0, seed < 2, seed >= 2))
		dir := t.TempDir()
		opts := FileOptions{SkipBad: true, Workers: 3}
		if got := loadCached(t, path, dir, opts); got != "written" {
			t.Errorf("seed %d: first load: cache %q; want written", seed, got)
		}
		if got := loadCached(t, path, dir, opts); got != "hit" {
			t.Errorf("seed %d: second load: cache %q; want hit", seed, got)
		}
		opts.KeepSelfLoops = true // another key: its own cache file
		if got := loadCached(t, path, dir, opts); got != "written" {
			t.Errorf("seed %d: with self-loops: cache %q; want written", seed, got)
		}
		if seed >= 2 { // a cache that skipped bad lines must not hide them
			if got := loadCached(t, path, dir, FileOptions{}); got != "" {
				t.Errorf("seed %d: load that stops at bad lines: cache %q; want the parse's error", seed, got)
			}
		}
	}
}

// TestCacheRebuildsAfterChange: a change to the input's size, mtime, or
// head or tail bytes (same size, mtime restored) invalidates the cache.
func TestCacheRebuildsAfterChange(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, "e.txt", "a b 1\nb c 2\nc a 3\n")
	if got := loadCached(t, path, dir, FileOptions{}); got != "written" {
		t.Fatalf("first load: cache %q", got)
	}
	mtime := time.Unix(1_700_000_000, 0)
	for _, change := range []struct {
		name, text string
		keepMtime  bool
	}{
		{"appended line", "a b 1\nb c 2\nc a 3\nd a 4\n", false},
		{"same size, new mtime", "a b 1\nb c 2\nc a 4\n", false},
		{"same size and mtime", "a b 1\nb c 2\nc a 5\n", true},
	} {
		if err := os.WriteFile(path, []byte(change.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if change.keepMtime {
			os.Chtimes(path, mtime, mtime)
			loadCached(t, path, dir, FileOptions{}) // cache the previous content at this mtime
			os.WriteFile(path, []byte("a b 1\nb c 2\nc a 6\n"), 0o644)
			os.Chtimes(path, mtime, mtime)
		} else {
			os.Chtimes(path, mtime, mtime)
			mtime = mtime.Add(time.Second)
		}
		if got := loadCached(t, path, dir, FileOptions{}); got != "rebuilt (input changed)" {
			t.Errorf("%s: cache %q; want rebuilt (input changed)", change.name, got)
		}
		if got := loadCached(t, path, dir, FileOptions{}); got != "hit" {
			t.Errorf("%s: load after the rebuild: cache %q; want hit", change.name, got)
		}
	}
}

// TestCacheDamageIsRebuilt: a cache file flipped in any byte, cut short,
// of another version, or not a cache at all is rebuilt from the text
// (never trusted, never a crash), and the rebuilt one is used again.
func TestCacheDamageIsRebuilt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	path := writeFile(t, "e.txt", randomEdgeFile(r, 500, true, true, false))
	dir := t.TempDir()
	if got := loadCached(t, path, dir, FileOptions{}); got != "written" {
		t.Fatalf("first load: cache %q", got)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.mwc"))
	if len(files) != 1 {
		t.Fatalf("cache files %v; want one", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string]func([]byte) []byte{
		"version": func(b []byte) []byte { b[8]++; return b },
		"magic":   func(b []byte) []byte { b[0] = 'X'; return b },
		"empty":   func(b []byte) []byte { return nil },
		"garbage": func(b []byte) []byte { return []byte("not a cache at all, but long enough to read") },
		"grown":   func(b []byte) []byte { return append(b, 0) },
	}
	for _, at := range []int{12, 20, 100, len(good) / 2, len(good) - 20, len(good) - 1} {
		damage[fmt.Sprintf("flip@%d", at)] = func(b []byte) []byte { b[at] ^= 0x40; return b }
		damage[fmt.Sprintf("cut@%d", at)] = func(b []byte) []byte { return b[:at] }
	}
	for name, fn := range damage {
		if err := os.WriteFile(files[0], fn(append([]byte(nil), good...)), 0o644); err != nil {
			t.Fatal(err)
		}
		got := loadCached(t, path, dir, FileOptions{})
		if !strings.HasPrefix(got, "rebuilt (") { // damage in the key reads as another input
			t.Errorf("%s: cache %q; want rebuilt because of the damage", name, got)
		}
		if got := loadCached(t, path, dir, FileOptions{}); got != "hit" {
			t.Errorf("%s: load after the rebuild: cache %q; want hit", name, got)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(left) != 0 {
		t.Errorf("temporary files left in the cache directory: %v", left)
	}
}

// TestCacheMinAndNodeFile: files under CacheMin are not cached; a node
// file is applied after a cache hit as after a parse.
func TestCacheMinAndNodeFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, "e.txt", "a b 1 x\nb c 2 y\n")
	if _, st, err := LoadFile(path, FileOptions{CacheDir: dir, CacheMin: 1 << 20}); err != nil || st.Cache != "" {
		t.Errorf("small file: cache %q, error %v; want no cache", st.Cache, err)
	}
	nodes := writeFile(t, "n.txt", "id label\na acct\nb shop\nz none\n")
	opts := FileOptions{NodeFile: nodes}
	for _, want := range []string{"written", "hit"} {
		if got := loadCached(t, path, dir, opts); got != want {
			t.Errorf("with a node file: cache %q; want %q", got, want)
		}
	}
}

// TestCacheServesGzip: a gzip edge file is cached like a plain one (keyed
// by its compressed bytes; rebuilt when they change), and weighs four
// times its size against CacheMin.
func TestCacheServesGzip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	path := writeFile(t, "e.txt.gz", gzipped(randomEdgeFile(r, 2000, true, true, false)))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := FileOptions{Workers: 3, CacheMin: 4*fi.Size() + 1}
	if got := loadCached(t, path, dir, opts); got != "" {
		t.Errorf("below CacheMin: cache %q; want none", got)
	}
	opts.CacheMin = 4 * fi.Size()
	for _, want := range []string{"written", "hit"} {
		if got := loadCached(t, path, dir, opts); got != want {
			t.Errorf("cache %q; want %s", got, want)
		}
	}
	if err := os.WriteFile(path, []byte(gzipped(randomEdgeFile(r, 2000, true, true, false))), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.CacheMin = 0
	if got := loadCached(t, path, dir, opts); got != "rebuilt (input changed)" {
		t.Errorf("after a change: cache %q; want rebuilt (input changed)", got)
	}
}
