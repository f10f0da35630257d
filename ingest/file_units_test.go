package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadCountsEmptyAttributeValues(t *testing.T) {
	in := "src,dst,t,amount,currency\na,b,10,5,EUR\nb,c,11,,USD\nc,a,12,7,\n"
	_, st, err := Load(strings.NewReader(in), "pay.csv", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.EmptyValues != 2 || st.FirstEmpty == nil {
		t.Fatalf("EmptyValues = %d, FirstEmpty = %v; want 2 and line 3", st.EmptyValues, st.FirstEmpty)
	}
	if got, want := st.FirstEmpty.Error(), `pay.csv:3: attribute "amount" is empty (missing on this edge)`; got != want {
		t.Errorf("FirstEmpty = %q; want %q", got, want)
	}
}

func TestLoadCountsEmptyNodeValues(t *testing.T) {
	nodes := filepath.Join(t.TempDir(), "nodes.txt")
	if err := os.WriteFile(nodes, []byte("id,label,risk\na,acct,0.5\nb,,0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, st, err := Load(strings.NewReader("a b 1\n"), "e.txt", FileOptions{NodeFile: nodes})
	if err != nil {
		t.Fatal(err)
	}
	if want := nodes + `:3: node attribute "label" is empty (missing on this node)`; st.EmptyValues != 1 || st.FirstEmpty == nil || st.FirstEmpty.Error() != want {
		t.Errorf("EmptyValues = %d, FirstEmpty = %v; want 1 and %q", st.EmptyValues, st.FirstEmpty, want)
	}
}

func TestLoadKeepsLargestTimestamp(t *testing.T) {
	_, st, err := Load(strings.NewReader("a b 1700000000000\nb c -1700000000001\nc a 5\n"), "x", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.LargestT != -1700000000001 || st.LargestTLine != 2 {
		t.Errorf("LargestT = %d at line %d; want -1700000000001 at line 2", st.LargestT, st.LargestTLine)
	}
}

func TestSuspectTimeUnit(t *testing.T) {
	for _, c := range []struct {
		t    int64
		unit time.Duration
		want string
	}{
		{1_700_000_000, time.Second, ""},                 // seconds: fine
		{1_700_000_000_000, time.Second, "1ms"},          // 13 digits
		{1_700_000_000_000_000, time.Second, "1µs"},      // 16 digits
		{1_700_000_000_000_000_000, time.Second, "1ns"},  // 19 digits
		{1_700_000_000_000, time.Millisecond, ""},        // ms given as ms
		{1_700_000_000_000_000, time.Millisecond, "1µs"}, // µs given as ms
		{1_700_000_000_000_000_000, time.Nanosecond, ""}, // ns: finest
		{86_400 * 365 * 50, time.Second, ""},             // 50 years of seconds
		{-1_700_000_000_000, time.Second, "1ms"},         // sign does not matter
		{123, 0, ""},                                     // no unit
	} {
		got, ok := SuspectTimeUnit(c.t, c.unit)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("SuspectTimeUnit(%d, %v) = %q, %v; want %q", c.t, c.unit, got, ok, c.want)
		}
	}
}
