package alerts

import "time"

// Kind says what an alert record reports.
type Kind string

const (
	// KindMatch is one match of an enumerate-mode query.
	KindMatch Kind = "match"
	// KindCount is a periodic count of a count-mode query's matches.
	KindCount Kind = "count"
	// KindRateLimited summarises match alerts a rate limit held back.
	KindRateLimited Kind = "rate_limited"
)

// Edge is one graph edge of a match, with where it came from.
type Edge struct {
	Src       string `json:"src"`
	Dst       string `json:"dst"`
	T         int64  `json:"t"`
	Seq       int64  `json:"seq"`
	Partition int    `json:"partition"`
	Offset    int64  `json:"offset"`
}

// Alert is one alert record, serialised as JSON on the alert topic.
type Alert struct {
	Kind  Kind   `json:"kind"`
	Query string `json:"query"`
	// MatchID identifies a match across restarts and replicas: a hash of
	// the query name and the identities of its edges (see MatchID).
	MatchID string `json:"match_id,omitempty"`
	Edges   []Edge `json:"edges,omitempty"`
	// First and Last are the times of the first and last edge (ticks).
	First int64 `json:"first,omitempty"`
	Last  int64 `json:"last,omitempty"`
	// Count is the number of matches (KindCount) or of alerts held back
	// (KindRateLimited) in [From, To) detection time.
	Count      int64     `json:"count,omitempty"`
	From       time.Time `json:"from,omitzero"`
	To         time.Time `json:"to,omitzero"`
	DetectedAt time.Time `json:"detected_at"`
	// Provisional marks a match reported before its anti-edge intervals
	// closed, because the daemon already held max_held_matches open ones.
	Provisional bool `json:"provisional,omitempty"`
}
