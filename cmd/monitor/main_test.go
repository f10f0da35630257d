package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/mine"
	"go.uber.org/goleak"
)

// TestMain lets the test binary act as the monitor command: tests re-run
// it with MONITOR_TEST_MAIN=1 to check real exit statuses and output.
// Run as tests, it fails the package if a goroutine outlives them: every
// daemon, broker and client the tests start must stop whole.
func TestMain(m *testing.M) {
	if os.Getenv("MONITOR_TEST_MAIN") == "1" {
		os.Args = append([]string{"monitor"}, strings.Fields(os.Getenv("MONITOR_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func monitor(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return monitorIn(t, "", args...)
}

// monitorIn is monitor run in the directory dir ("": the package's).
func monitorIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS="+strings.Join(args, " "))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running monitor %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// snapReference is ARCHITECTURE.md's grid for CollegeMsg at delta = 3600 s.
const snapReference = `126693 75319 2663 2050 132203 184137
92053 64324 2309 1657 109701 125024
81514 84982 134875 157498 1936 2503
160934 79499 276986 136796 2595 2440
170110 149986 111083 132038 113092 133767
278779 156065 244621 129349 131496 188240
`

// TestSnap3OnCollegeMsgMatchesReference: SNAP's grid on 1 and 2 workers,
// and from the gzip file as testdata/ ships it (read as it is).
func TestSnap3OnCollegeMsgMatchesReference(t *testing.T) {
	dir, err := testenv.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	collegeMsg := testenv.Data(t, "temporal/CollegeMsg.txt")
	for _, c := range []struct{ graph, workers string }{
		{collegeMsg, "1"}, {collegeMsg, "2"}, {filepath.Join(dir, "temporal", "CollegeMsg.txt.gz"), "2"},
	} {
		workers := c.workers
		out, errOut, code := monitor(t, "mine", "--graph", c.graph, "--snap3", "--delta", "3600", "--workers", workers, "--format", "csv")
		if code != 0 {
			t.Fatalf("mine --snap3 exited %d: %s", code, errOut)
		}
		// The CSV grid less its labels is SNAP's output.
		var grid strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			_, cells, _ := strings.Cut(line, ",")
			grid.WriteString(strings.ReplaceAll(cells, ",", " ") + "\n")
		}
		if grid.String() != snapReference {
			t.Errorf("mine --snap3 --workers %s printed\n%s\nwant\n%s", workers, out, snapReference)
		}
		// The summary names no total across the 36 motifs (one total of
		// unrelated motifs says nothing); the grid's cells add up to
		// SNAP's total.
		if !strings.Contains(errOut, "59835 edges, 36 queries") {
			t.Errorf("summary line missing or wrong in stderr:\n%s", errOut)
		}
		total := 0
		for _, f := range strings.Fields(grid.String()) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("grid cell %q: %v", f, err)
			}
			total += n
		}
		if total != 3979317 {
			t.Errorf("mine --snap3 --workers %s: cells add up to %d; want 3979317", workers, total)
		}
	}
}

// TestReadmeMineCommands runs the README's "Mining a file" commands from
// the module's root, as a newcomer types them, and checks SNAP's total.
func TestReadmeMineCommands(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Mining a file")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`README.md: no sh block under "## Mining a file"`)
	}
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		line, _, _ = strings.Cut(line, "#")
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "monitor" {
			t.Fatalf("README.md, Mining a file: %q is not a monitor command", line)
		}
		out, errOut, code := monitorIn(t, "../..", args[1:]...)
		if code != 0 || out == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %s", line, code, out, errOut)
		}
		if slices.Contains(args, "--snap3") && !strings.Contains(out, "TOTAL 3,979,317") {
			t.Errorf("%s: no TOTAL 3,979,317 (SNAP's) in\n%s", line, out)
		}
		ran++
	}
	if ran == 0 {
		t.Error("README.md, Mining a file: no command")
	}
}

func TestMineQueryFileCountsAndEnumerates(t *testing.T) {
	out, errOut, code := monitor(t, "mine", "--graph", "testdata/cycle.txt", "--query", "testdata/cycle.yaml", "--enumerate", "5", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep mine.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	// big-cycle: the cycles a->b->c->a starting at a->b@10 and a->b@50, and
	// the rotations starting at b->c@20 (ends a->b@50, 30 later: delta is
	// inclusive) and c->a@30 (ends b->c@55); amounts all over 1000.
	// cycle-no-return drops the amount filter but forbids B->A after the
	// first edge: b->a@35 kills the cycle from a->b@10 (interval (10, 40]),
	// and the other three have no such edge.
	want := map[string]int64{"big-cycle": 4, "cycle-no-return": 3}
	if len(rep.Queries) != 2 {
		t.Fatalf("got %d queries; want 2", len(rep.Queries))
	}
	for _, q := range rep.Queries {
		if q.Matches != want[q.Name] || int64(len(q.Examples)) != want[q.Name] {
			t.Errorf("%s: %d matches, %d enumerated; want %d", q.Name, q.Matches, len(q.Examples), want[q.Name])
		}
	}
	starts := map[string]bool{}
	for _, m := range rep.Queries[1].Examples {
		starts[fmt.Sprintf("%s->%s@%d", m[0].Src, m[0].Dst, m[0].T)] = true
	}
	if fmt.Sprint(starts) != "map[a->b@50:true b->c@20:true c->a@30:true]" {
		t.Errorf("cycle-no-return matches start at %v; want b->c@20, c->a@30, a->b@50", starts)
	}
}

func TestMineEnumerateStopsAtBound(t *testing.T) {
	out, errOut, code := monitor(t, "mine", "--synthetic", "3000", "--motif", "M1", "--delta", "1h", "--enumerate", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "M1: first 7 matches") || strings.Count(out, "->") != 7*3 {
		t.Errorf("want exactly 7 printed matches of 3 edges:\n%s", out)
	}
	if !strings.Contains(out, "7+") {
		t.Errorf("a truncated count should read 7+:\n%s", out)
	}
}

func TestMineWorkersAgree(t *testing.T) {
	var first string
	for _, w := range []string{"1", "2", "4"} {
		out, errOut, code := monitor(t, "mine", "--synthetic", "20000", "--motif", "M4,M6,M4-A", "--delta", "2h", "--workers", w, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep mine.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		var counts []int64
		for _, q := range rep.Queries {
			counts = append(counts, q.Matches)
		}
		got, _ := json.Marshal(counts)
		if first == "" {
			first = string(got)
			if first == "[0,0,0]" {
				t.Fatalf("no matches at all; the test graph is too small to compare anything")
			}
		} else if string(got) != first {
			t.Errorf("--workers %s counts %s; want %s (1 worker)", w, got, first)
		}
	}
}

func TestMineBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"malformed line", []string{"mine", "--graph", "testdata/bad-graph.txt", "--motif", "M1", "--delta", "10"}, 1, `testdata/bad-graph.txt:2: timestamp "eleven" is not an integer`},
		{"invalid utf-8 id", []string{"mine", "--graph", "testdata/bad-utf8-graph.txt", "--motif", "M1", "--delta", "10"}, 1, `testdata/bad-utf8-graph.txt:2: source id "\xff" is not valid UTF-8`},
		{"invalid query", []string{"mine", "--graph", "testdata/cycle.txt", "--query", "testdata/bad-query.yaml"}, 1, `edges[1]: unknown node "x"`},
		{"zero delta", []string{"mine", "--graph", "testdata/cycle.txt", "--motif", "M4", "--delta", "0"}, 2, "--delta 0: must be positive"},
		{"bad delta", []string{"mine", "--graph", "testdata/cycle.txt", "--motif", "M4", "--delta", "soon"}, 2, `--delta "soon"`},
		{"no delta", []string{"mine", "--graph", "testdata/cycle.txt", "--motif", "M4"}, 2, "give --delta"},
		{"unknown motif", []string{"mine", "--graph", "testdata/cycle.txt", "--motif", "M99", "--delta", "10"}, 2, `unknown motif "M99"`},
		{"missing file", []string{"mine", "--graph", "testdata/nope.txt", "--motif", "M1", "--delta", "10"}, 1, "nope.txt"},
		{"no query", []string{"mine", "--graph", "testdata/cycle.txt"}, 2, "give --query FILE, --motif NAME, --snap3 or --grid4"},
		{"bad format", []string{"mine", "--synthetic", "10", "--motif", "M1", "--delta", "10", "--format", "xml"}, 2, `--format "xml"`},
		{"unknown flag", []string{"mine", "--grpah", "x"}, 2, "unknown flag"},
		{"cache and no cache", []string{"mine", "--graph", "testdata/cycle.txt", "--motif", "M4", "--delta", "10", "--cache", "x", "--no-cache"}, 2, "--cache and --no-cache exclude each other"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := monitor(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("monitor %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
			}
		})
	}
}

func TestMineSkipBadReportsAndContinues(t *testing.T) {
	out, errOut, code := monitor(t, "mine", "--graph", "testdata/bad-graph.txt", "--motif", "M1", "--delta", "10", "--skip-bad")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "skipped 1 malformed lines") || !strings.Contains(errOut, "bad-graph.txt:2:") {
		t.Errorf("stderr does not report the skipped line:\n%s", errOut)
	}
	if !strings.Contains(out, "M1") {
		t.Errorf("no result table:\n%s", out)
	}
}

// TestMineCache: --cache DIR writes the parsed graph on the first run and
// serves the second from it, with the same counts; a changed file is
// parsed again; --no-cache touches no cache.
func TestMineCache(t *testing.T) {
	dir := t.TempDir()
	graph := dir + "/g.txt"
	text, err := os.ReadFile("testdata/cycle.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(graph, text, 0o644)
	args := []string{"mine", "--graph", graph, "--motif", "M1", "--delta", "100", "--cache", dir + "/cache"}
	counts := func(out string) string { // the table without its SECONDS column
		var b strings.Builder
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) >= 3 {
				fmt.Fprintln(&b, f[:3])
			}
		}
		return b.String()
	}
	var first string
	for i, want := range []string{"cache written", "cache hit"} {
		out, errOut, code := monitor(t, args...)
		if code != 0 || !strings.Contains(errOut, want) {
			t.Fatalf("run %d: exit %d, stderr %q; want %q", i+1, code, errOut, want)
		}
		if i == 0 {
			first = out
		} else if counts(out) != counts(first) || !strings.Contains(first, "M1") {
			t.Errorf("counts from the cache:\n%s\nfrom the text:\n%s", out, first)
		}
	}
	os.WriteFile(graph, append(text, "zz yy 99999 1\n"...), 0o644)
	if _, errOut, _ := monitor(t, args...); !strings.Contains(errOut, "cache rebuilt (input changed)") {
		t.Errorf("after a change: stderr %q; want the cache rebuilt", errOut)
	}
	if _, errOut, _ := monitor(t, "mine", "--graph", graph, "--motif", "M4", "--delta", "100", "--no-cache"); strings.Contains(errOut, "cache") {
		t.Errorf("--no-cache: stderr %q mentions a cache", errOut)
	}
}
