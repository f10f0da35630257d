package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/motif"
)

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testenv.Poll(10*time.Second, time.Millisecond, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// watchTest runs a QueryWatcher over the query files of cfg and records
// what it hands over.
type watchTest struct {
	t      *testing.T
	w      *QueryWatcher
	log    *testenv.SyncBuffer
	mu     sync.Mutex
	sets   [][]string // names of each set passed to onChange
	refuse error      // onChange's answer
}

// newWatch builds a QueryWatcher over the query files of cfg that the
// test polls by hand (Poll): every step is then decided, none timed.
func newWatch(t *testing.T, cfg *Config) *watchTest {
	t.Helper()
	wt := &watchTest{t: t, log: &testenv.SyncBuffer{}}
	logger := slog.New(slog.NewTextHandler(wt.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w, err := NewQueryWatcher(cfg, logger, func(qs []*motif.Query) error {
		wt.mu.Lock()
		defer wt.mu.Unlock()
		wt.sets = append(wt.sets, names(qs))
		return wt.refuse
	})
	if err != nil {
		t.Fatalf("NewQueryWatcher error = %v", err)
	}
	wt.w = w
	return wt
}

// startWatch is newWatch with the watcher's Run polling on its own.
func startWatch(t *testing.T, cfg *Config) *watchTest {
	t.Helper()
	wt := newWatch(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- wt.w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v; want nil after cancel", err)
		}
	})
	return wt
}

func names(qs []*motif.Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

func (wt *watchTest) changes() [][]string {
	wt.mu.Lock()
	defer wt.mu.Unlock()
	return append([][]string(nil), wt.sets...)
}

// poll polls n times (a change is acted on at its second poll).
func (wt *watchTest) poll(n int) {
	for range n {
		wt.w.Poll()
	}
}

const (
	queryA  = "queries:\n  - {name: a, delta: 1m, edges: [A -> B]}\n"
	queryAB = "queries:\n  - {name: a, delta: 1m, edges: [A -> B]}\n  - {name: b, delta: 2m, edges: [A -> B, B -> A]}\n"
	// queryBad has an invalid delta on line 3.
	queryBad = "queries:\n  - name: a\n    delta: soon\n    edges: [A -> B]\n"
)

// writeFile replaces path's contents atomically (write and rename), so
// the watcher never reads a half-written file and each poll sees either
// the old or the new contents.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// logCount waits until the log holds n lines containing s.
func (wt *watchTest) logCount(s string, n int) {
	wt.t.Helper()
	waitFor(wt.t, fmt.Sprintf("%d log lines with %q", n, s), func() bool { return strings.Count(wt.log.String(), s) >= n })
}

func watchConfig(files ...string) *Config {
	c := DefaultConfig()
	c.Queries.Files = files
	c.Queries.Inline = []map[string]any{{"name": "inline", "delta": "1m", "edges": []any{"X -> Y"}}}
	c.Queries.ReloadInterval = 2 * time.Millisecond
	return c
}

func TestWatcherAppliesValidChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, path, queryA)
	wt := startWatch(t, watchConfig(path))
	if got := names(wt.w.Queries()); strings.Join(got, ",") != "a,inline" {
		t.Fatalf("initial Queries() = %q; want [a inline]", got)
	}
	writeFile(t, path, queryAB)
	waitFor(t, "onChange", func() bool { return len(wt.changes()) == 1 })
	if got := strings.Join(wt.changes()[0], ","); got != "a,b,inline" {
		t.Errorf("onChange got %s; want a,b,inline (the full set, inline queries included)", got)
	}
	if got := names(wt.w.Queries()); strings.Join(got, ",") != "a,b,inline" {
		t.Errorf("Queries() after reload = %q; want [a b inline]", got)
	}
	waitFor(t, "the reload log line", func() bool { return strings.Contains(wt.log.String(), "queries reloaded") })
	if log := wt.log.String(); !strings.Contains(log, "added=[b]") {
		t.Errorf("log does not name the added query:\n%s", log)
	}
	// Removing a query is a change too.
	writeFile(t, path, queryA)
	waitFor(t, "second onChange", func() bool { return len(wt.changes()) == 2 })
	if got := strings.Join(wt.changes()[1], ","); got != "a,inline" {
		t.Errorf("onChange got %s; want a,inline", got)
	}
}

func TestWatcherRejectsInvalidChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, path, queryA)
	wt := newWatch(t, watchConfig(path))
	writeFile(t, path, queryBad)
	wt.poll(5)
	log := wt.log.String()
	if want := path + `:3: queries[0].delta: \"soon\" is neither a duration`; !strings.Contains(log, want) {
		t.Errorf("log does not name file, line and field (%s):\n%s", want, log)
	}
	if n := strings.Count(log, "query reload rejected"); n != 1 {
		t.Errorf("rejection logged %d times; want once per edit:\n%s", n, log)
	}
	if len(wt.changes()) != 0 {
		t.Errorf("onChange called with %v for an invalid edit", wt.changes())
	}
	if got := names(wt.w.Queries()); strings.Join(got, ",") != "a,inline" {
		t.Errorf("Queries() = %q; want the old set [a inline]", got)
	}
	// A duplicate of an inline name, and a node attribute, are invalid too.
	writeFile(t, path, "queries:\n  - {name: inline, delta: 1m, edges: [A -> B]}\n")
	wt.poll(2)
	wt.logCount(`duplicate query name \"inline\"`, 1)
	writeFile(t, path, "queries:\n  - {name: a, delta: 1m, nodes: {A: {where: \"risk > 1\"}, B: {}}, edges: [A -> B]}\n")
	wt.poll(2)
	wt.logCount(`node attribute \"risk\"`, 1)
	// Fixing the file applies the fixed set.
	writeFile(t, path, queryAB)
	wt.poll(2)
	if n := len(wt.changes()); n != 1 {
		t.Errorf("onChange called %d times after the fix; want once", n)
	}
}

func TestWatcherIgnoresUnchangedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, path, queryA)
	wt := newWatch(t, watchConfig(path))
	wt.poll(3)
	// Rewriting the same bytes (a new mtime) is no change.
	writeFile(t, path, queryA)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
	wt.poll(5)
	// A change that leaves the queries as they were (a comment) is not
	// handed over either.
	writeFile(t, path, "# a comment\n"+queryA)
	wt.poll(5)
	wt.logCount("query files changed; the queries did not", 1)
	if len(wt.changes()) != 0 {
		t.Errorf("onChange called %d times for an unchanged query set: %v", len(wt.changes()), wt.changes())
	}
	// An invalid edit reverted to the set in effect is not re-applied.
	writeFile(t, path, queryBad)
	wt.poll(2)
	wt.logCount("query reload rejected", 1)
	writeFile(t, path, "# a comment\n"+queryA)
	wt.poll(2)
	wt.logCount("back to the set in effect", 1)
	if len(wt.changes()) != 0 {
		t.Errorf("onChange called %d times: %v", len(wt.changes()), wt.changes())
	}
}

// TestWatcherSeesConfigMapSwap: Kubernetes mounts a ConfigMap as
// q.yaml → ..data/q.yaml, ..data → ..<timestamp>/, and updates it by
// swapping the ..data symlink: q.yaml itself never changes.
func TestWatcherSeesConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	for v, data := range map[string]string{"..v1": queryA, "..v2": queryAB} {
		if err := os.Mkdir(filepath.Join(dir, v), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, v, "q.yaml"), data)
	}
	if err := os.Symlink("..v1", filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "q.yaml")
	if err := os.Symlink(filepath.Join("..data", "q.yaml"), path); err != nil {
		t.Fatal(err)
	}
	wt := startWatch(t, watchConfig(path))
	if err := os.Symlink("..v2", filepath.Join(dir, "..data_tmp")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "onChange after the swap", func() bool { return len(wt.changes()) == 1 })
	if got := strings.Join(wt.changes()[0], ","); got != "a,b,inline" {
		t.Errorf("onChange got %s; want a,b,inline", got)
	}
}

func TestWatcherOnChangeRefusal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, path, queryA)
	wt := newWatch(t, watchConfig(path))
	wt.refuse = errors.New("query b: edge attribute \"amount\" is not in the window")
	writeFile(t, path, queryAB)
	wt.poll(2)
	wt.logCount("rejected by the daemon", 1)
	wt.poll(3)
	if n := len(wt.changes()); n != 1 {
		t.Errorf("onChange called %d times; want once (no retry until the files change)", n)
	}
	if got := names(wt.w.Queries()); strings.Join(got, ",") != "a,inline" {
		t.Errorf("Queries() = %q; want the old set [a inline]", got)
	}
}

func TestWatcherMissingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q.yaml")
	if _, err := NewQueryWatcher(watchConfig(path), nil, func([]*motif.Query) error { return nil }); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("NewQueryWatcher with a missing file: error = %v; want no such file", err)
	}
	writeFile(t, path, queryA)
	wt := startWatch(t, watchConfig(path))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wt.logCount("no such file", 1)
	writeFile(t, path, queryAB)
	waitFor(t, "onChange after the file came back", func() bool { return len(wt.changes()) == 1 })
}

func TestWatcherWithoutFilesWaits(t *testing.T) {
	w, err := NewQueryWatcher(watchConfig(), nil, func([]*motif.Query) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := w.Run(ctx); err != nil {
		t.Errorf("Run() = %v; want nil", err)
	}
}

// TestWatcherWaitsForStableContents polls by hand: contents are acted on
// once two consecutive polls read them alike, so a file caught
// half-written is neither applied nor reported.
func TestWatcherWaitsForStableContents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.yaml")
	writeFile(t, path, queryA)
	var log testenv.SyncBuffer
	var sets [][]string
	w, err := NewQueryWatcher(watchConfig(path), slog.New(slog.NewTextHandler(&log, nil)), func(qs []*motif.Query) error {
		sets = append(sets, names(qs))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, queryAB[:len(queryAB)-20]) // half written
	w.Poll()
	writeFile(t, path, queryAB)
	w.Poll()
	if len(sets) != 0 || log.String() != "" {
		t.Fatalf("after contents changed at every poll: onChange got %v, log %q; want nothing yet", sets, log.String())
	}
	w.Poll()
	if len(sets) != 1 || strings.Join(sets[0], ",") != "a,b,inline" {
		t.Errorf("after two polls alike: onChange got %v; want [[a b inline]]", sets)
	}
	if strings.Contains(log.String(), "rejected") {
		t.Errorf("the half-written file was reported:\n%s", log.String())
	}
}
