package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// tiedGraph writes a small edge file in which most edges share their
// time with others (three per second over nine nodes): the order of
// equal times decides which edge sequences match, so it tells apart a
// daemon that orders ties by the records' seq from one that orders them
// by arrival over several partitions.
func tiedGraph(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := range 600 {
		src, dst := (i*7)%9, (i*5+1+i/9)%9
		if src == dst {
			dst = (dst + 1) % 9
		}
		fmt.Fprintf(&b, "n%d n%d %d\n", src, dst, 1000+i/3)
	}
	path := filepath.Join(t.TempDir(), "tied.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDefaultsKeepMineIDs is issue 26 item 3: `monitor config --defaults`
// wrote input.fields.seq: "", and a daemon run on that file gave none of
// `monitor mine`'s match ids for a file replayed with `monitor produce`
// (whose records carry seq). The defaults, with only the brokers, the
// query file and the listen address changed, must give exactly mine's.
func TestDefaultsKeepMineIDs(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end replay skipped in -short mode")
	}
	graph := tiedGraph(t)
	queries := writeQueries(t, `queries:
  - name: tri-cycle
    delta: 20
    edges: [A -> B, B -> C, C -> A]
  - name: unanswered-twice
    delta: 10
    edges: [A -> B, A -> B]
    not:
      - {from: B, to: A, after: 2}
`)
	exp := mineExpectation(t, graph, queries)
	if len(exp.ids) < 20 || len(exp.ids) > 2000 { // within the default rate limit's burst
		t.Fatalf("mine found %d matches; the test wants 20..2000", len(exp.ids))
	}
	defaults, err := config.DefaultsYAML()
	if err != nil {
		t.Fatal(err)
	}
	brokers := kafkatest.StartBroker(t)
	cfg := string(defaults)
	for _, r := range [][2]string{
		{"\n  brokers: [embedded]\n", "\n  brokers: [" + strings.Join(brokers, ", ") + "]\n"},
		{"\ndemo: null\n", "\ndemo: false\n"},
		{"\n  files: []\n", "\n  files: [" + queries + "]\n"},
		{"\n  listen: 127.0.0.1:9464\n", "\n  listen: 127.0.0.1:0\n"},
	} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("the defaults have no %q to replace", r[0])
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	d := startDaemon(t, cfg)
	w, _, err := ingest.LoadFile(graph, ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, withSentinel(w, feed.Window(w)))
	check(t, "defaults", exp, waitFor(t, brokers, exp))
	if err := d.stop(); err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
}
