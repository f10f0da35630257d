package main

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

func alertsCmd(ctx context.Context, out, errOut *testenv.SyncBuffer, args ...string) error {
	cmd := newAlertsCmd()
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(ctx)
}

var at = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func sampleMatch(id string) alerts.Alert {
	return alerts.Alert{Kind: alerts.KindMatch, Query: "money-ring", Description: "money goes round", MatchID: id,
		Nodes: map[string]alerts.Node{"A": {ID: "acct-1", Label: "account"}, "B": {ID: "acct-2"}},
		Edges: []alerts.Edge{{Src: "acct-1", Dst: "acct-2", T: 0, Time: "1970-01-01T00:00:00Z", Attrs: map[string]any{"amount": 1500.0, "currency": "EUR"}},
			{Src: "acct-2", Dst: "acct-1", T: 60, Time: "1970-01-01T00:01:00Z"}},
		First: 0, Last: 60, FirstTime: "1970-01-01T00:00:00Z", LastTime: "1970-01-01T00:01:00Z", DetectedAt: at}
}

// TestAlertsCommandPrintsTopic writes match, incident and count records
// to an alert topic and checks that `monitor alerts` prints each one
// readably, then exits (no --follow); --json prints them raw, --query
// filters.
func TestAlertsCommandPrintsTopic(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "motif-alerts", Partitions: 2})
	kafkatest.WriteAlerts(t, ctx, addrs, "motif-alerts", sampleMatch("9f1c"),
		alerts.Alert{Kind: alerts.KindIncident, Query: "fan-in", IncidentID: "inc7", Count: 15, MatchIDs: []string{"m1", "m2"},
			Nodes: map[string]alerts.Node{"T": {ID: "acct-9"}}, First: 10, Last: 70, DetectedAt: at, From: at, To: at.Add(time.Minute)},
		alerts.Alert{Kind: alerts.KindCount, Query: "m1", Count: 42, From: at, To: at.Add(time.Minute), DetectedAt: at})

	var out, errOut testenv.SyncBuffer
	if err := alertsCmd(ctx, &out, &errOut, "--brokers", strings.Join(addrs, ",")); err != nil {
		t.Fatalf("monitor alerts: %v\n%s", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"2026-03-04T05:06:07.000Z  match  money-ring  9f1c  (partition ",
		"  money goes round\n",
		"  nodes  A=acct-1 (account) B=acct-2\n",
		"  1  acct-1 -> acct-2  1970-01-01T00:00:00Z  amount=1500 currency=EUR\n",
		"  2  acct-2 -> acct-1  1970-01-01T00:01:00Z\n",
		"incident  fan-in  inc7",
		"  15 matches, edges t=10 → t=70, open 05:06:07 – 05:07:07\n",
		"  nodes  T=acct-9\n",
		"  match ids  m1 m2\n",
		"count  m1  (partition ",
		"  42 matches in [2026-03-04T05:06:07Z, 2026-03-04T05:07:07Z)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}

	var raw, rawErr testenv.SyncBuffer
	if err := alertsCmd(ctx, &raw, &rawErr, "--brokers", addrs[0], "--json", "--query", "money-ring"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(raw.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], `{"kind":"match","query":"money-ring"`) || !strings.Contains(lines[0], `"first":0`) {
		t.Errorf("--json --query money-ring printed %q; want the one raw match record", raw.String())
	}
}

// TestAlertsCommandPrintsRouting: a topic holding a record written
// before severity, labels, annotations and source existed and one that
// carries them prints both, the new one with its routing lines.
func TestAlertsCommandPrintsRouting(t *testing.T) {
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "motif-alerts", Partitions: 1})
	routed := sampleMatch("new1")
	routed.Severity, routed.Labels = "page", map[string]string{"team": "fraud"}
	routed.Annotations = map[string]string{"summary": "money-ring: acct-1 → acct-2", "runbook_url": "https://rb/ring"}
	routed.Source, routed.StatusURL = alerts.Source{Instance: "mw-0", Topic: "edges", Group: "motifwatch"}, "http://mw-0:9464/"
	kafkatest.WriteAlerts(t, ctx, addrs, "motif-alerts", sampleMatch("old1"), routed)
	var out, errOut testenv.SyncBuffer
	if err := alertsCmd(ctx, &out, &errOut, "--brokers", addrs[0]); err != nil {
		t.Fatalf("monitor alerts: %v\n%s", err, errOut.String())
	}
	old, nw, ok := strings.Cut(out.String(), "match  money-ring  new1")
	if !ok || !strings.Contains(old, "match  money-ring  old1") {
		t.Fatalf("output lacks the old and the new record:\n%s", out.String())
	}
	if strings.Contains(old, "severity") || strings.Contains(old, "status") {
		t.Errorf("the old record prints routing lines it does not carry:\n%s", old)
	}
	want := "  money goes round\n" +
		"  severity page  team=fraud  from mw-0 (topic edges, group motifwatch)\n" +
		"  summary  money-ring: acct-1 → acct-2\n" +
		"  runbook_url  https://rb/ring\n" +
		"  status  http://mw-0:9464/\n" +
		"  nodes  A=acct-1 (account) B=acct-2\n"
	if !strings.Contains(nw, want) {
		t.Errorf("the new record prints\n%s\nwant it to hold\n%s", nw, want)
	}
}

// TestAlertsCommandFollow checks that --follow prints records written
// after it started, and stops cleanly when interrupted.
func TestAlertsCommandFollow(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "motif-alerts", Partitions: 2})
	var out, errOut testenv.SyncBuffer
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- alertsCmd(cctx, &out, &errOut, "--brokers", addrs[0], "--topic", "motif-alerts", "--follow")
	}()
	kafkatest.WriteAlerts(t, ctx, addrs, "motif-alerts", sampleMatch("late1"))
	for !strings.Contains(out.String(), "match  money-ring  late1") {
		select {
		case err := <-done:
			t.Fatalf("--follow returned before the record came: %v\n%s", err, errOut.String())
		case <-ctx.Done():
			t.Fatalf("--follow never printed the record written after it started:\n%s%s", out.String(), errOut.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("--follow interrupted: %v", err)
	}
}

func TestAlertsCommandUsage(t *testing.T) {
	var out, errOut testenv.SyncBuffer
	err := alertsCmd(context.Background(), &out, &errOut)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no brokers") {
		t.Errorf("monitor alerts without brokers = %v; want a usage error naming --brokers", err)
	}
	err = alertsCmd(context.Background(), &out, &errOut, "--brokers", "h:1", "--config", "c.yaml")
	if !errors.As(err, &ue) {
		t.Errorf("monitor alerts --brokers --config = %v; want a usage error", err)
	}
}

// TestAlertsCommandUnreachable: a broker that refuses connections is a
// runtime error naming the brokers and the topic, in the user's words.
func TestAlertsCommandUnreachable(t *testing.T) {
	var out, errOut testenv.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := alertsCmd(ctx, &out, &errOut, "--brokers", "127.0.0.1:1", "--topic", "motif-alerts")
	var ue usageError
	if err == nil || errors.As(err, &ue) {
		t.Fatalf("monitor alerts against a closed port = %v; want a runtime error", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "127.0.0.1:1") || !strings.Contains(msg, `"motif-alerts"`) || strings.Contains(msg, "kafka.(") {
		t.Errorf("error %q; want the brokers and the topic named, and no kafka-go method names", msg)
	}
}

// hostile holds what a terminal must never receive raw: escape sequences
// (clear the screen, set the window title, CSI as a C1 character), a
// forged line (newline, carriage return, the Unicode line and paragraph
// separators), DEL, and bidi overrides that reorder what is shown.
const hostile = "\x1b[2J\x1b]0;pwned\x07|\nFORGED 2026-03-04T05:06:07.000Z  match  fake|\r|\x7f|\u009b31m|\u202e|\u2066|\u2028|\u2029|\u200f|\t"

// unsafeRune reports a rune that must not reach a terminal raw.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f, r == utf8.RuneError:
		return true
	case r == 0x2028, r == 0x2029, r == 0x200e, r == 0x200f, r == 0x061c, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// checkTerminalSafe fails if out holds a byte a terminal would act on, or
// a line that does not start the way the command's lines do.
func checkTerminalSafe(t *testing.T, what, out string, lineStart ...string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not valid UTF-8: %q", what, out)
	}
	for i, r := range out {
		if unsafeRune(r) {
			t.Errorf("%s holds %U raw at byte %d: %q", what, r, i, out)
			break
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		ok := false
		for _, p := range lineStart {
			ok = ok || strings.HasPrefix(line, p)
		}
		if !ok {
			t.Errorf("%s: line %q starts unlike the command's lines (%q): a forged line", what, line, lineStart)
		}
	}
}

// TestAlertsCommandEscapesControlCharacters: ids, names, labels, times,
// attributes and descriptions of alert records are foreign input (the
// edge producers' and the query authors'; any producer can write to the
// topic). `monitor alerts` used to print them raw: an id could clear the
// screen, retitle the terminal or forge a line. Now every field of the
// readable form shows control characters as escapes, --json prints each
// record as one line of valid JSON with them escaped (the same record
// when decoded), and errors about undecodable records are escaped too.
func TestAlertsCommandEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "motif-alerts", Partitions: 1})
	h := func(tag string) string { return tag + hostile }
	match := alerts.Alert{Kind: alerts.KindMatch, Query: h("query"), Description: h("description"), MatchID: h("id"),
		Nodes: map[string]alerts.Node{h("node"): {ID: h("nodeid"), Label: h("label")}},
		Edges: []alerts.Edge{{Src: h("src"), Dst: h("dst"), T: 1, Time: h("time"), Attrs: map[string]any{h("attr"): h("value")}}},
		First: 1, Last: 1, DetectedAt: at}
	incident := alerts.Alert{Kind: alerts.KindIncident, Query: "q", IncidentID: h("incident"), Count: 2, MatchIDs: []string{h("m1"), h("m2")},
		Nodes: map[string]alerts.Node{"T": {ID: h("grouped")}}, FirstTime: h("first"), LastTime: h("last"), DetectedAt: at, From: at, To: at}
	limited := alerts.Alert{Kind: alerts.KindRateLimited, Query: "q", Count: 3, MatchIDs: []string{h("held")}, MatchIDsOmitted: 2,
		DetectedAt: at, From: at, To: at}
	kafkatest.WriteAlerts(t, ctx, addrs, "motif-alerts", match, incident, limited)
	// From a foreign producer: a record spread over lines, with raw DEL,
	// a raw line separator and a byte that is not UTF-8 (0x9b: CSI in an
	// 8-bit terminal) in its strings; and one that is no JSON at all.
	raw := "{\n\"kind\": \"match\",\n\"query\": \"raw\x7f\u2028\x9b[31m\", \"match_id\": \"r\u202e1\"}\n"
	kafkatest.Send(t, addrs, "motif-alerts", kafkatest.SendOptions{}, kafkatest.Values(raw, "\x1b[2Jnot json\nFORGED")...)

	var out, errOut testenv.SyncBuffer
	if err := alertsCmd(ctx, &out, &errOut, "--brokers", addrs[0]); err != nil {
		t.Fatalf("monitor alerts: %v\n%s", err, errOut.String())
	}
	got := out.String()
	checkTerminalSafe(t, "the readable output", got, "2026-03-04T", "0001-01-01T", "  ") // the foreign record has no detected_at
	checkTerminalSafe(t, "the error output", errOut.String(), "monitor alerts: ")
	for _, tag := range []string{"query", "description", "id", "node", "nodeid", "label", "src", "dst", "time", "attr", "value",
		"incident", "m1", "m2", "grouped", "first", "last", "held"} {
		want := tag + `\x1b[2J\x1b]0;pwned\x07|\nFORGED 2026-03-04T05:06:07.000Z  match  fake|\r|\x7f|\u009b31m|\u202e|\u2066|\u2028|\u2029|\u200f|\t`
		if !strings.Contains(got, want) {
			t.Errorf("the readable output lacks field %s escaped as %q:\n%q", tag, want, got)
		}
	}
	if !strings.Contains(got, `raw\x7f\u2028\ufffd[31m`) || !strings.Contains(got, `r\u202e1`) {
		t.Errorf("the foreign record's fields are not escaped:\n%q", got)
	}
	if !strings.Contains(got, "2 more not listed") {
		t.Errorf("the rate_limited record does not say how many ids it left out:\n%q", got)
	}
	if !strings.Contains(errOut.String(), "not an alert record") {
		t.Errorf("no error for the record that is not JSON:\n%q", errOut.String())
	}

	var js, jsErr testenv.SyncBuffer
	if err := alertsCmd(ctx, &js, &jsErr, "--brokers", addrs[0], "--json"); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "the --json output", js.String(), "{")
	lines := strings.Split(strings.TrimSuffix(js.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("--json printed %d lines; want one per record (4):\n%q", len(lines), js.String())
	}
	for i, want := range []alerts.Alert{match, incident, limited} {
		var back alerts.Alert
		if err := back.UnmarshalJSONStrict([]byte(lines[i])); err != nil {
			t.Errorf("--json line %d is not a record: %v: %s", i, err, lines[i])
			continue
		}
		if !back.DetectedAt.Equal(want.DetectedAt) {
			t.Errorf("--json line %d: detected_at %v; want %v", i, back.DetectedAt, want.DetectedAt)
		}
		back.DetectedAt, back.From, back.To = want.DetectedAt, want.From, want.To
		if !reflect.DeepEqual(back, want) {
			t.Errorf("--json line %d decodes to\n%+v\nwant\n%+v", i, back, want)
		}
	}
	var foreign alerts.Alert
	if err := foreign.UnmarshalJSONStrict([]byte(lines[3])); err != nil || foreign.Query != "raw\x7f\u2028\ufffd[31m" || foreign.MatchID != "r\u202e1" {
		t.Errorf("--json foreign record %s decodes to %+v, %v; want the record's own values", lines[3], foreign, err)
	}
}

// TestAlertsCommandReadsDeadLetters: `monitor alerts --dead-letters`
// prints each dead letter's source, reason and value (issue 26 item 7:
// before, the command printed one "not an alert record" error per dead
// letter), escaped for the terminal; --json gives headers and the whole
// value, base64 where it is not UTF-8.
func TestAlertsCommandReadsDeadLetters(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "edges-dlq", Partitions: 1})
	hdr := func(kv ...string) []kafka.Header {
		var hs []kafka.Header
		for i := 0; i < len(kv); i += 2 {
			hs = append(hs, kafka.Header{Key: kv[i], Value: []byte(kv[i+1])})
		}
		return hs
	}
	long := `{"src":"` + strings.Repeat("a", 300)
	kafkatest.Send(t, addrs, "edges-dlq", kafkatest.SendOptions{},
		kafka.Message{Value: []byte("{\"src\":\"\x1b[31mevil\","), Headers: hdr(kafka.HeaderReason, `decode: missing field "dst"`,
			kafka.HeaderSourceTopic, "edges", kafka.HeaderSourcePartition, "2", kafka.HeaderSourceOffset, "41",
			kafka.HeaderSourceTime, "2026-03-04T05:06:07Z")},
		kafka.Message{Value: []byte(long), Headers: hdr(kafka.HeaderReason, "oversize: 1048576 bytes",
			kafka.HeaderSourceTopic, "edges", kafka.HeaderSourcePartition, "0", kafka.HeaderSourceOffset, "7",
			kafka.HeaderTruncated, "value", kafka.HeaderOriginalSize, "1048576", kafka.HeaderOriginalSHA256, "9f00")},
		kafka.Message{Value: []byte{0xff, 0xfe, 'x'}, Headers: hdr(kafka.HeaderReason, "decode: invalid UTF-8")})

	var out, errOut testenv.SyncBuffer
	if err := alertsCmd(ctx, &out, &errOut, "--brokers", addrs[0], "--dead-letters"); err != nil {
		t.Fatalf("monitor alerts --dead-letters: %v\n%s", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"edges/2@41  decode: missing field \"dst\"  (partition 0, offset 0)\n  source time 2026-03-04T05:06:07Z\n  value {\"src\":\"\\x1b[31mevil\",\n",
		"edges/0@7  oversize: 1048576 bytes  (partition 0, offset 1)\n  truncated value, 1048576 bytes, sha256 9f00\n",
		"  value " + long[:200] + " … (108 more bytes)\n",
		"unknown source  decode: invalid UTF-8  (partition 0, offset 2)\n  value \\xff\\xfex\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, 0x1b) || errOut.String() != "" {
		t.Errorf("raw ESC printed, or errors %q:\n%s", errOut.String(), got)
	}

	var raw, rawErr testenv.SyncBuffer
	if err := alertsCmd(ctx, &raw, &rawErr, "--brokers", addrs[0], "--dead-letters", "--json"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(raw.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"motifwatch-reason":"decode: missing field \"dst\""`) ||
		!strings.Contains(lines[0], `"value":"{\"src\":\"\u001b[31mevil\","`) || !strings.Contains(lines[2], `"value_base64":"//54"`) {
		t.Errorf("--json printed:\n%s", raw.String())
	}
	if err := alertsCmd(ctx, &raw, &rawErr, "--brokers", addrs[0], "--dead-letters", "--query", "q"); err == nil {
		t.Errorf("--dead-letters --query accepted")
	}
}
