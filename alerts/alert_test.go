package alerts

import (
	"encoding/json"
	"reflect"
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

// TestAlertJSONFields checks that the record's JSON keeps every field of
// Alert (the encoder lists them apart, in reading order): a round trip
// loses nothing.
func TestAlertJSONFields(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	seen := map[string]bool{}
	for _, a := range []Alert{
		{Kind: KindMatch, Query: "q", Description: "d", MatchID: "m", Nodes: map[string]Node{"A": {ID: "x", Label: "l"}},
			Edges: []Edge{{Src: "x", Dst: "y", T: 3, Time: "t3", Seq: 4, Partition: 5, Offset: 6, Attrs: map[string]any{"amount": 1.5}}},
			First: 3, Last: 3, FirstTime: "t3", LastTime: "t3", DetectedAt: at, Provisional: true,
			Severity: "page", Labels: map[string]string{"team": "fraud"}, Annotations: map[string]string{"summary": "q on x"},
			Source: Source{Instance: "host-1", Topic: "edges", Group: "g"}, StatusURL: "http://host-1:9464/"},
		{Kind: KindIncident, Query: "q", IncidentID: "i", Count: 2, MatchIDs: []string{"a", "b"}, From: at, To: at.Add(time.Second), DetectedAt: at},
		{Kind: KindRateLimited, Query: "q", Count: 5, MatchIDs: []string{"a", "b"}, MatchIDsOmitted: 3, From: at, To: at.Add(time.Second), DetectedAt: at},
	} {
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var keys map[string]any
		json.Unmarshal(raw, &keys)
		for k := range keys {
			seen[k] = true
		}
		var back Alert
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, a) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", raw, back, a)
		}
	}
	// A field added to Alert but not to MarshalJSON's list is missing.
	typ := reflect.TypeOf(Alert{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !seen[name] {
			t.Errorf("Alert.%s (%q) never appears in the JSON: add it to MarshalJSON (and to this test's records)", typ.Field(i).Name, name)
		}
	}
}

// TestAlertReadsOldRecords: a record written before severity, labels,
// annotations, source and status_url existed still decodes (strictly),
// with those fields empty, and re-encodes byte for byte.
func TestAlertReadsOldRecords(t *testing.T) {
	old := `{"kind":"match","query":"money-ring","match_id":"5aba","nodes":{"A":{"id":"acct-2000"}},` +
		`"edges":[{"src":"acct-2000","dst":"acct-2001","t":10,"seq":34,"partition":1,"offset":6}],` +
		`"first":10,"last":10,"detected_at":"2026-12-02T13:02:17.514551882Z"}`
	var a Alert
	if err := a.UnmarshalJSONStrict([]byte(old)); err != nil {
		t.Fatal(err)
	}
	if a.Severity != "" || a.Labels != nil || a.Annotations != nil || a.Source != (Source{}) || a.StatusURL != "" {
		t.Errorf("old record decoded with routing fields %q %v %v %+v %q; want none", a.Severity, a.Labels, a.Annotations, a.Source, a.StatusURL)
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != old {
		t.Errorf("old record re-encoded as\n%s\nwant\n%s", raw, old)
	}
}
