package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/motif"
)

// Reference commands: what a user looks up while writing a configuration
// or a query.

func newConfigCmd() *cobra.Command {
	var defaults bool
	cmd := &cobra.Command{
		Use:   "config --defaults",
		Short: "Print the full daemon configuration with its defaults",
		Long: `Print every key of the daemon's configuration (monitor run --config FILE)
with its default value, as a YAML file that loads as those defaults: a
starting point for your own. docs/CONFIG.md describes each key; 'monitor
validate FILE' checks a file.`,
		Example: `  monitor config --defaults > config.yaml
  monitor config --defaults | grep -A10 '^window:'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !defaults {
				return usageError{fmt.Errorf("config: give --defaults (the only form for now)")}
			}
			data, err := config.DefaultsYAML()
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), "# motifwatch configuration: every key at its default (docs/CONFIG.md)\n")
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	cmd.Flags().BoolVar(&defaults, "defaults", false, "print every key with its default value")
	return cmd
}

func newMotifsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "motifs",
		Short: "List the built-in motifs (--motif NAME) with their shapes",
		Long: `List the built-in motifs that 'monitor mine --motif NAME' and query files
take: Everest's benchmark motifs M1..M13, M4-A (M4 with an
anti-edge), SNAP's 36 three-edge motifs snap-i-j, the 16 four-node
paths path4-<ranks>-<dirs> (read a-b-c-d from the end whose edge comes
first: ranks are the edges' temporal ranks in that order, dirs f or b for
each edge along or against the reading; docs/QUERIES.md), the 32
four-cycles cycle4-<ranks>-<dirs> and the 160 paws (a triangle with a
tail) paw-<ranks>-<dirs>. Edges are
listed in temporal order: a match maps them to graph edges in increasing
time. None has a delta: give --delta (mine) or delta: (a query file).
Count-mode queries of SNAP's shapes, the paths, cycles and paws are
counted, not enumerated.`,
		Example: `  monitor motifs
  monitor motifs | grep snap-
  monitor motifs | grep path4-
  monitor motifs | grep -e cycle4- -e paw-`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printMotifs(cmd.OutOrStdout())
		},
	}
}

// printMotifs writes one line per built-in motif: name, node and edge
// counts, edges in temporal order, anti-edges.
func printMotifs(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNODES\tEDGES (in time order)\tANTI-EDGES")
	for _, name := range motif.BuiltinNames() {
		q, err := motif.Builtin(name)
		if err != nil {
			return err
		}
		edges := make([]string, len(q.Edges))
		for i, e := range q.Edges {
			edges[i] = q.Nodes[e.From].Name + "->" + q.Nodes[e.To].Name
		}
		anti := make([]string, len(q.AntiEdges))
		for i, a := range q.AntiEdges {
			anti[i] = fmt.Sprintf("no %s->%s after edge %d", q.Nodes[a.From].Name, q.Nodes[a.To].Name, a.After+1)
		}
		if len(anti) == 0 {
			anti = []string{"-"}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", name, len(q.Nodes), strings.Join(edges, ", "), strings.Join(anti, "; "))
	}
	return tw.Flush()
}
