package motif

import (
	"slices"
	"strings"
)

// The four-node, four-edge motifs whose edges join four distinct node
// pairs have one of two underlying graphs: the four-cycle and the paw (a
// triangle with a pendant tail). (Four-edge paths and stars with a tail
// need five nodes.) Each is named by a reading of its sides, the temporal
// rank of each side's edge in reading order, and f or b for each edge
// along or against the reading: <shape>-<ranks>-<dirs>.
//
// cycle4: sides a–b, b–c, c–d, d–a read from the first edge (a–b) towards
// the side of the second (b–c): ranks 1234 or 1243 (the second edge
// touches the first, so it is b–c under one of the two readings from
// a–b), 32 motifs. M4 (1→2, 2→3, 3→4, 4→1) is cycle4-1234-ffff; M7 (1→2,
// 1→3, 4→2, 4→3) is cycle4-1243-bfbf.
//
// paw: a triangle a, b, c with a tail c–d, read d–c, c–a, a–b, b–c, where
// c–a is the one of the corner's two triangle sides whose edge comes
// first; the orders whose first two edges are the tail and a–b (which
// share no node) are no motif: 10 orders, 160 motifs. M3 (1→2, 2→3, 3→4,
// 4→2) is paw-1234-ffff; M9 (1→2, 2→3, 3→4, 3→1) is paw-3214-bbbb.

// cycle4Sides and pawSides are the readings' sides, as node names.
var (
	cycle4Sides = [4]string{"ab", "bc", "cd", "da"}
	pawSides    = [4]string{"dc", "ca", "ab", "bc"}
)

// fourDirs returns the 16 direction strings ffff…bbbb.
func fourDirs() []string {
	var ds []string
	for d := range 16 {
		b := []byte("ffff")
		for e := range 4 {
			if d>>(3-e)&1 == 1 {
				b[e] = 'b'
			}
		}
		ds = append(ds, string(b))
	}
	return ds
}

// rankOrders returns the permutations of 1234 (as strings) that ok accepts,
// in lexical order.
func rankOrders(ok func(r string) bool) []string {
	var out []string
	for _, p := range []string{"1234", "1243", "1324", "1342", "1423", "1432", "2134", "2143", "2314", "2341", "2413", "2431",
		"3124", "3142", "3214", "3241", "3412", "3421", "4123", "4132", "4213", "4231", "4312", "4321"} {
		if ok(p) {
			out = append(out, p)
		}
	}
	return out
}

// The name lists, made once: Builtin looks names up in them.
var (
	cycle4List = cycle4Names()
	pawList    = pawNames()
)

// Cycle4Names lists the 32 temporal four-cycles cycle4-<ranks>-<dirs>.
func Cycle4Names() []string { return slices.Clone(cycle4List) }

// PawNames lists the 160 temporal paws paw-<ranks>-<dirs>.
func PawNames() []string { return slices.Clone(pawList) }

func cycle4Names() []string {
	var names []string
	for _, r := range rankOrders(func(r string) bool { return r[0] == '1' && r[1] == '2' }) {
		for _, d := range fourDirs() {
			names = append(names, "cycle4-"+r+"-"+d)
		}
	}
	return names
}

func pawNames() []string {
	var names []string
	ok := func(r string) bool {
		first2 := strings.ContainsRune("12", rune(r[0])) && strings.ContainsRune("12", rune(r[2]))
		return r[1] < r[3] && !first2
	}
	for _, r := range rankOrders(ok) {
		for _, d := range fourDirs() {
			names = append(names, "paw-"+r+"-"+d)
		}
	}
	return names
}

// fourEdgeMotif returns the cycle4 or paw motif named name, or nil.
func fourEdgeMotif(name string) *Query {
	var sides [4]string
	var desc string
	switch {
	case strings.HasPrefix(name, "cycle4-") && slices.Contains(cycle4List, name):
		sides, desc = cycle4Sides, "four-node temporal cycle "
	case strings.HasPrefix(name, "paw-") && slices.Contains(pawList, name):
		sides, desc = pawSides, "four-node temporal paw (triangle a, b, c with tail c–d) "
	default:
		return nil
	}
	rest := name[strings.IndexByte(name, '-')+1:]
	ranks, dirs := rest[:4], rest[5:]
	var edges [4]string
	for e, pair := range sides {
		from, to := pair[:1], pair[1:]
		if dirs[e] == 'b' {
			from, to = to, from
		}
		edges[ranks[e]-'1'] = from + "->" + to
	}
	return motifFromEdges(name, desc+name, strings.Join(edges[:], ", "))
}
