package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
	"github.com/motifwatch/motifwatch/synth"
)

// produceCmd runs `monitor produce args...` in process and returns its
// stderr and error.
func produceCmd(ctx context.Context, args ...string) (string, error) {
	cmd := newProduceCmd()
	var errOut bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&errOut)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return errOut.String(), err
}

// embedded starts a broker with topics for one test.
func embedded(t *testing.T, topics ...kafka.TopicSpec) (context.Context, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx, kafkatest.StartBroker(t, topics...)
}

// record is a JSON edge record as produced.
type record struct {
	Src    string   `json:"src"`
	Dst    string   `json:"dst"`
	T      int64    `json:"t"`
	Seq    *int64   `json:"seq"`
	Amount *float64 `json:"amount"`
}

func TestProduceFileToTopic(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "edges", Partitions: 3})
	// cycle.txt: a small graph of transfers with amounts.
	errOut, err := produceCmd(ctx, "--file", "testdata/cycle.txt", "--brokers", strings.Join(addrs, ","), "--progress", "1ns")
	if err != nil {
		t.Fatalf("produce: %v\n%s", err, errOut)
	}
	msgs := kafkatest.ReadTopic(t, addrs, "edges")
	if want := fmt.Sprintf("produced %d records to topic edges in ", len(msgs)); !strings.Contains(errOut, want) || len(msgs) == 0 {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if !strings.Contains(errOut, "producing to edges: ") {
		t.Errorf("no progress line in stderr:\n%s", errOut)
	}
	seen := map[int64]bool{}
	last := map[int]int64{}
	for _, m := range msgs {
		var r record
		if err := json.Unmarshal(m.Value, &r); err != nil || r.Seq == nil || r.Amount == nil {
			t.Fatalf("record %s: %v (want src, dst, t, seq and amount)", m.Value, err)
		}
		if seen[*r.Seq] {
			t.Errorf("seq %d twice", *r.Seq)
		}
		seen[*r.Seq] = true
		if l, ok := last[m.Partition]; ok && *r.Seq <= l {
			t.Errorf("partition %d: seq %d after %d", m.Partition, *r.Seq, l)
		}
		last[m.Partition] = *r.Seq
		if string(m.Key) != r.Src {
			t.Errorf("record %s has key %q; want its source", m.Value, m.Key)
		}
		if !m.Time.Equal(time.Unix(r.T, 0)) {
			t.Errorf("record %s has time %v; want t seconds after the epoch", m.Value, m.Time)
		}
	}
	for i := range int64(len(msgs)) {
		if !seen[i] {
			t.Errorf("seq %d missing", i)
		}
	}
}

func TestProduceCSVCreatesTopic(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "edges.txt")
	text := "src,dst,t,amount,channel\nb,c,20,5,card\na,b,10,2000,wire\nc,a,20,7,wire\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut, err := produceCmd(ctx, "--file", file, "--brokers", addrs[0], "--topic", "csv-edges", "--partitions", "2",
		"--format", "csv", "--partitions-by", "roundrobin", "--seq=false", "--time-unit", "1ms")
	if err != nil {
		t.Fatalf("produce: %v\n%s", err, errOut)
	}
	msgs := kafkatest.ReadTopic(t, addrs, "csv-edges")
	got := map[string]bool{}
	parts := map[int]bool{}
	for _, m := range msgs {
		got[string(m.Value)] = true
		parts[m.Partition] = true
		if m.Key != nil {
			t.Errorf("record %s has key %q; want none with roundrobin", m.Value, m.Key)
		}
	}
	want := map[string]bool{"a,b,10,2000,wire": true, "b,c,20,5,card": true, "c,a,20,7,wire": true}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(parts) != 2 {
		t.Errorf("records %v in partitions %v; want %v over 2 partitions", got, parts, want)
	}
}

func TestProduceRate(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "edges"})
	dir := t.TempDir()
	file := filepath.Join(dir, "edges.txt")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "n%d n%d %d\n", i, i+1, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// 100/s, burst 5: 40 records take at least 350 ms.
	if errOut, err := produceCmd(ctx, "--file", file, "--brokers", addrs[0], "--rate", "100"); err != nil {
		t.Fatalf("produce: %v\n%s", err, errOut)
	}
	if took := time.Since(start); took < 350*time.Millisecond {
		t.Errorf("40 records at --rate 100 took %v; want at least 350ms", took)
	}
	if n := len(kafkatest.ReadTopic(t, addrs, "edges")); n != 40 {
		t.Errorf("topic holds %d records; want 40", n)
	}
}

func TestProduceDemoFeed(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "edges", Partitions: 2})
	errOut, err := produceCmd(ctx, "--demo", "--edges", "300", "--speedup", "1e6", "--brokers", addrs[0])
	if err != nil {
		t.Fatalf("produce --demo: %v\n%s", err, errOut)
	}
	msgs := kafkatest.ReadTopic(t, addrs, "edges")
	if len(msgs) != 300 {
		t.Fatalf("topic holds %d records; want 300", len(msgs))
	}
	// The records are the feed's, amounts included.
	cfg := synth.DefaultFeed(1)
	cfg.Edges = 300
	feed, err := synth.NewFeed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[int64]record{}
	for _, m := range msgs {
		var r record
		if err := json.Unmarshal(m.Value, &r); err != nil || r.Seq == nil || r.Amount == nil {
			t.Fatalf("record %s: %v", m.Value, err)
		}
		bySeq[*r.Seq] = r
	}
	planted := 0
	for e := range feed.All() {
		r := bySeq[e.Seq]
		if r.Src != e.Src || r.Dst != e.Dst || r.T != e.T.Unix() || *r.Amount != e.Amount {
			t.Fatalf("seq %d: record %+v; feed edge %+v", e.Seq, r, e)
		}
		if e.Planted != "" {
			planted++
		}
	}
	if planted == 0 {
		t.Error("the first 300 demo edges hold no planted pattern")
	}
}

func TestProduceDemoStopsOnInterrupt(t *testing.T) {
	t.Parallel()
	ctx, addrs := embedded(t, kafka.TopicSpec{Name: "edges"})
	short, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	// Endless at the default pace: interruption is the normal end.
	errOut, err := produceCmd(short, "--demo", "--brokers", addrs[0])
	if err != nil {
		t.Fatalf("interrupted endless demo: %v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "produced ") {
		t.Errorf("no summary after interruption:\n%s", errOut)
	}
}

func TestProduceBadUsage(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"--brokers", "h:1"},
		{"--file", "f", "--demo", "--brokers", "h:1"},
		{"--file", "f"},
		{"--file", "f", "--brokers", "embedded"},
		{"--file", "f", "--brokers", "nohost"},
		{"--file", "f", "--brokers", "h:1", "--format", "xml"},
		{"--file", "f", "--brokers", "h:1", "--partitions-by", "dst"},
		{"--file", "f", "--brokers", "h:1", "--rate", "-1"},
		{"--file", "f", "--brokers", "h:1", "--speedup", "-2"},
		{"--file", "f", "--brokers", "h:1", "--rate", "10", "--speedup", "2"},
		{"--file", "f", "--brokers", "h:1", "--time-unit", "0s"},
		{"--file", "f", "--brokers", "h:1", "--partitions", "-1"},
		{"--file", "f", "--brokers", "h:1", "--batch", "0"},
		{"--file", "f", "--brokers", "h:1", "--edges", "5"},
		{"--demo", "--brokers", "h:1", "--edges", "-5"},
		{"--file", "f", "--brokers", "h:1", "--rate", "fast"},
		{"--file", "f", "--brokers", "h:1", "--bogus"},
		{"--brokers", "h:1", "edges.txt"},
	} {
		_, err := produceCmd(ctx, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("produce %v = %v; want a usage error (exit 2)", args, err)
		}
	}
}

func TestProduceRuntimeErrors(t *testing.T) {
	ctx, addrs := embedded(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--file", "testdata/cycle.txt", "--brokers", addrs[0], "--topic", "nope"}, `topic "nope" does not exist`},
		{[]string{"--file", "testdata/missing.txt", "--brokers", addrs[0]}, "missing.txt"},
		{[]string{"--file", "testdata/bad-graph.txt", "--brokers", addrs[0]}, "bad-graph.txt:"},
	} {
		_, err := produceCmd(ctx, c.args...)
		var ue usageError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("produce %v = %v; want a runtime error containing %q", c.args, err, c.want)
		}
	}
}
