package gpm

import (
	"fmt"
	"math/bits"
	"slices"
)

// Name returns the common name of a connected pattern, or "" when it has
// none: edge (k = 2); wedge and triangle (k = 3); 3-star, 4-path, tailed
// triangle, 4-cycle, diamond and 4-clique (k = 4); every one of the 21
// connected shapes of k = 5 (fiveNames); and for every k the k-clique,
// k-path, k-cycle and the star with k-1 leaves, "(k-1)-star" (so the
// 4-vertex star is the 3-star, as in the motif literature). Names depend
// only on the shape, not on the code's vertex order.
func (p Pattern) Name() string {
	k, m := p.K, p.NumEdges()
	switch {
	case k < 2:
		return ""
	case k == 2 && m == 1:
		return "edge"
	case k == 3 && m == 3:
		return "triangle"
	case m == k*(k-1)/2:
		return fmt.Sprintf("%d-clique", k)
	case k > 16:
		return ""
	}
	adj := rows(k, p.Code)
	deg := make([]int, k)
	for v := range k {
		deg[v] = bits.OnesCount16(adj[v])
	}
	slices.Sort(deg)
	maxDeg := deg[k-1]
	switch {
	case m == k-1 && maxDeg == 2 && connected(k, &adj):
		if k == 3 {
			return "wedge"
		}
		return fmt.Sprintf("%d-path", k)
	case m == k-1 && maxDeg == k-1:
		return fmt.Sprintf("%d-star", k-1)
	case m == k && maxDeg == 2 && deg[0] == 2 && connected(k, &adj):
		return fmt.Sprintf("%d-cycle", k)
	case k == 4 && m == 4 && slices.Equal(deg, []int{1, 2, 2, 3}):
		return "tailed triangle"
	case k == 4 && m == 5:
		return "diamond"
	case k == 5 && connected(k, &adj):
		return fiveName(m, deg, &adj)
	}
	return ""
}

// fiveNames names the connected 5-vertex shapes that the general rules
// above leave out, by edge count and sorted degrees. Two pairs share
// both and are told apart in fiveName. The names are graph theory's
// (chair, bull, cricket, house, K2,3, bowtie, dart, kite, gem, book, house
// X, 4-wheel) or say how the shape grows from a smaller named one.
var fiveNames = map[string]string{
	"4 [1 1 1 2 3]": "chair",               // a 3-star with one leg longer
	"5 [1 1 2 3 3]": "bull",                // a triangle with a pendant on two corners
	"5 [1 1 2 2 4]": "cricket",             // a triangle with two pendants on one corner
	"5 [1 2 2 2 3]": "",                    // tailed 4-cycle or long-tailed triangle
	"6 [2 2 2 3 3]": "",                    // house or K2,3
	"6 [2 2 2 2 4]": "bowtie",              // two triangles sharing a vertex
	"6 [1 2 2 3 4]": "dart",                // a diamond with a pendant on a degree-3 vertex
	"6 [1 2 3 3 3]": "kite",                // a diamond with a pendant on a degree-2 vertex
	"7 [2 2 3 3 4]": "gem",                 // a 4-path with a vertex joined to all of it
	"7 [2 2 2 4 4]": "book",                // three triangles sharing an edge
	"7 [1 3 3 3 4]": "tailed 4-clique",     // a 4-clique with a pendant
	"7 [2 3 3 3 3]": "4-wheel minus spoke", // a 4-wheel with one spoke removed
	"8 [2 3 3 4 4]": "house X",             // a house with both diagonals of its square
	"8 [3 3 3 3 4]": "4-wheel",             // a 4-cycle with a vertex joined to all of it
	"9 [3 3 4 4 4]": "5-clique minus edge",
}

// fiveName names the connected 5-vertex shape with m edges, sorted
// degrees deg and adjacency adj.
func fiveName(m int, deg []int, adj *[16]uint16) string {
	key := fmt.Sprint(m, " ", deg)
	switch key {
	case "5 [1 2 2 2 3]":
		// The pendant hangs off the degree-3 vertex of a 4-cycle, or off
		// the end of a 2-path whose other end is on a triangle.
		for v := range 5 {
			if bits.OnesCount16(adj[v]) == 1 {
				u := bits.TrailingZeros16(adj[v])
				if bits.OnesCount16(adj[u]) == 3 {
					return "tailed 4-cycle"
				}
				return "long-tailed triangle"
			}
		}
	case "6 [2 2 2 3 3]":
		// The two degree-3 vertices are adjacent in the house (the roof's
		// base), not in K2,3 (its two-vertex side).
		var hubs []int
		for v := range 5 {
			if bits.OnesCount16(adj[v]) == 3 {
				hubs = append(hubs, v)
			}
		}
		if adj[hubs[0]]>>hubs[1]&1 == 1 {
			return "house"
		}
		return "K2,3"
	}
	return fiveNames[key]
}

// connected reports whether the k vertices of adj form one component.
func connected(k int, adj *[16]uint16) bool {
	seen := uint16(1)
	frontier := uint16(1)
	for frontier != 0 {
		v := bits.TrailingZeros16(frontier)
		frontier &^= 1 << v
		next := adj[v] &^ seen
		seen |= next
		frontier |= next
	}
	return seen == 1<<k-1
}
