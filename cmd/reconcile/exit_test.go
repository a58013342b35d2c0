package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
	"github.com/reconcile-dev/reconcile/sources/postgres"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// Every sentinel of every package lands on its exit code, bare, wrapped
// once and wrapped twice (the way control wraps a source's error inside a
// load error), and a cancelled run is a runtime error whatever it returned.
func TestCodeOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want exitCode
	}{
		{"nil", nil, exitOK},
		{"checks.ErrFailed", checks.ErrFailed, exitFailed},
		{"errVerifyFailed", errVerifyFailed, exitFailed},
		{"spec.ErrInvalid", spec.ErrInvalid, exitUsage},
		{"checks.ErrLoad", checks.ErrLoad, exitUsage},
		{"restarts.ErrRestarts", restarts.ErrRestarts, exitUsage},
		{"checks.ErrColumn", checks.ErrColumn, exitUsage},
		{"sources.ErrUnknownKind", sources.ErrUnknownKind, exitUsage},
		{"sources.ErrInvalidLocation", sources.ErrInvalidLocation, exitUsage},
		{"postgres.ErrUnmappedType", postgres.ErrUnmappedType, exitUsage},
		{"evidence.ErrExists", evidence.ErrExists, exitUsage},
		{"evidence.ErrNoManifest", evidence.ErrNoManifest, exitUsage},
		{"evidence.ErrKey", evidence.ErrKey, exitUsage},
		{"control.ErrNoKey", control.ErrNoKey, exitUsage},
		{"control.ErrEvidence", control.ErrEvidence, exitUsage},
		{"control.ErrInputChanged", control.ErrInputChanged, exitStale},
		{"checks.ErrValue", checks.ErrValue, exitRuntime},
		{"checks.ErrOverflow", checks.ErrOverflow, exitRuntime},
		{"checks.ErrTime", checks.ErrTime, exitRuntime},
		{"fileset.ErrNoFiles", fileset.ErrNoFiles, exitRuntime},
		{"duck.ErrOutOfMemory", duck.ErrOutOfMemory, exitRuntime},
		{"evidence.ErrBadManifest", evidence.ErrBadManifest, exitRuntime},
		{"a file that cannot be opened", &fs.PathError{Op: "open", Path: "x.csv", Err: fs.ErrNotExist}, exitRuntime},
		{"an error of no class", errors.New("boom"), exitRuntime},
		{"a usage sentinel around an I/O error", fmt.Errorf("%w: %w", restarts.ErrRestarts, fs.ErrPermission), exitUsage},
	}
	for _, tt := range tests {
		wrapped := map[string]error{"bare": tt.err}
		if tt.err != nil {
			wrapped["wrapped once"] = fmt.Errorf("%w: detail", tt.err)
			wrapped["wrapped twice"] = fmt.Errorf("load sink: %w", fmt.Errorf("%w: file k.csv, line 3", tt.err))
		}
		for _, how := range []string{"bare", "wrapped once", "wrapped twice"} {
			err, ok := wrapped[how]
			if !ok {
				continue
			}
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				if got := codeOf(context.Background(), err); got != tt.want {
					t.Errorf("codeOf(%v) = %d, want %d", err, got, tt.want)
				}
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				// a cancelled run is a runtime error, except the verdict:
				// its evidence is published (a signal after publishing
				// said 3 and "no evidence folder was written": found by a
				// reviewer)
				want := tt.want
				if err != nil && tt.want != exitFailed {
					want = exitRuntime
				}
				if got := codeOf(ctx, err); got != want {
					t.Errorf("cancelled: codeOf(%v) = %d, want %d", err, got, want)
				}
			})
		}
	}
}

// Cobra's own usage errors exit 2, found without reading their text: they
// all arise before cobra hands the command line to a RunE. Errors from
// reconcile's own code keep their class.
func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id\n1\n")
	tests := []struct {
		name    string
		args    []string
		want    exitCode
		wantErr string
	}{
		{"unknown command", []string{"bogus"}, exitUsage, `unknown command "bogus" for "reconcile"`},
		{"unknown flag", []string{"--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"unknown flag of a subcommand", []string{"run", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"unknown shorthand flag", []string{"run", "-x"}, exitUsage, "unknown shorthand flag"},
		{"flag without its value", []string{"run", "--out"}, exitUsage, "flag needs an argument: --out"},
		{"bad flag value", []string{"run", "--force=maybe"}, exitUsage, `invalid argument "maybe" for "--force" flag`},
		{"argument to a command that takes none", []string{"explain", "extra"}, exitUsage, `unknown command "extra" for "reconcile explain"`},
		{"run: a spec argument that does not exist", []string{"run", "extra"}, exitUsage, "spec: invalid: stat extra: no such file or directory"},
		{"too few arguments", []string{"verify"}, exitUsage, "accepts 1 arg(s), received 0"},
		{"too many arguments", []string{"verify", "a", "b"}, exitUsage, "accepts 1 arg(s), received 2"},
		{"argument to cobra's completion command", []string{"completion", "bash", "extra"}, exitUsage, "unknown command"},
		{"explain without its flags", []string{"explain"}, exitUsage, "explain needs --config SPEC or --evidence DIR"},
		{"explain with both a spec and evidence", []string{"explain", "--config", "s.yaml", "--evidence", "ev", "--key", "1"}, exitUsage, "one of them"},
		{"explain without a key", []string{"explain", "--config", "s.yaml"}, exitUsage, "explain needs --key VALUE"},
		{"explain --evidence with --param", []string{"explain", "--evidence", "ev", "--key", "1", "--param", "day=1"}, exitUsage, "--param is for --config"},
		{"--allow-changed-inputs without --evidence", []string{"explain", "--config", "s.yaml", "--key", "1", "--allow-changed-inputs"}, exitUsage, "--allow-changed-inputs is for --evidence"},
		{"verify a folder without a manifest", []string{"verify", dir}, exitUsage, "no manifest.json"},
		{"run with a missing id", []string{"run", "--source", src, "--sink", src, "--out", filepath.Join(dir, "ev")}, exitUsage, "id is required"},
		{"run with a missing file", []string{"run", "--source", src + ".missing.csv", "--sink", src, "--id", "id", "--out", filepath.Join(dir, "ev")}, exitRuntime, "s.csv.missing.csv"},
		{"no command", nil, exitOK, ""},
		{"help", []string{"help", "run"}, exitOK, ""},
		{"version", []string{"--version"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.want, stderr)
			}
			if tt.wantErr == "" && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantErr)
			}
		})
	}
}

// DuckDB running out of memory is found by its error type, exits 3 with
// the hint at --memory-limit, and leaves no evidence folder. 1MB is far
// below the block DuckDB's CSV reader allocates first.
func TestOutOfMemoryHint(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id,amount\n1,1.00\n")
	out := filepath.Join(dir, "ev")
	code, _, stderr := runCLI(t, "run", "--source", src, "--sink", src, "--id", "id", "--out", out, "--memory-limit", "1MB")
	if code != exitRuntime {
		t.Fatalf("exit %d, want 3; stderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Out of Memory Error") || !strings.Contains(stderr, "run again with a larger --memory-limit") {
		t.Errorf("stderr %q, want DuckDB's error and the hint", stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the run left %v", entries)
	}
	// Any other failure gets no such hint.
	code, _, stderr = runCLI(t, "run", "--source", src+".missing.csv", "--sink", src, "--id", "id", "--out", out)
	if code != exitRuntime || strings.Contains(stderr, "--memory-limit") {
		t.Errorf("a missing file: exit %d, stderr %q; want 3 without the memory hint", code, stderr)
	}
}

// The acceptance rule (an error before a RunE starts is a usage error)
// holds only while reconcile's own code runs in RunE alone: cobra runs
// PersistentPreRun(E) and PreRun(E) before RunE, so an error of theirs
// would be taken for a usage error. A command that needs such a hook must
// mark acceptance there too.
func TestCommandsRunOnlyInRunE(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.PersistentPreRun != nil || c.PersistentPreRunE != nil || c.PreRun != nil || c.PreRunE != nil {
			t.Errorf("command %q has a pre-run hook; extend acceptance in root.go to it", c.CommandPath())
		}
		if c.Run != nil {
			t.Errorf("command %q uses Run; use RunE so that its errors are classed", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&factory{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}))
}
