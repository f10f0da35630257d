package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/motifwatch/motifwatch/gpm"
	"github.com/motifwatch/motifwatch/internal/backend"
	"github.com/motifwatch/motifwatch/kafka"
)

// complete asks the binary for completions as the shell scripts do
// (`monitor __complete ARGS… PARTIAL`) and returns the candidates and
// the directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	out, errOut, code := run(t, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	d, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil {
		t.Fatalf("__complete %q: no directive line:\n%s", args, out)
	}
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t") // a description may follow a tab
		values = append(values, v)
	}
	return values, cobra.ShellCompDirective(d)
}

// TestCompletionOfFlagValues: enum flags complete to their choices,
// configuration and query flags to YAML files, inputs to any file,
// caches to directories, and numbers to nothing (issue 26.7).
func TestCompletionOfFlagValues(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want      []string
		directive cobra.ShellCompDirective
	}{
		{[]string{"mine", "--backend", ""}, backend.Names(), cobra.ShellCompDirectiveNoFileComp},
		{[]string{"gpm", "--backend", ""}, backend.Names(), cobra.ShellCompDirectiveNoFileComp},
		{[]string{"bench", "--backend", ""}, backend.Names(), cobra.ShellCompDirectiveNoFileComp},
		{[]string{"mine", "--format", ""}, []string{"table", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"bench", "--format", ""}, []string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"produce", "--format", ""}, []string{"json", "csv"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"produce", "--partitions-by", ""}, []string{"src", "roundrobin"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"gpm", "--app", ""}, []string{"clique", "motif"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"gpm", "--balance", ""}, []string{"on", "off"}, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"mine", "--motif", "M4,M1"}, []string{"M4,M1", "M4,M10", "M4,M11", "M4,M12", "M4,M13"},
			cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace},
		{[]string{"run", "--config", ""}, []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{[]string{"bench", "--config", ""}, []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{[]string{"mine", "--query", ""}, []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{[]string{"validate", ""}, []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{[]string{"mine", "--graph", ""}, nil, cobra.ShellCompDirectiveDefault},
		{[]string{"mine", "--cache", ""}, nil, cobra.ShellCompDirectiveFilterDirs},
		{[]string{"mine", "--workers", ""}, nil, cobra.ShellCompDirectiveNoFileComp},
		{[]string{"alerts", "--query", ""}, nil, cobra.ShellCompDirectiveNoFileComp},
	} {
		got, d := complete(t, c.args...)
		if !slices.Equal(got, c.want) || d != c.directive {
			t.Errorf("monitor %s<TAB>: %q, directive %d; want %q, %d", strings.Join(c.args, " "), got, d, c.want, c.directive)
		}
	}
}

// TestCompletionChoicesParse: every choice offered is a value its flag
// takes.
func TestCompletionChoicesParse(t *testing.T) {
	parse := map[string]func(string) error{
		"backend":       func(s string) error { _, err := backend.Parse(s); return err },
		"app":           func(s string) error { _, err := gpm.ParseApp(s); return err },
		"partitions-by": func(s string) error { _, err := kafka.ParsePartitioning(s); return err },
	}
	for _, v := range flagChoices["produce"]["format"] {
		if _, err := kafka.ParseFormat(v); err != nil {
			t.Errorf("produce --format %s: %v", v, err)
		}
	}
	for flag, values := range flagChoices[""] {
		for _, v := range values {
			if p := parse[flag]; p != nil {
				if err := p(v); err != nil {
					t.Errorf("--%s %s: %v", flag, v, err)
				}
			}
		}
	}
}

// TestEveryFileFlagCompletesFiles: a string flag whose help speaks of a
// file or a directory completes file or directory names, and no other
// does, so a new flag is not left completing the wrong thing.
func TestEveryFileFlagCompletesFiles(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if typ := f.Value.Type(); typ != "string" && typ != "stringSlice" {
				return
			}
			path := strings.Fields(cmd.CommandPath())[1:]
			_, d := complete(t, append(path, "--"+f.Name, "")...)
			files := d&cobra.ShellCompDirectiveNoFileComp == 0
			speaks := strings.Contains(f.Usage, "file") || strings.Contains(f.Usage, "directory")
			if files != speaks {
				t.Errorf("%s --%s (%q): completes files %v; its help speaks of files %v", cmd.CommandPath(), f.Name, f.Usage, files, speaks)
			}
		})
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRootCmd())
}

// TestCompletionScripts: the completion command writes a script for each
// shell.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, errOut, code := run(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "monitor") || !strings.Contains(out, cobra.ShellCompRequestCmd) {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q; want a script that calls monitor %s", shell, code, len(out), errOut, cobra.ShellCompRequestCmd)
		}
	}
}
