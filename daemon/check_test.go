package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/motifwatch/motifwatch/config"
)

// TestCheckGPMAgainstTheEngine: gpm.app and gpm.k, plain values in
// config, are checked against the gpm engine by Check, with errors that
// name file, line, field and value as config's own do; the other rules
// of config still report beside them; with the job off they are not
// checked (as config checks the rest of the section only when it is on).
func TestCheckGPMAgainstTheEngine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const q = "queries:\n  inline: [{name: q, delta: 1m, edges: [A -> B]}]\n"
	for _, c := range []struct {
		name, text string
		want       []string // "" as the file's path
	}{
		{"app.yaml", q + "gpm:\n  every: 1m\n  app: stars\n", []string{`:5: gpm.app: "stars" (want clique or motif)`}},
		{"k.yaml", q + "gpm:\n  every: 1m\n  app: motif\n  k: 11\n", []string{`:6: gpm.k: 11 out of range for motif (want 2 to 10)`}},
		{"clique.yaml", q + "gpm:\n  every: 1m\n  app: clique\n  k: 33\n", []string{`:6: gpm.k: 33 out of range for clique (want 2 to 32)`}},
		{"both.yaml", q + "gpm:\n  every: 1m\n  app: clique\n  k: 1\n  workers: -1\n", []string{
			`:7: gpm.workers: -1 must not be negative (0 = one per CPU)`, `:6: gpm.k: 1 out of range for clique (want 2 to 32)`}},
		{"off.yaml", q + "gpm:\n  app: stars\n  k: 99\n", nil},
		{"good.yaml", q + "gpm:\n  every: 1m\n  app: clique\n  k: 32\n", nil},
		{"default.yaml", q + "gpm:\n  every: 1m\n", nil},
	} {
		path := write(c.name, c.text)
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatalf("%s: Load = %v", c.name, err)
		}
		_, _, err = Check(cfg)
		var got []string
		for _, e := range leaves(err) {
			got = append(got, e.Error())
		}
		var want []string
		for _, w := range c.want {
			want = append(want, path+w)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Check errors\n%q\nwant\n%q", c.name, got, want)
		}
	}
}

// leaves lists the errors inside errors.Join trees.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}
