package alerts

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
)

// Source says which daemon wrote a record: what an on-call engineer
// needs to find it (the instance), and what it read (the edge topic and
// consumer group).
type Source struct {
	Instance string `json:"instance,omitempty"`
	Topic    string `json:"topic,omitempty"`
	Group    string `json:"group,omitempty"`
}

// Reserved label names: the Alertmanager sink sets them from the record,
// so a query's labels must not (alertname is the query's name).
var reservedLabels = []string{"alertname", "severity", "instance", "topic", "consumer_group", "kind", "match_id", "incident_id"}

// ReservedLabels returns the label names a query's labels may not use.
func ReservedLabels() []string { return slices.Clone(reservedLabels) }

// Meta is what a query's records carry for routing, from its query file:
// a severity, labels, and annotations rendered per record.
type Meta struct {
	Severity    string
	Labels      map[string]string
	Annotations *Annotations
}

func (m Meta) equal(n Meta) bool {
	return m.Severity == n.Severity && maps.Equal(m.Labels, n.Labels) && m.Annotations == n.Annotations
}

// Annotations are a query's annotation templates (Go text/template),
// rendered for each of its records. A template sees the record as:
//
//	.Query .Description .Kind .Severity .MatchID .IncidentID .Count
//	.First .Last        the first and last edge's times (ISO-8601, else ticks)
//	.Nodes              motif node name → graph node id; also each motif
//	                    node by its own name (.A), unless the name is one
//	                    of the fields above
//	.NodesText          "A=acct-1 B=acct-9"
//	.Edges              the edges (.Src .Dst .T .Time .Attrs)
//	.Labels .Instance .Topic .Group .StatusURL
//
// A node that a record does not map (a count record has none, an
// incident only the grouped ones) is "".
type Annotations struct {
	names []string
	tmpl  []*template.Template
}

// dataKeys are the fields of the template data (see Annotations).
var dataKeys = []string{"Query", "Description", "Kind", "Severity", "MatchID", "IncidentID", "Count", "First", "Last",
	"Nodes", "NodesText", "Edges", "Labels", "Instance", "Topic", "Group", "StatusURL"}

// AnnotationError names the annotation whose template is invalid.
type AnnotationError struct {
	Name string
	Err  error
}

func (e *AnnotationError) Error() string { return fmt.Sprintf("annotation %q: %v", e.Name, e.Err) }
func (e *AnnotationError) Unwrap() error { return e.Err }

// ParseAnnotations compiles the annotation templates texts (name →
// template) of a query whose motif nodes are nodes, and renders each once
// over a record that maps every node, so that a field or node that does
// not exist ("{{ .Amount }}", "{{ .Z }}") is an error now rather than at
// the first match. Errors are *AnnotationError, for the first bad name in
// sorted order. No templates give nil.
func ParseAnnotations(texts map[string]string, nodes []string) (*Annotations, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	a := &Annotations{names: slices.Sorted(maps.Keys(texts))}
	sample := Alert{Kind: KindMatch, Query: "q", MatchID: "0", Nodes: map[string]Node{}}
	for _, n := range nodes {
		sample.Nodes[n] = Node{ID: "n"}
	}
	for _, name := range a.names {
		t, err := template.New(name).Option("missingkey=error").Parse(texts[name])
		if err != nil {
			return nil, &AnnotationError{name, err}
		}
		var b strings.Builder
		if err := t.Execute(&b, templateData(&sample, nodes)); err != nil {
			return nil, &AnnotationError{name, err}
		}
		a.tmpl = append(a.tmpl, t)
	}
	return a, nil
}

// render returns a's annotations of record r, a query of motif nodes
// nodes. A template that fails on this record (a function given a value
// it refuses) yields its error as the annotation's text, so that the
// record still goes out; errs receives the error.
func (a *Annotations) render(r *Alert, nodes []string, errs func(name string, err error)) map[string]string {
	if a == nil {
		return nil
	}
	data := templateData(r, nodes)
	out := make(map[string]string, len(a.names))
	for i, name := range a.names {
		var b strings.Builder
		if err := a.tmpl[i].Execute(&b, data); err != nil {
			errs(name, err)
			out[name] = "(annotation template failed: " + err.Error() + ")"
			continue
		}
		out[name] = b.String()
	}
	return out
}

// templateData is the template's view of r (see Annotations).
func templateData(r *Alert, nodes []string) map[string]any {
	ids := make(map[string]string, len(nodes))
	for _, n := range nodes {
		ids[n] = r.Nodes[n].ID
	}
	for n, v := range r.Nodes { // incident records: the grouped nodes
		ids[n] = v.ID
	}
	first, last := r.FirstTime, r.LastTime
	if first == "" && (r.Kind == KindMatch || r.Kind == KindIncident) {
		first, last = fmt.Sprint(r.First), fmt.Sprint(r.Last)
	}
	d := map[string]any{
		"Query": r.Query, "Description": r.Description, "Kind": string(r.Kind), "Severity": r.Severity,
		"MatchID": r.MatchID, "IncidentID": r.IncidentID, "Count": r.Count, "First": first, "Last": last,
		"Nodes": ids, "NodesText": NodesText(r.Nodes), "Edges": r.Edges, "Labels": r.Labels,
		"Instance": r.Source.Instance, "Topic": r.Source.Topic, "Group": r.Source.Group, "StatusURL": r.StatusURL,
	}
	if r.Labels == nil {
		d["Labels"] = map[string]string{}
	}
	for n, id := range ids {
		if _, taken := d[n]; !taken {
			d[n] = id
		}
	}
	return d
}

// CheckLabels reports a label name that a query may not set (reserved:
// the record sets it).
func CheckLabels(labels map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(labels)) {
		if slices.Contains(reservedLabels, name) {
			return fmt.Errorf("label %q is set from the record (reserved: %s); use severity: for the severity", name, strings.Join(reservedLabels, ", "))
		}
	}
	return nil
}
