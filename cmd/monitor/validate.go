package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/motif"
)

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "validate FILE",
		ValidArgsFunction: yamlFiles,
		Short:             "Check a daemon config file and its queries",
		Long: `Check a config file of 'monitor run' the way the daemon reads it at start:
strict decoding (unknown keys are errors), environment overrides
(MONITOR_<SECTION>_<KEY>), every validation rule, the query files and inline
queries, the window schema they need, and every query compiled against it.

On success it prints one line: the queries, the window span (the largest
query delta plus window.allowed_lateness) and the brokers. Otherwise it
prints every problem found, one per line with file, line and field, and
exits with status 1. Settings that are allowed but unsafe (TLS without
certificate checks, SASL plain allowed without TLS, a password in a file
that group or others can read, a query attribute that no CSV column holds)
are printed to stderr as warnings, without failing.`,
		Example: `  monitor validate config.yaml
  MONITOR_KAFKA_BROKERS=kafka-1:9092 monitor validate config.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] == "" {
				return usageError{fmt.Errorf("validate: give one config file: monitor validate FILE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

func runValidate(path string, stdout, stderr io.Writer) error {
	cfg, err := loadRunConfig(path)
	var queries []*motif.Query
	if err == nil {
		for _, w := range cfg.Warnings() {
			fmt.Fprintln(stderr, "warning:", w)
		}
		queries, _, err = daemon.Check(cfg)
	}
	if err == nil {
		for _, w := range cfg.QueryWarnings(queries) {
			fmt.Fprintln(stderr, "warning:", w)
		}
	}
	if err != nil {
		problems := leafErrors(err)
		for _, p := range problems {
			fmt.Fprintln(stderr, p)
		}
		return fmt.Errorf("validate: %s: %s", path, plural(len(problems), "problem"))
	}
	fmt.Fprintln(stdout, validateSummary(cfg, queries))
	fmt.Fprintln(stdout, memorySummary(cfg))
	return nil
}

// memorySummary is the line `monitor validate` prints about the memory
// budget (docs/CONFIG.md, Memory): size a container's limit from it.
func memorySummary(cfg *config.Config) string {
	b, ok := cfg.MemoryBudget()
	if !ok {
		return "memory budget: none (a cap it needs is 0: window.max_bytes, window.max_buffered_bytes or kafka.embedded.retention_bytes); memory grows with the input"
	}
	return "memory budget: " + b.String() + ": monitor run's Go memory limit (docs/CONFIG.md, Memory); give the process 1.5× it"
}

// validateSummary is the line `monitor validate` prints for a good config:
// "config OK: 2 queries (a, b), window span 10m5s (largest delta 10m),
// brokers embedded".
func validateSummary(cfg *config.Config, queries []*motif.Query) string {
	names := make([]string, len(queries))
	for i, q := range queries {
		names[i] = q.Name
	}
	brokers := strings.Join(cfg.Kafka.Brokers, ",")
	if cfg.Embedded() && cfg.Kafka.Embedded.Dir != "" {
		brokers += " (data in " + cfg.Kafka.Embedded.Dir + ")"
	}
	if cfg.DemoEnabled() {
		brokers += " with the demo feed"
	}
	return fmt.Sprintf("config OK: %s (%s), window span %s (largest delta %s), brokers %s",
		plural(len(queries), "query"), strings.Join(names, ", "),
		motif.DurationSpan(cfg.WindowSpan(queries)), motif.DurationSpan(cfg.MaxDelta(queries)), brokers)
}

// leafErrors lists the errors inside errors.Join trees.
func leafErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// plural renders "1 query", "2 queries", "3 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
