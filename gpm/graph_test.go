package gpm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/window"
)

// edgeSet renders g's edges by input names, sorted: "a-b b-c".
func edgeSet(g *gpm.Graph) string {
	var es []string
	for v := range uint32(g.N()) {
		for _, u := range g.Neighbors(v) {
			if a, b := g.Name(v), g.Name(u); a < b {
				es = append(es, a+"-"+b)
			}
		}
	}
	slices.Sort(es)
	return strings.Join(es, " ")
}

func TestRead(t *testing.T) {
	cases := []struct {
		name, in, want string
		header         bool
	}{
		{"plain", "1 2\n2 3\n", "1-2 2-3", false},
		{"comments, blanks, dups, reversed, self-loops", "# c\n% mm\n\n1 2\n2 1\n1 2\n3 3\n2\t3\n", "1-2 2-3", false},
		{"string ids, commas, extra fields", "alice,bob,1.5\ncarol bob 99 x\n", "alice-bob bob-carol", false},
		{"runs of separators", ",a,, \tb,\nb\t\t,c\n", "a-b b-c", false},
		{"a three-field first line is no header", "4 2 7\n1 2\n2 3\n", "1-2 2-3 2-4", false},
		{"header V E", "3 2\n1 2\n2 3\n", "1-2 2-3", true},
		{"header after comments", "# g\n4 3\na b\nb c\nc d\n", "a-b b-c c-d", true},
		// "0 3" cannot be a header of 3 vertices... it names 0 vertices.
		{"first line an edge although counts match", "0 3\n0 1\n1 2\n2 3\n", "0-1 0-3 1-2 2-3", false},
		{"first line an edge: counts differ", "5 1\n1 2\n2 3\n", "1-2 1-5 2-3", false},
	}
	for _, c := range cases {
		g, st, err := gpm.Read(strings.NewReader(c.in), "g.txt")
		if err != nil {
			t.Errorf("%s: Read error %v", c.name, err)
			continue
		}
		if got := edgeSet(g); got != c.want || st.Header != c.header {
			t.Errorf("%s: Read = %q (header %v); want %q (header %v)", c.name, got, st.Header, c.want, c.header)
		}
	}
	g, st, _ := gpm.Read(strings.NewReader("1 2\n2 1\n1 2\n3 3\n2 3\n"), "g")
	if st.EdgeLines != 5 || st.SelfLoops != 1 || st.Duplicates != 2 || g.M() != 2 || g.N() != 3 || g.MaxDegree() != 2 {
		t.Errorf("stats %+v, N %d, M %d, max degree %d; want 5 edge lines, 1 self-loop, 2 duplicates, N 3, M 2, max degree 2", st, g.N(), g.M(), g.MaxDegree())
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1 2\n3\n", `g.txt:2: want two vertex ids, got one field "3"`},
		{"# only comments\n", `g.txt: no edges (1 lines, 0 self-loops)`},
		{"a a\nb b\n", `g.txt: no edges (2 lines, 2 self-loops)`},
		{"1 2\n" + strings.Repeat("x", 2<<20) + " y\n", `g.txt:2: bufio.Scanner: token too long`},
	}
	for _, c := range cases {
		_, _, err := gpm.Read(strings.NewReader(c.in), "g.txt")
		if err == nil || err.Error() != c.want {
			t.Errorf("Read(%.20q) error = %v; want %q", c.in, err, c.want)
		}
	}
	if _, _, err := gpm.Read(strings.NewReader(""), "g.txt"); !errors.Is(err, gpm.ErrNoEdges) {
		t.Errorf("empty input: error %v; want ErrNoEdges", err)
	}
	if _, _, err := gpm.Load(filepath.Join(t.TempDir(), "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v; want ErrNotExist", err)
	}
}

// TestSharedHeaders: the shared files with a "V E" first line load with
// the declared counts.
func TestSharedHeaders(t *testing.T) {
	for _, c := range []struct {
		file string
		v, e int64
	}{{"ca-GrQc.txt", 5242, 28980}, {"email-Eu-core.txt", 1005, 24929}} {
		g, st, err := gpm.Load(testenv.Data(t, "static/"+c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !st.Header || st.HeaderV != c.v || st.HeaderE != c.e || int64(g.N()) > c.v {
			t.Errorf("%s: header %v %d %d, %d vertices; want header %d %d", c.file, st.Header, st.HeaderV, st.HeaderE, g.N(), c.v, c.e)
		}
	}
}

func TestFromWindow(t *testing.T) {
	w, err := window.New(window.Schema{TimeUnit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	add := func(s, d string, ts int64) {
		u, _ := w.IDs().Intern(s)
		v, _ := w.IDs().Intern(d)
		if _, err := w.Append(window.Edge{Src: u, Dst: v, T: ts}); err != nil {
			t.Fatal(err)
		}
	}
	add("x", "a", 1) // evicted below: x's id is released
	add("a", "b", 2)
	add("b", "a", 3)
	add("b", "c", 4)
	add("c", "c", 5)
	add("c", "a", 6)
	add("a", "b", 7)
	w.EvictBefore(2)
	g := gpm.FromWindow(w)
	if got, want := edgeSet(g), "a-b a-c b-c"; got != want || g.N() != 3 {
		t.Errorf("FromWindow = %q with %d vertices; want %q with 3", got, g.N(), want)
	}
	r := run(t, g, gpm.Clique, 3, gpm.CPUOptions{Workers: 1})
	if r.Total != 1 {
		t.Errorf("triangles in the window = %d; want 1", r.Total)
	}
}

func TestRanked(t *testing.T) {
	g, _, _ := gpm.Read(strings.NewReader("h a\nh b\nh c\na b\n"), "g")
	r := g.Ranked()
	if r.M() != g.M() || r.N() != g.N() {
		t.Fatalf("Ranked: %d vertices %d edges; want %d %d", r.N(), r.M(), g.N(), g.M())
	}
	// The hub has the highest degree: the last rank, no upward edges.
	last := uint32(r.N() - 1)
	if r.Name(last) != "h" || r.Degree(last) != 0 {
		t.Errorf("last rank is %s with %d upward edges; want h with 0", r.Name(last), r.Degree(last))
	}
	for v := range uint32(r.N()) {
		for _, u := range r.Neighbors(v) {
			if u <= v || !g.HasEdge(r.Orig(v), r.Orig(u)) {
				t.Errorf("Ranked edge %d->%d is not upward or not in g", v, u)
			}
		}
	}
}

func TestMemoryBound(t *testing.T) {
	g, _, _ := gpm.Read(strings.NewReader("a b\nb c\nc a\nc d\n"), "g")
	_, err := gpm.NewCPU(gpm.CPUOptions{Workers: 2, MemoryLimit: 1000}).Run(context.Background(), g, gpm.Job{App: gpm.Motif, K: 4})
	want := "gpm: enumeration does not fit the memory limit: motif k=4 needs 1856 B (2 traversals × max degree 3 × k² 16 × 8 B, plus 544 B per traversal of scratch and tallies) but the limit is 1000 B"
	if !errors.Is(err, gpm.ErrMemory) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Run over the limit: error %v; want ErrMemory, %q", err, want)
	}
	if _, err := gpm.NewCPU(gpm.CPUOptions{Workers: 2, MemoryLimit: 1856}).Run(context.Background(), g, gpm.Job{App: gpm.Motif, K: 4}); err != nil {
		t.Errorf("Run at the limit: %v", err)
	}
}

func ExampleFootprint() {
	g, _, _ := gpm.Read(strings.NewReader("a b\nb c\nc a\nc d\n"), "g")
	fmt.Println(gpm.Footprint(g, gpm.Job{App: gpm.Clique, K: 3}, 2))
	// Output: 496
}
