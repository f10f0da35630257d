package gcfloor

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// settings reads GOGC and the memory limit without changing them.
func settings() (gogc int, limit int64) {
	gogc = debug.SetGCPercent(-1)
	debug.SetGCPercent(gogc)
	return gogc, debug.SetMemoryLimit(-1)
}

func TestFloorThenDefaults(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: gcfloor leaves the collector alone")
	}
	// TestKeepsGOMEMLIMIT runs this test again with GOMEMLIMIT set.
	before, after := int64(Floor), int64(math.MaxInt64)
	if v := os.Getenv("GCFLOOR_TEST_LIMIT"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		before, after = min(n, Floor), n
	} else if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT is set: this test expects the default limit")
	}
	select {
	case <-restored:
		t.Skip("a collection already ran before the test (the test binary allocated past Floor)")
	default:
	}
	if gogc, limit := settings(); gogc != -1 || limit != before {
		t.Fatalf("before the first collection: GOGC %d, limit %d; want -1 (off), %d", gogc, limit, before)
	}
	runtime.GC()
	select {
	case <-restored:
	case <-time.After(time.Minute):
		t.Fatal("the defaults were not restored after a collection")
	}
	if gogc, limit := settings(); gogc != 100 || limit != after {
		t.Fatalf("after the first collection: GOGC %d, limit %d; want 100, %d", gogc, limit, after)
	}
}

// TestKeepsGOMEMLIMIT: a GOMEMLIMIT below Floor is the limit until the
// first collection, one above it the limit after; both are restored.
func TestKeepsGOMEMLIMIT(t *testing.T) {
	if os.Getenv("GCFLOOR_TEST_LIMIT") != "" {
		t.Skip("in the child")
	}
	for _, limit := range []string{"16777216", "1073741824"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFloorThenDefaults$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "GOMEMLIMIT="+limit, "GCFLOOR_TEST_LIMIT="+limit)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Errorf("GOMEMLIMIT=%s: %v\n%s", limit, err, out)
		}
	}
}

// TestRaise (in a child process, before any collection): Raise lifts the
// limit while the floor holds, never lowers it, stays under GOMEMLIMIT,
// and does nothing once the defaults are back.
func TestRaise(t *testing.T) {
	if os.Getenv("GCFLOOR_TEST_RAISE") == "" {
		for _, limit := range []string{"", "805306368"} { // none, 768 MiB
			cmd := exec.Command(os.Args[0], "-test.run=^TestRaise$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "GCFLOOR_TEST_RAISE=1")
			if limit != "" {
				cmd.Env = append(cmd.Env, "GOMEMLIMIT="+limit)
			}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS") {
				t.Errorf("GOMEMLIMIT=%q: %v\n%s", limit, err, out)
			}
		}
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: gcfloor leaves the collector alone")
	}
	select {
	case <-restored:
		t.Skip("a collection already ran before the test")
	default:
	}
	user := int64(math.MaxInt64)
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		user = n
	}
	Raise(Floor / 2) // below the floor: no change
	if gogc, limit := settings(); gogc != -1 || limit != min(user, Floor) {
		t.Fatalf("after Raise(Floor/2): GOGC %d, limit %d; want -1, %d", gogc, limit, min(user, Floor))
	}
	Raise(1 << 30)
	if gogc, limit := settings(); gogc != -1 || limit != min(user, 1<<30) {
		t.Fatalf("after Raise(1 GiB): GOGC %d, limit %d; want -1, %d", gogc, limit, min(user, 1<<30))
	}
	runtime.GC()
	select {
	case <-restored:
	case <-time.After(time.Minute):
		t.Fatal("the defaults were not restored after a collection")
	}
	Raise(2 << 30) // the defaults are back: no change
	if gogc, limit := settings(); gogc != 100 || limit != user {
		t.Fatalf("after the first collection and Raise(2 GiB): GOGC %d, limit %d; want 100, %d", gogc, limit, user)
	}
}

// TestLimit (in a child process, before any collection): Limit's limit
// waits under the floor while it holds, is the limit once the defaults
// are back, is set at once after that, and undo restores the one before;
// a GOMEMLIMIT in the environment is kept.
func TestLimit(t *testing.T) {
	if os.Getenv("GCFLOOR_TEST_LIMIT_CHILD") == "" {
		for _, limit := range []string{"", "805306368"} { // none, 768 MiB
			cmd := exec.Command(os.Args[0], "-test.run=^TestLimit$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "GCFLOOR_TEST_LIMIT_CHILD=1")
			if limit != "" {
				cmd.Env = append(cmd.Env, "GOMEMLIMIT="+limit)
			}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS") {
				t.Errorf("GOMEMLIMIT=%q: %v\n%s", limit, err, out)
			}
		}
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: gcfloor leaves the collector alone")
	}
	select {
	case <-restored:
		t.Skip("a collection already ran before the test")
	default:
	}
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		before := debug.SetMemoryLimit(-1)
		if _, ok := Limit(1 << 30); ok {
			t.Errorf("Limit with GOMEMLIMIT=%s set = ok; want it kept", v)
		}
		if _, limit := settings(); limit != before {
			t.Errorf("after Limit with GOMEMLIMIT=%s: limit %d; want %d", v, limit, before)
		}
		return
	}
	undo, ok := Limit(1 << 30)
	if !ok {
		t.Fatal("Limit(1 GiB) not applied")
	}
	if gogc, limit := settings(); gogc != -1 || limit != Floor {
		t.Fatalf("after Limit(1 GiB) while the floor holds: GOGC %d, limit %d; want -1, the floor %d", gogc, limit, Floor)
	}
	runtime.GC()
	select {
	case <-restored:
	case <-time.After(time.Minute):
		t.Fatal("the defaults were not restored after a collection")
	}
	if gogc, limit := settings(); gogc != 100 || limit != 1<<30 {
		t.Fatalf("after the first collection: GOGC %d, limit %d; want 100, Limit's 1 GiB", gogc, limit)
	}
	undo2, _ := Limit(512 << 20)
	if _, limit := settings(); limit != 512<<20 {
		t.Errorf("after Limit(512 MiB): limit %d; want %d", limit, 512<<20)
	}
	undo2()
	undo()
	if _, limit := settings(); limit != math.MaxInt64 {
		t.Errorf("after both undos: limit %d; want none (%d)", limit, int64(math.MaxInt64))
	}
}
