package cpu_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/motif/cpu"
	"github.com/motifwatch/motifwatch/motif/oracle"
	"github.com/motifwatch/motifwatch/window"
)

// intWindow builds a window of "src dst t" edges over named nodes.
func intWindow(t *testing.T, edges ...string) *window.Window {
	t.Helper()
	w, err := oracle.LineWindow(edges...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func parseOne(t *testing.T, yaml string) *motif.Query {
	t.Helper()
	qs, err := motif.ParseQueries([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return qs[0]
}

// TestIntervalEndsSaturate: interval ends at the edges of int64 (delta or
// a within of 2^63−1, times near ±2^63) are clamped, not wrapped: issue
// 12 item 7's cases, in count and enumerate mode (motif's
// TestRecheckSaturates covers Recheck).
func TestIntervalEndsSaturate(t *testing.T) {
	const maxDelta = "9223372036854775807"
	for _, c := range []struct {
		name    string
		edges   []string
		query   string
		horizon int64
		final   int64
		open    int64
	}{
		{"anti-edge past t1+delta wrapping", []string{"a b 1", "b c 2", "b a 3"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C], not: [B -> A]}", motif.Batch, 0, 0},
		{"lower time bound wrapping", []string{"a b -5", "b c -4"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C]}", motif.Batch, 1, 0},
		{"times at both ends, within delta", []string{"a b -9223372036854775808", "b c 9223372036854775806"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C]}", motif.Batch, 0, 0},
		{"times at both ends, one tick inside delta", []string{"a b -1", "b c 9223372036854775806"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C]}", motif.Batch, 1, 0},
		// Root e3 maps A and D, e1 comes next, then e2 bounded by e1 + its within.
		{"hop limit from the previous edge wrapping", []string{"a b 9223372036854775800", "b c 9223372036854775801", "a d 9223372036854775802"},
			"{delta: " + maxDelta + ", edges: [A -> B, {from: B, to: C, within: " + maxDelta + "}, A -> D]}", motif.Batch, 1, 0},
		{"hop limit to the next edge wrapping", []string{"a b -9223372036854775800", "b c -9223372036854775799", "c d -9223372036854775798"},
			"{delta: " + maxDelta + ", edges: [A -> B, {from: B, to: C, within: " + maxDelta + "}, C -> D]}", motif.Batch, 1, 0},
		{"anti-edge within wrapping", []string{"a b 9223372036854775800", "b c 9223372036854775801", "b a 9223372036854775802"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C], not: [{from: B, to: A, after: 1, within: " + maxDelta + "}]}", motif.Batch, 0, 0},
		{"open interval clamped to the last tick", []string{"a b 1", "b c 2"},
			"{delta: " + maxDelta + ", edges: [A -> B, B -> C], not: [B -> A]}", 2, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := intWindow(t, c.edges...)
			q := parseOne(t, "queries: [{name: q, "+c.query[1:]+"]\n")
			p, err := motif.Compile(q, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2} {
				e := cpu.New(workers)
				req := motif.Request{Range: motif.WholeWindow(w), Horizon: c.horizon}
				res, err := e.Mine(context.Background(), w, p, req)
				if err != nil || res.Matches != c.final || res.Open != c.open {
					t.Fatalf("count mode: %d final, %d open (%v); want %d, %d", res.Matches, res.Open, err, c.final, c.open)
				}
				var got []motif.Match
				req.Sink = motif.SinkFunc(func(m *motif.Match) error {
					got = append(got, motif.Match{Edges: slices.Clone(m.Edges), Nodes: slices.Clone(m.Nodes), Open: m.Open, OpenUntil: m.OpenUntil})
					return nil
				})
				if res, err = e.Mine(context.Background(), w, p, req); err != nil || int64(len(got)) != c.final+c.open {
					t.Fatalf("enumerate mode: %d matches (%v); want %d", len(got), err, c.final+c.open)
				}
				for _, m := range got {
					if m.Open && m.OpenUntil != math.MaxInt64 {
						t.Errorf("open until %d; want the interval end clamped to %d", m.OpenUntil, int64(math.MaxInt64))
					}
				}
			}
		})
	}
}
