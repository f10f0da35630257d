package main

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// bigTransfers is the README's kind of query: it needs an amount
// attribute, which the input of TestMissingAttributeIsSaid lacks.
const bigTransfers = `queries:
  - name: big-transfers
    delta: 10m
    edges: [A -> B, B -> C]
    where: amount > 1000
`

// TestMissingAttributeIsSaid is issue 26 item 3: a query that needs an
// attribute no record carries ran silently with 0 matches (monitor mine
// refuses it: "the graph has no edge attribute"). The daemon now says so
// once, naming the query and the attribute, after enough records, and
// sets motifwatch_query_attribute_missing{query,attribute}.
func TestMissingAttributeIsSaid(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end over the embedded broker")
	}
	brokers := kafkatest.StartBroker(t)
	queries := writeQueries(t, bigTransfers)
	var logs testenv.SyncBuffer
	cfg := strings.Replace(e2eConfig(brokers, "noamount", queries, 0), "  per_query:\n    path-count: {mode: count}\n", "", 1)
	d := startDaemonWith(t, cfg, newTestLogger(&logs))
	records := func(yield func(kafka.Record) bool) {
		for i := range 3000 {
			if !yield(kafka.Record{Src: fmt.Sprintf("n%d", i%50), Dst: fmt.Sprintf("n%d", (i*7+1)%50), T: 1000 + int64(i), Seq: int64(i)}) {
				return
			}
		}
	}
	produce(t, brokers, iter.Seq[kafka.Record](records))
	const want = `msg="query needs an edge attribute that no record has carried" query=big-transfers attribute=amount`
	if !testenv.Poll(60*time.Second, 100*time.Millisecond, func() bool { return strings.Contains(logs.String(), want) }) {
		t.Fatalf("after 60s the log has no %q:\n%s", want, logs.String())
	}
	m := testenv.Scrape(t, d.info.MetricsAddr)
	if got := m[`motifwatch_query_attribute_missing{attribute="amount",query="big-transfers"}`]; got != 1 {
		t.Errorf(`motifwatch_query_attribute_missing{attribute="amount",query="big-transfers"} = %v; want 1`, got)
	}
	if n := strings.Count(logs.String(), want); n != 1 {
		t.Errorf("the warning is logged %d times; want once", n)
	}
}

// TestValidateWarnsOfImpossibleAttribute: with CSV input whose columns
// do not hold an attribute a query needs, no record can carry it:
// monitor validate says so (a warning naming query and attribute; the
// file is still valid, as monitor run accepts it).
func TestValidateWarnsOfImpossibleAttribute(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.yaml")
	if err := os.WriteFile(q, []byte(bigTransfers), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "c.yaml")
	body := "demo: false\ninput:\n  format: csv\n  csv_columns: [src, dst, t]\nqueries:\n  files: [" + q + "]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := validateCmd(t, cfg)
	want := `warning: ` + q + `:2: query "big-transfers": queries[0].where: "amount > 1000": edge attribute "amount" is in no record: input.csv_columns [src dst t] has no "amount" column`
	if code != 0 || !strings.Contains(out, "config OK") || !strings.Contains(errOut, want) {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, errOut, want)
	}
	// With the column, no warning.
	if err := os.WriteFile(cfg, []byte(strings.Replace(body, "[src, dst, t]", "[src, dst, t, amount]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := validateCmd(t, cfg); code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("validate with an amount column: exit %d, stderr %q; want no warning", code, errOut)
	}
}
