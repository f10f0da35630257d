package gpm

import (
	"fmt"
	"math/bits"
	"slices"
)

// Name returns the common name of a connected pattern, or "" when it has
// none: edge (k = 2); wedge and triangle (k = 3); 3-star, 4-path, tailed
// triangle, 4-cycle, diamond and 4-clique (k = 4); and for every k the
// k-clique, k-path, k-cycle and the star with k-1 leaves, "(k-1)-star"
// (so the 4-vertex star is the 3-star, as in the motif literature).
// Names depend only on the shape, not on the code's vertex order.
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
	}
	return ""
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
