package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/config"
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
	if _, _, err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(queries)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != synth.DemoQueriesYAML {
		t.Error("compose/queries.yaml differs from synth.DemoQueriesYAML, the queries the compose feed's planted patterns are made for")
	}
}
