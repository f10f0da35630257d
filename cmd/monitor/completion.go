package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/motif"
)

// Shell completion: cobra's `monitor completion bash|zsh|fish|powershell`
// writes the script, which asks the binary (`monitor __complete …`) for
// commands, flags and, through the functions registered here, flag
// values: the choices of enum flags, YAML files for configurations and
// queries, any file for inputs and outputs, directories for caches.
// Every other flag takes a number, a duration or a name: no file names.

// flagChoices are the values of enum flags, by command ("" for any).
var flagChoices = map[string]map[string][]string{
	"": {
		"backend":       backend.Names(),
		"app":           {string(gpm.Clique), string(gpm.Motif)},
		"balance":       {"on", "off"},
		"cliques":       {"pa", "dm"},
		"partitions-by": {"src", "roundrobin"},
	},
	"mine":    {"format": formats},
	"gpm":     {"format": formats},
	"bench":   {"format": {"table", "json"}},
	"produce": {"format": {"json", "csv"}},
}

// yamlFlags take a YAML file; fileFlags any file; dirFlags a directory.
var (
	yamlFlags = map[string]bool{"config": true, "query": true, "queries": true}
	fileFlags = map[string]bool{"graph": true, "nodes": true, "file": true, "cpuprofile": true, "trace": true}
	dirFlags  = map[string]bool{"cache": true, "dir": true}
)

// notFiles are string flags whose values are names, not files.
var notFiles = map[string]map[string]bool{"alerts": {"query": true}}

// registerCompletions gives every flag of cmd and its subcommands the
// completion of its values.
func registerCompletions(cmd *cobra.Command) {
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			return // no value to complete
		}
		cmd.RegisterFlagCompletionFunc(f.Name, flagCompletion(cmd.Name(), f.Name))
	})
	for _, c := range cmd.Commands() {
		registerCompletions(c)
	}
}

// flagCompletion is the completion of the values of command's flag.
func flagCompletion(command, flag string) cobra.CompletionFunc {
	choices, ok := flagChoices[command][flag]
	if !ok {
		choices, ok = flagChoices[""][flag]
	}
	switch {
	case ok:
		return cobra.FixedCompletions(choices, cobra.ShellCompDirectiveNoFileComp)
	case flag == "motif":
		return completeMotifs
	case notFiles[command][flag]:
	case yamlFlags[flag]:
		return yamlFiles
	case fileFlags[flag]:
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		}
	case dirFlags[flag]:
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	}
	return cobra.NoFileCompletions
}

// yamlFiles completes file names ending in .yaml or .yml.
func yamlFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeMotifs completes --motif's built-in names, after the names
// already given in a comma-separated list (--motif M4,M4-A).
func completeMotifs(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	given, last := cutLast(toComplete, ",")
	var out []cobra.Completion
	for _, name := range motif.BuiltinNames() {
		if strings.HasPrefix(name, last) {
			out = append(out, given+name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// cutLast splits s after its last sep: "M1,M4,M" → "M1,M4,", "M".
func cutLast(s, sep string) (before, after string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i+len(sep)], s[i+len(sep):]
}
