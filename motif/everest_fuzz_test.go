package motif

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/window"
)

// FuzzImportEverest feeds arbitrary query files and pattern files to the
// Everest importer. It must never panic; an error must say something; and
// a query it returns must pass Validate and compile against a window with
// Everest's feature attribute, so that an imported file never fails later,
// inside the engine. Seeds: testdata/everest, testdata/fuzz/FuzzImportEverest
// and the cases below.
func FuzzImportEverest(f *testing.F) {
	for _, name := range []string{"M1", "M4-anti"} {
		q, err := os.ReadFile(filepath.Join("testdata", "everest", name+".yaml"))
		if err != nil {
			f.Fatal(err)
		}
		p, err := os.ReadFile(filepath.Join("testdata", "everest", name+".txt"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(q, p)
	}
	f.Add([]byte("pattern: p.txt\nconstraints: {delta: 5, temporal: [1, 2], antiEdge: [false, true, false], filter: \"e0 < e2 && n1 != 3\"}\noptions: {gpu: 2, enumerate: 3}\n"),
		[]byte("0 1 1\n1 2 2\n2 0 3\n"))
	f.Add([]byte("pattern: p.txt\nconstraints: {delta: 9223372036854775807, node0: \"f == 1\", edge1: \"f >= -1e308\"}\n"),
		[]byte("# comment\n1 2 1\n2 3 2\n\n"))
	w, err := window.New(window.Schema{TimeUnit: time.Second,
		EdgeAttrs: []window.Attr{{Name: everestFeature}}, NodeAttrs: []window.Attr{{Name: everestFeature}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, query, pattern []byte) {
		read := func(string) ([]byte, error) { return pattern, nil }
		q, _, err := importEverest("q.yaml", query, read)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("importEverest(%q, %q): empty error message", query, pattern)
			}
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("importEverest(%q, %q) returned a query that fails Validate: %v", query, pattern, err)
		}
		if _, err := Compile(q, w); err != nil {
			t.Fatalf("importEverest(%q, %q) returned a query that does not compile: %v", query, pattern, err)
		}
	})
}
