package layering

import (
	"bufio"
	"bytes"
	"os/exec"
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
	for _, p := range []string{"window", "motif/...", "gpm/...", "synth", "ingest", "stream", "alerts", "config", "mine", "gpmrun"} {
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
