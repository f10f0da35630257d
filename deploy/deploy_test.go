package deploy

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

// expression is one PromQL expression and where it was found.
type expression struct {
	where, expr string
}

// ruleFile is the part of a Prometheus rule file the test reads.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Record string `yaml:"record"`
			Alert  string `yaml:"alert"`
			Expr   string `yaml:"expr"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// ruleExpressions returns the rules' expressions and the names the
// recording rules define.
func ruleExpressions(t *testing.T, path string) ([]expression, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var exprs []expression
	var recorded []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			name := r.Alert
			if r.Record != "" {
				name = r.Record
				recorded = append(recorded, r.Record)
			}
			exprs = append(exprs, expression{path + ": " + g.Name + "/" + name, r.Expr})
		}
	}
	return exprs, recorded
}

// labelValues matches a Grafana template query label_values(expr, label).
var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$`)

// grafanaVars are Grafana's interval variables, replaced by a duration so
// that the expression parses as PromQL.
var grafanaVars = strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")

// dashboardExpressions returns every panel target's expr and every
// templating query of a Grafana dashboard.
func dashboardExpressions(t *testing.T, path string) []expression {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var exprs []expression
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if title, ok := v["title"].(string); ok {
				where += "/" + title
			}
			if e, ok := v["expr"].(string); ok {
				exprs = append(exprs, expression{where, grafanaVars.Replace(e)})
			}
			for k, c := range v {
				walk(where, c)
				_ = k
			}
		case []any:
			for _, c := range v {
				walk(where, c)
			}
		}
	}
	walk(path, dash["panels"])
	templating, _ := dash["templating"].(map[string]any)
	vars, _ := templating["list"].([]any)
	for _, v := range vars {
		v, _ := v.(map[string]any)
		if v["type"] != "query" {
			continue
		}
		q, _ := v["query"].(map[string]any)
		s, _ := q["query"].(string)
		m := labelValues.FindStringSubmatch(s)
		if m == nil {
			t.Errorf("%s: variable %v: query %q is not label_values(expr, label)", path, v["name"], s)
			continue
		}
		exprs = append(exprs, expression{path + ": variable " + v["name"].(string), m[1]})
	}
	return exprs
}

// metricNames parses e and returns the metric names its selectors name.
func metricNames(p parser.Parser, e string) ([]string, error) {
	ast, err := p.ParseExpr(e)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(ast, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		if name == "" {
			for _, m := range vs.LabelMatchers {
				if m.Name == "__name__" {
					name = m.Value
				}
			}
		}
		if name == "" {
			err = errors.New("a selector without a metric name")
		}
		names = append(names, name)
		return nil
	})
	return names, err
}

// registered reports whether reg has a collector for name: registering a
// probe gauge under that name fails exactly when one is there (the same
// name with other help or labels is refused, the same description is
// already registered). A probe that registers is unregistered again.
func registered(reg *prometheus.Registry, name string) bool {
	probe := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "deploy test probe: is this name registered?"})
	if err := reg.Register(probe); err != nil {
		return true
	}
	reg.Unregister(probe)
	return false
}

// fromPrometheus are series Prometheus writes itself for every target.
var fromPrometheus = []string{"up"}

// TestExpressionsNameRegisteredMetrics parses every PromQL expression in
// the rules and the dashboard and checks that each metric it names is
// registered by the daemon (started in-process on its embedded default),
// allowing the _bucket, _sum and _count series of histograms, the names
// the recording rules define, and `up`.
func TestExpressionsNameRegisteredMetrics(t *testing.T) {
	rules, recorded := ruleExpressions(t, "prometheus/rules.yaml")
	dash := dashboardExpressions(t, "grafana/motifwatch.json")
	if len(rules) < 6 || len(dash) < 10 {
		t.Fatalf("found %d rule and %d dashboard expressions; want at least 6 and 10", len(rules), len(dash))
	}

	reg := prometheus.NewRegistry()
	startDaemon(t, reg)
	known := func(name string) bool {
		if slices.Contains(recorded, name) || slices.Contains(fromPrometheus, name) {
			return true
		}
		if !strings.HasPrefix(name, "motifwatch_") && !strings.HasPrefix(name, "process_") && !strings.HasPrefix(name, "go_") {
			return false // never probe a name outside the daemon's namespaces
		}
		if registered(reg, name) {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && registered(reg, base) {
				return true
			}
		}
		return false
	}

	p := parser.NewParser(parser.Options{})
	seen := map[string]bool{}
	for _, e := range append(rules, dash...) {
		names, err := metricNames(p, e.expr)
		if err != nil {
			t.Errorf("%s: %q does not parse as PromQL: %v", e.where, e.expr, err)
			continue
		}
		if len(names) == 0 && !strings.HasPrefix(strings.TrimSpace(e.expr), "vector(") {
			t.Errorf("%s: %q names no metric", e.where, e.expr)
		}
		for _, n := range names {
			if !known(n) {
				t.Errorf("%s: %q names %s, which the daemon does not register", e.where, e.expr, n)
			}
			seen[n] = true
		}
	}
	t.Logf("%d rule and %d dashboard expressions, %d distinct metric names", len(rules), len(dash), len(seen))

	// The check must be able to fail.
	if known("motifwatch_no_such_metric_total") {
		t.Error("registered(motifwatch_no_such_metric_total) = true; want false")
	}
}
