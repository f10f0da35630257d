package mine

import (
	"strings"

	"github.com/motifwatch/motifwatch/motif/count3"
)

// Total is the sum of the counts of a family's queries: distinct shapes
// of one family (count3.Cell: SNAP's 3-edge motifs on 2 or 3 nodes,
// four-node stars, two-edge motifs on 2 or on 3 nodes, two-node 4-edge
// motifs, four-node paths, four-cycles, paws), all with one window. Each edge sequence has one shape, so the
// sum counts distinct sequences: the family's matches.
type Total struct {
	// Family is the prefix its members' shapes are named by: "snap",
	// "star4", "pair2", "wedge", "pair4", "path4", "cycle4" or "paw"
	// (count3.Cell.String).
	Family  string  `json:"family"`
	Queries int     `json:"queries"`
	Matches int64   `json:"matches"`
	Seconds float64 `json:"seconds"`
}

// family names the family of a counted shape.
func family(c count3.Cell) string {
	name, _, _ := strings.Cut(c.String(), "-")
	return name
}

// totals returns a Total per family of two queries or more, in the order
// of the family's first query, where the family's queries are distinct
// shapes with one window and every count is whole (not partial, not cut
// by enumeration). Queries outside any family have none.
func totals(qs []*QueryResult) []Total {
	var order []string
	members := map[string][]*QueryResult{}
	for _, q := range qs {
		if q.family == "" {
			continue
		}
		if members[q.family] == nil {
			order = append(order, q.family)
		}
		members[q.family] = append(members[q.family], q)
	}
	var out []Total
	for _, f := range order {
		ms := members[f]
		if len(ms) < 2 {
			continue
		}
		t := Total{Family: f, Queries: len(ms)}
		seen := map[count3.Cell]bool{}
		whole := true
		for _, q := range ms {
			if seen[q.cell] || q.delta != ms[0].delta || q.Partial || q.Stopped {
				whole = false
				break
			}
			seen[q.cell] = true
			t.Matches += q.Matches
			t.Seconds += q.Seconds
		}
		if whole {
			out = append(out, t)
		}
	}
	return out
}
