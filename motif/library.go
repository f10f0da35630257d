package motif

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnknownMotif is returned (wrapped) by Builtin for a name it does not
// know.
var ErrUnknownMotif = errors.New("unknown motif")

// everestMotifs are Everest's benchmark motifs (Yuan et al., VLDB 2024),
// edges in temporal order.
var everestMotifs = []struct{ name, edges string }{
	{"M1", "1->2, 2->3, 3->4"},
	{"M2", "2->3, 2->1, 3->4"},
	{"M3", "1->2, 2->3, 3->4, 4->2"},
	{"M4", "1->2, 2->3, 3->4, 4->1"},
	{"M5", "1->2, 2->3, 3->4, 4->5"},
	{"M6", "1->2, 3->2, 3->4, 5->4"},
	{"M7", "1->2, 1->3, 4->2, 4->3"},
	{"M8", "1->3, 2->3, 3->4, 4->5"},
	{"M9", "1->2, 2->3, 3->4, 3->1"},
	{"M10", "1->2, 2->3, 3->1, 1->4, 4->3"},
	{"M11", "1->2, 2->3, 3->4, 4->5, 5->1"},
	{"M12", "1->2, 2->3, 3->4, 4->5, 5->2"},
	{"M13", "1->2, 2->3, 3->4, 4->2, 2->5"},
}

// snapMotifs is SNAP's 6×6 grid of 3-edge temporal motifs (Paranjape,
// Benson and Leskovec, WSDM 2017; snap-adv temporalmotifs.cpp), row i,
// column j = motif M(i+1, j+1), edges in temporal order. Stars use centre
// c, paired neighbour x and single neighbour y; triangles use i, j, k;
// two-node motifs use i, j.
var snapMotifs = [6][6]string{
	{"x->c, y->c, x->c", "x->c, y->c, c->x", "i->j, k->j, i->k", "i->j, k->j, k->i", "y->c, x->c, c->x", "y->c, x->c, x->c"},
	{"x->c, c->y, x->c", "x->c, c->y, c->x", "i->j, j->k, i->k", "i->j, j->k, k->i", "y->c, c->x, c->x", "y->c, c->x, x->c"},
	{"c->x, y->c, c->x", "c->x, y->c, x->c", "c->y, x->c, c->x", "c->y, x->c, x->c", "i->j, k->i, j->k", "i->j, k->i, k->j"},
	{"c->x, c->y, c->x", "c->x, c->y, x->c", "c->y, c->x, c->x", "c->y, c->x, x->c", "i->j, i->k, j->k", "i->j, i->k, k->j"},
	{"i->j, j->i, i->j", "i->j, j->i, j->i", "c->x, x->c, c->y", "c->x, x->c, y->c", "x->c, c->x, c->y", "x->c, c->x, y->c"},
	{"i->j, i->j, i->j", "i->j, i->j, j->i", "c->x, c->x, c->y", "c->x, c->x, y->c", "x->c, x->c, c->y", "x->c, x->c, y->c"},
}

// path4Ranks are the temporal orders of the four-node paths: the ranks of
// the edges a–b, b–c, c–d in reading order, read from the end whose edge
// comes first. Two of the six orders are these read backwards; the other
// two (1 3 2, 2 3 1) start with the two end edges, which share no node,
// and a motif's every edge after the first must touch an earlier one.
var path4Ranks = [2]string{"123", "213"}

// path4Names lists the 16 four-node, three-edge paths
// path4-<ranks>-<dirs>: a path a–b–c–d read from the end whose edge comes
// first in time, ranks the temporal ranks of its three edges in reading
// order, dirs f or b for each edge along (a→b, b→c, c→d) or against the
// reading. M1 (1→2, 2→3, 3→4) is path4-123-fff.
func path4Names() []string {
	var names []string
	for _, r := range path4Ranks {
		for d := range 8 {
			dirs := []byte("fff")
			for e := range 3 {
				if d>>(2-e)&1 == 1 {
					dirs[e] = 'b'
				}
			}
			names = append(names, "path4-"+r+"-"+string(dirs))
		}
	}
	return names
}

// path4Motif returns the path named name (path4Names), or nil.
func path4Motif(name string) *Query {
	if !slices.Contains(path4Names(), name) {
		return nil
	}
	ranks, dirs := name[6:9], name[10:]
	var edges [3]string
	for e, pair := range [3]string{"ab", "bc", "cd"} {
		from, to := pair[:1], pair[1:]
		if dirs[e] == 'b' {
			from, to = to, from
		}
		edges[ranks[e]-'1'] = from + "->" + to
	}
	return motifFromEdges(name, "four-node temporal path "+name, strings.Join(edges[:], ", "))
}

// BuiltinNames lists the built-in motifs: Everest's M1…M13, M4-A (M4 with
// an anti-edge), SNAP's snap-1-1…snap-6-6 and the four-node paths
// path4-<ranks>-<dirs> (path4Names), and the four-node, four-edge cycles
// and paws cycle4-<ranks>-<dirs> and paw-<ranks>-<dirs> (library4.go).
func BuiltinNames() []string {
	names := make([]string, 0, len(everestMotifs)+1+36+16+32+160)
	for _, m := range everestMotifs {
		names = append(names, m.name)
	}
	names = append(names, "M4-A")
	for i := 1; i <= 6; i++ {
		for j := 1; j <= 6; j++ {
			names = append(names, fmt.Sprintf("snap-%d-%d", i, j))
		}
	}
	names = append(names, path4Names()...)
	names = append(names, Cycle4Names()...)
	return append(names, PawNames()...)
}

// Builtin returns a fresh copy of the named built-in motif. Its Delta is
// unset: the caller sets it (e.g. from --delta) before validating or
// compiling it.
func Builtin(name string) (*Query, error) {
	for _, m := range everestMotifs {
		if m.name == name {
			return motifFromEdges(name, "Everest benchmark motif "+name, m.edges), nil
		}
	}
	if name == "M4-A" {
		q := motifFromEdges(name, "Everest motif M4 with anti-edge 3→1 after edge 2 (no 3→1 closes the first triangle early)", everestMotifs[3].edges)
		q.AntiEdges = []AntiEdge{{From: q.NodeIndex("3"), To: q.NodeIndex("1"), After: 1}}
		return q, nil
	}
	var i, j int
	var rest string
	if n, _ := fmt.Sscanf(name, "snap-%d-%d%s", &i, &j, &rest); n == 2 && i >= 1 && i <= 6 && j >= 1 && j <= 6 && name == fmt.Sprintf("snap-%d-%d", i, j) {
		return snapMotif(i, j), nil
	}
	if q := path4Motif(name); q != nil {
		return q, nil
	}
	if q := fourEdgeMotif(name); q != nil {
		return q, nil
	}
	return nil, fmt.Errorf("%w %q (known: M1…M13, M4-A, snap-1-1…snap-6-6, path4-123-fff…path4-213-bbb, cycle4-1234-ffff…cycle4-1243-bbbb, paw-1234-ffff…paw-4213-bbbb)", ErrUnknownMotif, name)
}

// SNAPGrid returns fresh copies of SNAP's 36 3-edge motifs in SNAP's
// layout: grid[i][j] is M(i+1, j+1), named "snap-<i+1>-<j+1>".
func SNAPGrid() [6][6]*Query {
	var g [6][6]*Query
	for i := range g {
		for j := range g[i] {
			g[i][j] = snapMotif(i+1, j+1)
		}
	}
	return g
}

func snapMotif(i, j int) *Query {
	edges := snapMotifs[i-1][j-1]
	return motifFromEdges(fmt.Sprintf("snap-%d-%d", i, j),
		fmt.Sprintf("SNAP 3-edge temporal motif M(%d,%d)", i, j), edges)
}

// motifFromEdges builds a query from "a->b, b->c, …", numbering nodes in
// order of first appearance. The edge lists above are fixed and valid.
func motifFromEdges(name, desc, edges string) *Query {
	q := &Query{Name: name, Description: desc + ": " + strings.ReplaceAll(edges, "->", "→")}
	node := func(n string) int {
		if i := q.NodeIndex(n); i >= 0 {
			return i
		}
		q.Nodes = append(q.Nodes, Node{Name: n})
		return len(q.Nodes) - 1
	}
	for _, e := range strings.Split(edges, ",") {
		from, to, _ := splitArrow(e)
		q.Edges = append(q.Edges, Edge{From: node(from), To: node(to)})
	}
	return q
}
