// Command monitor is motifwatch's single binary: the streaming daemon and
// the batch miners. main only wires subcommands; the work lives in the
// packages.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// usageError marks errors in how the command was called (exit status 2).
type usageError struct{ error }

func main() {
	root := &cobra.Command{
		Use:           "monitor",
		Short:         "motifwatch: temporal-motif monitoring of edge streams",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCmd(), newMineCmd(), newGpmCmd(), newProduceCmd(), newBrokerCmd(), newValidateCmd(), newAlertsCmd(), newVersionCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "monitor:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "motifwatch", version)
		},
	}
}
