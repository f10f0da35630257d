package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// interruptAt runs monitor args as a process, sends it SIGINT once it
// prints a stderr line starting with progress and holding want (so the
// work is under way whatever the machine's speed: a loaded machine's first
// progress line can still read 0.0%, without an ETA), and returns its
// output and exit status. The workloads take minutes: they cannot end
// before the signal.
func interruptAt(t *testing.T, progress, want string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS="+strings.Join(args, " "))
	var o, e bytes.Buffer
	cmd.Stdout = &o
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	signalled := false
	for sc.Scan() {
		fmt.Fprintln(&e, sc.Text())
		if !signalled && strings.HasPrefix(sc.Text(), progress) && strings.Contains(sc.Text(), want) {
			cmd.Process.Signal(syscall.SIGINT)
			signalled = true
		}
	}
	err = cmd.Wait()
	if !signalled {
		t.Fatalf("monitor %v ended before a progress line %q holding %q:\n%s", args, progress, want, e.String())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestMineInterruptedPrintsPartialCounts(t *testing.T) {
	out, errOut, code := interruptAt(t, "mining M5 (root edges): ", "ETA",
		"mine", "--synthetic", "200000", "--motif", "M5", "--delta", "24h", "--workers", "1", "--progress", "100ms")
	if code != exitInterrupted || !strings.Contains(out, "(partial)") || !strings.Contains(errOut, "interrupted during M5: the counts above are partial") {
		t.Errorf("interrupted mine: exit %d; want %d and a partial table\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, out, errOut)
	}
	if !strings.Contains(errOut, "matches so far") || !strings.Contains(errOut, "ETA") {
		t.Errorf("progress lines lack the running count or the ETA:\n%s", errOut)
	}
}

func TestGpmInterruptedPrintsPartialCounts(t *testing.T) {
	var b strings.Builder
	for v := range 3000 {
		for d := 1; d <= 8; d++ {
			fmt.Fprintf(&b, "%d %d\n", v, (v+d)%3000)
		}
	}
	g := filepath.Join(t.TempDir(), "ring.txt")
	if err := os.WriteFile(g, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := interruptAt(t, "gpm motif k=8 (root vertices): ", "subgraphs so far",
		"gpm", "--graph", g, "--app", "motif", "-k", "8", "--workers", "1", "--progress", "100ms")
	if code != exitInterrupted || !strings.Contains(out, "(partial: interrupted)") || !strings.Contains(errOut, "the counts above are partial") {
		t.Errorf("interrupted gpm: exit %d; want %d and a partial table\nstdout:\n%s\nstderr:\n%s", code, exitInterrupted, out, errOut)
	}
	if !strings.Contains(errOut, "subgraphs so far") {
		t.Errorf("gpm progress lines lack the running count:\n%s", errOut)
	}
}
