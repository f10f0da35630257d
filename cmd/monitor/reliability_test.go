package main

// Helpers of the reliability tests (crash_test.go, faults_test.go): a
// broker the test controls, the alert log with positions, and the checks
// that hold through any single fault (TestReliabilityChecks holds them to
// what they must catch).

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/ingest"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
	"github.com/motifwatch/motifwatch/window"
)

// syntheticGraph writes a CollegeMsg-like synthetic graph of n edges to a
// file and loads it back, so that `monitor mine` and the daemon see the
// same edges with the same seq (of any size, unlike the reference graphs).
func syntheticGraph(t *testing.T, n int, seed uint64) (*window.Window, string) {
	t.Helper()
	edges, err := synth.Generate(synth.Default(n, seed))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range edges {
		fmt.Fprintf(&b, "%d %d %d\n", e.Src, e.Dst, e.T)
	}
	path := filepath.Join(t.TempDir(), "synth.txt")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := ingest.LoadFile(path, ingest.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

// startTestBroker starts a restartable broker (a kafkatest.Broker, whose
// short minimum session timeout lets a daemon restarted after SIGKILL get
// its partitions back in seconds) with the daemon's three topics; with
// persistent set a restart keeps them.
func startTestBroker(t *testing.T, persistent bool) *kafkatest.Broker {
	t.Helper()
	return kafkatest.StartRestartable(t, kafkatest.BrokerOptions{Persistent: persistent,
		Topics: []kafka.TopicSpec{{Name: "edges", Partitions: 3}, {Name: "motif-alerts", Partitions: 3}, {Name: "edges-dlq", Partitions: 3}}})
}

// logged is an alert record with its place on the alert topic.
type logged = kafkatest.Logged

// readAlertLog reads the whole alert topic, in partition and offset order.
func readAlertLog(t *testing.T, brokers []string) []logged {
	t.Helper()
	return kafkatest.ReadAlerts(t, brokers, "motif-alerts")
}

// tryCommitted returns group's committed offsets of the edge topic (none
// before its first commit).
func tryCommitted(brokers []string, group string) (map[int]int64, error) {
	return kafkatest.Plain(brokers).TryCommitted(group, "edges")
}

// snapshot is the group's committed offsets and the alert topic's end
// offsets read after them: every match whose last edge lies below a
// committed offset must be on the alert topic below those ends.
type snapshot struct {
	label     string
	committed map[int]int64
	alertEnd  map[int]int64
}

func takeSnapshot(brokers []string, group, label string) (snapshot, error) {
	c, err := tryCommitted(brokers, group)
	if err != nil {
		return snapshot{}, err
	}
	a, err := kafkatest.Plain(brokers).TryEndOffsets("motif-alerts")
	if err != nil {
		return snapshot{}, err
	}
	return snapshot{label: label, committed: c, alertEnd: a}, nil
}

// firstCopies returns each match's first record on the alert topic, by
// query/match id.
func firstCopies(log []logged) map[string]logged {
	first := map[string]logged{}
	for _, l := range log {
		if l.Kind != alerts.KindMatch {
			continue
		}
		if f, ok := first[l.Key()]; !ok || l.Partition == f.Partition && l.Offset < f.Offset {
			first[l.Key()] = l
		}
	}
	return first
}

// checkCommitsCovered asserts that offsets never moved past unacknowledged
// alerts: for every snapshot, each match whose last edge (the one whose
// processing reports it, or holds it) lies below the committed offset of
// its partition was already on the alert topic when the snapshot was
// taken.
func checkCommitsCovered(t *testing.T, snaps []snapshot, log []logged) {
	t.Helper()
	bad, matches := uncoveredCommits(snaps, log)
	if len(bad) > 0 {
		t.Errorf("offsets committed past %d unacknowledged alerts, e.g.\n%s", len(bad), strings.Join(bad[:min(len(bad), 5)], "\n"))
	}
	t.Logf("commit coverage: %d snapshots × %d matches checked", len(snaps), matches)
}

// uncoveredCommits lists, sorted, the matches that a snapshot's commit
// passed before their alert was on the topic, and counts the matches.
func uncoveredCommits(snaps []snapshot, log []logged) (bad []string, matches int) {
	first := firstCopies(log)
	for _, s := range snaps {
		for id, l := range first {
			last := l.Edges[len(l.Edges)-1]
			c, ok := s.committed[last.Partition]
			if !ok || last.Offset >= c {
				continue
			}
			if l.Offset >= s.alertEnd[l.Partition] {
				bad = append(bad, fmt.Sprintf("%s: %s ends at edges %d@%d, below the committed %d, but was alerted at %d@%d, after the alert topic's end %d",
					s.label, id, last.Partition, last.Offset, c, l.Partition, l.Offset, s.alertEnd[l.Partition]))
			}
		}
	}
	slices.Sort(bad)
	return bad, len(first)
}

// checkSameMatches asserts that the alert log, deduplicated by match id,
// holds exactly the expected matches of the enumerate-mode queries, and
// at least the expected count of each count-mode one (count records
// cannot be deduplicated: after a crash a count may be repeated). It
// returns the number of extra copies per match id.
func checkSameMatches(t *testing.T, label string, exp expectation, log []logged) map[string]int {
	t.Helper()
	d := compareMatches(exp, log)
	if len(d.missing)+len(d.extra) > 0 {
		t.Errorf("%s: %d of %d matches missing (e.g. %.3v), %d extra (e.g. %.3v)", label, len(d.missing), len(exp.ids), d.missing, len(d.extra), d.extra)
	}
	for _, q := range d.short {
		t.Errorf("%s: %s: count records sum to %d; monitor mine counts %d", label, q, d.counts[q], exp.counts[q])
	}
	return d.dups
}

// matchDiff is an alert log against an expectation: the match ids
// missing and extra (sorted), the extra copies per match id, the
// count-mode queries whose count records sum below the expected count,
// and those sums.
type matchDiff struct {
	missing, extra, short []string
	dups                  map[string]int
	counts                map[string]int64
}

func compareMatches(exp expectation, log []logged) matchDiff {
	copies := map[string]int{}
	d := matchDiff{dups: map[string]int{}, counts: map[string]int64{}}
	for _, l := range log {
		switch l.Kind {
		case alerts.KindMatch:
			copies[l.Key()]++
		case alerts.KindCount:
			d.counts[l.Query] += l.Count
		}
	}
	for id := range exp.ids {
		if copies[id] == 0 {
			d.missing = append(d.missing, id)
		}
	}
	for id, n := range copies {
		if !exp.ids[id] {
			d.extra = append(d.extra, id)
		}
		if n > 1 {
			d.dups[id] = n - 1
		}
	}
	for q, c := range exp.counts {
		if !slices.Contains(enumerated, q) && d.counts[q] < c {
			d.short = append(d.short, q)
		}
	}
	slices.Sort(d.missing)
	slices.Sort(d.extra)
	slices.Sort(d.short)
	return d
}

// reliabilityConfig is e2eConfig with a short session timeout (a restart
// gets its partitions back soon after a crash) and smaller batches (more
// commits: more places for a fault to land).
func reliabilityConfig(brokers []string, group, queries string) string {
	cfg := e2eConfig(brokers, group, queries, 0)
	cfg = strings.Replace(cfg, "  group: "+group+"\n", "  group: "+group+"\n  session_timeout: 3s\n", 1)
	return strings.Replace(cfg, "batch_size: 4000", "batch_size: 1000", 1)
}

// TestReliabilityChecks: the checks flag a commit past a match whose
// alert came after the snapshot, a missing or extra match, a duplicate,
// and a count that falls short.
func TestReliabilityChecks(t *testing.T) {
	t.Parallel()
	match := func(id string, part int, off int64, lastPart int, lastOff int64) logged {
		return logged{Alert: alerts.Alert{Kind: alerts.KindMatch, Query: "tri-cycle", MatchID: id,
			Edges: []alerts.Edge{{Partition: lastPart, Offset: lastOff - 1}, {Partition: lastPart, Offset: lastOff}}}, Partition: part, Offset: off}
	}
	log := []logged{match("a", 1, 3, 0, 5), match("b", 0, 0, 2, 9), match("a", 1, 7, 0, 5)}
	for _, c := range []struct {
		name string
		snap snapshot
		bad  int
	}{
		{"alert after the snapshot, commit past its edge", snapshot{"s", map[int]int64{0: 6}, map[int]int64{1: 3}}, 1},
		{"alert before the snapshot", snapshot{"s", map[int]int64{0: 6}, map[int]int64{1: 4}}, 0},
		{"commit at the match's last edge", snapshot{"s", map[int]int64{0: 5}, map[int]int64{1: 0}}, 0},
		{"partition not committed", snapshot{"s", map[int]int64{1: 100}, map[int]int64{}}, 0},
	} {
		bad, n := uncoveredCommits([]snapshot{c.snap}, log)
		if len(bad) != c.bad || n != 2 {
			t.Errorf("%s: %d violations (%v) over %d matches; want %d over 2", c.name, len(bad), bad, n, c.bad)
		}
	}
	exp := expectation{ids: map[string]bool{"tri-cycle/a": true, "tri-cycle/b": true}}
	if dups := checkSameMatches(t, "exact", exp, log); len(dups) != 1 || dups["tri-cycle/a"] != 1 {
		t.Errorf("checkSameMatches duplicates = %v; want tri-cycle/a once", dups)
	}
	counted := logged{Alert: alerts.Alert{Kind: alerts.KindCount, Query: "fan-in", Count: 4}}
	exp = expectation{ids: map[string]bool{"tri-cycle/a": true, "tri-cycle/c": true}, counts: map[string]int64{"fan-in": 5, "tri-cycle": 99}}
	d := compareMatches(exp, append(log, counted))
	if fmt.Sprint(d.missing, d.extra, d.short, d.counts["fan-in"]) != "[tri-cycle/c] [tri-cycle/b] [fan-in] 4" {
		t.Errorf("compareMatches: missing %v, extra %v, short %v (fan-in %d); want [tri-cycle/c] [tri-cycle/b] [fan-in] 4",
			d.missing, d.extra, d.short, d.counts["fan-in"])
	}
}
