package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validateCmd runs `monitor validate` in a child process; it skips the
// test while main.go does not register the subcommand yet.
func validateCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = monitor(t, append([]string{"validate"}, args...)...)
	if strings.Contains(stderr, `unknown command "validate"`) {
		t.Skip("monitor validate is not registered in main.go")
	}
	return stdout, stderr, code
}

func TestValidateGoodConfigs(t *testing.T) {
	for _, c := range []struct {
		file, want string
	}{
		{"testdata/config-good.yaml",
			"config OK: 3 queries (big-cycle, cycle-no-return, ping-pong), window span 2m5s (largest delta 2m), brokers embedded with the demo feed\nmemory budget: 2512MiB (window 2048MiB + buffered 320MiB + base 84MiB + embedded broker 60MiB): monitor run's Go memory limit (docs/CONFIG.md, Memory); give the process 1.5× it\n"},
		{"testdata/config-remote.yaml",
			"config OK: 1 query (burst), window span 1m35s (largest delta 1m30s), brokers kafka-1:9092,kafka-2:9092\nmemory budget: 2452MiB (window 2048MiB + buffered 320MiB + base 84MiB): monitor run's Go memory limit (docs/CONFIG.md, Memory); give the process 1.5× it\n"},
		{"../../config/testdata/embedded-dir.good.yaml",
			"config OK: 1 query (q), window span 1m5s (largest delta 1m), brokers embedded (data in ../../config/testdata/broker-data) with the demo feed\nmemory budget: 2572MiB (window 2048MiB + buffered 320MiB + base 84MiB + embedded broker 120MiB): monitor run's Go memory limit (docs/CONFIG.md, Memory); give the process 1.5× it\n"},
	} {
		out, errOut, code := validateCmd(t, c.file)
		if code != 0 || out != c.want {
			t.Errorf("monitor validate %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", c.file, code, out, errOut, c.want)
		}
	}
}

func TestValidateAppliesEnvironment(t *testing.T) {
	t.Setenv("MONITOR_WINDOW_ALLOWED_LATENESS", "1m")
	t.Setenv("MONITOR_KAFKA_BROKERS", "kafka:9092")
	out, errOut, code := validateCmd(t, "testdata/config-good.yaml")
	if want := "window span 3m (largest delta 2m), brokers kafka:9092\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and a line ending %q", code, out, errOut, want)
	}
	t.Setenv("MONITOR_WINDOW_BATCH_SIZE", "-3")
	_, errOut, code = validateCmd(t, "testdata/config-good.yaml")
	if want := "$MONITOR_WINDOW_BATCH_SIZE: window.batch_size: -3 must be positive"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errOut, want)
	}
}

func TestValidateBadConfigs(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"every problem", []string{"testdata/config-invalid.yaml"}, 1, []string{
			`testdata/config-invalid.yaml:3: input.format: "xml" (want json or csv)`,
			`testdata/config-invalid.yaml:5: window.allowed_lateness: -1s must not be negative`,
			`testdata/config-invalid.yaml:6: window.batch_size: 0 must be positive`,
			`testdata/bad-query.yaml:5: queries[0].edges[1]: unknown node "x"`,
			"monitor: validate: testdata/config-invalid.yaml: 4 problems",
		}},
		{"unknown key", []string{"testdata/config-unknown-key.yaml"}, 1, []string{
			`testdata/config-unknown-key.yaml:2: kafka.brokerz: unknown key (kafka takes brokers,`,
			"1 problem\n",
		}},
		{"query does not compile", []string{"testdata/config-compile.yaml"}, 1, []string{
			`testdata/config-compile.yaml:4: query "half": delta 1.5s: 1.5s is not a whole number of 1s timestamp ticks`,
		}},
		// gpm.app is the engine's to check (daemon.Check), not config's:
		// validate reports it as config's own errors are, with the rest.
		{"the engines' values", []string{"testdata/config-gpm.yaml"}, 1, []string{
			`testdata/config-gpm.yaml:6: gpm.workers: -1 must not be negative (0 = one per CPU)`,
			`testdata/config-gpm.yaml:5: gpm.app: "stars" (want clique or motif)`,
			"monitor: validate: testdata/config-gpm.yaml: 2 problems",
		}},
		{"missing file", []string{"testdata/nope.yaml"}, 1, []string{"open testdata/nope.yaml: no such file or directory"}},
		{"no file", nil, 2, []string{"validate: give one config file: monitor validate FILE"}},
		{"two files", []string{"a.yaml", "b.yaml"}, 2, []string{"give one config file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := validateCmd(t, c.args...)
			if code != c.code || out != "" {
				t.Errorf("monitor validate %v: exit %d, stdout %q; want exit %d and no stdout", c.args, code, out, c.code)
			}
			for _, want := range c.want {
				if !strings.Contains(errOut, want) {
					t.Errorf("monitor validate %v: stderr %q; want %q", c.args, errOut, want)
				}
			}
		})
	}
}

// TestRunValidate runs the subcommand in process, so it is covered even
// before main.go registers it.
func TestRunValidate(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runValidate("testdata/config-good.yaml", &out, &errOut); err != nil || !strings.HasPrefix(out.String(), "config OK: 3 queries") {
		t.Errorf("runValidate(config-good) = %v, stdout %q, stderr %q; want nil and config OK", err, out.String(), errOut.String())
	}
	out.Reset()
	err := runValidate("testdata/config-invalid.yaml", &out, &errOut)
	if err == nil || err.Error() != "validate: testdata/config-invalid.yaml: 4 problems" || out.Len() != 0 {
		t.Errorf("runValidate(config-invalid) = %v, stdout %q; want 4 problems and no stdout", err, out.String())
	}
	if n := strings.Count(errOut.String(), "\n"); n != 4 {
		t.Errorf("runValidate(config-invalid) printed %d lines on stderr; want 4:\n%s", n, errOut.String())
	}
	if err := newValidateCmd().Args(nil, nil); err == nil {
		t.Errorf("validate with no FILE: Args() = nil; want a usage error")
	} else if _, ok := err.(usageError); !ok {
		t.Errorf("validate with no FILE: Args() = %T; want usageError (exit 2)", err)
	}
}

// TestValidateSecurityWarnings: settings that are allowed but unsafe are
// printed as warnings on stderr without failing; SASL plain without TLS
// fails unless kafka.sasl.allow_insecure says so.
func TestValidateSecurityWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, kafka string) string {
		path := filepath.Join(dir, name)
		body := "kafka:\n  brokers: kafka:9093\n" + kafka + "queries:\n  inline: [{name: q, delta: 1m, edges: [A -> B]}]\n"
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	skip := write("skip.yaml", "  tls: {enabled: true, insecure_skip_verify: true}\n")
	out, errOut, code := validateCmd(t, skip)
	if want := "warning: " + skip + ":3: kafka.tls.insecure_skip_verify: true: the brokers' certificates are not checked"; code != 0 || !strings.Contains(out, "config OK") || !strings.Contains(errOut, want) {
		t.Errorf("validate %s: exit %d, stdout %q, stderr %q; want exit 0, config OK and %q", skip, code, out, errOut, want)
	}
	plain := write("plain.yaml", "  sasl: {mechanism: plain, username: u, password: p}\n")
	_, errOut, code = validateCmd(t, plain)
	if want := plain + ":3: kafka.sasl.mechanism: plain without kafka.tls.enabled sends the password in clear text"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("validate %s: exit %d, stderr %q; want exit 1 and %q", plain, code, errOut, want)
	}
	allowed := write("allowed.yaml", "  sasl: {mechanism: plain, username: u, password: p, allow_insecure: true}\n")
	out, errOut, code = validateCmd(t, allowed)
	if want := "warning: " + allowed + ":3: kafka.sasl.allow_insecure: true"; code != 0 || !strings.Contains(out, "config OK") || !strings.Contains(errOut, want) {
		t.Errorf("validate %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", allowed, code, out, errOut, want)
	}
	os.Chmod(allowed, 0o644)
	_, errOut, _ = validateCmd(t, allowed)
	if want := "warning: " + allowed + ":3: kafka.sasl.password: " + allowed + " holds the password and is readable by group and others (mode 0644)"; !strings.Contains(errOut, want) {
		t.Errorf("validate %s (0644): stderr %q; want %q", allowed, errOut, want)
	}
}

// TestValidateAcceptsWhatRunRuns is the README's second step (issue 26):
// `monitor config --defaults > c.yaml && monitor validate c.yaml` exited
// 1 ("no queries") while `monitor run --config c.yaml` ran the demo on
// the same file. The two now load a file the same way.
func TestValidateAcceptsWhatRunRuns(t *testing.T) {
	defaults, errOut, code := monitor(t, "config", "--defaults")
	if code != 0 {
		t.Fatalf("monitor config --defaults: exit %d: %s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(defaults), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := validateCmd(t, path)
	if code != 0 || !strings.HasPrefix(out, "config OK: 3 queries (") || !strings.Contains(out, "brokers embedded with the demo feed\n") {
		t.Errorf("monitor validate on the defaults: exit %d, stdout %q, stderr %q; want the demo's 3 queries accepted", code, out, errOut)
	}
	// Without the demo there is nothing to run: both refuse it.
	noDemo := strings.Replace(defaults, "\ndemo: null\n", "\ndemo: false\n", 1)
	if noDemo == defaults {
		t.Fatal("the defaults have no 'demo: null' line to turn off")
	}
	if err := os.WriteFile(path, []byte(noDemo), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := validateCmd(t, path); code != 1 || !strings.Contains(errOut, "no queries") {
		t.Errorf("monitor validate, demo off and no queries: exit %d, stderr %q; want 1, no queries", code, errOut)
	}
	if _, errOut, code := monitor(t, "run", "--config", path); code == 0 || !strings.Contains(errOut, "no queries") {
		t.Errorf("monitor run, demo off and no queries: exit %d, stderr %q; want a failure, no queries", code, errOut)
	}
}
