package alerts

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestAlertJSONFirstLast checks that match and incident records always
// carry first and last (an edge at t = 0 lost them to omitempty), and
// that records without edges never do.
func TestAlertJSONFirstLast(t *testing.T) {
	for _, c := range []struct {
		a    Alert
		want bool
	}{
		{Alert{Kind: KindMatch, Query: "q", First: 0, Last: 0}, true},
		{Alert{Kind: KindIncident, Query: "q", First: 0, Last: 5}, true},
		{Alert{Kind: KindCount, Query: "q", Count: 3}, false},
		{Alert{Kind: KindRateLimited, Query: "q", Count: 3}, false},
	} {
		raw, err := json.Marshal(c.a)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		has := strings.Contains(s, `"first":`) && strings.Contains(s, `"last":`)
		if has != c.want || strings.Count(s, `"first":`) > 1 {
			t.Errorf("json.Marshal(%s record) = %s; first/last present %v, want %v (once)", c.a.Kind, s, has, c.want)
		}
	}
}

func TestTickTime(t *testing.T) {
	for _, c := range []struct {
		t    int64
		unit time.Duration
		want string
	}{
		{0, time.Second, "1970-01-01T00:00:00Z"},
		{1700000000, time.Second, "2023-11-14T22:13:20Z"},
		{1700000000123, time.Millisecond, "2023-11-14T22:13:20.123Z"},
		{-1, time.Second, "1969-12-31T23:59:59Z"},
		{5, 0, ""},
		{1 << 62, time.Second, ""}, // past time.Time's nanosecond range
	} {
		if got := TickTime(c.t, c.unit); got != c.want {
			t.Errorf("TickTime(%d, %v) = %q; want %q", c.t, c.unit, got, c.want)
		}
	}
}
