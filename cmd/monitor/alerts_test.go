package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/kafka"
	"github.com/motifwatch/motifwatch/internal/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/internal/testenv"
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

// TestAlertsCommandFollow checks that --follow prints records written
// after it started, and stops cleanly when interrupted.
func TestAlertsCommandFollow(t *testing.T) {
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
