package gpm

import (
	"fmt"
	"slices"
	"unsafe"
)

// Graph is an undirected simple graph in CSR form: the neighbours of v are
// Adj()[Offsets()[v]:Offsets()[v+1]], sorted ascending, without v itself
// and without repeats. Vertices are dense ids 0..N()-1; Name maps them back
// to the ids of the input. A Graph is immutable once built and safe for
// concurrent readers.
type Graph struct {
	off   []int64
	adj   []uint32
	names []string // input ids; nil: the dense id is the name
	// orig maps a relabelled graph's vertices back to the graph it was
	// derived from (Ranked); nil for graphs built from input.
	orig []uint32
	// upward: adj holds only the neighbours of higher rank (Ranked).
	upward bool
	maxDeg int
}

// N returns the number of vertices.
func (g *Graph) N() int { return len(g.off) - 1 }

// M returns the number of undirected edges.
func (g *Graph) M() int64 {
	if g.upward {
		return int64(len(g.adj))
	}
	return int64(len(g.adj)) / 2
}

// Neighbors returns v's sorted neighbour list; it aliases the graph.
func (g *Graph) Neighbors(v uint32) []uint32 { return g.adj[g.off[v]:g.off[v+1]] }

// Degree returns the length of v's neighbour list.
func (g *Graph) Degree(v uint32) int { return int(g.off[v+1] - g.off[v]) }

// MaxDegree returns the largest Degree: the paper's max(G), which bounds
// the size of every extension array.
func (g *Graph) MaxDegree() int { return g.maxDeg }

// Bytes returns the host memory the graph holds: its arrays and names.
func (g *Graph) Bytes() int64 {
	b := int64(8*cap(g.off) + 4*cap(g.adj) + 4*cap(g.orig))
	for _, name := range g.names {
		b += int64(unsafe.Sizeof(name)) + int64(len(name))
	}
	return b
}

// Offsets and Adj expose the CSR arrays (for device copies); read only.
func (g *Graph) Offsets() []int64 { return g.off }
func (g *Graph) Adj() []uint32    { return g.adj }

// HasEdge reports whether u and v are adjacent (for an upward graph:
// whether v is an upward neighbour of u). Binary search: O(log deg u).
func (g *Graph) HasEdge(u, v uint32) bool {
	_, ok := slices.BinarySearch(g.Neighbors(u), v)
	return ok
}

// Name returns v's id in the input (file token or window node id).
func (g *Graph) Name(v uint32) string {
	if g.orig != nil {
		v = g.orig[v]
	}
	if g.names == nil {
		return fmt.Sprint(v)
	}
	return g.names[v]
}

// Orig returns the vertex of the source graph that v stands for: v itself
// unless g was relabelled by Ranked.
func (g *Graph) Orig(v uint32) uint32 {
	if g.orig == nil {
		return v
	}
	return g.orig[v]
}

// Ranked returns g's vertices renumbered by increasing (degree, id) with
// only upward edges kept: the orientation clique counting uses, so that a
// clique is found once, from its lowest-ranked vertex, and every
// extension list holds at most the vertex's higher-ranked neighbours
// (O(√M) of them rather than its degree).
func (g *Graph) Ranked() *Graph {
	n := g.N()
	// Counting sort by degree; equal degrees keep id order.
	start := make([]int, g.maxDeg+2)
	for v := range n {
		start[g.Degree(uint32(v))+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	order := make([]uint32, n) // rank → vertex
	rank := make([]uint32, n)
	for v := range n {
		d := g.Degree(uint32(v))
		order[start[d]], rank[v] = uint32(v), uint32(start[d])
		start[d]++
	}
	// The upward lists by transposition: visiting x in rank order and
	// appending it to the list of each lower-ranked neighbour fills every
	// list in ascending order, without sorting.
	r := &Graph{off: make([]int64, n+1), names: g.names, upward: true, orig: make([]uint32, n)}
	for v := range n {
		for _, u := range g.Neighbors(uint32(v)) {
			if rank[u] < rank[v] {
				r.off[rank[u]+1]++
			}
		}
	}
	for x := range n {
		r.maxDeg = max(r.maxDeg, int(r.off[x+1]))
		r.off[x+1] += r.off[x]
	}
	r.adj = make([]uint32, r.off[n])
	fill := slices.Clone(r.off[:n])
	for x, v := range order {
		r.orig[x] = g.Orig(v)
		for _, u := range g.Neighbors(v) {
			if ru := rank[u]; ru < uint32(x) {
				r.adj[fill[ru]] = uint32(x)
				fill[ru]++
			}
		}
	}
	return r
}
