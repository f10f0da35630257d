package layering

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/motifwatch/motifwatch/"

// clients are the import paths (and their subpackages) of network
// clients: whoever imports one talks to the network.
var clients = []string{
	"net/http",
	"github.com/segmentio/kafka-go",
	"github.com/twmb/franz-go",
	"google.golang.org/grpc",
}

// client returns the client whose package path is, or holds, path ("" if
// none).
func client(path string) string {
	for _, c := range clients {
		if path == c || strings.HasPrefix(path, c+"/") {
			return c
		}
	}
	return ""
}

// pkg is one package of a `go list -deps` answer.
type pkg struct {
	path     string
	standard bool
	imports  []string
}

// deps lists the packages patterns depend on (themselves included), with
// their imports, by asking the go command; the test is skipped where
// there is none.
func deps(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot list the import graph")
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{join .Imports \" \"}}"}, patterns...)
	cmd := exec.Command(goCmd, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", sc.Text())
		}
		pkgs = append(pkgs, pkg{path: f[0], standard: f[1] == "true", imports: strings.Fields(f[2])})
	}
	return pkgs
}

// TestComputeReachesNoNetworkClient: nothing below the daemon and the
// commands imports a network client, nor do the batch runners (mine,
// gpmrun): mining a file never talks to Kafka. No Kafka or RPC client is among
// their dependencies at all; net/http may be linked in by third-party
// libraries that use its types (the Prometheus client for its text
// format and expvar collector, viper's afero for http.FileSystem), but no
// package of ours imports it: the daemon alone serves HTTP.
func TestComputeReachesNoNetworkClient(t *testing.T) {
	var patterns []string
	for _, p := range []string{"window", "motif/...", "gpm/...", "gpu", "engine", "synth", "ingest", "stream", "alerts", "config", "mine", "gpmrun"} {
		patterns = append(patterns, module+p)
	}
	reached := map[string]bool{}
	for _, p := range deps(t, patterns...) {
		if c := client(p.path); c != "" && c != "net/http" && !reached[c] {
			reached[c] = true
			t.Errorf("%s is among the dependencies of the packages below the daemon", c)
		}
		if !strings.HasPrefix(p.path, module) {
			continue
		}
		for _, imp := range p.imports {
			if client(imp) != "" {
				t.Errorf("%s imports %s: a network client below the daemon", p.path, imp)
			}
		}
	}
}

// TestEnginesReachNoHTTP: the engines and the window do not even reach
// net/http through metrics: they register none.
func TestEnginesReachNoHTTP(t *testing.T) {
	var patterns []string
	for _, p := range []string{"window", "motif/...", "gpm/...", "synth"} {
		patterns = append(patterns, module+p)
	}
	reached := map[string]bool{}
	for _, p := range deps(t, patterns...) {
		if c := client(p.path); c != "" && !reached[c] {
			reached[c] = true
			t.Errorf("%s is among the dependencies of the engines and the window", c)
		}
	}
}

// kafkaTest is kafka's test harness: the one package besides
// kafka that imports a Kafka client, and only tests import it.
const kafkaTest = module + "kafka/kafkatest"

// testHelpers are the packages only tests may import.
var testHelpers = []string{module + "internal/testenv", kafkaTest}

// TestKafkaInOnePackage: of the module's packages, only kafka
// imports a Kafka client library; the daemon and the commands speak
// Kafka through it. (Tests may: they play the outside world, through
// kafkatest or directly; TestHelpersOnlyInTests keeps kafkatest theirs.)
func TestKafkaInOnePackage(t *testing.T) {
	kafkaLibs := []string{"github.com/segmentio/kafka-go", "github.com/twmb/franz-go"}
	for _, p := range deps(t, module+"...") {
		if !strings.HasPrefix(p.path, module) || p.path == module+"kafka" || p.path == kafkaTest {
			continue
		}
		for _, imp := range p.imports {
			for _, lib := range kafkaLibs {
				if imp == lib || strings.HasPrefix(imp, lib+"/") {
					t.Errorf("%s imports %s: Kafka is spoken in kafka only", p.path, imp)
				}
			}
		}
	}
}

// TestHelpersOnlyInTests: no package of the module imports a test
// harness (go list -deps leaves tests out), so a broker, a Kafka client
// in kafkatest or a test's helpers never reach a binary.
func TestHelpersOnlyInTests(t *testing.T) {
	for _, p := range deps(t, module+"...") {
		if !strings.HasPrefix(p.path, module) {
			continue
		}
		for _, imp := range p.imports {
			for _, h := range testHelpers {
				if imp == h {
					t.Errorf("%s imports %s: only tests may", p.path, imp)
				}
			}
		}
	}
}

// imports lists the packages patterns name (not their dependencies),
// each with its own imports and, in tests, those of its test files (in
// and outside the package).
func imports(t *testing.T, patterns ...string) (own, tests map[string][]string) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot list the import graph")
	}
	args := append([]string{"list", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}"}, patterns...)
	cmd := exec.Command(goCmd, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	own, tests = map[string][]string{}, map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("go list: unexpected line %q", sc.Text())
		}
		own[f[0]], tests[f[0]] = strings.Fields(f[1]), strings.Fields(f[2])
	}
	return own, tests
}

// under reports whether path is pkg or one of its subpackages.
func under(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }

// TestInternalHoldsLeaves: a package under internal/ is a helper the
// house's parts share (a cache, a text format, a metrics registry), not a
// part: neither it nor its tests import a package of the module outside
// internal/. A helper that needs one is a part of the house and lives at
// the top level (as kafka and engine do).
func TestInternalHoldsLeaves(t *testing.T) {
	own, tests := imports(t, module+"internal/...")
	for p, imps := range own {
		for _, imp := range append(imps, tests[p]...) {
			if strings.HasPrefix(imp, module) && !under(imp, module+"internal") {
				t.Errorf("%s imports %s: packages under internal/ import nothing of the module outside it", p, imp)
			}
		}
	}
}

// engines are the mining engines and what selects and drives them.
var engines = []string{"gpm", "gpu", "engine", "stream", "motif/cpu", "motif/count3", "motif/oracle"}

// TestConfigImportsNoEngine: config holds plain values and imports no
// engine, nor reaches one through its dependencies: the engines' own
// values (gpm.app, gpm.k) are checked by the daemon against them
// (daemon.Check). It may import motif, the query model it parses query
// files into (which holds no engine: TestMotifHoldsNoEngine), window for
// the schema it derives, and the leaves under internal/.
func TestConfigImportsNoEngine(t *testing.T) {
	for _, p := range deps(t, module+"config") {
		for _, e := range engines {
			if under(p.path, module+e) {
				t.Errorf("config depends on %s: config imports no engine", p.path)
			}
		}
		if under(p.path, module+"kafka") || p.path == module+"ingest" || p.path == module+"daemon" {
			t.Errorf("config depends on %s: config is read by the daemon's parts, not the other way round", p.path)
		}
	}
}

// TestKafkaKnowsNoConfigWindowOrSynth: the Kafka package has options of
// its own (ClientOptions, Security, AttrKind), as franz-go's kgo.Opt are
// its own; the caller translates the configuration (daemon's
// KafkaClientOptions), and records from a window or the demo feed are
// made above kafka (package feed). It may import ingest's decoders and
// alerts' records; so may its test harness.
func TestKafkaKnowsNoConfigWindowOrSynth(t *testing.T) {
	own, _ := imports(t, module+"kafka/...")
	forbidden := []string{"config", "window", "synth", "feed", "daemon", "engine"}
	for p, imps := range own {
		for _, imp := range imps {
			for _, f := range forbidden {
				if under(imp, module+f) {
					t.Errorf("%s imports %s: kafka takes options of its own, not %s's types", p, imp, f)
				}
			}
		}
	}
}

// kafkaSpeakers are the packages whose tests may import a Kafka client
// library directly: kafka and its harness, and cmd/monitor, whose
// end-to-end tests play the outside world with it (faults injected into
// the broker with kfake and kmsg, a SASL or TLS cluster, topics with
// settings of their own, a producer's partitioner). Every other test,
// the daemon's included, reaches Kafka through kafkatest, or not at all.
var kafkaSpeakers = []string{"kafka", "cmd/monitor"}

// TestKafkaClientInTestsOnlyWhereKafkaIsSpoken: the rule above, for test
// files (TestKafkaInOnePackage covers the packages themselves).
func TestKafkaClientInTestsOnlyWhereKafkaIsSpoken(t *testing.T) {
	kafkaLibs := []string{"github.com/segmentio/kafka-go", "github.com/twmb/franz-go"}
	_, tests := imports(t, module+"...")
	for p, imps := range tests {
		speaks := false
		for _, s := range kafkaSpeakers {
			speaks = speaks || under(p, module+s)
		}
		if speaks {
			continue
		}
		for _, imp := range imps {
			for _, lib := range kafkaLibs {
				if under(imp, lib) {
					t.Errorf("a test of %s imports %s: tests outside %v reach Kafka through kafkatest", p, imp, kafkaSpeakers)
				}
			}
		}
	}
}

// runners are the commands' bodies: `monitor mine`, `gpm` and `bench`
// without the command line.
var runners = []string{module + "mine", module + "gpmrun", module + "bench"}

// TestRunnersOnlyUnderCmd: the runners sit at the top, beside the daemon:
// only the commands import them, so no engine, loader or the daemon
// comes to depend on a batch run's orchestration.
func TestRunnersOnlyUnderCmd(t *testing.T) {
	for _, p := range deps(t, module+"...") {
		if !strings.HasPrefix(p.path, module) || strings.HasPrefix(p.path, module+"cmd/") {
			continue
		}
		for _, imp := range p.imports {
			for _, r := range runners {
				if imp == r {
					t.Errorf("%s imports %s: only the commands may", p.path, imp)
				}
			}
		}
	}
}

// TestMotifHoldsNoEngine: motif is the query language, its plans and the
// Engine interface; the engines that implement it live in packages of
// their own (motif/cpu, motif/count3, gpu), so whoever parses queries
// (config) gets no miner with them. Neither motif nor its tests import an
// engine (the engines' tests live with the engines), and no type of
// motif's has a Mine method: the import rule alone cannot see a miner
// written inside motif itself.
func TestMotifHoldsNoEngine(t *testing.T) {
	own, tests := imports(t, module+"motif")
	for p, imps := range own {
		for _, imp := range append(imps, tests[p]...) {
			for _, e := range engines {
				if under(imp, module+e) {
					t.Errorf("%s or its tests import %s: motif holds the query language, not the engines", p, imp)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\t{{join .GoFiles \" \"}}", module+"motif").Output()
	if err != nil {
		t.Fatalf("go list motif: %v", err)
	}
	dir, files, _ := strings.Cut(strings.TrimSpace(string(out)), "\t")
	fset := token.NewFileSet()
	for _, name := range strings.Fields(files) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "Mine" {
				t.Errorf("%s: motif declares a Mine method: an engine; it belongs in a package of its own (as motif/cpu)", fset.Position(fn.Pos()))
			}
		}
	}
}
