package alerts

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// MaxIncidentMatchIDs bounds the match ids an incident record lists; its
// Count stays exact past it.
const MaxIncidentMatchIDs = 1000

// MaxRateLimitedMatchIDs bounds the ids of held-back matches that one
// rate_limited record lists (the first ones of its interval); Count
// stays exact past it. Match ids are 32 hex digits, so the list stays
// under 35 KB, well inside a broker's default 1 MiB record limit.
const MaxRateLimitedMatchIDs = 1000

// Grouping folds a query's matches into incidents: the matches that map
// every node of By to the same graph nodes, detected within Within of
// the first of them, make one KindIncident record, written when the
// incident closes (Within after its first match). Match records are
// written as without grouping: an incident is a summary for paging, not
// a replacement.
type Grouping struct {
	// By names motif nodes (keys of Alert.Nodes); empty: no grouping.
	By []string
	// Within is an incident's length in detection time; > 0 with By.
	Within time.Duration
}

func (g Grouping) enabled() bool { return len(g.By) > 0 }

func (g Grouping) equal(h Grouping) bool { return g.Within == h.Within && slices.Equal(g.By, h.By) }

// incident is one open incident of a query.
type incident struct {
	key       string
	nodes     map[string]Node
	opened    time.Time
	closes    time.Time
	openFlush uint64 // the Flush that routes its first match
	first     Alert  // the first match (description, first times, id)
	last      int64
	lastTime  string
	count     int64
	ids       []string
}

// groupKey returns the key of a's grouped nodes and those nodes, or false
// when a does not map all of them.
func (g Grouping) groupKey(a *Alert) (string, map[string]Node, bool) {
	var b strings.Builder
	nodes := make(map[string]Node, len(g.By))
	for _, name := range g.By {
		n, ok := a.Nodes[name]
		if !ok {
			return "", nil, false
		}
		nodes[name] = n
		b.WriteString(n.ID)
		b.WriteByte(0)
	}
	return b.String(), nodes, true
}

// fold adds match a, detected at t in the Flush numbered flush, to its
// incident of q, opening one if none is open.
func (q *route) fold(a *Alert, t time.Time, flush uint64) {
	key, nodes, ok := q.opts.Group.groupKey(a)
	if !ok {
		return
	}
	if q.incidents == nil {
		q.incidents = make(map[string]*incident)
	}
	in := q.incidents[key]
	if in == nil {
		in = &incident{key: key, nodes: nodes, opened: t, closes: t.Add(q.opts.Group.Within), openFlush: flush, first: *a,
			last: a.Last, lastTime: a.LastTime}
		q.incidents[key] = in
	}
	in.count++
	if len(in.ids) < MaxIncidentMatchIDs {
		in.ids = append(in.ids, a.MatchID)
	}
	// Matches arrive in detection order, not edge order: keep the extremes.
	if a.First < in.first.First {
		in.first.First, in.first.FirstTime = a.First, a.FirstTime
	}
	if a.Last > in.last {
		in.last, in.lastTime = a.Last, a.LastTime
	}
}

// record is the incident's alert record, closed at to and written at t.
func (in *incident) record(query string, to, t time.Time) Alert {
	return Alert{Kind: KindIncident, Query: query, Description: in.first.Description, Nodes: in.nodes,
		IncidentID: incidentID(query, in.key, in.first.MatchID), Count: in.count, MatchIDs: in.ids,
		MatchIDsOmitted: in.count - int64(len(in.ids)),
		First:           in.first.First, Last: in.last, FirstTime: in.first.FirstTime, LastTime: in.lastTime,
		From: in.opened, To: to, DetectedAt: t}
}

// incidentID is deterministic, so that an incident formed again after a
// crash (its matches re-read) gets the same id.
func incidentID(query, key, firstMatch string) string {
	h := sha256.New()
	for _, s := range []string{query, key, firstMatch} {
		h.Write([]byte(s))
		h.Write([]byte{0xff})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// closeIncidents queues the records of q's incidents that close by t
// (all of them when all is set), oldest first, and forgets them.
func (r *Router) closeIncidents(name string, q *route, t time.Time, all bool) {
	var done []*incident
	for key, in := range q.incidents {
		if all || !t.Before(in.closes) {
			done = append(done, in)
			delete(q.incidents, key)
		}
	}
	slices.SortFunc(done, func(a, b *incident) int {
		if c := a.opened.Compare(b.opened); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	for _, in := range done {
		to := in.closes
		if all && t.Before(to) {
			to = t
		}
		r.out = append(r.out, in.record(name, to, t))
	}
}

// incidentFloor returns the last Flush whose matches no open incident
// holds: an incident's record is not written until it closes, so the
// input offsets of its matches must wait (at least once for incidents
// too). ^uint64(0) when none is open.
func (r *Router) incidentFloor() uint64 {
	floor := ^uint64(0)
	for _, q := range r.queries {
		for _, in := range q.incidents {
			floor = min(floor, in.openFlush-1)
		}
	}
	return floor
}

// nextClose returns the earliest time an open incident closes, or the
// zero time.
func (r *Router) nextClose() time.Time {
	var next time.Time
	for _, q := range r.queries {
		for _, in := range q.incidents {
			if next.IsZero() || in.closes.Before(next) {
				next = in.closes
			}
		}
	}
	return next
}
