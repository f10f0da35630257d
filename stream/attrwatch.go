package stream

import (
	"log/slog"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/motif"
	"github.com/motifwatch/motifwatch/window"
)

// MissingAttrAfter is how many edges the processor takes in before it
// says that an edge attribute a query needs has been in none of them
// (monitor mine refuses such a query outright: a file is whole, a
// stream is not, and a rare attribute may come later).
const MissingAttrAfter = 1000

// attrWatch notices an edge attribute that a query's conditions read and
// no edge has carried: the query can never match (`amount > 1000` over
// records without amount), which would otherwise pass in silence. It
// looks at each edge only while some such attribute is unseen, so it
// costs nothing once every one has been seen.
type attrWatch struct {
	log     *slog.Logger
	missing *prometheus.GaugeVec

	cols  []int      // schema columns some query reads, unseen so far
	names []string   // their attribute names
	users [][]string // the queries that read each
	seen  map[string]bool
	edges int64
	said  map[[2]string]bool // query, attribute: warned and gauge set
}

func newAttrWatch(log *slog.Logger, missing *prometheus.GaugeVec) *attrWatch {
	return &attrWatch{log: log, missing: missing, seen: map[string]bool{}, said: map[[2]string]bool{}}
}

// set watches the edge attributes qs read (columns of schema); what was
// seen stays seen, and a warning given for a query no longer there is
// taken back.
func (a *attrWatch) set(qs []*registered, schema *window.Schema) {
	a.cols, a.names, a.users = a.cols[:0], a.names[:0], a.users[:0]
	readers := map[string][]string{}
	for _, q := range qs {
		for _, p := range q.Query.Query.Where {
			for _, o := range [2]motif.Operand{p.Left, p.Right} {
				if o.Kind == motif.EdgeAttr && !slices.Contains(readers[o.Attr], q.Query.Query.Name) {
					readers[o.Attr] = append(readers[o.Attr], q.Query.Query.Name)
				}
			}
		}
	}
	for col, at := range schema.EdgeAttrs {
		if users, ok := readers[at.Name]; ok && !a.seen[at.Name] {
			a.cols, a.names, a.users = append(a.cols, col), append(a.names, at.Name), append(a.users, users)
		}
	}
	for k := range a.said {
		if !slices.Contains(readers[k[1]], k[0]) {
			a.lift(k)
		}
	}
}

// observe looks at a batch's edges for the unseen attributes, and says
// which are still unseen once MissingAttrAfter edges have gone by.
func (a *attrWatch) observe(batch []*ingest.Edge) {
	if len(a.cols) == 0 {
		return
	}
	for _, e := range batch {
		for i := 0; i < len(a.cols); i++ {
			if c := a.cols[i]; c < len(e.Attrs) && e.Attrs[c].Set {
				a.carried(i)
				i--
			}
		}
		if len(a.cols) == 0 {
			return
		}
	}
	a.edges += int64(len(batch))
	if a.edges < MissingAttrAfter {
		return
	}
	for i, name := range a.names {
		for _, q := range a.users[i] {
			k := [2]string{q, name}
			if a.said[k] {
				continue
			}
			a.said[k] = true
			a.missing.WithLabelValues(q, name).Set(1)
			a.log.Warn("query needs an edge attribute that no record has carried", "query", q, "attribute", name, "edges", a.edges,
				"hint", "the query cannot match until records carry it: check the producer's field names and input.attributes (monitor mine refuses such a query)")
		}
	}
}

// carried marks the i-th watched attribute seen, and takes back what was
// said of it.
func (a *attrWatch) carried(i int) {
	name := a.names[i]
	a.seen[name] = true
	for _, q := range a.users[i] {
		if k := [2]string{q, name}; a.said[k] {
			a.lift(k)
			a.log.Info("a record carries the edge attribute a query needs", "query", q, "attribute", name)
		}
	}
	a.cols = slices.Delete(a.cols, i, i+1)
	a.names = slices.Delete(a.names, i, i+1)
	a.users = slices.Delete(a.users, i, i+1)
}

func (a *attrWatch) lift(k [2]string) {
	delete(a.said, k)
	a.missing.DeleteLabelValues(k[0], k[1])
}
