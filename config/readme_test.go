package config

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestReadmeSampleConfig parses README.md's minimal configuration: it
// must be valid, set input.fields.seq (without it equal timestamps are
// ordered by arrival and match ids differ from monitor mine's) and show
// alerts.sink and log.status_interval with their defaults.
func TestReadmeSampleConfig(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skipf("README.md not found beside the package: %v", err)
	}
	_, after, ok := strings.Cut(string(data), "A minimal configuration")
	if !ok {
		t.Fatal(`README.md has no "A minimal configuration" section`)
	}
	_, block, ok := strings.Cut(after, "```yaml\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README.md: no yaml block after \"A minimal configuration\"")
	}
	c, err := Parse([]byte(block), "README.md")
	if err != nil {
		t.Fatalf("README.md's sample configuration: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("README.md's sample configuration: %v", err)
	}
	if c.Input.Fields.Seq == "" {
		t.Error("README.md's sample configuration leaves input.fields.seq empty: its match ids would differ from monitor mine's")
	}
	if !strings.Contains(block, "sink: kafka") || c.Alerts.Sink != SinkKafka {
		t.Errorf("README.md's sample configuration does not show alerts.sink (got %q)", c.Alerts.Sink)
	}
	if c.Log.StatusInterval != 30*time.Second {
		t.Errorf("README.md's sample log.status_interval = %v; want the default 30s shown", c.Log.StatusInterval)
	}
}
