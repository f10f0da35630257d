package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/gpmrun"
	"github.com/motifwatch/motifwatch/mine"
)

// In-process tests of the command line: execute runs the cobra commands
// as main does, with the output captured.

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(context.Background(), args, &o, &e)
	return o.String(), e.String(), code
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCLIExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nosuch"}, 2, `unknown command "nosuch"`},
		{[]string{"mine", "--grpah", "x"}, 2, "unknown flag: --grpah"},
		{[]string{"mine", "--synthetic", "10", "--motif", "M1", "--delta", "1h", "extra"}, 2, `mine: unexpected argument "extra"`},
		{[]string{"gpm", "g.txt"}, 2, `gpm: unexpected argument "g.txt"`},
		{[]string{"run", "--config", "x.yaml", "more"}, 2, `run: unexpected argument "more"`},
		{[]string{"version", "x"}, 2, `version: unexpected argument "x"`},
		{[]string{"mine", "--graph", "testdata/nope.txt", "--motif", "M1", "--delta", "10"}, 1, "nope.txt"},
		// flag values: what the value should be, not strconv's words
		{[]string{"mine", "--workers", "many"}, 2, `invalid argument "many" for "--workers" flag: want an integer`},
		{[]string{"gpm", "--threshold", "half"}, 2, `invalid argument "half" for "--threshold" flag: want a number`},
		{[]string{"mine", "--progress", "5"}, 2, `invalid argument "5" for "--progress" flag: want a duration like 500ms, 5s or 1h`},
		{[]string{"mine", "--snap3=maybe"}, 2, `invalid argument "maybe" for "--snap3" flag: want true or false`},
	} {
		_, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "strconv") || strings.Contains(errOut, "time: ") {
			t.Errorf("monitor %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.want)
		}
	}
	out, errOut, code := run(t, "--version")
	if code != 0 || out != "motifwatch "+version+"\n" {
		t.Errorf("monitor --version: exit %d, stdout %q, stderr %q; want \"motifwatch %s\"", code, out, errOut, version)
	}
}

func TestCLIEverySubcommandHasExamples(t *testing.T) {
	n := 0
	for _, c := range newRootCmd().Commands() {
		if c.Name() == "help" || c.Name() == "completion" || c.Hidden {
			continue
		}
		n++
		out, _, code := run(t, c.Name(), "--help")
		if code != 0 || c.Example == "" || !strings.Contains(out, "Examples:\n  monitor "+c.Name()) {
			t.Errorf("monitor %s --help (exit %d) has no Examples section starting with the command:\n%s", c.Name(), code, out)
		}
	}
	if n < 7 {
		t.Errorf("only %d subcommands checked", n)
	}
}

// TestMineChecksArgumentsBeforeReading gives a graph file that does not
// exist: every bad argument must be reported before it is opened.
func TestMineChecksArgumentsBeforeReading(t *testing.T) {
	badQuery := "testdata/bad-query.yaml"
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--motif", "M99", "--delta", "10"}, 2, `unknown motif "M99"`},
		{[]string{"--motif", "M1", "--delta", "-1"}, 2, "--delta -1: must be positive"},
		{[]string{"--motif", "M1", "--delta", "10", "--workers", "-3"}, 2, "mine: --workers -3 must not be negative"},
		{[]string{"--motif", "M1", "--delta", "10", "--backend", "tpu"}, 2, `mine: --backend "tpu": want cpu, gpu or auto`},
		{[]string{"--motif", "M1", "--delta", "10", "--backend", "gpu", "--devices", "-1"}, 2, "--devices -1"},
		{[]string{"--motif", "M1", "--delta", "10", "--gpu-chunks", "-1"}, 2, "mine: --gpu-chunks -1 must not be negative"},
		{[]string{"--motif", "M1", "--delta", "10", "--gpu-partition-edges", "-2"}, 2, "mine: --gpu-partition-edges -2 must not be negative"},
		{[]string{"--motif", "M1", "--delta", "10", "--gpu-memory-fraction", "1.5"}, 2, "mine: --gpu-memory-fraction 1.5 must be in (0, 1]"},
		{[]string{"--motif", "M1", "--delta", "10", "--time-unit", "0s"}, 2, "--time-unit 0s must be positive"},
		{[]string{"--motif", "M1", "--delta", "10", "--progress", "-1s"}, 2, "--progress -1s must not be negative"},
		{[]string{"--motif", "M1", "--delta", "10", "--format", "xml"}, 2, `--format "xml": want table, json or csv`},
		{[]string{"--query", badQuery}, 1, `edges[1]: unknown node "x"`},
	} {
		args := append([]string{"mine", "--graph", "testdata/absent-graph.txt"}, c.args...)
		_, errOut, code := run(t, args...)
		if code != c.code || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "absent-graph") {
			t.Errorf("monitor %s: exit %d, stderr %q; want exit %d and %q, before the graph is opened",
				strings.Join(args, " "), code, errOut, c.code, c.want)
		}
	}
}

func TestGraphGivenTwice(t *testing.T) {
	for _, args := range [][]string{
		{"mine", "--graph", "a.txt", "--graph", "b.txt", "--motif", "M1", "--delta", "10"},
		{"gpm", "--graph", "a.txt", "--graph", "b.txt", "--app", "motif", "-k", "3"},
	} {
		_, errOut, code := run(t, args...)
		if code != 2 || !strings.Contains(errOut, `"--graph" flag: given twice ("a.txt", then "b.txt")`) {
			t.Errorf("monitor %s: exit %d, stderr %q; want exit 2, --graph given twice", strings.Join(args, " "), code, errOut)
		}
	}
}

func TestEmptyGraphIsAnError(t *testing.T) {
	empty := writeTemp(t, "empty.txt", "# nothing but a comment\n")
	for _, args := range [][]string{
		{"mine", "--graph", empty, "--motif", "M1", "--delta", "10"},
		{"gpm", "--graph", empty, "--app", "motif", "-k", "3"},
	} {
		_, errOut, code := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "no edges") {
			t.Errorf("monitor %s on an empty file: exit %d, stderr %q; want exit 1 and \"no edges\"", args[0], code, errOut)
		}
	}
}

// TestEngineFlagsAgree checks that mine and gpm take --backend auto,
// --devices and --workers alike.
func TestEngineFlagsAgree(t *testing.T) {
	g := writeTemp(t, "g.txt", "a b 1\nb c 2\nc a 3\n")
	for _, cmd := range [][]string{
		{"mine", "--graph", g, "--motif", "M1", "--delta", "10"},
		{"gpm", "--graph", g, "--app", "motif", "-k", "3"},
	} {
		_, errOut, code := run(t, append(cmd, "--workers", "-3")...)
		if want := cmd[0] + ": --workers -3 must not be negative (0: one per CPU)"; code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s --workers -3: exit %d, %q; want exit 2 and %q", cmd[0], code, errOut, want)
		}
		_, errOut, code = run(t, append(cmd, "--devices", "0")...)
		if want := cmd[0] + ": --devices needs --backend gpu or auto"; code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s --devices 0: exit %d, %q; want exit 2 and %q", cmd[0], code, errOut, want)
		}
		out, errOut, code := run(t, append(cmd, "--backend", "auto", "--devices", "0", "--format", "json")...)
		var rep struct{ Backend string }
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Backend == "" {
			t.Errorf("%s --backend auto --devices 0: exit %d, stdout %q, stderr %q; want a result", cmd[0], code, out, errOut)
		}
	}
}

func TestMineTableCSVAndTotal(t *testing.T) {
	args := []string{"mine", "--synthetic", "20000", "--motif", "M1,M4", "--delta", "1h", "--progress", "0"}
	js, _, code := run(t, append(args, "--format", "json")...)
	var rep mine.Report
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Queries) != 2 {
		t.Fatalf("json: exit %d, %s", code, js)
	}
	m1, m4 := rep.Queries[0].Matches, rep.Queries[1].Matches
	if m1 < 1000 {
		t.Fatalf("M1 has %d matches; the check of thousands separators needs more than 1,000", m1)
	}
	table, _, _ := run(t, args...)
	if want := "M1     1h     " + grouped(m1); !strings.Contains(table, want) {
		t.Errorf("table lacks %q:\n%s", want, table)
	}
	if strings.Contains(table, "TOTAL") {
		t.Errorf("table totals M1 and M4, unrelated motifs:\n%s", table)
	}
	out, _, code := run(t, append(args, "--format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 3 || strings.Join(recs[0], ",") != "query,delta,matches,truncated,partial,seconds" ||
		recs[1][0] != "M1" || recs[1][2] != fmt.Sprint(m1) || recs[2][2] != fmt.Sprint(m4) {
		t.Errorf("csv (exit %d, %v):\n%s", code, err, out)
	}
}

// TestMineTotalsWithinAFamily: the table's TOTAL row adds up distinct
// shapes of one family only (issue 26.6: M1 + M4 + M4-A was totalled).
func TestMineTotalsWithinAFamily(t *testing.T) {
	args := []string{"mine", "--synthetic", "20000", "--delta", "1h", "--progress", "0"}
	table, _, code := run(t, append(args, "--motif", "M1,M4,M4-A")...)
	if code != 0 || strings.Contains(table, "TOTAL") {
		t.Errorf("M1,M4,M4-A (exit %d): a TOTAL of unrelated motifs:\n%s", code, table)
	}
	js, _, code := run(t, append(args, "--motif", "M1,snap-1-1,snap-5-5", "--format", "json")...)
	var rep mine.Report
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Queries) != 3 {
		t.Fatalf("json: exit %d, %s", code, js)
	}
	table, _, _ = run(t, append(args, "--motif", "M1,snap-1-1,snap-5-5")...)
	want := "TOTAL snap-* " + grouped(rep.Queries[1].Matches+rep.Queries[2].Matches) + " "
	if !strings.Contains(strings.Join(strings.Fields(table), " "), want) || strings.Count(table, "TOTAL") != 1 {
		t.Errorf("table lacks %q (and no other TOTAL):\n%s", want, table)
	}
}

func TestSnap3GridIsLabelled(t *testing.T) {
	args := []string{"mine", "--synthetic", "3000", "--snap3", "--delta", "1h", "--progress", "0"}
	js, _, code := run(t, append(args, "--format", "json")...)
	var rep mine.Report
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.SNAP3) != 6 {
		t.Fatalf("json: exit %d, %s", code, js)
	}
	table, _, _ := run(t, args...)
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 9 || strings.Join(strings.Fields(lines[1]), " ") != "j=1 j=2 j=3 j=4 j=5 j=6" {
		t.Fatalf("grid has no column labels j=1..j=6:\n%s", table)
	}
	var total int64
	for i, row := range rep.SNAP3 {
		want := []string{fmt.Sprintf("i=%d", i+1)}
		for _, c := range row {
			want = append(want, grouped(c))
			total += c
		}
		if got := strings.Fields(lines[2+i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("grid row %d = %q; want %q", i+1, got, want)
		}
	}
	if lines[8] != "TOTAL "+grouped(total) {
		t.Errorf("last line %q; want TOTAL %s", lines[8], grouped(total))
	}
	out, _, _ := run(t, append(args, "--format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 7 || recs[0][0] != "M(i,j)" || recs[6][0] != "i=6" || recs[6][6] != fmt.Sprint(rep.SNAP3[5][5]) {
		t.Errorf("csv grid (%v):\n%s", err, out)
	}
}

func TestGpmCSVAndSeparators(t *testing.T) {
	var b strings.Builder
	for v := range 200 {
		for d := 1; d <= 3; d++ {
			fmt.Fprintf(&b, "%d %d\n", v, (v+d)%200)
		}
	}
	g := writeTemp(t, "ring.txt", b.String())
	args := []string{"gpm", "--graph", g, "--app", "motif", "-k", "4", "--progress", "0"}
	js, _, code := run(t, append(args, "--format", "json")...)
	var rep gpmrun.Report
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || rep.Total < 1000 {
		t.Fatalf("json: exit %d, %s", code, js)
	}
	table, _, _ := run(t, args...)
	if !strings.Contains(table, grouped(rep.Total)+"\n") || !strings.Contains(grouped(rep.Total), ",") {
		t.Errorf("table lacks the grouped total %s:\n%s", grouped(rep.Total), table)
	}
	out, _, _ := run(t, append(args, "--format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	last := recs[len(recs)-1]
	if err != nil || strings.Join(recs[0], ",") != "pattern,edges,count" || len(recs) != len(rep.Patterns)+2 ||
		last[0] != "TOTAL" || last[2] != fmt.Sprint(rep.Total) {
		t.Errorf("csv (%v):\n%s", err, out)
	}
}

func TestErrorsHideLibraryInternals(t *testing.T) {
	_, errOut, code := run(t, "produce", "--demo", "--brokers", "127.0.0.1:1", "--edges", "5")
	if code != 1 || strings.Contains(errOut, "kafka.(") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("produce to a closed port: exit %d, stderr %q; want exit 1, the cause, no kafka-go method names", code, errOut)
	}
	cfg := writeTemp(t, "c.yaml", "queries:\n  files: 5\n")
	_, errOut, code = run(t, "validate", cfg)
	if code != 1 || strings.Contains(errOut, "source data") || !strings.Contains(errOut, "c.yaml:2: queries.files: expected a list") {
		t.Errorf("validate files: 5: exit %d, stderr %q; want the config's words at line 2", code, errOut)
	}
}

func TestYAMLErrorsNameTheLine(t *testing.T) {
	cfg := writeTemp(t, "c.yaml", "kafka:\n  brokers: [a:9092]\nwindow:\n  batch_size: 10\n  max_nodes: 5\n max_future: 1h\n")
	_, errOut, code := run(t, "validate", cfg)
	if code != 1 || !strings.Contains(errOut, "c.yaml:6:") {
		t.Errorf("validate, bad indent on line 6: exit %d, stderr %q; want c.yaml:6", code, errOut)
	}
	q := writeTemp(t, "q.yaml", "queries:\n  - name: a\n    delta: 10\n    edges:\n      - A -> B\n     - B -> C\n")
	_, errOut, code = run(t, "mine", "--synthetic", "10", "--query", q)
	if code != 1 || !strings.Contains(errOut, "q.yaml:6:") {
		t.Errorf("mine --query, bad indent on line 6: exit %d, stderr %q; want q.yaml:6", code, errOut)
	}
}

func TestMineWarnsOfTimeUnitAndEmptyValues(t *testing.T) {
	ms := writeTemp(t, "ms.txt", "a b 1700000000000\nb c 1700000001000\n")
	_, errOut, code := run(t, "mine", "--graph", ms, "--motif", "M1", "--delta", "10", "--progress", "0")
	if code != 0 || !strings.Contains(errOut, "timestamps look like milliseconds, not seconds: 1700000001000 (line 2) is 13 digits; give --time-unit 1ms") {
		t.Errorf("13-digit times with --time-unit 1s: exit %d, stderr %q; want a warning naming --time-unit 1ms", code, errOut)
	}
	_, errOut, _ = run(t, "mine", "--graph", ms, "--motif", "M1", "--delta", "10", "--time-unit", "1ms", "--progress", "0")
	if strings.Contains(errOut, "warning") {
		t.Errorf("--time-unit 1ms still warns: %q", errOut)
	}
	_, errOut, _ = run(t, "produce", "--file", ms, "--brokers", "127.0.0.1:1")
	if !strings.Contains(errOut, "give --time-unit 1ms") {
		t.Errorf("produce of 13-digit times: stderr %q; want the --time-unit warning", errOut)
	}
	us := writeTemp(t, "us.txt", "a b 1700000000000000\n")
	_, errOut, _ = run(t, "mine", "--graph", us, "--motif", "M1", "--delta", "10", "--progress", "0")
	if !strings.Contains(errOut, "give --time-unit 1µs") {
		t.Errorf("16-digit times: stderr %q; want --time-unit 1µs", errOut)
	}
	empty := writeTemp(t, "pay.csv", "src,dst,t,amount\na,b,10,5\nb,c,11,\nc,a,12,\n")
	_, errOut, code = run(t, "mine", "--graph", empty, "--motif", "M1", "--delta", "10", "--progress", "0")
	if code != 0 || !strings.Contains(errOut, `warning: 2 empty attribute values, e.g. `+empty+`:3: attribute "amount" is empty`) {
		t.Errorf("empty values: exit %d, stderr %q; want a warning naming line 3", code, errOut)
	}
}

func TestConfigDefaultsAndMotifs(t *testing.T) {
	out, errOut, code := run(t, "config", "--defaults")
	if code != 0 {
		t.Fatalf("config --defaults: exit %d: %s", code, errOut)
	}
	c, err := config.Parse([]byte(out), "defaults.yaml")
	if err != nil || c.Window.MaxNodes != config.DefaultConfig().Window.MaxNodes || !strings.Contains(out, "max_nodes: 10000000") {
		t.Errorf("config --defaults does not load as the defaults (%v):\n%s", err, out)
	}
	if _, _, code := run(t, "config"); code != 2 {
		t.Errorf("config without --defaults: exit %d; want 2", code)
	}
	out, _, code = run(t, "motifs")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	for _, want := range []string{"M4 4 1->2, 2->3, 3->4, 4->1 -", "M4-A 4 1->2, 2->3, 3->4, 4->1 no 3->1 after edge 2", "snap-6-6 3 x->c, x->c, y->c -", "path4-213-bff 4 b->c, b->a, c->d -"} {
		if code != 0 || !slices.Contains(lines, want) {
			t.Errorf("motifs lacks %q:\n%s", want, out)
		}
	}
}

// TestMineTraceMarksLoadPhases: --trace writes an execution trace whose
// regions name the loader's phases (what BENCHMARKS.md's load table is
// read from).
func TestMineTraceMarksLoadPhases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.trace")
	_, stderr, code := run(t, "mine", "--graph", "testdata/cycle.txt", "--motif", "M1", "--delta", "10", "--no-cache", "--trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Fatalf("%s does not start with a Go trace header: %q", path, b[:min(len(b), 16)])
	}
	for _, region := range []string{"load: parse", "load: merge ids", "load: copy columns", "load: window append"} {
		if !bytes.Contains(b, []byte(region)) {
			t.Errorf("trace has no region %q", region)
		}
	}
}

// TestBenchChecksGPUFlags: bench checks its --gpu-* flags (the config's
// engine.gpu overrides) before it produces anything.
func TestBenchChecksGPUFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpu-chunks", "-3"}, "bench: --gpu-chunks -3 must not be negative"},
		{[]string{"--gpu-memory-fraction", "0"}, "bench: --gpu-memory-fraction 0 must be in (0, 1]"},
	} {
		args := append([]string{"bench", "--edges", "10"}, c.args...)
		_, errOut, code := run(t, args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("monitor %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, errOut, c.want)
		}
	}
}

// mine --grid4 counts the four-node family in one run: 216 queries (8
// stars, 16 paths, 32 cycles, 160 paws), a TOTAL per family, each count
// equal to the general engine's enumeration of the same shape (Everest's
// M3, M4, M7, M9 among them); --explain says how each was answered; and
// --grid4 takes no other queries and no --enumerate.
func TestMineGrid4(t *testing.T) {
	args := []string{"mine", "--synthetic", "3000", "--grid4", "--delta", "1h", "--progress", "0", "--workers", "2"}
	js, errOut, code := run(t, append(args, "--format", "json", "--explain")...)
	var rep mine.Report
	if code != 0 || json.Unmarshal([]byte(js), &rep) != nil || len(rep.Queries) != 216 {
		t.Fatalf("json: exit %d, %d queries, %s", code, len(rep.Queries), errOut)
	}
	// Each query is counted or, where the rule finds enumerating it
	// cheaper (count3's countCost), enumerated: --explain says which.
	if n, m := strings.Count(errOut, "counted (motif/count3)"), strings.Count(errOut, "enumerated, shape "); n+m != 216 || n < 184 {
		t.Errorf("--explain: %d of 216 queries counted, %d enumerated", n, m)
	}
	fams := map[string]int64{}
	byName := map[string]int64{}
	for _, q := range rep.Queries {
		fam, _, _ := strings.Cut(q.Name, "-")
		fams[fam] += q.Matches
		byName[q.Name] = q.Matches
	}
	if len(rep.Totals) != 4 {
		t.Fatalf("totals %+v; want star4, path4, cycle4, paw", rep.Totals)
	}
	for _, tot := range rep.Totals {
		if tot.Matches != fams[tot.Family] || tot.Matches == 0 {
			t.Errorf("TOTAL %s = %d; its queries sum to %d", tot.Family, tot.Matches, fams[tot.Family])
		}
	}
	table, _, _ := run(t, args...)
	for _, f := range []string{"star4", "path4", "cycle4", "paw"} {
		if !strings.Contains(table, "TOTAL "+f+"-*") {
			t.Errorf("table lacks TOTAL %s-*", f)
		}
	}
	// Enumerated by the general engine (enumerate mode is never counted;
	// the limit is above every count).
	js, _, code = run(t, "mine", "--synthetic", "3000", "--delta", "1h", "--progress", "0", "--format", "json", "--enumerate", "100000",
		"--motif", "M3,M4,M7,M9,paw-3142-fbbf,cycle4-1243-ffbb")
	var en mine.Report
	if code != 0 || json.Unmarshal([]byte(js), &en) != nil || len(en.Queries) != 6 {
		t.Fatalf("enumerate: exit %d", code)
	}
	for i, name := range []string{"paw-1234-ffff", "cycle4-1234-ffff", "cycle4-1243-bfbf", "paw-3214-bbbb", "paw-3142-fbbf", "cycle4-1243-ffbb"} {
		if got, want := byName[name], en.Queries[i].Matches; got != want {
			t.Errorf("%s (%s): counted %d, enumerated %d", name, en.Queries[i].Name, got, want)
		}
	}
	for _, extra := range [][]string{{"--motif", "M1"}, {"--snap3"}, {"--enumerate", "3"}} {
		if _, _, code := run(t, append(args, extra...)...); code != 2 {
			t.Errorf("--grid4 %v: exit %d; want 2 (usage)", extra, code)
		}
	}
}
