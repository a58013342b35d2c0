package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/duck"
)

// exitCode is the process exit status; the values are documented in
// `reconcile help exit-codes` and the README.
type exitCode int

const (
	exitOK      exitCode = 0 // every check passed
	exitFailed  exitCode = 1 // at least one check found exceptions; evidence written
	exitUsage   exitCode = 2 // bad flag, spec, column or location
	exitRuntime exitCode = 3 // an input could not be read, a query failed, cancelled
)

const exitCodesHelp = `Exit codes of reconcile:

  0  every check passed (skipped checks do not count either way)
  1  at least one check found exceptions; the evidence folder was written
     (reconcile verify: a file of the evidence folder was changed, removed
     or added, or its signature does not verify)
  2  usage or spec error: a bad flag, an unknown spec key, a column the
     inputs do not have, an evidence folder that already exists
  3  an input could not be read, a value is not what its column needs,
     a query failed, or the run was cancelled; no evidence folder is left

Nothing else exits 0: a run that could not reach a verdict never passes.
`

// factory holds what commands share: the IO streams.
type factory struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// subcommands are the constructors of commands beyond run; each command file
// adds its own in an init function, so commands are added without editing
// this file.
var subcommands []func(f *factory) *cobra.Command

// errSilent marks an error already reported to the user.
var errSilent = errors.New("silent")

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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err}
	})
	root.AddCommand(newCmdRun(f, nil))
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd(f))
	}
	root.AddCommand(&cobra.Command{
		Use:   "exit-codes",
		Short: "What each exit code of reconcile means",
		Long:  exitCodesHelp,
	})
	return root
}

// usageError is a command-line problem (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// run executes reconcile with args and returns the exit code. It is main
// without os.Exit, so tests drive the real entry point.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) exitCode {
	f := &factory{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := codeOf(err)
	switch {
	case err != nil && ctx.Err() != nil:
		// DuckDB and pgx report an interrupt in their own words; say it once.
		fmt.Fprintf(stderr, "reconcile: cancelled (%v); no evidence folder was written\n", context.Cause(ctx))
		code = exitRuntime
	case err != nil && !errors.Is(err, errSilent) && code != exitFailed:
		fmt.Fprintf(stderr, "reconcile: %v\n", err)
		if strings.Contains(err.Error(), "Out of Memory") {
			fmt.Fprintf(stderr, "reconcile: DuckDB reached its memory cap (%s unless --memory-limit says otherwise); run again with a larger --memory-limit, such as 4GB\n", duck.MemoryLimit)
		}
	}
	return code
}

func codeOf(err error) exitCode {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, checks.ErrFailed), errors.Is(err, errVerifyFailed):
		return exitFailed
	case errors.As(err, &ue), control.IsUsage(err):
		return exitUsage
	case isCobraUsage(err):
		return exitUsage
	default:
		return exitRuntime
	}
}

func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument", "flag needs an argument"} {
		if len(msg) >= len(p) && msg[:len(p)] == p {
			return true
		}
	}
	return false
}
