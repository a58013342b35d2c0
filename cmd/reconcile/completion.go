package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reconcile-dev/reconcile/report"
	"github.com/reconcile-dev/reconcile/sources"
)

// Shell completion: `reconcile completion bash` (zsh, fish, powershell)
// writes a script that asks the binary itself what to offer, by running
// `reconcile __complete ARGS… PARTIAL` (cobra's hidden command). This file
// says what each flag's value and each command's arguments complete to.

// completionKind is what a flag's value completes to.
type completionKind int

const (
	completeNothing completionKind = iota // a column, a name, a number: nothing, and no file names
	completeFile                          // any file (the shell's own completion)
	completeSpec                          // a spec file: *.yaml, *.yml (and folders, to go down)
	completeDir                           // a folder
	completeFormats                       // report formats, a comma-separated list
	completeInput                         // an input: a kind's prefix, or a file, folder or glob
)

// flagCompletion says what the value of each flag completes to, by the
// flag's name, in every command that has it. A flag not named here
// completes as cobra's default (file names); TestCompletion fails for it.
var flagCompletion = map[string]completionKind{
	// run
	"config": completeSpec, "source": completeInput, "sink": completeInput,
	"source-option": completeNothing, "sink-option": completeNothing,
	"id": completeNothing, "measure": completeNothing, "group-by": completeNothing, "duplicates": completeNothing,
	"checkpoint": completeNothing, "logical-key": completeNothing,
	"compare": completeNothing, "ignore": completeNothing,
	"out": completeDir, "name": completeNothing, "queries": completeDir, "engine": completeNothing,
	"format": completeFormats, "memory-limit": completeNothing, "sign-key": completeFile,
	"param": completeNothing, "history": completeFile, "metrics": completeFile,
	// explain (--keys-from and --evidence: issue 34's several keys and
	// explaining from an evidence folder)
	"key": completeNothing, "keys-from": completeFile, "evidence": completeDir,
	// history
	"control": completeNothing,
	// verify
	"public-key": completeFile,
	// sample load-postgres, load-mysql
	"url": completeNothing, "table": completeNothing, "csv": completeFile,
}

// argCompletion says what the arguments of a command complete to, by its
// path below the root: the kind of each argument (the last one repeats
// when repeat is set). A command not named here takes no arguments: they
// complete to nothing.
var argCompletion = map[string]struct {
	kinds  []completionKind
	repeat bool
}{
	"run":    {[]completionKind{completeSpec}, true},
	"verify": {[]completionKind{completeDir}, false},
	"diff":   {[]completionKind{completeDir, completeDir}, false},
}

// completing reports whether args ask for completions (cobra's
// __complete and __completeNoDesc commands) rather than a command to run.
func completing(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// setUpCompletion registers the completions of every command below root,
// its help command's among them. With completing set (cobra parses the
// command line twice to complete it: completions.go getCompletions), the
// one-value flags take a second value without complaint, so that
// `run --out x --qu<TAB>` still offers --quiet; the guard stays in force
// for every command that runs.
func setUpCompletion(root *cobra.Command, completing bool) {
	help := newCmdHelp()
	root.SetHelpCommand(help)
	root.AddCommand(help) // as cobra adds it when it executes; so acceptance wraps it
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.Name()), " ")
		if c.ValidArgsFunction == nil {
			c.ValidArgsFunction = completeArgs(path)
		}
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if v, ok := fl.Value.(*onceValue); ok {
				v.completing = completing
			}
			if kind, ok := flagCompletion[fl.Name]; ok && fl.NoOptDefVal == "" {
				registerFlagCompletion(c, fl.Name, kind)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// registerFlagCompletion makes flag name of c complete to kind.
func registerFlagCompletion(c *cobra.Command, name string, kind completionKind) {
	var err error
	switch kind {
	case completeSpec:
		err = c.MarkFlagFilename(name, "yaml", "yml")
	case completeDir:
		err = c.MarkFlagDirname(name)
	default:
		err = c.RegisterFlagCompletionFunc(name, completionFunc(kind))
	}
	if err != nil {
		panic("completion of --" + name + ": " + err.Error()) // a flag of c, by VisitAll
	}
}

// completionFunc is the completion of a value of kind.
func completionFunc(kind completionKind) cobra.CompletionFunc {
	switch kind {
	case completeSpec:
		return cobra.FixedCompletions([]cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt)
	case completeDir:
		return cobra.FixedCompletions(nil, cobra.ShellCompDirectiveFilterDirs)
	case completeFile:
		return cobra.FixedCompletions(nil, cobra.ShellCompDirectiveDefault)
	case completeFormats:
		return completeFormatList
	case completeInput:
		return completeLocation
	}
	return cobra.NoFileCompletions
}

// completeArgs completes the arguments of the command at path
// (argCompletion).
func completeArgs(path string) cobra.CompletionFunc {
	a, ok := argCompletion[path]
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case !ok:
		case len(args) < len(a.kinds):
			return completionFunc(a.kinds[len(args)])(c, args, toComplete)
		case a.repeat:
			return completionFunc(a.kinds[len(a.kinds)-1])(c, args, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// newCmdHelp is cobra's help command (its words, and what it does: the
// help of the command its arguments name, else "Unknown help topic" and the
// root's usage), with a RunE, as every command of reconcile has, and the
// completion of help topics as well as commands (completeHelpTopics).
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long: `Help provides help for any command in the application.
Simply type reconcile help [path to command] for full details.`,
		ValidArgsFunction: completeHelpTopics,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, _, err := c.Root().Find(args)
			if cmd == nil || err != nil {
				c.Printf("Unknown help topic %#q\n", args)
				return c.Root().Usage()
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// completeHelpTopics completes `reconcile help [COMMAND]…`: every command
// below the one named so far, the help topics among them (exit-codes,
// which cobra's own help completion leaves out: it is no command to run).
func completeHelpTopics(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cmd, _, err := c.Root().Find(args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, sub := range cmd.Commands() {
		if sub.Hidden || sub.Deprecated != "" || !strings.HasPrefix(sub.Name(), toComplete) {
			continue
		}
		if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() || sub.Name() == "help" {
			out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFormatList completes --format's comma-separated list: the
// report formats not given yet (in this value or an earlier --format), and
// all as the first.
func completeFormatList(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, partial := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		done, partial = toComplete[:i+1], toComplete[i+1:]
	}
	given, _ := c.Flags().GetStringSlice("format")
	for _, f := range strings.Split(done, ",") {
		if f != "" {
			given = append(given, f)
		}
	}
	candidates := report.Formats()
	if done == "" && len(given) == 0 {
		candidates = append(candidates, "all")
	}
	var out []cobra.Completion
	for _, f := range candidates {
		if strings.HasPrefix(f, partial) && !slices.Contains(given, f) && !slices.Contains(given, "all") {
			out = append(out, done+f)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeLocation completes --source and --sink: a kind's prefix
// ("csv:", "postgres:" for postgres://…) from the sources registry (the
// kinds' names: an alias such as tsv: would not read as its extension
// does), and after the prefix of a kind (or alias) that reads files, the
// files and folders there; a path alone is left to the shell's file
// completion unless it may also be a prefix. A server URI ("postgres://…")
// completes to nothing.
func completeLocation(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const listed = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	if strings.Contains(toComplete, "://") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if name, rest, ok := strings.Cut(toComplete, ":"); ok && slices.Contains(kindNames(), name) {
		if sources.IsFileKind(name) {
			return paths(name+":", rest), listed
		}
		return nil, cobra.ShellCompDirectiveNoFileComp // a server's URI follows
	}
	var out []cobra.Completion
	for _, n := range sources.Kinds() {
		if strings.HasPrefix(n+":", toComplete) {
			out = append(out, n+":")
		}
	}
	if len(out) == 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return append(out, paths("", toComplete)...), listed
}

// kindNames are the registered kinds and their aliases, as a location's
// prefix may name them (an alias holding a ":" is a prefix and a scheme,
// not a prefix of its own).
func kindNames() []string {
	var names []string
	for _, k := range sources.Kinds() {
		names = append(names, k)
		for _, a := range sources.Aliases(k) {
			if !strings.Contains(a, ":") {
				names = append(names, a)
			}
		}
	}
	slices.Sort(names)
	return names
}

// paths lists the files and folders whose path starts with partial (a
// folder with a trailing "/"; hidden names only when partial's last part
// starts with "."), each after prefix.
func paths(prefix, partial string) []cobra.Completion {
	dir, base := filepath.Split(partial)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		if st, err := os.Stat(filepath.Join(read, name)); err == nil && st.IsDir() {
			name += "/"
		}
		out = append(out, prefix+dir+name)
	}
	return out
}
