package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/feed"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// daemonProcess is `monitor run` as a child process: the test binary
// re-run as the monitor command (see TestMain), so that it can be killed
// with SIGKILL while the broker, in the test process, lives on.
type daemonProcess struct {
	cmd   *exec.Cmd
	log   *testenv.SyncBuffer
	done  chan error // Wait's result, once
	start time.Time
	// ended and exitErr are set (on the test goroutine) once done has
	// been received from.
	ended   bool
	exitErr error
}

func startProcess(t *testing.T, cfgPath string) *daemonProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS=run --config "+cfgPath)
	d := &daemonProcess{cmd: cmd, log: &testenv.SyncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = io.Discard, d.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.start = time.Now()
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(d.kill)
	return d
}

// wait waits up to timeout for the process to end; it reports whether it
// has.
func (d *daemonProcess) wait(timeout time.Duration) bool {
	if d.ended {
		return true
	}
	select {
	case d.exitErr = <-d.done:
		d.ended = true
	case <-time.After(timeout):
	}
	return d.ended
}

// kill sends SIGKILL and waits for the process to be gone.
func (d *daemonProcess) kill() {
	if d.ended {
		return
	}
	d.cmd.Process.Signal(syscall.SIGKILL)
	d.wait(time.Hour)
}

// crashSeed is MOTIFWATCH_CRASH_SEED, or a new seed each run: the log
// names it, so a failing run can be repeated exactly.
func crashSeed(t *testing.T) uint64 {
	if s := os.Getenv("MOTIFWATCH_CRASH_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("MOTIFWATCH_CRASH_SEED=%q: %v", s, err)
		}
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// killPlan is when one run of the daemon is stopped: once the group has
// committed advance more records than when it started, and jitter has
// passed (somewhere inside the batch loop: mining, writing alerts,
// committing), or, for advance < 0, jitter after the start (during
// start-up: rebuilding the window, joining the group).
type killPlan struct {
	advance int64
	jitter  time.Duration
}

func (k killPlan) String() string {
	if k.advance < 0 {
		return fmt.Sprintf("%v after start", k.jitter.Round(time.Millisecond))
	}
	return fmt.Sprintf("%v after %d more records committed", k.jitter.Round(time.Millisecond), k.advance)
}

// planKills draws n stops: one in four during start-up, the others after
// 3% to 25% of the records more.
func planKills(rng *rand.Rand, n int, total int64) []killPlan {
	plans := make([]killPlan, n)
	for i := range plans {
		if rng.IntN(4) == 0 {
			plans[i] = killPlan{advance: -1, jitter: time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))}
		} else {
			plans[i] = killPlan{advance: int64(float64(total) * (0.03 + 0.22*rng.Float64())),
				jitter: time.Duration(rng.Int64N(int64(150 * time.Millisecond)))}
		}
	}
	return plans
}

// waitPlan waits until plan's moment has come for a run that started
// with from records committed in group (or all of them are).
func waitPlan(brokers []string, group string, plan killPlan, from, total int64) bool {
	target := min(from+plan.advance, total)
	reached := testenv.Poll(60*time.Second, 10*time.Millisecond, func() bool {
		if plan.advance < 0 {
			return true
		}
		c, err := tryCommitted(brokers, group)
		return err == nil && kafkatest.Sum(c) >= target
	})
	time.Sleep(plan.jitter)
	return reached
}

func committedSum(t *testing.T, brokers []string, group string) int64 {
	t.Helper()
	c, err := tryCommitted(brokers, group)
	if err != nil {
		t.Fatal(err)
	}
	return kafkatest.Sum(c)
}

// TestCrashRecovery replays a synthetic graph through the daemon running
// as a process, kills it with SIGKILL at seeded random points (during
// start-up, or after a random number of records were committed plus a
// random jitter) and restarts it each time; a last run finishes the
// replay. Deduplicated by match id, the alert topic must hold exactly the
// matches of an uninterrupted run (`monitor mine`'s, which
// TestDaemonEqualsMine shows equal to the daemon's); the duplicates must
// come only from the at-least-once window of a kill (alerted, but their
// last edge not yet committed when it died); and no commit may ever have
// passed a match that was not on the alert topic yet.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the daemon as a process")
	}
	seed := crashSeed(t)
	t.Logf("seed %d (rerun with MOTIFWATCH_CRASH_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x6b696c6c))

	w, graph := syntheticGraph(t, 30000, 1)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	b := startTestBroker(t, false)
	cfgPath := filepath.Join(t.TempDir(), "crash.yaml")
	// Zero lateness: the synthetic stream has edges of one partition at
	// the same second, and none of them may be late, before or after a
	// restart.
	cfg := reliabilityConfig(b.Addrs(), "crash", queries)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	produce(t, b.Addrs(), withSentinel(w, feed.Window(w)))
	end := kafkatest.EndOffsets(t, b.Addrs(), "edges")
	total := kafkatest.Sum(end)

	var snaps []snapshot
	for i, plan := range planKills(rng, 4, total) {
		from := committedSum(t, b.Addrs(), "crash")
		d := startProcess(t, cfgPath)
		reached := waitPlan(b.Addrs(), "crash", plan, from, total)
		if d.wait(0) {
			t.Fatalf("the daemon exited by itself (%v); its log:\n%s", d.exitErr, testenv.Tail(d.log.String(), 30))
		}
		if !reached {
			t.Fatalf("kill point %v not reached within 60s; the daemon's log:\n%s", plan, testenv.Tail(d.log.String(), 30))
		}
		d.kill()
		s, err := takeSnapshot(b.Addrs(), "crash", fmt.Sprintf("kill %d", i+1))
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
		t.Logf("kill %d, %v: after %v; %d of %d records committed, %d alert records written",
			i+1, plan, time.Since(d.start).Round(time.Millisecond), kafkatest.Sum(s.committed), total, kafkatest.Sum(s.alertEnd))
	}

	d := startProcess(t, cfgPath)
	done := testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		c, err := tryCommitted(b.Addrs(), "crash")
		return err == nil && kafkatest.Sum(c) == total
	})
	if !done {
		c, _ := tryCommitted(b.Addrs(), "crash")
		t.Fatalf("the last run did not commit all %d records within 90s (committed %v); its log:\n%s", total, c, testenv.Tail(d.log.String(), 30))
	}
	t.Logf("last run: all records committed %v after its start", time.Since(d.start).Round(time.Millisecond))
	// SIGTERM before the signal handler is installed would kill it
	// uncleanly: wait for the start to be logged.
	if !testenv.Poll(30*time.Second, 20*time.Millisecond, func() bool { return strings.Contains(d.log.String(), "motifwatch running") }) {
		t.Fatalf("last run: not running after 30s; log:\n%s", testenv.Tail(d.log.String(), 20))
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	switch {
	case !d.wait(30 * time.Second):
		t.Errorf("last run: still running 30s after SIGTERM")
	case d.exitErr != nil || !strings.Contains(d.log.String(), "pipeline stopped"):
		t.Errorf("last run: exit %v after SIGTERM, no clean stop; log:\n%s", d.exitErr, testenv.Tail(d.log.String(), 20))
	}

	log := readAlertLog(t, b.Addrs())
	dups := checkSameMatches(t, "after 4 kills", exp, log)
	checkDuplicatesExplained(t, snaps, log, dups)
	checkCommitsCovered(t, snaps, log)
}

// checkDuplicatesExplained asserts that every extra copy of a match comes
// from the at-least-once window of a kill: the match was alerted before
// the kill, but its last edge was not committed yet, so the restart read
// it again. Per kill it logs the duplicates against that window's size.
func checkDuplicatesExplained(t *testing.T, snaps []snapshot, log []logged, dups map[string]int) {
	t.Helper()
	first := firstCopies(log)
	window := make([]int, len(snaps)) // matches alerted but not committed at kill k
	var unexplained []string
	total := 0
	for id, l := range first {
		last := l.Edges[len(l.Edges)-1]
		explained := 0
		for k, s := range snaps {
			if l.Offset < s.alertEnd[l.Partition] && last.Offset >= s.committed[last.Partition] {
				window[k]++
				explained++
			}
		}
		if n := dups[id]; n > explained {
			unexplained = append(unexplained, fmt.Sprintf("%s: %d extra copies, %d kills could explain them", id, n, explained))
		}
		total += dups[id]
	}
	// Copies written after kill k of matches first alerted before it.
	perKill := make([]int, len(snaps))
	for _, l := range log {
		f, ok := first[l.Key()]
		if !ok || l.Offset == f.Offset {
			continue
		}
		for k := len(snaps) - 1; k >= 0; k-- {
			if f.Offset < snaps[k].alertEnd[f.Partition] && l.Offset >= snaps[k].alertEnd[l.Partition] {
				perKill[k]++
				break
			}
		}
	}
	for k := range snaps {
		t.Logf("kill %d: %d duplicate alerts; at-least-once window (alerted, not committed) %d matches", k+1, perKill[k], window[k])
	}
	t.Logf("%d distinct matches, %d duplicate alert records (%.2f%%) over %d kills", len(first), total,
		100*float64(total)/float64(max(len(first), 1)), len(snaps))
	if len(unexplained) > 0 {
		slices.Sort(unexplained)
		t.Errorf("%d matches duplicated beyond the at-least-once window, e.g.\n%s", len(unexplained), strings.Join(unexplained[:min(5, len(unexplained))], "\n"))
	}
}

// TestCleanRestartsAreExactlyOnce stops the daemon cleanly (SIGTERM's
// path) at seeded random points of a replay and restarts it, with an
// allowed lateness, so every stop leaves edges in the reorder buffer:
// across the runs every match is alerted exactly once, counts included.
// (Before the fix, records fetched but still buffered at the stop were
// taken as already mined on restart, and their matches were lost.)
func TestCleanRestartsAreExactlyOnce(t *testing.T) {
	seed := crashSeed(t)
	t.Logf("seed %d (rerun with MOTIFWATCH_CRASH_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x7465726d))
	w, graph := syntheticGraph(t, 20000, 2)
	queries := writeQueries(t, e2eQueries)
	exp := mineExpectation(t, graph, queries)
	b := startTestBroker(t, false)
	cfg := strings.Replace(reliabilityConfig(b.Addrs(), "clean", queries), "allowed_lateness: 0s", "allowed_lateness: 5m0s", 1)
	if cfg == reliabilityConfig(b.Addrs(), "clean", queries) {
		t.Fatal("config template changed: no allowed_lateness to replace")
	}
	produce(t, b.Addrs(), withSentinel(w, shuffled(feed.Window(w), 250)))
	total := kafkatest.Sum(kafkatest.EndOffsets(t, b.Addrs(), "edges"))
	buffered := 0
	for i, plan := range planKills(rng, 3, total) {
		from := committedSum(t, b.Addrs(), "clean")
		d := startDaemon(t, cfg)
		if !waitPlan(b.Addrs(), "clean", plan, from, total) {
			t.Fatalf("stop %d, %v: not reached within 60s", i+1, plan)
		}
		n := testenv.Scrape(t, d.info.MetricsAddr)["motifwatch_ingest_reorder_buffer_edges"]
		if err := d.stop(); err != nil {
			t.Fatalf("stop %d: %v", i+1, err)
		}
		buffered += int(n)
		t.Logf("stop %d, %v: about %v edges in the reorder buffer", i+1, plan, n)
	}
	if buffered == 0 {
		t.Errorf("no stop left edges in the reorder buffer: the test did not test the case")
	}
	d := startDaemon(t, cfg)
	if !testenv.Poll(90*time.Second, 100*time.Millisecond, func() bool {
		c, err := tryCommitted(b.Addrs(), "clean")
		return err == nil && kafkatest.Sum(c) == total
	}) {
		t.Fatalf("the last run did not commit all %d records within 90s", total)
	}
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	log := readAlertLog(t, b.Addrs())
	check(t, "clean restarts", exp, observe(alertsOf(log)))
}

func alertsOf(log []logged) []alerts.Alert {
	out := make([]alerts.Alert, len(log))
	for i, l := range log {
		out[i] = l.Alert
	}
	return out
}
