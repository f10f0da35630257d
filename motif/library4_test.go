package motif

import (
	"slices"
	"testing"
)

// The cycle4 and paw names cover every temporal four-cycle and paw exactly
// once: every sequence of four edges on four nodes whose node pairs are
// distinct and form a four-cycle or a paw, and whose every edge after the
// first touches an earlier one, is isomorphic to exactly one name.
func TestFourEdgeNamesComplete(t *testing.T) {
	byShape := map[string]map[string]string{"cycle4": {}, "paw": {}} // edgeSeq → name
	for _, list := range [][]string{Cycle4Names(), PawNames()} {
		for _, name := range list {
			q, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			shape := name[:len(name)-len("-1234-ffff")]
			if got := underlying(q); got != shape {
				t.Errorf("%s: underlying graph %q", name, got)
			}
			k := edgeSeq(q)
			if other, ok := byShape[shape][k]; ok {
				t.Errorf("%s and %s are the same motif", name, other)
			}
			byShape[shape][k] = name
		}
	}
	if n := len(byShape["cycle4"]); n != 32 {
		t.Errorf("%d four-cycles; want 32", n)
	}
	if n := len(byShape["paw"]); n != 160 {
		t.Errorf("%d paws; want 160", n)
	}
	// Every valid sequence on nodes 0..3 (edges as ordered pairs).
	var pairs [][2]int
	for a := range 4 {
		for b := range 4 {
			if a != b {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	var walk func(es [][2]int)
	seen := 0
	walk = func(es [][2]int) {
		if len(es) == 4 {
			q := &Query{Nodes: make([]Node, 4)}
			for _, e := range es {
				q.Edges = append(q.Edges, Edge{From: e[0], To: e[1]})
			}
			shape := underlying(q)
			if shape == "" {
				return
			}
			seen++
			if _, ok := byShape[shape][edgeSeq(q)]; !ok {
				t.Errorf("the %s %s has no name", shape, edgeSeq(q))
			}
			return
		}
	next:
		for _, p := range pairs {
			touches := len(es) == 0
			for _, e := range es {
				if (e[0] == p[0] || e[0] == p[1]) && (e[1] == p[0] || e[1] == p[1]) {
					continue next // the same node pair
				}
				touches = touches || e[0] == p[0] || e[0] == p[1] || e[1] == p[0] || e[1] == p[1]
			}
			if touches {
				walk(append(slices.Clone(es), p))
			}
		}
	}
	walk(nil)
	if seen == 0 {
		t.Fatal("no sequence enumerated")
	}
}

// underlying returns "cycle4" or "paw" for a four-edge query on four
// nodes with distinct node pairs of that graph, else "".
func underlying(q *Query) string {
	if len(q.Edges) != 4 {
		return ""
	}
	var deg [4]int
	for _, e := range q.Edges {
		if e.From < 0 || e.From > 3 || e.To < 0 || e.To > 3 {
			return ""
		}
		deg[e.From]++
		deg[e.To]++
	}
	d := slices.Clone(deg[:])
	slices.Sort(d)
	switch {
	case slices.Equal(d, []int{2, 2, 2, 2}):
		return "cycle4"
	case slices.Equal(d, []int{1, 2, 2, 3}):
		return "paw"
	}
	return ""
}

func TestFourEdgeEverest(t *testing.T) {
	for _, tc := range []struct{ everest, name string }{{"M3", "paw-1234-ffff"}, {"M9", "paw-3214-bbbb"}, {"M4", "cycle4-1234-ffff"}, {"M7", "cycle4-1243-bfbf"}} {
		m, _ := Builtin(tc.everest)
		q, err := Builtin(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if edgeSeq(m) != edgeSeq(q) {
			t.Errorf("%s = %s; %s = %s", tc.everest, edgeSeq(m), tc.name, edgeSeq(q))
		}
	}
}
