package gpm

// Ext is one extension of a traversal: a candidate vertex V and its
// adjacency to the traversal, bit j set when V is adjacent to Tr[j] (for
// the positions Extend read). Move turns Adj into the induced edges of
// the extended traversal, so motif counting never re-reads adjacency
// lists to learn a subgraph's shape (the paper's genedges).
type Ext struct {
	V   uint32
	Adj uint32
}

// invalid marks an extension that a Filter rejected, until Compact.
const invalid = ^uint32(0)

// TE is one traversal's DFS-wide state, the paper's TE[i]: the vertices
// of the current traversal (Tr) and, per level l, the contiguous array of
// extensions of Tr[:l] (ext[l]) that the BFS step wrote and the DFS step
// consumes from next[l] on. A TE owns the subtree below Tr[:base] given
// by ext[base]; the levels above base belong to whoever split it off.
//
// Its size is bounded as the paper states: per level at most the summed
// degree of the traversal, so O(max degree × k²) entries in all.
type TE struct {
	g *Graph
	// limit is the deepest traversal length that is extended (k-1): its
	// extensions complete subgraphs and are aggregated, not traversed.
	limit int
	base  int
	// rootsTaken counts the level-0 extensions consumed (RootsTaken).
	rootsTaken int64

	Tr   []uint32
	code []uint64 // code[l]: the induced edges of Tr[:l] (when Move generates them)
	ext  [][]Ext
	next []int
	// full[l] is ext[l] as the last Extend, ExtendAdjacent or Compact
	// wrote it (or Load gave it):
	// Split cuts the tail of ext[l] off for another TE, but the vertices
	// there stay candidates deeper in this TE's subtree.
	full [][]Ext

	// Extend's scratch: per vertex, the stamp of the last Extend that saw
	// it and its adjacency bits to Tr in that Extend.
	mark  []uint32
	bits  []uint32
	stamp uint32
}

// NewTE returns an empty TE for subgraphs of k vertices of g.
func NewTE(g *Graph, k int) *TE {
	return &TE{
		g: g, limit: k - 1,
		Tr:   make([]uint32, 0, k),
		code: make([]uint64, k+1),
		ext:  make([][]Ext, k+1),
		next: make([]int, k+1),
		full: make([][]Ext, k+1),
		mark: make([]uint32, g.N()),
		bits: make([]uint32, g.N()),
	}
}

// A Share is a subtree of traversals: Prefix + e for each e in Exts
// (extensions of Prefix, already filtered). Cands is Exts followed by the
// rest of its level's candidate list (Split takes Exts from the middle
// of a list whose tail went to earlier shares): pattern-aware cliques
// narrow the next level from it, since a vertex given to another TE at
// this level is still a candidate deeper down. nil means Exts.
type Share struct {
	Prefix []uint32
	Exts   []Ext
	Cands  []Ext
}

// Load makes the TE own the traversals of s and moves to the first. A
// fresh enumeration loads the empty prefix with the root vertices as
// extensions. The TE keeps s's slices; the caller must not reuse them.
func (te *TE) Load(s Share, genEdges bool) {
	prefix, exts := s.Prefix, s.Exts
	if s.Cands == nil {
		s.Cands = exts
	}
	te.Tr = append(te.Tr[:0], prefix...)
	te.base = len(prefix)
	te.ext[te.base], te.full[te.base] = exts, s.Cands
	te.next[te.base] = 0
	te.code[0], te.code[1] = 0, 0
	if genEdges {
		for l := 2; l <= len(prefix); l++ {
			var adj uint64
			for i, u := range prefix[:l-1] {
				if te.g.HasEdge(u, prefix[l-1]) || te.g.HasEdge(prefix[l-1], u) {
					adj |= 1 << i
				}
			}
			te.code[l] = te.code[l-1] | adj<<PairBit(0, l-1)
		}
	}
	te.Move(genEdges)
}

// Len returns the length of the current traversal.
func (te *TE) Len() int { return len(te.Tr) }

// RootsTaken is the number of root vertices (level-0 extensions) this TE
// has started traversals from.
func (te *TE) RootsTaken() int64 { return te.rootsTaken }

// Ext returns the extensions of the current traversal (valid after
// Extend); they alias the TE.
func (te *TE) Ext() []Ext { return te.ext[len(te.Tr)] }

// Code returns the induced edges of the current traversal as a pattern
// code in traversal order (valid when Move generates edges).
func (te *TE) Code() uint64 { return te.code[len(te.Tr)] }

// Control is the workflow's termination test: whether the TE holds a
// traversal to process.
func (te *TE) Control() bool { return len(te.Tr) > te.base }

// Extend is the BFS step: it writes the distinct neighbours of
// Tr[begin:end] that are not in Tr into the current level's extension
// array, each with its adjacency bits to those positions.
func (te *TE) Extend(begin, end int) {
	l := len(te.Tr)
	te.stamp++
	if te.stamp == 0 { // wrapped: forget every old stamp
		clear(te.mark)
		te.stamp = 1
	}
	st := te.stamp
	for _, t := range te.Tr {
		te.mark[t] = st // never an extension of itself
	}
	out := te.ext[l][:0]
	for j := begin; j < end; j++ {
		bit := uint32(1) << j
		for _, y := range te.g.Neighbors(te.Tr[j]) {
			if te.mark[y] != st {
				te.mark[y] = st
				te.bits[y] = 0
				out = append(out, Ext{V: y})
			}
			te.bits[y] |= bit
		}
	}
	for i := range out {
		out[i].Adj = te.bits[out[i].V]
	}
	te.ext[l], te.full[l] = out, out
}

// ExtendAdjacent is the pattern-aware Extend of clique counting
// (DuMato's PA variant). On a Ranked graph, the candidates for the next
// vertex of a clique are the previous level's candidates ranked above the
// newest vertex that are adjacent to it: a merge of two sorted lists.
// Extend would instead re-read the first vertex's whole list at every
// level and leave Filter to test adjacency to each traversal vertex. The
// first level's candidates are the root's upward neighbours. Candidates
// come out in rank order, as a Split suffix needs (see full).
func (te *TE) ExtendAdjacent() {
	l := len(te.Tr)
	newest := te.Tr[l-1]
	up := te.g.Neighbors(newest)
	out := te.ext[l][:0]
	if l == 1 {
		for _, y := range up {
			out = append(out, Ext{V: y})
		}
	} else {
		// The parent's candidates after newest (whose position is
		// next-1): higher ranked, all adjacent to the rest of Tr.
		prev := te.full[l-1][te.next[l-1]:]
		for i, j := 0, 0; i < len(prev) && j < len(up); {
			switch a, b := prev[i].V, up[j]; {
			case a < b:
				i++
			case a > b:
				j++
			default:
				out = append(out, Ext{V: a})
				i++
				j++
			}
		}
	}
	te.ext[l], te.full[l] = out, out
}

// Discard drops the current traversal's extensions: no subgraph below it
// can complete (a Filter on the whole array rather than one extension).
func (te *TE) Discard() {
	l := len(te.Tr)
	te.ext[l] = te.ext[l][:0]
}

// Property decides whether extension e of te's current traversal stays
// (the paper's anti-monotone P).
type Property func(te *TE, e Ext) bool

// Filter invalidates the current extensions that fail keep. Invalidated
// entries stay in place until Compact.
func (te *TE) Filter(keep Property) {
	ext := te.ext[len(te.Tr)]
	for i, e := range ext {
		if e.V != invalid && !keep(te, e) {
			ext[i].V = invalid
		}
	}
}

// Compact moves the valid extensions to the front of the array, in order,
// so the next Filter and Move scan no holes.
func (te *TE) Compact() {
	l := len(te.Tr)
	ext := te.ext[l]
	n := 0
	for _, e := range ext {
		if e.V != invalid {
			ext[n] = e
			n++
		}
	}
	te.ext[l], te.full[l] = ext[:n], ext[:n]
}

// AggregateCount is the paper's A1: the number of valid extensions, each
// completing one subgraph.
func (te *TE) AggregateCount() uint64 { return uint64(len(te.ext[len(te.Tr)])) }

// AggregatePattern is A2: each valid extension completes a subgraph whose
// induced edges are the traversal's plus the extension's adjacency; its
// raw (traversal-order) code is tallied in counts. Canonical labels are
// applied to the tallies once at the end, not per subgraph.
func (te *TE) AggregatePattern(counts *RawCounts) {
	l := len(te.Tr)
	base, shift := te.code[l], PairBit(0, l)
	for _, e := range te.ext[l] {
		counts.Add(base|uint64(e.Adj)<<shift, 1)
	}
}

// AggregateEach is A3: it hands every completed subgraph (the traversal
// plus one valid extension, and its raw code when Move generates edges)
// to emit; sub is reused between calls. It stops at emit's first error.
func (te *TE) AggregateEach(emit func(sub []uint32, raw uint64) error) error {
	l := len(te.Tr)
	base, shift := te.code[l], PairBit(0, l)
	sub := append(te.Tr, 0)
	defer func() { te.Tr = sub[:l] }()
	for _, e := range te.ext[l] {
		sub[l] = e.V
		if err := emit(sub, base|uint64(e.Adj)<<shift); err != nil {
			return err
		}
	}
	return nil
}

// Move is the DFS step. It moves forward, appending the next unconsumed
// extension of the current traversal to it, when the traversal is below
// the size limit; otherwise it moves backward to the deepest traversal
// with an unconsumed extension and forward from there. With genEdges it
// derives the new traversal's induced edges from the extension's Adj.
// When the TE's subtree is exhausted, Control turns false.
func (te *TE) Move(genEdges bool) {
	for {
		l := len(te.Tr)
		if l < te.limit && te.next[l] < len(te.ext[l]) {
			e := te.ext[l][te.next[l]]
			te.next[l]++
			if l == 0 {
				te.rootsTaken++ // a root is consumed once, by whichever TE holds it
			}
			te.Tr = append(te.Tr, e.V)
			if genEdges {
				te.code[l+1] = te.code[l] | uint64(e.Adj)<<PairBit(0, l)
			}
			te.ext[l+1] = te.ext[l+1][:0]
			te.next[l+1] = 0
			return
		}
		if l == te.base {
			return // exhausted: Control is false
		}
		te.Tr = te.Tr[:l-1]
	}
}

// splittable returns the shallowest level whose extension array still has
// unconsumed entries (siblings of the current branch), or -1. At a
// Control point the current level has not been extended yet, so only the
// levels below it count.
func (te *TE) splittable() int {
	for l := te.base; l < len(te.Tr); l++ {
		if te.next[l] < len(te.ext[l]) {
			return l
		}
	}
	return -1
}

// Split gives away the larger half of the unconsumed extensions at the
// shallowest level that has some (the biggest subtrees), as a Share for
// another TE's Load. The TE keeps the rest. Call it only between workflow
// iterations (at Control).
func (te *TE) Split() (Share, bool) {
	l := te.splittable()
	if l < 0 {
		return Share{}, false
	}
	rest := te.ext[l][te.next[l]:]
	give := (len(rest) + 1) / 2
	cut := len(te.ext[l]) - give
	cands := append([]Ext(nil), te.full[l][cut:]...)
	te.ext[l] = te.ext[l][:cut]
	return Share{Prefix: append([]uint32(nil), te.Tr[:l]...), Exts: cands[:give:give], Cands: cands}, true
}
