package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/kafka"
)

// alertsOptions are the flags of `monitor alerts`.
type alertsOptions struct {
	config  string
	brokers []string
	topic   string
	follow  bool
	json    bool
	query   string
	// deadLetters reads the dead-letter topic instead: each record's
	// source, reason and value.
	deadLetters bool
}

func newAlertsCmd() *cobra.Command {
	o := alertsOptions{}
	cmd := &cobra.Command{
		Use:   "alerts (--brokers HOST:PORT[,...] | --config FILE) [--topic T] [--follow]",
		Short: "Print the alert topic readably (like kcat -C)",
		Long: `Read the daemon's alert topic from the beginning and print every record
readably: one header line per record (detection time, kind, query, id),
then the motif's nodes and the matched edges with their times and
attributes. Incident records (queries with group_by) show the grouped
nodes, the match count and the time span; count and rate_limited records
their interval.

--dead-letters reads the dead-letter topic instead (the config's
kafka.dead_letter_topic, or edges-dlq): per record the source topic,
partition and offset, the reason it was refused, the source time, whether
it was truncated, and the start of the value.

Without --follow it prints what the topic held when it started and exits;
with --follow it keeps printing new records until interrupted. --json
prints the records, one per line. --config takes the brokers, the alert
topic and TLS/SASL from a daemon configuration file.

Ids, names and values come from the edge producers and the query authors:
characters a terminal would act on rather than show (escape sequences,
line breaks, DEL, C1 controls, bidi overrides, the Unicode line
separators) are printed as escapes (\x1b, \n, \u202e). --json writes
them as JSON \u escapes, so each line still decodes to the record's exact
values.`,
		Example: `  monitor alerts --brokers kafka-1:9092
  monitor alerts --brokers kafka-1:9092 --topic motif-alerts --follow
  monitor alerts --config config.yaml --follow --query money-ring
  monitor alerts --brokers kafka-1:9092 --json | jq .match_id
  monitor alerts --config config.yaml --dead-letters`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAlerts(cmd.Context(), cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "daemon configuration file: brokers, alert topic, TLS and SASL from it")
	f.StringSliceVar(&o.brokers, "brokers", nil, "Kafka bootstrap brokers, host:port[,...]")
	f.StringVar(&o.topic, "topic", "", "alert topic (default: the config's kafka.alert_topic, or motif-alerts)")
	f.BoolVar(&o.follow, "follow", false, "keep printing new records until interrupted")
	f.BoolVar(&o.json, "json", false, "print the raw JSON records, one per line")
	f.StringVar(&o.query, "query", "", "print only the records of this query")
	f.BoolVar(&o.deadLetters, "dead-letters", false, "read the dead-letter topic: each refused record's source, reason and value")
	return cmd
}

func runAlerts(ctx context.Context, cmd *cobra.Command, o alertsOptions) error {
	ropts := kafka.AlertReadOptions{Brokers: o.brokers, Topic: o.topic, Follow: o.follow, Undecoded: o.deadLetters}
	if o.deadLetters && o.query != "" {
		return usageError{fmt.Errorf("--dead-letters and --query: dead letters belong to no query")}
	}
	switch {
	case o.config != "" && len(o.brokers) > 0:
		return usageError{fmt.Errorf("--config and --brokers: give one (--config takes the brokers from the file)")}
	case o.config != "":
		cfg, err := config.Load(o.config)
		if err != nil {
			return err
		}
		if cfg.Embedded() {
			return fmt.Errorf("%s: kafka.brokers is embedded: the embedded broker lives inside the daemon's process; give its address with --brokers (logged at start as \"embedded Kafka broker started\")", o.config)
		}
		ropts.Brokers = cfg.Kafka.Brokers
		if ropts.Topic == "" {
			ropts.Topic = cfg.Kafka.AlertTopic
			if o.deadLetters {
				ropts.Topic = cfg.Kafka.DeadLetterTopic
			}
		}
		if ropts.Transport, ropts.Dialer, err = kafka.Clients(daemon.KafkaClientOptions(&cfg.Kafka)); err != nil {
			return fmt.Errorf("%s: kafka.tls, kafka.sasl: %w", o.config, err)
		}
	case len(o.brokers) == 0:
		return usageError{fmt.Errorf("no brokers: give --brokers HOST:PORT[,...] or --config FILE")}
	}
	if ropts.Topic == "" {
		ropts.Topic = config.DefaultConfig().Kafka.AlertTopic
		if o.deadLetters {
			ropts.Topic = config.DefaultConfig().Kafka.DeadLetterTopic
		}
	}
	out := cmd.OutOrStdout()
	errOut := cmd.ErrOrStderr()
	if o.deadLetters {
		return kafka.ReadAlerts(ctx, ropts, func(r kafka.AlertRecord) error {
			if o.json {
				return printDeadLetterJSON(out, &r)
			}
			return printDeadLetter(out, &r)
		})
	}
	return kafka.ReadAlerts(ctx, ropts, func(r kafka.AlertRecord) error {
		if r.Err != nil {
			fmt.Fprintln(errOut, "monitor alerts:", termText(r.Err.Error()))
			return nil
		}
		if o.query != "" && r.Alert.Query != o.query {
			return nil
		}
		if o.json {
			line, err := jsonLine(r.Value)
			if err != nil { // cannot be: the record was decoded
				return fmt.Errorf("partition %d offset %d: %w", r.Partition, r.Offset, err)
			}
			_, err = fmt.Fprintf(out, "%s\n", line)
			return err
		}
		return printAlert(out, &r)
	})
}

// printAlert writes one record readably, every field from the record
// through termText (termtext.go):
//
//	2026-01-02T03:04:05.123Z  match  money-ring  8af06d9b1114…  (p1@42)
//	  money goes A→B→C→A within 10 minutes, …
//	  nodes  A=acct-1 B=acct-2 C=acct-3
//	  1  acct-1 -> acct-2  2026-01-02T03:01:00Z  amount=1500
func printAlert(w io.Writer, r *kafka.AlertRecord) error {
	a := &r.Alert
	var b strings.Builder
	id := a.MatchID
	if a.Kind == alerts.KindIncident {
		id = a.IncidentID
	}
	fmt.Fprintf(&b, "%s  %s  %s", a.DetectedAt.UTC().Format("2006-01-02T15:04:05.000Z"), termText(string(a.Kind)), termText(a.Query))
	if id != "" {
		fmt.Fprintf(&b, "  %s", termText(id))
	}
	if a.Provisional {
		b.WriteString("  provisional")
	}
	fmt.Fprintf(&b, "  (partition %d, offset %d)\n", r.Partition, r.Offset)
	if a.Description != "" {
		fmt.Fprintf(&b, "  %s\n", termText(a.Description))
	}
	routing(&b, a)
	switch a.Kind {
	case alerts.KindMatch, alerts.KindIncident:
		if a.Kind == alerts.KindIncident {
			fmt.Fprintf(&b, "  %s, edges %s → %s, open %s – %s\n", matchesText(a.Count), tickOrTime(a.First, a.FirstTime),
				tickOrTime(a.Last, a.LastTime), a.From.UTC().Format(time.TimeOnly), a.To.UTC().Format(time.TimeOnly))
		}
		if len(a.Nodes) > 0 {
			fmt.Fprintf(&b, "  nodes  %s\n", termText(alerts.NodesText(a.Nodes)))
		}
		for i, e := range a.Edges {
			fmt.Fprintf(&b, "  %d  %s -> %s  %s", i+1, termText(e.Src), termText(e.Dst), tickOrTime(e.T, e.Time))
			if attrs := attrList(e.Attrs); attrs != "" {
				fmt.Fprintf(&b, "  %s", attrs)
			}
			b.WriteByte('\n')
		}
		if a.Kind == alerts.KindIncident {
			matchIDs(&b, a)
		}
	default:
		what := "matches"
		if a.Kind == alerts.KindRateLimited {
			what = "match alerts held back by the rate limit"
		}
		fmt.Fprintf(&b, "  %d %s in [%s, %s)\n", a.Count, what, a.From.UTC().Format(time.RFC3339), a.To.UTC().Format(time.RFC3339))
		matchIDs(&b, a)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// routing writes what a record carries for routing, when it does (older
// records carry none of it):
//
//	severity page  team=fraud  from mw-0 (topic edges, group motifwatch)
//	summary  money-ring: acct-1 → acct-2 → acct-3
//	runbook_url  https://runbooks.example/money-ring
//	status  http://mw-0:9464/
func routing(b *strings.Builder, a *alerts.Alert) {
	var head []string
	if a.Severity != "" {
		head = append(head, "severity "+termText(a.Severity))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Labels)) {
		head = append(head, termText(k+"="+a.Labels[k]))
	}
	if s := a.Source; s != (alerts.Source{}) {
		head = append(head, termText(fmt.Sprintf("from %s (topic %s, group %s)", s.Instance, s.Topic, s.Group)))
	}
	if len(head) > 0 {
		fmt.Fprintf(b, "  %s\n", strings.Join(head, "  "))
	}
	names := slices.Sorted(maps.Keys(a.Annotations))
	if i := slices.Index(names, "summary"); i > 0 { // the summary first
		names = append(append([]string{"summary"}, names[:i]...), names[i+1:]...)
	}
	for _, k := range names {
		fmt.Fprintf(b, "  %s  %s\n", termText(k), termText(a.Annotations[k]))
	}
	if a.StatusURL != "" {
		fmt.Fprintf(b, "  status  %s\n", termText(a.StatusURL))
	}
}

// matchIDs writes the match ids an incident or rate_limited record
// lists, and how many it left out.
func matchIDs(b *strings.Builder, a *alerts.Alert) {
	if len(a.MatchIDs) == 0 {
		return
	}
	b.WriteString("  match ids ")
	for _, id := range a.MatchIDs {
		b.WriteString(" ")
		b.WriteString(termText(id))
	}
	if a.MatchIDsOmitted > 0 {
		fmt.Fprintf(b, " (%d more not listed)", a.MatchIDsOmitted)
	}
	b.WriteByte('\n')
}

func tickOrTime(t int64, iso string) string {
	if iso != "" {
		return termText(iso)
	}
	return "t=" + strconv.FormatInt(t, 10)
}

func attrList(m map[string]any) string {
	names := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = termText(fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// matchesText renders "1 match", "15 matches".
func matchesText(n int64) string {
	if n == 1 {
		return "1 match"
	}
	return strconv.FormatInt(n, 10) + " matches"
}

// deadLetterValueShown is how much of a dead letter's value is printed.
const deadLetterValueShown = 200

// printDeadLetter writes one dead letter readably, every field through
// termText:
//
//	edges/0@5  decode: missing field "dst"  (partition 0, offset 3)
//	  source time 2026-01-02T03:04:05Z  truncated value, 1048176 bytes, sha256 9f…
//	  value {"src":"a",
func printDeadLetter(w io.Writer, r *kafka.AlertRecord) error {
	h := r.Headers
	var b strings.Builder
	source := "unknown source"
	if h[kafka.HeaderSourceTopic] != "" {
		source = fmt.Sprintf("%s/%s@%s", h[kafka.HeaderSourceTopic], h[kafka.HeaderSourcePartition], h[kafka.HeaderSourceOffset])
	}
	reason := h[kafka.HeaderReason]
	if reason == "" {
		reason = "no reason given (not written by motifwatch?)"
	}
	fmt.Fprintf(&b, "%s  %s  (partition %d, offset %d)\n", termText(source), termText(reason), r.Partition, r.Offset)
	var facts []string
	if t := h[kafka.HeaderSourceTime]; t != "" {
		facts = append(facts, "source time "+termText(t))
	}
	if cut := h[kafka.HeaderTruncated]; cut != "" {
		facts = append(facts, fmt.Sprintf("truncated %s, %s bytes, sha256 %s", termText(cut), termText(h[kafka.HeaderOriginalSize]),
			termText(h[kafka.HeaderOriginalSHA256])))
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(facts, "  "))
	}
	v := r.Value
	more := ""
	if len(v) > deadLetterValueShown {
		more = fmt.Sprintf(" … (%d more bytes)", len(v)-deadLetterValueShown)
		v = v[:deadLetterValueShown]
	}
	fmt.Fprintf(&b, "  value %s%s\n", termText(string(v)), more)
	_, err := io.WriteString(w, b.String())
	return err
}

// printDeadLetterJSON writes one dead letter as a JSON line: where it is,
// its headers and its whole value (a string when it is valid UTF-8, else
// base64 under value_base64).
func printDeadLetterJSON(w io.Writer, r *kafka.AlertRecord) error {
	rec := struct {
		Partition   int               `json:"partition"`
		Offset      int64             `json:"offset"`
		Headers     map[string]string `json:"headers,omitempty"`
		Value       *string           `json:"value,omitempty"`
		ValueBase64 []byte            `json:"value_base64,omitempty"`
	}{Partition: r.Partition, Offset: r.Offset, Headers: r.Headers}
	if utf8.Valid(r.Value) {
		v := string(r.Value)
		rec.Value = &v
	} else {
		rec.ValueBase64 = r.Value
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line, err := jsonLine(raw)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", line)
	return err
}
