package alertmanager

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
)

// postable is one alert of Alertmanager's v2 API (postableAlert).
type postable struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// postableOf returns the Alertmanager alert of record a (see the package
// doc), ending endsAfter after its detection.
func postableOf(a *alerts.Alert, endsAfter time.Duration) postable {
	labels := make(map[string]string, len(a.Labels)+8)
	maps.Copy(labels, a.Labels)
	set := func(k, v string) {
		if v != "" {
			labels[k] = v
		}
	}
	set("alertname", a.Query)
	set("severity", a.Severity)
	set("instance", a.Source.Instance)
	set("topic", a.Source.Topic)
	set("consumer_group", a.Source.Group)
	set("kind", string(a.Kind))
	set("match_id", a.MatchID)
	set("incident_id", a.IncidentID)
	ann := make(map[string]string, len(a.Annotations)+2)
	maps.Copy(ann, a.Annotations)
	if ann["summary"] == "" {
		ann["summary"] = summary(a)
	}
	if ann["description"] == "" && a.Description != "" {
		ann["description"] = a.Description
	}
	start := a.DetectedAt
	if start.IsZero() {
		start = time.Now()
	}
	return postable{Labels: labels, Annotations: ann, StartsAt: start.UTC(), EndsAt: start.Add(endsAfter).UTC(), GeneratorURL: a.StatusURL}
}

// summary is the summary annotation of a record whose query sets none.
func summary(a *alerts.Alert) string {
	switch a.Kind {
	case alerts.KindCount:
		return fmt.Sprintf("%s: %d matches from %s to %s", a.Query, a.Count, a.From.Format(time.RFC3339), a.To.Format(time.RFC3339))
	case alerts.KindRateLimited:
		return fmt.Sprintf("%s: %d match alerts held back by the rate limit from %s to %s", a.Query, a.Count, a.From.Format(time.RFC3339), a.To.Format(time.RFC3339))
	case alerts.KindIncident:
		return fmt.Sprintf("%s: incident of %d matches on %s", a.Query, a.Count, alerts.NodesText(a.Nodes))
	}
	return fmt.Sprintf("%s matched %s", a.Query, alerts.NodesText(a.Nodes))
}

func encode(a *alerts.Alert, endsAfter time.Duration) ([]byte, error) {
	return json.Marshal(postableOf(a, endsAfter))
}
