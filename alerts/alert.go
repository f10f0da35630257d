package alerts

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"
)

// Kind says what an alert record reports.
type Kind string

const (
	// KindMatch is one match of an enumerate-mode query.
	KindMatch Kind = "match"
	// KindCount is a periodic count of a count-mode query's matches.
	KindCount Kind = "count"
	// KindRateLimited summarises match alerts a rate limit held back.
	KindRateLimited Kind = "rate_limited"
	// KindIncident folds the matches of a query with group_by that share
	// the grouped nodes within the group window into one record.
	KindIncident Kind = "incident"
)

// Edge is one graph edge of a match, with where it came from.
type Edge struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
	T   int64  `json:"t"`
	// Time is T as an ISO-8601 (RFC 3339, UTC) time: the Unix epoch plus
	// T ticks of the window's time unit. Empty when the unit is unknown.
	Time      string `json:"time,omitempty"`
	Seq       int64  `json:"seq"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
	// Attrs are the edge's attributes that the window keeps (declared
	// in input.attributes or used by a query): numbers as JSON numbers,
	// strings as strings; a missing value is left out.
	Attrs map[string]any `json:"attrs,omitempty"`
}

// Node is the graph node a motif node was mapped to.
type Node struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
}

// NodesText renders a record's nodes for people, in motif-node order:
// "A=acct-1 B=acct-9 (alice)".
func NodesText(m map[string]Node) string {
	names := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + "=" + m[k].ID
		if l := m[k].Label; l != "" {
			parts[i] += " (" + l + ")"
		}
	}
	return strings.Join(parts, " ")
}

// Alert is one alert record, serialised as JSON on the alert topic.
type Alert struct {
	Kind  Kind   `json:"kind"`
	Query string `json:"query"`
	// Description is the query's description, so that a record read alone
	// says what it reports.
	Description string `json:"description,omitempty"`
	// MatchID identifies a match across restarts and replicas: a hash of
	// the query name and the identities of its edges (see MatchID).
	MatchID string `json:"match_id,omitempty"`
	// Nodes maps each motif node name to the graph node of the match
	// (match records) or the grouped nodes' values (incident records).
	Nodes map[string]Node `json:"nodes,omitempty"`
	Edges []Edge          `json:"edges,omitempty"`
	// First and Last are the times of the first and last edge (ticks),
	// FirstTime and LastTime the same as ISO-8601 times (when the time
	// unit is known). Match and incident records always carry First and
	// Last, even at t = 0.
	First     int64  `json:"first"`
	Last      int64  `json:"last"`
	FirstTime string `json:"first_time,omitempty"`
	LastTime  string `json:"last_time,omitempty"`
	// Count is the number of matches (KindCount, KindIncident) or of
	// alerts held back (KindRateLimited) in [From, To) detection time.
	Count      int64     `json:"count,omitempty"`
	From       time.Time `json:"from,omitzero"`
	To         time.Time `json:"to,omitzero"`
	DetectedAt time.Time `json:"detected_at"`
	// IncidentID identifies an incident: a hash of the query, the grouped
	// nodes and the id of its first match.
	IncidentID string `json:"incident_id,omitempty"`
	// MatchIDs lists, in detection order, the ids of an incident's
	// matches (at most MaxIncidentMatchIDs) or of the matches a
	// rate_limited record held back (at most MaxRateLimitedMatchIDs), so
	// that they can be found again (`monitor mine` gives the same ids).
	// Count is exact either way; MatchIDsOmitted is how many ids the cap
	// left out (Count − len(MatchIDs)), so that a flood cannot make one
	// record huge.
	MatchIDs        []string `json:"match_ids,omitempty"`
	MatchIDsOmitted int64    `json:"match_ids_omitted,omitempty"`
	// Provisional marks a match reported before its anti-edge intervals
	// closed, because the daemon already held max_held_matches open ones.
	Provisional bool `json:"provisional,omitempty"`

	// Severity, Labels and Annotations come from the query's file (Meta),
	// annotations rendered for this record; Source and StatusURL say
	// which daemon wrote it and where its status page is. The Router sets
	// them all when it writes the record; records written before they
	// existed lack them (every field is optional).
	Severity    string            `json:"severity,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Source      Source            `json:"source,omitzero"`
	StatusURL   string            `json:"status_url,omitempty"`
}

// MarshalJSON writes the record; first and last appear only on records
// that report edges (match and incident), and there always.
func (a Alert) MarshalJSON() ([]byte, error) {
	// The same fields in the same order, first and last as pointers so
	// that omitempty tells "absent" from 0.
	out := struct {
		Kind        Kind              `json:"kind"`
		Query       string            `json:"query"`
		Description string            `json:"description,omitempty"`
		MatchID     string            `json:"match_id,omitempty"`
		IncidentID  string            `json:"incident_id,omitempty"`
		Nodes       map[string]Node   `json:"nodes,omitempty"`
		Edges       []Edge            `json:"edges,omitempty"`
		First       *int64            `json:"first,omitempty"`
		Last        *int64            `json:"last,omitempty"`
		FirstTime   string            `json:"first_time,omitempty"`
		LastTime    string            `json:"last_time,omitempty"`
		Count       int64             `json:"count,omitempty"`
		MatchIDs    []string          `json:"match_ids,omitempty"`
		Omitted     int64             `json:"match_ids_omitted,omitempty"`
		From        time.Time         `json:"from,omitzero"`
		To          time.Time         `json:"to,omitzero"`
		DetectedAt  time.Time         `json:"detected_at"`
		Provisional bool              `json:"provisional,omitempty"`
		Severity    string            `json:"severity,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
		Source      Source            `json:"source,omitzero"`
		StatusURL   string            `json:"status_url,omitempty"`
	}{a.Kind, a.Query, a.Description, a.MatchID, a.IncidentID, a.Nodes, a.Edges, nil, nil, a.FirstTime, a.LastTime,
		a.Count, a.MatchIDs, a.MatchIDsOmitted, a.From, a.To, a.DetectedAt, a.Provisional,
		a.Severity, a.Labels, a.Annotations, a.Source, a.StatusURL}
	if a.Kind == KindMatch || a.Kind == KindIncident {
		out.First, out.Last = &a.First, &a.Last
	}
	// Unescaped HTML characters: an encoder that escapes them (json.Marshal)
	// still does so for the whole record; one that does not
	// (WriterSink's) keeps descriptions as written.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// TickTime returns the ISO-8601 (RFC 3339, UTC, nanoseconds as needed)
// form of t ticks of unit after the Unix epoch, or "" when unit is not
// positive or the time does not fit a time.Time's nanosecond range.
func TickTime(t int64, unit time.Duration) string {
	if unit <= 0 {
		return ""
	}
	u := int64(unit)
	if t > 0 && t > (1<<63-1)/u || t < 0 && t < (-1<<63)/u {
		return ""
	}
	return time.Unix(0, t*u).UTC().Format(time.RFC3339Nano)
}

// UnmarshalJSONStrict decodes an alert record, refusing values that are
// not one (no kind or no query).
func (a *Alert) UnmarshalJSONStrict(data []byte) error {
	*a = Alert{}
	if err := json.Unmarshal(data, a); err != nil {
		return err
	}
	if a.Kind == "" || a.Query == "" {
		return errors.New("no kind or query")
	}
	return nil
}
