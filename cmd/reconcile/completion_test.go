package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reconcile-dev/reconcile/report"
	"github.com/reconcile-dev/reconcile/sources"
)

// complete runs `reconcile __complete ARGS…` through run, as the shell's
// completion script does, and returns the values offered (without their
// descriptions) and the directive.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	last := lines[len(lines)-1]
	d, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if code != exitOK || !strings.HasPrefix(last, ":") || err != nil {
		t.Fatalf("__complete %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
	}
	var values []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		values = append(values, v)
	}
	slices.Sort(values)
	return values, cobra.ShellCompDirective(d)
}

// commands are every command of reconcile with its path below the root
// ("" for the root), the completion command cobra adds among them.
func commands(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	root := newRoot(&factory{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	root.InitDefaultCompletionCmd()
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out[strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "reconcile"), " ")] = c
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// repeatable reports whether a flag may be given more than once.
func repeatable(fl *pflag.Flag) bool {
	_, slice := fl.Value.(cobra.SliceValue)
	return slice || strings.Contains(fl.Value.Type(), "Slice") || strings.Contains(fl.Value.Type(), "Array")
}

// Completion works for every command and every flag: after any flag with
// its value (a one-value flag too: cobra parses the line twice to complete
// it, and the one-value flag guard used to fail the second parse, "given
// twice", so that `run --out x --qu<TAB>` offered nothing), the command's
// other flags are offered; each flag's value completes to what it takes
// (files, spec files, folders, formats, input kinds, or nothing); each
// command's arguments too; subcommands and help topics are offered.
func TestCompletion(t *testing.T) {
	const (
		noFile  = cobra.ShellCompDirectiveNoFileComp
		listed  = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		files   = cobra.ShellCompDirectiveDefault
		dirs    = cobra.ShellCompDirectiveFilterDirs
		filtExt = cobra.ShellCompDirectiveFilterFileExt
	)
	formats := append(report.Formats(), "all")
	slices.Sort(formats)
	var prefixes []string
	for _, k := range sources.Kinds() {
		prefixes = append(prefixes, k+":")
	}
	type want struct {
		values    []string // nil: none
		directive cobra.ShellCompDirective
		contains  bool // values are among those offered, not all of them
	}
	var (
		nothing = want{nil, noFile, false}
		file    = want{nil, files, false}
		spec    = want{[]string{"yaml", "yml"}, filtExt, false}
		folder  = want{nil, dirs, false}
		format  = want{formats, listed, false}
		input   = want{prefixes, listed, true}
	)
	// What each flag's value completes to, by command and flag: every flag
	// that takes a value must be here.
	values := map[string]want{
		"run --config": spec, "run --source": input, "run --sink": input,
		"run --source-option": nothing, "run --sink-option": nothing,
		"run --id": nothing, "run --measure": nothing, "run --group-by": nothing, "run --duplicates": nothing, "run --checkpoint": nothing,
		"run --logical-key": nothing, "run --compare": nothing, "run --ignore": nothing,
		"run --out": folder, "run --name": nothing, "run --queries": folder, "run --engine": nothing, "run --format": format,
		"run --memory-limit": nothing, "run --sign-key": file, "run --param": nothing,
		"run --history": file, "run --metrics": file,
		"explain --config": spec, "explain --key": nothing, "explain --param": nothing,
		"explain --keys-from": file, "explain --evidence": folder,
		"history --history": file, "history --control": nothing,
		"verify --public-key":        file,
		"sample load-postgres --url": nothing, "sample load-postgres --table": nothing, "sample load-postgres --csv": file,
		"sample load-mysql --url": nothing, "sample load-mysql --table": nothing, "sample load-mysql --csv": file,
	}
	// What each command's arguments complete to, one after the other; a
	// command not here takes none (or only subcommands).
	args := map[string][]want{
		"run":    {spec, spec, spec},
		"verify": {folder, nothing},
		"diff":   {folder, folder, nothing},
	}
	cmds := commands(t)
	seen := map[string]bool{}
	for path, c := range cmds {
		if path == "help" {
			continue // its arguments are commands and topics: below
		}
		words := strings.Fields(path)
		var valueFlags []string
		var offered []string // what a "--" after one flag must offer
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			offered = append(offered, "--"+fl.Name)
			if fl.NoOptDefVal == "" {
				valueFlags = append(valueFlags, fl.Name)
			}
		})
		for _, name := range valueFlags {
			key := strings.TrimSpace(path + " --" + name)
			w, ok := values[key]
			if !ok {
				t.Errorf("%s: no completion expected in the test (add it to completion.go's flagCompletion and here)", key)
				continue
			}
			seen[key] = true
			got, d := complete(t, append(words, "--"+name, "")...)
			if d != w.directive || !w.contains && !slices.Equal(got, w.values) || w.contains && !containsAll(got, w.values) {
				t.Errorf("%s <TAB>: %q, directive %d; want %q, %d", key, got, d, w.values, w.directive)
			}
			// The flag with a value, then a partial flag: every flag of the
			// command is offered, but this one unless it may repeat.
			got, d = complete(t, append(words, "--"+name, "x", "--")...)
			var wantFlags []string
			for _, f := range offered {
				if f != "--"+name || repeatable(c.Flags().Lookup(name)) {
					wantFlags = append(wantFlags, f)
				}
			}
			slices.Sort(wantFlags)
			if d != noFile || !slices.Equal(got, wantFlags) {
				t.Errorf("%s x --<TAB>: %q, directive %d; want %q", key, got, d, wantFlags)
			}
		}
		// Arguments, or subcommands.
		ws := args[path]
		var subs []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				subs = append(subs, sub.Name())
			}
		}
		slices.Sort(subs)
		for i := range max(len(ws), 1) {
			w := nothing
			if len(ws) > 0 {
				w = ws[i]
			}
			if len(subs) > 0 {
				w = want{subs, noFile, false}
			}
			typed := append(slices.Clone(words), slices.Repeat([]string{"arg"}, i)...)
			got, d := complete(t, append(typed, "")...)
			if d != w.directive || !slices.Equal(got, w.values) {
				t.Errorf("%q <TAB>: %q, directive %d; want %q, %d", strings.Join(typed, " "), got, d, w.values, w.directive)
			}
		}
	}
	for key := range values {
		if !seen[key] {
			t.Errorf("%s: the test expects a flag no command has", key)
		}
	}

	// A one-value flag given twice while completing: still the flags.
	if got, _ := complete(t, "run", "--out", "x", "--out", "y", "--qu"); !slices.Equal(got, []string{"--queries", "--quiet"}) {
		t.Errorf("run --out x --out y --qu<TAB>: %q", got)
	}
	if got, _ := complete(t, "explain", "--config", "s.yaml", "--key", "K1", "--"); !slices.Contains(got, "--json") {
		t.Errorf("explain --config s.yaml --key K1 --<TAB>: %q", got)
	}
	// ... and the guard still refuses it in a command that runs.
	for _, line := range [][]string{{"run", "--out", "x", "--out", "y"}, {"explain", "--config", "a", "--config", "b", "--key", "1"}, {"verify", "--public-key", "a", "--public-key", "b", "ev"}} {
		if code, _, stderr := runCLI(t, line...); code != exitUsage || !strings.Contains(stderr, "given twice") {
			t.Errorf("%q: exit %d, %q; want %d, given twice", line, code, stderr, exitUsage)
		}
	}

	// help offers every command and help topic (exit-codes is one), at
	// every level.
	var topics []string
	for _, c := range cmds {
		if c.HasParent() && !c.Parent().HasParent() && !c.Hidden {
			topics = append(topics, c.Name())
		}
	}
	slices.Sort(topics)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "ex"}, []string{"exit-codes", "explain"}},
		{[]string{"help", ""}, topics},
		{[]string{"help", "sample", "load-"}, []string{"load-mysql", "load-postgres"}},
		{[]string{"help", "nosuch", ""}, nil},
	} {
		if got, d := complete(t, tt.args...); !slices.Equal(got, tt.want) || d != noFile {
			t.Errorf("%q<TAB>: %q, %d; want %q", tt.args, got, d, tt.want)
		}
	}
	if !slices.Contains(topics, "exit-codes") || !slices.Contains(topics, "run") {
		t.Errorf("help topics %q lack exit-codes or run", topics)
	}

	// --format: a comma-separated list of the formats not given yet.
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--format", "m"}, []string{"md"}},
		{[]string{"run", "--format", "md,"}, []string{"md,html", "md,json", "md,xlsx"}},
		{[]string{"run", "--format", "md,x"}, []string{"md,xlsx"}},
		{[]string{"run", "--format", "md", "--format", ""}, []string{"html", "json", "xlsx"}},
		{[]string{"run", "--format", "all,"}, nil},
	} {
		if got, d := complete(t, tt.args...); !slices.Equal(got, tt.want) || d != listed {
			t.Errorf("%q<TAB>: %q, %d; want %q", tt.args, got, d, tt.want)
		}
	}

	// --source and --sink: kinds' prefixes, files after a file kind's
	// prefix, nothing after a server's; a path alone is the shell's.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data", "x.csv"), "id\n")
	writeFile(t, filepath.Join(dir, "part.csv"), "id\n")
	writeFile(t, filepath.Join(dir, "pay.parquet"), "")
	writeFile(t, filepath.Join(dir, ".hidden.csv"), "")
	t.Chdir(dir)
	for _, tt := range []struct {
		args []string
		want want
	}{
		{[]string{"run", "--sink", "pa"}, want{[]string{"parquet:", "part.csv", "pay.parquet"}, listed, false}},
		{[]string{"run", "--sink", ""}, want{append(slices.Clone(prefixes), "data/", "part.csv", "pay.parquet"), listed, false}},
		{[]string{"run", "--source", "csv:"}, want{[]string{"csv:data/", "csv:part.csv", "csv:pay.parquet"}, listed, false}},
		{[]string{"run", "--source", "csv:d"}, want{[]string{"csv:data/"}, listed, false}},
		{[]string{"run", "--source", "ndjson:data/"}, want{[]string{"ndjson:data/x.csv"}, listed, false}},
		{[]string{"run", "--source", "csv:."}, want{[]string{"csv:.hidden.csv"}, listed, false}},
		{[]string{"run", "--sink", "postgres:"}, nothing},
		{[]string{"run", "--sink", "postgres://h/db?table="}, nothing},
		{[]string{"run", "--sink", "kafka://broker:9092/"}, nothing},
		{[]string{"run", "--sink", "da"}, file},
	} {
		got, d := complete(t, tt.args...)
		wantValues := slices.Clone(tt.want.values)
		slices.Sort(wantValues)
		if d != tt.want.directive || !slices.Equal(got, wantValues) {
			t.Errorf("%q<TAB>: %q, %d; want %q, %d", tt.args, got, d, wantValues, tt.want.directive)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("completion ran a command: %s/x exists", dir)
	}
}

// containsAll reports whether every one of want is in got.
func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
