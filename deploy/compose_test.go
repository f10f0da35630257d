package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/synth"
)

// TestComposeConfigValid checks the compose trial's configuration the way
// `monitor validate` does, with its query file where compose mounts it,
// and that the trial's queries are the demo feed's.
func TestComposeConfigValid(t *testing.T) {
	queries, err := filepath.Abs("compose/queries.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("compose/motifwatch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.ReplaceAll(string(data), "/etc/motifwatch/queries.yaml", queries)
	cfg, err := config.Parse([]byte(yaml), "compose/motifwatch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := daemon.Check(cfg); err != nil {
		t.Fatal(err)
	}
	// monitor produce writes seq; without input.fields.seq the daemon
	// orders equal timestamps by arrival and its match ids differ from
	// monitor mine's.
	if cfg.Input.Fields.Seq != "seq" {
		t.Errorf("input.fields.seq = %q; want seq (the field monitor produce writes)", cfg.Input.Fields.Seq)
	}
	body, err := os.ReadFile(queries)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != synth.DemoQueriesYAML {
		t.Error("compose/queries.yaml differs from synth.DemoQueriesYAML, the queries the compose feed's planted patterns are made for")
	}
}
