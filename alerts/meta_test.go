package alerts

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseAnnotationsErrors(t *testing.T) {
	nodes := []string{"A", "B"}
	for _, c := range []struct {
		texts map[string]string
		name  string // the annotation the error names
		want  string
	}{
		{map[string]string{"summary": "{{ .Query "}, "summary", "unclosed action"},
		{map[string]string{"summary": "{{ .C }} paid"}, "summary", `map has no entry for key "C"`},
		{map[string]string{"runbook_url": "ok", "summary": "{{ .Amount }}"}, "summary", `map has no entry for key "Amount"`},
		{map[string]string{"summary": "{{ .A.ID }}"}, "summary", "can't evaluate field ID"},
		{map[string]string{"summary": "{{ nosuchfunc .A }}"}, "summary", `function "nosuchfunc" not defined`},
	} {
		_, err := ParseAnnotations(c.texts, nodes)
		var ae *AnnotationError
		if !errors.As(err, &ae) || ae.Name != c.name || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseAnnotations(%q) = %v; want an error naming annotation %q: %s", c.texts, err, c.name, c.want)
		}
	}
	if a, err := ParseAnnotations(map[string]string{"summary": "{{ .Query }} {{ .Nodes.B }} {{ .First }} {{ .StatusURL }}"}, nodes); err != nil || a == nil {
		t.Errorf("ParseAnnotations of a good template = %v, %v", a, err)
	}
}

// TestRouterStampsRecords: every record a Router writes carries its
// query's severity, labels and rendered annotations, and the daemon's
// source and status URL; a reload that changes only those keeps the
// rate-limit bucket and applies to the next records.
func TestRouterStampsRecords(t *testing.T) {
	ann, err := ParseAnnotations(map[string]string{
		"summary":     "{{ .Query }} on {{ .A }} → {{ .B }} at {{ .First }} ({{ .Kind }}, {{ .Nodes.A }})",
		"runbook_url": "https://runbooks.example/{{ .Query }}",
	}, []string{"A", "B"})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	c := &clock{t0}
	src := Source{Instance: "mw-0", Topic: "edges", Group: "motifwatch"}
	r, err := NewRouter(RouterOptions{Interval: time.Minute, Source: src, StatusURL: "http://mw-0:9464/"}, sink, nil, c.now)
	if err != nil {
		t.Fatal(err)
	}
	meta := Meta{Severity: "page", Labels: map[string]string{"team": "fraud"}, Annotations: ann}
	opts := map[string]QueryOptions{
		"ring": {RateLimit: 1, Burst: 2, Meta: meta, Nodes: []string{"A", "B"}},
		"cnt":  {Mode: ModeCount},
	}
	if err := r.SetQueries(opts); err != nil {
		t.Fatal(err)
	}
	m := Alert{Query: "ring", MatchID: "m1", Nodes: map[string]Node{"A": {ID: "acct-1"}, "B": {ID: "acct-2"}},
		First: 10, Last: 20, FirstTime: "2026-01-01T00:00:10Z", LastTime: "2026-01-01T00:00:20Z"}
	r.Add([]Alert{m})
	r.AddCount("cnt", 3)
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 1 {
		t.Fatalf("wrote %d records; want the match", len(sink.got))
	}
	got := sink.got[0]
	want := map[string]string{
		"summary":     "ring on acct-1 → acct-2 at 2026-01-01T00:00:10Z (match, acct-1)",
		"runbook_url": "https://runbooks.example/ring",
	}
	if got.Severity != "page" || !reflect.DeepEqual(got.Labels, meta.Labels) || !reflect.DeepEqual(got.Annotations, want) ||
		got.Source != src || got.StatusURL != "http://mw-0:9464/" {
		t.Errorf("match record carries severity %q labels %v annotations %q source %+v status %q;\nwant page, %v, %q, %+v, http://mw-0:9464/",
			got.Severity, got.Labels, got.Annotations, got.Source, got.StatusURL, meta.Labels, want, src)
	}

	// Only the severity changes: the bucket (burst 2, one token left) stays.
	meta.Severity = "ticket"
	opts["ring"] = QueryOptions{RateLimit: 1, Burst: 2, Meta: meta, Nodes: []string{"A", "B"}}
	if err := r.SetQueries(opts); err != nil {
		t.Fatal(err)
	}
	r.Add([]Alert{m, m}) // one token left: the second is held back
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Tick(context.Background(), t0.Add(time.Minute)); err != nil { // the interval's count and summary
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range sink.got[1:] {
		kinds = append(kinds, string(a.Kind)+" "+a.Severity+" "+a.Source.Instance+" "+a.Annotations["runbook_url"])
	}
	if w := []string{"match ticket mw-0 https://runbooks.example/ring", "count  mw-0 ",
		"rate_limited ticket mw-0 https://runbooks.example/ring"}; !reflect.DeepEqual(kinds, w) {
		t.Errorf("records after the reload: %q; want %q", kinds, w)
	}
}
