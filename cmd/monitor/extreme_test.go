package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/mine"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// extremeQueries are counted shapes of every family (two-edge, two-node
// four-edge, triangle, star, four-node star, four-node path) in a query file; --delta
// overrides their δ.
const extremeQueries = `queries:
  - name: relay
    delta: 1
    edges: [A -> B, B -> C]
  - name: reply
    delta: 1
    edges: [a -> b, b -> a]
  - name: round-trip-twice
    delta: 1
    edges: [a -> b, b -> a, a -> b, b -> a]
  - name: cycle
    delta: 1
    edges: [A -> B, B -> C, C -> A]
  - name: out-star
    delta: 1
    edges: [hub -> a, hub -> b, hub -> a]
  - name: star4
    delta: 1
    edges: [c -> x, y -> c, c -> z]
  - name: chain
    delta: 1
    edges: [A -> B, B -> C, C -> D]
  - name: bridge-first
    delta: 1
    edges: [b -> c, b -> a, d -> c]
`

// `monitor mine` on graphs whose timestamps lie near −2^63, near 2^63 − 1,
// around 0 and at both ends, with δ from 1 tick to 2^63 − 1, exits 0
// (issue 24 item 8: it panicked in motif/count3) and prints, for the
// counted shapes of every family and SNAP's grid, the brute-force
// oracle's counts.
func TestMineExtremeTimestamps(t *testing.T) {
	t.Parallel()
	const maxT, minT = math.MaxInt64, math.MinInt64
	rng := rand.New(rand.NewPCG(24, 8))
	var matched int64
	dir := t.TempDir()
	queries := filepath.Join(dir, "queries.yaml")
	if err := os.WriteFile(queries, []byte(extremeQueries), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		name string
		time func(i int64) int64 // i in [0, 30)
	}{
		{"near-min", func(i int64) int64 { return minT + i }},
		{"near-max", func(i int64) int64 { return maxT - 29 + i }},
		{"around-zero", func(i int64) int64 { return i - 15 }},
		{"both-ends", func(i int64) int64 {
			if i < 15 {
				return minT + i
			}
			return maxT - 29 + i
		}},
	} {
		// 36 edges over 5 nodes, times in order (ties included).
		var b strings.Builder
		var ts []int64
		for range 36 {
			ts = append(ts, rng.Int64N(30))
		}
		for i := range ts {
			for j := i; j > 0 && ts[j] < ts[j-1]; j-- {
				ts[j], ts[j-1] = ts[j-1], ts[j]
			}
		}
		for _, x := range ts {
			u := rng.IntN(5)
			v := (u + 1 + rng.IntN(4)) % 5
			fmt.Fprintf(&b, "n%d n%d %d\n", u, v, g.time(x))
		}
		graph := filepath.Join(dir, g.name+".txt")
		if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		w, _, err := ingest.LoadFile(graph, ingest.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, delta := range []int64{1, 10, maxT / 2, maxT} {
			// --always-count: these few edges are cheaper enumerated, but
			// the counters are what is tested.
			args := []string{"mine", "--graph", graph, "--delta", fmt.Sprint(delta), "--no-cache", "--progress", "0", "--format", "json", "--workers", "2", "--always-count"}
			// The query file, then SNAP's grid.
			out, errOut, code := monitor(t, append(args, "--query", queries, "--explain")...)
			if code != 0 {
				t.Fatalf("%s, delta %d: mine --query exited %d:\n%s", g.name, delta, code, errOut)
			}
			if n := strings.Count(errOut, "(motif/count3)"); n != 8 {
				t.Fatalf("%s, delta %d: %d of the 8 queries counted by motif/count3; want all:\n%s", g.name, delta, n, errOut)
			}
			var rep mine.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%s, delta %d: output is not JSON: %v\n%s", g.name, delta, err, out)
			}
			qs, err := motif.ParseQueries([]byte(extremeQueries), "queries.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Queries) != len(qs) {
				t.Fatalf("%s, delta %d: %d queries reported; want %d", g.name, delta, len(rep.Queries), len(qs))
			}
			for i, q := range qs {
				q.Delta = motif.TicksSpan(delta)
				want := oracleCount(t, w, q)
				matched += want
				if rep.Queries[i].Matches != want {
					t.Errorf("%s, delta %d: %s counted %d; the oracle %d", g.name, delta, q.Name, rep.Queries[i].Matches, want)
				}
			}
			out, errOut, code = monitor(t, append(args, "--snap3")...)
			if code != 0 {
				t.Fatalf("%s, delta %d: mine --snap3 exited %d:\n%s", g.name, delta, code, errOut)
			}
			rep = mine.Report{}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.SNAP3) != 6 {
				t.Fatalf("%s, delta %d: no grid in the output (%v):\n%s", g.name, delta, err, out)
			}
			for i, row := range motif.SNAPGrid() {
				for j, q := range row {
					q.Delta = motif.TicksSpan(delta)
					want := oracleCount(t, w, q)
					matched += want
					if rep.SNAP3[i][j] != want {
						t.Errorf("%s, delta %d: M(%d,%d) counted %d; the oracle %d", g.name, delta, i+1, j+1, rep.SNAP3[i][j], want)
					}
				}
			}
		}
	}
	if matched == 0 {
		t.Error("no query had a match: the test compares nothing")
	}
}

func oracleCount(t *testing.T, w *window.Window, q *motif.Query) int64 {
	t.Helper()
	ms, err := oracle.Mine(w, q, motif.WholeWindow(w), motif.Batch)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(ms))
}
