package alerts

import (
	"regexp"
	"testing"
)

// idEdges is a fixed two-edge match for the golden test.
var idEdges = []Edge{
	{Src: "a", Dst: "b", T: 1000, Seq: 7, Partition: 2, Offset: 41},
	{Src: "b", Dst: "c", T: 1060, Seq: 9, Partition: 0, Offset: 5},
}

// TestMatchIDGolden pins MatchID: consumers deduplicate on it across
// restarts and versions, so a change is a breaking change of the alert
// format, never an accident.
func TestMatchIDGolden(t *testing.T) {
	tests := []struct {
		query  string
		edges  []Edge
		hasSeq bool
		want   string
	}{
		{"ring", idEdges, true, "802d6a79328ade1c7c3daf3a43ce798a"},
		{"ring", idEdges, false, "342e6565d33f95992413325ae23d0c2d"},
		{"", nil, false, "af5570f5a1810b7af78caf4bc70a660f"},
	}
	for _, tt := range tests {
		if got := MatchID(tt.query, tt.edges, tt.hasSeq); got != tt.want {
			t.Errorf("MatchID(%q, %v, %v) = %q; want %q", tt.query, tt.edges, tt.hasSeq, got, tt.want)
		}
	}
}

func TestMatchIDFormat(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	if got := MatchID("ring", idEdges, true); !hex32.MatchString(got) {
		t.Errorf("MatchID = %q; want 32 lower-case hex digits", got)
	}
}

// TestMatchIDIdentity checks which fields are part of an edge's identity:
// with hasSeq (src, dst, t, seq), without it (src, dst, t, partition,
// offset), and the query name and edge order always.
func TestMatchIDIdentity(t *testing.T) {
	tests := []struct {
		name string
		edit func(q *string, e []Edge)
		// whether the id changes with hasSeq, and without it.
		withSeq, withoutSeq bool
	}{
		{"query", func(q *string, e []Edge) { *q = "ring2" }, true, true},
		{"src", func(q *string, e []Edge) { e[1].Src = "x" }, true, true},
		{"dst", func(q *string, e []Edge) { e[0].Dst = "x" }, true, true},
		{"t", func(q *string, e []Edge) { e[1].T++ }, true, true},
		{"seq", func(q *string, e []Edge) { e[0].Seq++ }, true, false},
		{"partition", func(q *string, e []Edge) { e[1].Partition++ }, false, true},
		{"offset", func(q *string, e []Edge) { e[0].Offset++ }, false, true},
		{"edge order", func(q *string, e []Edge) { e[0], e[1] = e[1], e[0] }, true, true},
		// Length-prefixed strings: moving a byte across a field boundary
		// is a different identity.
		{"src/dst boundary", func(q *string, e []Edge) { e[0].Src, e[0].Dst = "ab", "" }, true, true},
		{"query/src boundary", func(q *string, e []Edge) { *q, e[0].Src = "rin", "ga" }, true, true},
		{"nothing", func(q *string, e []Edge) {}, false, false},
	}
	for _, tt := range tests {
		for _, hasSeq := range []bool{true, false} {
			want := tt.withoutSeq
			if hasSeq {
				want = tt.withSeq
			}
			q, e := "ring", append([]Edge(nil), idEdges...)
			tt.edit(&q, e)
			base, got := MatchID("ring", idEdges, hasSeq), MatchID(q, e, hasSeq)
			if changed := got != base; changed != want {
				t.Errorf("%s, hasSeq=%v: id changed = %v; want %v", tt.name, hasSeq, changed, want)
			}
		}
	}
}

// TestMatchIDHasSeq checks that hasSeq switches the identity: the same
// edges hash differently, even when seq happens to equal the partition
// and offset fields' values.
func TestMatchIDHasSeq(t *testing.T) {
	tests := []struct {
		name  string
		edges []Edge
	}{
		{"fixed", idEdges},
		{"zero fields", []Edge{{Src: "a", Dst: "b"}}},
		{"no edges", nil},
	}
	for _, tt := range tests {
		s, o := MatchID("q", tt.edges, true), MatchID("q", tt.edges, false)
		if len(tt.edges) > 0 && s == o {
			t.Errorf("%s: MatchID with and without seq are both %q; want them to differ", tt.name, s)
		}
		if len(tt.edges) == 0 && s != o {
			t.Errorf("%s: MatchID of no edges depends on hasSeq: %q, %q", tt.name, s, o)
		}
	}
}
