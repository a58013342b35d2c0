package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/memory"
)

// exitCode is the process exit status; the values are documented in
// `reconcile help exit-codes` and the README, and decided by codeOf.
type exitCode int

const (
	exitOK      = exitCode(fault.OK)      // every check passed
	exitFailed  = exitCode(fault.Failed)  // at least one check found exceptions; evidence written
	exitUsage   = exitCode(fault.Usage)   // bad flag, spec, column or location
	exitRuntime = exitCode(fault.Runtime) // an input could not be read, a query failed, cancelled
	exitStale   = exitCode(fault.Stale)   // explain --evidence: an input changed since the run
)

const exitCodesHelp = `Exit codes of reconcile:

  0  every check passed (skipped checks do not count either way; rows
     within a declared tolerance are listed, not exceptions)
  1  at least one check found exceptions, the population check among
     them: the source or the sink holds no records (unless the spec's
     allow_empty: says that is legitimate); the evidence folder was written
     (reconcile verify: a file of the evidence folder was changed, removed
     or added, or its signature does not verify)
  2  usage or spec error: a bad flag, an unknown spec key, an unknown or
     unset ${parameter} or a --param no spec uses, a column the inputs do
     not have, two columns of incomparable types (a timestamp against an
     integer), a binary floating-point (DOUBLE, FLOAT) measure (declare
     types: {amount: DECIMAL(p,s)} on that input), an input column a check
     selects named like one of the check's own columns (rename: it), one
     file read as both source and sink, an evidence folder that already
     exists, another run of the same control holding its lock, a history
     file that is not a reconcile run history; verify of a folder with no
     manifest.json; explain of a key no row has
  3  an input could not be read (or one of its files changed while the
     run read it), a value is not what its column needs, a query failed,
     an --out that cannot be written, or the run was cancelled; no
     evidence folder is left
  4  explain --evidence: an input is no longer what the run read (a
     file's SHA-256 or size changed, a file is gone or new, another number
     of rows); the message names the input, the file and both
     fingerprints, and nothing is explained (--allow-changed-inputs
     explains from the inputs as they are now, with a warning)

Nothing else exits 0: a run that could not reach a verdict never passes.
A suite exits with the worst code of its controls (3 before 2 before 1).
`

// factory holds what commands share: the IO streams.
type factory struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// accepted is set when cobra has accepted the command line and runs a
	// command's RunE (see acceptance).
	accepted bool
	// completing is set when the command line asks for shell completions
	// (completion.go).
	completing bool
}

// subcommands are the constructors of commands beyond run; each command file
// adds its own in an init function, so commands are added without editing
// this file.
var subcommands []func(f *factory) *cobra.Command

func newRoot(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "reconcile",
		Short: "Prove that a pipeline posted every source record exactly once",
		Long: `reconcile loads the source records (what should have been posted) and the
committed sink output (what was posted) into embedded DuckDB, runs SOX-style
completeness and accuracy checks, and writes evidence an auditor can review
and re-perform.

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       control.Version(),
	}
	root.SetIn(f.stdin)
	root.SetOut(f.stdout)
	root.SetErr(f.stderr)
	root.AddCommand(newCmdRun(f))
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd(f))
	}
	root.AddCommand(&cobra.Command{
		Use:   "exit-codes",
		Short: "What each exit code of reconcile means",
		Long:  exitCodesHelp,
	})
	setUpCompletion(root, f.completing)
	acceptance(root, &f.accepted)
	return root
}

// acceptance wraps the RunE of c and of every command below it so that
// *accepted is set when the RunE starts. Cobra calls a RunE only once it
// has accepted the command line: the command exists, its flags parsed, its
// arguments passed its Args validator. So an error returned before that is
// one of cobra's own usage errors (unknown command or flag, a flag without
// its value or with a bad one, wrong arguments), and run classes it as such.
// Cobra gives those errors no type of their own (they are fmt.Errorf
// strings; spf13/cobra#1077), and matching their text would break with
// any new wording; the point where cobra hands over does not move.
func acceptance(c *cobra.Command, accepted *bool) {
	if runE := c.RunE; runE != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			*accepted = true
			return runE(cmd, args)
		}
	}
	for _, sub := range c.Commands() {
		acceptance(sub, accepted)
	}
}

// run executes reconcile with args and returns the exit code. It is main
// without os.Exit, so tests drive the real entry point.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) exitCode {
	f := &factory{stdin: stdin, stdout: stdout, stderr: stderr, completing: completing(args)}
	root := newRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if !f.accepted {
		err = fault.Usage.Mark(err)
	}
	code := codeOf(ctx, err)
	switch {
	case err == nil, code == exitFailed:
		// The command printed its verdict (or the differences verify found).
	case ctx.Err() != nil:
		// DuckDB and pgx report an interrupt in their own words; say it once.
		fmt.Fprintf(stderr, "reconcile: cancelled (%v); no evidence folder was written\n", context.Cause(ctx))
	default:
		fmt.Fprintf(stderr, "reconcile: %v\n", err)
		if errors.Is(err, duck.ErrOutOfMemory) {
			fmt.Fprintf(stderr, "reconcile: DuckDB reached its memory cap (%.0f%% of the run's memory budget: --memory-limit, else half the memory available); run again with a larger --memory-limit, such as 4GB\n", memory.DuckDBShare*100)
		}
	}
	return code
}

// codeOf is the exit code of a command that returned err: its class
// (fault.Of: each package's sentinels carry theirs), except that an error
// of a cancelled run is a runtime error whatever the interrupted statement
// reported — unless it is the verdict itself (exit 1: the checks found
// exceptions, the evidence folder is published), which a signal arriving
// after the folder was published does not take back.
func codeOf(ctx context.Context, err error) exitCode {
	if err != nil && ctx.Err() != nil && fault.Of(err) != fault.Failed {
		return exitRuntime
	}
	return exitCode(fault.Of(err))
}
