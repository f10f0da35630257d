package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestDefaultsYAMLLoadsAsTheDefaults checks that `monitor config
// --defaults` prints a file that loads as DefaultConfig, every key
// included.
func TestDefaultsYAMLLoadsAsTheDefaults(t *testing.T) {
	data, err := DefaultsYAML()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data, "defaults.yaml")
	if err != nil {
		t.Fatalf("the defaults do not load: %v\n%s", err, data)
	}
	want := DefaultConfig()
	got.Source, got.origins, got.inline = "", nil, nil
	want.Source, want.origins, want.inline = "", nil, nil
	if got.Queries.Inline == nil {
		got.Queries.Inline = want.Queries.Inline
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the defaults load as\n%+v\nwant\n%+v\nfrom\n%s", got, want, data)
	}
	for _, k := range Keys() {
		last := k[strings.LastIndex(k, ".")+1:]
		if !strings.Contains(string(data), last+":") {
			t.Errorf("key %s is missing from the defaults:\n%s", k, data)
		}
	}
}

// TestConfigDocumentsEveryKey fails when a configuration key has no entry
// in docs/CONFIG.md: the reference can't go stale when a key is added.
func TestConfigDocumentsEveryKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONFIG.md")
	if err != nil {
		t.Fatalf("reading the configuration reference: %v", err)
	}
	// Keys are documented as `section.key` in the first cell of a table row.
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_.]+)`").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	keys := Keys()
	if len(keys) < 50 {
		t.Fatalf("Keys() lists %d keys; the config has more than 50", len(keys))
	}
	for _, k := range keys {
		if !documented[k] {
			t.Errorf("docs/CONFIG.md has no row for %s", k)
		}
	}
	for k := range documented {
		if !slicesContains(keys, k) {
			t.Errorf("docs/CONFIG.md documents %s, which is no configuration key", k)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
