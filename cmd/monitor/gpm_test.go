package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/gpmrun"
	"github.com/motifwatch/motifwatch/gpu"
)

const citeseer = "../../../shared/data/static/citeseer.edgelist"

func needCiteseer(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(citeseer); err != nil {
		t.Skipf("citeseer not found at %s (../shared/data is absent on a user's clone): %v", citeseer, err)
	}
}

func TestGpmMotifTable(t *testing.T) {
	needCiteseer(t)
	out, errOut, code := monitor(t, "gpm", "--graph", citeseer, "--app", "motif", "-k", "4", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"3-star           0-1 0-2 0-3              222,630",
		"4-path           0-1 0-2 1-3              111,153",
		"tailed triangle  0-1 0-2 0-3 1-2          22,900",
		"4-cycle          0-1 0-2 1-3 2-3          3,094",
		"diamond          0-1 0-2 0-3 1-2 1-3      2,200",
		"4-clique         0-1 0-2 0-3 1-2 1-3 2-3  255",
		"TOTAL                                     362,232",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "3264 vertices, 4536 edges") {
		t.Errorf("stderr lacks the graph summary:\n%s", errOut)
	}
}

// TestGpmCliquesToTwelve is the documented run of clique counting up to
// k = 12 on citeseer (the largest clique has 6 vertices).
func TestGpmCliquesToTwelve(t *testing.T) {
	needCiteseer(t)
	want := map[string]uint64{"3": 1166, "4": 255, "5": 46, "6": 4, "7": 0, "12": 0}
	for k, n := range want {
		for _, run := range [][2]string{{"on", "pa"}, {"off", "pa"}, {"on", "dm"}} {
			balance, cliques := run[0], run[1]
			out, errOut, code := monitor(t, "gpm", "--graph", citeseer, "--app", "clique", "-k", k, "--format", "json", "--balance", balance, "--cliques", cliques)
			if code != 0 {
				t.Fatalf("k=%s: exit %d: %s", k, code, errOut)
			}
			var r gpmrun.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("k=%s: output is not JSON: %v\n%s", k, err, out)
			}
			if r.Total != n || r.Balance != (balance == "on") {
				t.Errorf("k=%s balance %s cliques %s: total %d (balance %v); want %d", k, balance, cliques, r.Total, r.Balance, n)
			}
		}
	}
}

func TestGpmEnumerate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.txt")
	// Two triangles sharing an edge, plus a tail: a diamond with a tail.
	os.WriteFile(path, []byte("# diamond\na b\nb c\nc a\nb d\nc d\nd e\n"), 0o644)
	out, errOut, code := monitor(t, "gpm", "--graph", path, "--app", "clique", "-k", "3", "--enumerate", "10", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r gpmrun.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Subgraphs) != 2 || r.Total != 2 || r.Truncated {
		t.Errorf("enumerate: %+v; want the 2 triangles", r)
	}
	out, _, code = monitor(t, "gpm", "--graph", path, "--app", "motif", "-k", "3", "--enumerate", "2")
	// Which two subgraphs come first depends on the workers (two triangles
	// give one pattern line, a wedge and a triangle two): count the
	// subgraph lines, before the blank line, not the whole output.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	listed := slices.Index(lines, "") - 1 // after the VERTICES header
	if code != 0 || listed != 2 || strings.Join(strings.Fields(lines[len(lines)-1]), " ") != "TOTAL 2+" {
		t.Errorf("bounded enumerate (exit %d, %d subgraphs listed):\n%s", code, listed, out)
	}
}

// TestGpmCache: with --cache, the first run writes the parsed graph and
// the second loads it, with the same counts.
func TestGpmCache(t *testing.T) {
	needCiteseer(t)
	dir := t.TempDir()
	for _, want := range []string{"written", "hit"} {
		out, errOut, code := monitor(t, "gpm", "--graph", citeseer, "--app", "clique", "-k", "4", "--format", "json", "--cache", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var r gpmrun.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Cache != want || r.Total != 255 || r.Vertices != 3264 || r.Edges != 4536 {
			t.Errorf("cache %q, %d cliques on %d vertices, %d edges; want cache %s, 255 on 3264, 4536", r.Cache, r.Total, r.Vertices, r.Edges, want)
		}
		if !strings.Contains(errOut, "cache "+want) {
			t.Errorf("stderr lacks the cache outcome %q:\n%s", want, errOut)
		}
	}
}

func TestGpmErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("a b\nc\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gpm", "--app", "motif", "-k", "4"}, 2, "gpm: give --graph FILE"},
		{[]string{"gpm", "--graph", bad, "--app", "star", "-k", "4"}, 2, `gpm: app "star": want clique or motif`},
		{[]string{"gpm", "--graph", bad, "--app", "motif", "-k", "11"}, 2, "gpm: motif k = 11: want 2 to 10"},
		{[]string{"gpm", "--graph", bad, "--app", "motif", "-k", "3", "--balance", "maybe"}, 2, `--balance "maybe": want on or off`},
		{[]string{"gpm", "--graph", bad, "--app", "clique", "-k", "3", "--cliques", "fast"}, 2, `--cliques "fast": want pa or dm`},
		{[]string{"gpm", "--graph", bad, "--app", "motif", "-k", "3", "--memory-limit", "lots"}, 2, `--memory-limit: "lots"`},
		{[]string{"gpm", "--graph", bad, "--app", "motif", "-k", "3"}, 1, bad + `:2: want two vertex ids, got one field "c"`},
		{[]string{"gpm", "--graph", bad, "--app", "motif", "-k", "3", "--cache", dir, "--no-cache"}, 2, "gpm: --cache and --no-cache exclude each other"},
	}
	for _, c := range cases {
		_, errOut, code := monitor(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("monitor %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if !gpu.Available {
		good := filepath.Join(dir, "good.txt")
		os.WriteFile(good, []byte("a b\nb c\n"), 0o644)
		_, errOut, code := monitor(t, "gpm", "--graph", good, "--app", "motif", "-k", "3", "--backend", "gpu")
		if code != 1 || !strings.Contains(errOut, "gpm --backend gpu: gpu: no usable CUDA device: this binary was built without the cuda build tag") {
			t.Errorf("--backend gpu without cuda: exit %d, %q", code, errOut)
		}
	}
	_, errOut, code := monitor(t, "gpm", "--graph", filepath.Join(dir, "good.txt"), "--app", "motif", "-k", "3", "--memory-limit", "100")
	if code != 1 || !strings.Contains(errOut, "does not fit the memory limit") {
		t.Errorf("tiny --memory-limit: exit %d, %q", code, errOut)
	}
}
