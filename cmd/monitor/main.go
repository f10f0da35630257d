// Command monitor is motifwatch's single binary: the streaming daemon and
// the batch miners. main only wires subcommands; the work lives in the
// packages.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	// First of the module's packages to initialise: no collection until
	// the heap nears its floor (a small run never collects).
	_ "github.com/motifwatch/motifwatch/internal/gcfloor"

	"github.com/motifwatch/motifwatch/internal/buildinfo"
	"github.com/motifwatch/motifwatch/kafka"
)

// version is the build's identity line (internal/buildinfo): version,
// VCS revision, commit time and Go version.
var version = buildinfo.Read().String()

// Exit statuses (README "Mining a file"): 2 for bad usage, 1 for runtime
// errors, 130 after an interrupt (128 + SIGINT, as shells report it).
const (
	exitRuntime     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks errors in how the command was called (exit status 2).
type usageError struct{ error }

// interruptedError marks a run stopped by Ctrl-C or SIGTERM after it
// printed its partial result (exit status 130).
type interruptedError struct{ error }

func main() {
	// Ctrl-C and SIGTERM cancel every command's context: run shuts down
	// cleanly, the batch commands print what they have (exit status 130).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the command line args and returns the exit status; tests
// call it in-process.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "monitor:", kafka.CleanError(err))
	return exitCode(err)
}

// exitCode maps an error of a command to the process's exit status.
func exitCode(err error) int {
	var ue usageError
	var ie interruptedError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ie):
		return exitInterrupted
	case strings.HasPrefix(err.Error(), "unknown command "):
		// cobra's own error for `monitor nosuch`: it has no type to match.
		return exitUsage
	}
	return exitRuntime
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "monitor",
		Short:         "motifwatch: temporal-motif monitoring of edge streams",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("motifwatch {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{flagError(err)} })
	// One line per command: other branches add theirs here.
	root.AddCommand(newRunCmd())
	root.AddCommand(newMineCmd())
	root.AddCommand(newGpmCmd())
	root.AddCommand(newProduceCmd())
	root.AddCommand(newBenchCmd())
	root.AddCommand(newBrokerCmd())
	root.AddCommand(newValidateCmd())
	root.AddCommand(newAlertsCmd())
	root.AddCommand(newConfigCmd())
	root.AddCommand(newMotifsCmd())
	root.AddCommand(newVersionCmd())
	registerCompletions(root)
	return root
}

// parseErrRE matches the strconv and time errors that pflag passes on for
// a bad flag value ("strconv.ParseInt: parsing \"x\": invalid syntax").
// Compiled on first use (a bad flag), not at every start.
var parseErrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(strconv\.Parse(Int|Uint|Float|Bool): parsing "[^"]*": (invalid syntax|value out of range))|(time: invalid duration "[^"]*")|(time: missing unit in duration "[^"]*")`)
})

// flagError words a flag-parsing error for people: the library's parse
// error after the value becomes what the value should be.
func flagError(err error) error {
	msg := parseErrRE().ReplaceAllStringFunc(err.Error(), func(m string) string {
		switch {
		case strings.HasSuffix(m, "value out of range"):
			return "out of range"
		case strings.Contains(m, "ParseInt"), strings.Contains(m, "ParseUint"):
			return "want an integer"
		case strings.Contains(m, "ParseFloat"):
			return "want a number"
		case strings.Contains(m, "ParseBool"):
			return "want true or false"
		}
		return "want a duration like 500ms, 5s or 1h"
	})
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// noArgs rejects positional arguments as bad usage (exit status 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q (every input is a flag; see --help)", cmd.Name(), args[0])}
	}
	return nil
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Example: "  monitor version\n  monitor --version",
		Args:    noArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "motifwatch", version)
		},
	}
}
