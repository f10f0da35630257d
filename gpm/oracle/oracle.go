package oracle

// Graph is a small undirected graph as an adjacency matrix.
type Graph struct {
	N   int
	Adj [][]bool
}

// New returns a graph on n vertices with the given edges (self-loops and
// repeats ignored).
func New(n int, edges [][2]int) *Graph {
	g := &Graph{N: n, Adj: make([][]bool, n)}
	for i := range g.Adj {
		g.Adj[i] = make([]bool, n)
	}
	for _, e := range edges {
		if e[0] != e[1] {
			g.Adj[e[0]][e[1]], g.Adj[e[1]][e[0]] = true, true
		}
	}
	return g
}

// Code writes the subgraph induced by vs (in that order) as a pattern
// code: bit j(j-1)/2+i set when vs[i] and vs[j] are adjacent (i < j).
func (g *Graph) Code(vs []int) uint64 {
	var c uint64
	for j := 1; j < len(vs); j++ {
		for i := range j {
			if g.Adj[vs[i]][vs[j]] {
				c |= 1 << (j*(j-1)/2 + i)
			}
		}
	}
	return c
}

// Canon returns the largest code over all k! vertex orderings of the
// pattern with code c: equal for isomorphic patterns, different
// otherwise.
func Canon(k int, c uint64) uint64 {
	adj := make([][]bool, k)
	for i := range adj {
		adj[i] = make([]bool, k)
	}
	for j := 1; j < k; j++ {
		for i := range j {
			if c>>(j*(j-1)/2+i)&1 == 1 {
				adj[i][j], adj[j][i] = true, true
			}
		}
	}
	p := &Graph{N: k, Adj: adj}
	perm := make([]int, k)
	used := make([]bool, k)
	var best uint64
	var rec func(d int)
	rec = func(d int) {
		if d == k {
			best = max(best, p.Code(perm))
			return
		}
		for v := range k {
			if !used[v] {
				used[v] = true
				perm[d] = v
				rec(d + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return best
}

// Connected reports whether vs induce a connected subgraph.
func (g *Graph) Connected(vs []int) bool {
	seen := make([]bool, len(vs))
	seen[0] = true
	stack := []int{0}
	n := 1
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for b := range vs {
			if !seen[b] && g.Adj[vs[a]][vs[b]] {
				seen[b] = true
				n++
				stack = append(stack, b)
			}
		}
	}
	return n == len(vs)
}

// Complete reports whether vs induce a clique.
func (g *Graph) Complete(vs []int) bool {
	for j := range vs {
		for i := range j {
			if !g.Adj[vs[i]][vs[j]] {
				return false
			}
		}
	}
	return true
}

// Subsets calls f with every k-subset of the vertices, in increasing
// order; vs is reused.
func (g *Graph) Subsets(k int, f func(vs []int)) {
	vs := make([]int, k)
	var rec func(d, from int)
	rec = func(d, from int) {
		if d == k {
			f(vs)
			return
		}
		for v := from; v <= g.N-(k-d); v++ {
			vs[d] = v
			rec(d+1, v+1)
		}
	}
	rec(0, 0)
}

// Motifs counts the connected induced k-vertex subgraphs by canonical
// code (Canon).
func (g *Graph) Motifs(k int) map[uint64]uint64 {
	out := map[uint64]uint64{}
	cache := map[uint64]uint64{}
	g.Subsets(k, func(vs []int) {
		if !g.Connected(vs) {
			return
		}
		c := g.Code(vs)
		canon, ok := cache[c]
		if !ok {
			canon = Canon(k, c)
			cache[c] = canon
		}
		out[canon]++
	})
	return out
}

// Cliques counts the k-cliques.
func (g *Graph) Cliques(k int) uint64 {
	var n uint64
	g.Subsets(k, func(vs []int) {
		if g.Complete(vs) {
			n++
		}
	})
	return n
}
