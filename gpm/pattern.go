package gpm

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// MaxMotifK is the largest motif size: a pattern's k(k-1)/2 vertex pairs
// must fit the 64 bits of a code, and k = 10 keeps canonical labelling
// fast for every pattern (k = 11 would also fit).
const MaxMotifK = 10

// Pattern is an induced subgraph shape on K vertices, as a code: bit
// PairBit(i, j) is set when vertices i and j (i < j) are adjacent. The
// codes the engines report are canonical (Canonical): two subgraphs have
// the same Pattern exactly when they are isomorphic.
type Pattern struct {
	K    int
	Code uint64
}

// PairBit is the bit of pair (i, j), i < j, in a code: column-wise, so the
// pairs of vertex j with the vertices before it are the j bits starting at
// j(j-1)/2 and appending a vertex is a shift and an or.
func PairBit(i, j int) int { return j*(j-1)/2 + i }

// Has reports whether vertices i < j are adjacent. Patterns of more than
// 11 vertices do not fit a code; the only ones are cliques (from clique
// counting), written as a code of all ones.
func (p Pattern) Has(i, j int) bool {
	if b := PairBit(i, j); b < 64 {
		return p.Code>>b&1 == 1
	}
	return p.Code == ^uint64(0)
}

// Edges returns the pattern's edges as vertex pairs (i < j), ordered by j
// then i.
func (p Pattern) Edges() [][2]int {
	var es [][2]int
	for j := 1; j < p.K; j++ {
		for i := 0; i < j; i++ {
			if p.Has(i, j) {
				es = append(es, [2]int{i, j})
			}
		}
	}
	return es
}

// NumEdges returns the number of edges.
func (p Pattern) NumEdges() int {
	if p.K > 11 && p.Code == ^uint64(0) {
		return p.K * (p.K - 1) / 2
	}
	return bits.OnesCount64(p.Code)
}

// EdgeList renders the edges as "0-1 0-2 1-2", sorted by (i, j).
func (p Pattern) EdgeList() string {
	es := p.Edges()
	slices.SortFunc(es, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d-%d", e[0], e[1])
	}
	return strings.Join(parts, " ")
}

// String is the pattern's name when it has one (Name), else its edge list.
func (p Pattern) String() string {
	if n := p.Name(); n != "" {
		return n
	}
	return fmt.Sprintf("k%d[%s]", p.K, p.EdgeList())
}

// rows returns the adjacency of a code as one bitset per vertex.
func rows(k int, code uint64) [16]uint16 {
	var r [16]uint16
	for j := 1; j < k; j++ {
		col := code >> PairBit(0, j) & (1<<j - 1)
		for i := 0; i < j; i++ {
			if col>>i&1 == 1 {
				r[i] |= 1 << j
				r[j] |= 1 << i
			}
		}
	}
	return r
}

// Canonical returns the canonical form of the pattern with code raw on k
// vertices: among the orderings of its vertices that list colour classes
// in a fixed order, the one whose columns (the adjacency of each vertex to
// those before it, read from the first) are lexicographically largest.
//
// Colours come from colour refinement (1-dimensional Weisfeiler-Lehman,
// starting from degrees), which isomorphisms preserve, so the restricted
// orderings of isomorphic patterns correspond one to one and the maximum
// is an invariant: isomorphic patterns get the same code, and the code is
// a pattern of the input (so different shapes never share one). The
// search places vertices position by position and keeps, at each depth,
// only the candidates whose column is the largest possible (a smaller
// column loses whatever follows) and that do not already fall behind the
// best complete ordering: a few dozen leaves for most patterns, k! only
// for cliques and other patterns whose every ordering ties. No tables:
// any k ≤ MaxMotifK works at run time; Canonizer caches results.
func Canonical(k int, raw uint64) Pattern {
	if k <= 1 {
		return Pattern{K: k}
	}
	s := canonSearch{k: k, adj: rows(k, raw)}
	s.color = refine(k, &s.adj)
	// Position p must hold a vertex of colour cell[p]: the colours, sorted.
	cells := make([]int, k)
	copy(cells, s.color[:k])
	slices.Sort(cells)
	copy(s.cell[:], cells)
	s.search(0, 0, 0)
	return Pattern{K: k, Code: s.bestCode}
}

// canonSearch is the branch-and-bound state of Canonical.
type canonSearch struct {
	k       int
	adj     [16]uint16
	color   [16]int // per vertex
	cell    [16]int // per position: the colour it takes
	perm    [16]int // position → vertex
	curKey  [16]uint16
	bestKey [16]uint16 // per position: the column as compared
	found   bool
	// bestCode is the code of the best complete ordering.
	bestCode uint64
}

// search fills position p given the vertices placed before it (used) and
// the code of their pairs.
func (s *canonSearch) search(p int, used uint16, code uint64) {
	if p == s.k {
		if !s.found || slices.Compare(s.curKey[:s.k], s.bestKey[:s.k]) > 0 {
			s.found, s.bestKey, s.bestCode = true, s.curKey, code
		}
		return
	}
	// Only the candidates with the largest column can lead to the maximum.
	var top uint16
	for v := range s.k {
		if used>>v&1 == 0 && s.color[v] == s.cell[p] {
			top = max(top, s.key(p, v))
		}
	}
	s.curKey[p] = top
	if s.found && slices.Compare(s.curKey[:p+1], s.bestKey[:p+1]) < 0 {
		return // every completion loses to the best ordering
	}
	for v := range s.k {
		if used>>v&1 == 1 || s.color[v] != s.cell[p] || s.key(p, v) != top {
			continue
		}
		s.perm[p] = v
		s.curKey[p] = top
		var col uint64
		for i := range p {
			if s.adj[s.perm[i]]>>v&1 == 1 {
				col |= 1 << i
			}
		}
		s.search(p+1, used|1<<v, code|col<<PairBit(0, p))
	}
}

// key is the column of v at position p as compared: bit p-1-i set when v
// is adjacent to the vertex at position i, so adjacency to earlier
// positions weighs more (the canonical orderings read like a BFS).
func (s *canonSearch) key(p, v int) uint16 {
	var k uint16
	for i := range p {
		if s.adj[s.perm[i]]>>v&1 == 1 {
			k |= 1 << (p - 1 - i)
		}
	}
	return k
}

// refine returns each vertex's colour after colour refinement: vertices
// start coloured by degree (higher degrees first) and are split by the
// multiset of their neighbours' colours until the classes stop splitting.
// Colours are ranks of isomorphism-invariant signatures, so an
// isomorphism maps each vertex to one of the same colour.
func refine(k int, adj *[16]uint16) [16]int {
	var color [16]int
	for v := range k {
		color[v] = -bits.OnesCount16(adj[v])
	}
	classes := 0
	for range k {
		sigs := make([][]int, k)
		for v := range k {
			sig := []int{color[v]}
			for u := range k {
				if adj[v]>>u&1 == 1 {
					sig = append(sig, color[u])
				}
			}
			slices.Sort(sig[1:])
			sigs[v] = sig
		}
		uniq := slices.Clone(sigs)
		slices.SortFunc(uniq, slices.Compare)
		uniq = slices.CompactFunc(uniq, func(a, b []int) bool { return slices.Equal(a, b) })
		for v := range k {
			color[v], _ = slices.BinarySearchFunc(uniq, sigs[v], slices.Compare)
		}
		if len(uniq) == classes {
			break
		}
		classes = len(uniq)
	}
	return color
}

// Canonizer caches Canonical per raw code for one k. Not safe for
// concurrent use.
type Canonizer struct {
	k     int
	cache map[uint64]uint64
}

// NewCanonizer returns an empty cache for patterns on k vertices.
func NewCanonizer(k int) *Canonizer { return &Canonizer{k: k, cache: map[uint64]uint64{}} }

// Canonical returns Canonical(k, raw), computing it once per raw code.
func (c *Canonizer) Canonical(raw uint64) Pattern {
	code, ok := c.cache[raw]
	if !ok {
		code = Canonical(c.k, raw).Code
		c.cache[raw] = code
	}
	return Pattern{K: c.k, Code: code}
}
