package gpm_test

import (
	"math/rand/v2"
	"testing"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/gpm/oracle"
)

// permute relabels the pattern code c on k vertices by perm (vertex i
// becomes perm[i]).
func permute(k int, c uint64, perm []int) uint64 {
	var out uint64
	for j := 1; j < k; j++ {
		for i := range j {
			if c>>gpm.PairBit(i, j)&1 == 1 {
				a, b := min(perm[i], perm[j]), max(perm[i], perm[j])
				out |= 1 << gpm.PairBit(a, b)
			}
		}
	}
	return out
}

// TestCanonicalPartitionsLikeOracle: over every pattern on 4 and 5
// vertices, Canonical groups codes exactly as the all-permutations oracle
// does, gives connected patterns the known number of classes (6 and 21),
// and returns a code of the same shape; on 6 vertices (the oracle would
// be slow) it finds the known 156 classes, 112 of them connected.
func TestCanonicalPartitionsLikeOracle(t *testing.T) {
	connectedClasses := map[int]int{4: 6, 5: 21}
	for k := 4; k <= 5; k++ {
		ours := map[uint64]uint64{}   // our canonical → oracle's
		theirs := map[uint64]uint64{} // oracle's → our canonical
		connected := map[uint64]bool{}
		for c := uint64(0); c < 1<<gpm.PairBit(0, k); c++ {
			got := gpm.Canonical(k, c).Code
			want := oracle.Canon(k, c)
			if oracle.Canon(k, got) != want {
				t.Fatalf("k=%d: Canonical(%#x) = %#x, a different shape", k, c, got)
			}
			if o, ok := ours[got]; ok && o != want {
				t.Fatalf("k=%d: %#x stands for two shapes", k, got)
			}
			if o, ok := theirs[want]; ok && o != got {
				t.Fatalf("k=%d: one shape has two codes %#x and %#x", k, o, got)
			}
			ours[got], theirs[want] = want, got
			vs := make([]int, k)
			for i := range vs {
				vs[i] = i
			}
			if oracle.New(k, (gpm.Pattern{K: k, Code: c}).Edges()).Connected(vs) {
				connected[got] = true
			}
		}
		if len(connected) != connectedClasses[k] {
			t.Errorf("k=%d: %d connected classes; want %d", k, len(connected), connectedClasses[k])
		}
	}
	all, connected := map[uint64]bool{}, map[uint64]bool{}
	for c := uint64(0); c < 1<<15; c++ {
		p := gpm.Canonical(6, c)
		all[p.Code] = true
		g := oracle.New(6, p.Edges())
		if g.Connected([]int{0, 1, 2, 3, 4, 5}) {
			connected[p.Code] = true
		}
	}
	if len(all) != 156 || len(connected) != 112 {
		t.Errorf("k=6: %d classes, %d connected; want 156, 112", len(all), len(connected))
	}
}

// TestCanonicalInvariant: random relabellings of random patterns up to
// k = 10 keep their canonical code, and (k ≤ 8, where the oracle is
// affordable) patterns of different shapes get different codes.
func TestCanonicalInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 3; k <= gpm.MaxMotifK; k++ {
		seen := map[uint64]uint64{}
		for range 40 {
			c := r.Uint64() & (1<<gpm.PairBit(0, k) - 1)
			if r.IntN(2) == 0 { // sparse patterns too: more symmetry
				c &= r.Uint64() & r.Uint64()
			}
			want := gpm.Canonical(k, c)
			for range 5 {
				if got := gpm.Canonical(k, permute(k, c, r.Perm(k))); got != want {
					t.Fatalf("k=%d: relabelled %#x: canonical %#x; want %#x", k, c, got.Code, want.Code)
				}
			}
			if k <= 8 {
				o := oracle.Canon(k, c)
				if prev, ok := seen[want.Code]; ok && prev != o {
					t.Fatalf("k=%d: code %#x for two shapes", k, want.Code)
				}
				seen[want.Code] = o
			}
		}
	}
}

func TestNames(t *testing.T) {
	pat := func(k int, edges ...[2]int) gpm.Pattern {
		var c uint64
		for _, e := range edges {
			c |= 1 << gpm.PairBit(min(e[0], e[1]), max(e[0], e[1]))
		}
		return gpm.Canonical(k, c)
	}
	cases := []struct {
		p    gpm.Pattern
		want string
	}{
		{pat(2, [2]int{0, 1}), "edge"},
		{pat(3, [2]int{0, 1}, [2]int{1, 2}), "wedge"},
		{pat(3, [2]int{0, 1}, [2]int{1, 2}, [2]int{0, 2}), "triangle"},
		{pat(4, [2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}), "3-star"},
		{pat(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}), "4-path"},
		{pat(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{2, 3}), "tailed triangle"},
		{pat(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 0}), "4-cycle"},
		{pat(4, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 0}, [2]int{0, 2}), "diamond"},
		{gpm.CliquePattern(4), "4-clique"},
		{pat(6, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}), "6-path"},
		{pat(6, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 0}), "6-cycle"},
		{pat(5, [2]int{2, 0}, [2]int{2, 1}, [2]int{2, 3}, [2]int{2, 4}), "4-star"},
		{gpm.CliquePattern(12), "12-clique"},
		{pat(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{2, 3}, [2]int{3, 4}), "long-tailed triangle"},
		{pat(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 0}, [2]int{0, 4}), "tailed 4-cycle"},
		{pat(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 0}, [2]int{0, 4}, [2]int{1, 4}), "house"},
		{pat(5, [2]int{0, 2}, [2]int{0, 3}, [2]int{0, 4}, [2]int{1, 2}, [2]int{1, 3}, [2]int{1, 4}), "K2,3"},
		{pat(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{0, 3}, [2]int{3, 4}, [2]int{4, 0}), "bowtie"},
		{pat(7, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 0}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}), ""},
	}
	for _, c := range cases {
		if got := c.p.Name(); got != c.want {
			t.Errorf("Name(%s) = %q; want %q", c.p.EdgeList(), got, c.want)
		}
	}
	// Every connected shape of 5 vertices has a name of its own.
	names := map[string]string{}
	for code := uint64(0); code < 1<<10; code++ {
		p := gpm.Canonical(5, code)
		if p.Code != code || !connected5(p) {
			continue // not canonical, or not connected
		}
		name := p.Name()
		if name == "" {
			t.Errorf("the 5-vertex shape %s has no name", p.EdgeList())
		} else if other, dup := names[name]; dup {
			t.Errorf("%s and %s are both named %q", other, p.EdgeList(), name)
		}
		names[name] = p.EdgeList()
	}
	if len(names) != 21 {
		t.Errorf("%d named connected 5-vertex shapes; want 21", len(names))
	}
	if got, want := pat(4, [2]int{3, 1}, [2]int{3, 2}, [2]int{3, 0}).EdgeList(), "0-1 0-2 0-3"; got != want {
		t.Errorf("3-star edge list %q; want %q (the hub first)", got, want)
	}
	if got := gpm.CliquePattern(12).NumEdges(); got != 66 {
		t.Errorf("12-clique has %d edges; want 66", got)
	}
}

// connected5 reports whether the 5-vertex pattern p is connected.
func connected5(p gpm.Pattern) bool {
	seen := map[int]bool{0: true}
	for changed := true; changed; {
		changed = false
		for _, e := range p.Edges() {
			if seen[e[0]] != seen[e[1]] {
				seen[e[0]], seen[e[1]], changed = true, true, true
			}
		}
	}
	return len(seen) == 5
}
