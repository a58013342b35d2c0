package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/lock"
)

// buildReconcile builds the real binary once into a temporary folder.
func buildReconcile(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reconcile")
	cmd := exec.Command("go", "build", "-tags", "duckdb_arrow", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// writeLedger writes n ledger entries (entry_id, account, amount) to path.
func writeLedger(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("entry_id,account,amount\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, "E%08d,ACC-%02d,%d.%02d\n", i, i%12+1, i%250000, i%100)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A run killed with SIGKILL in the middle (the OOM killer, a cron
// timeout) leaves nothing that looks like finished evidence — only its
// staging folder, its DuckDB temporary folder and its lock, each named
// for its process — and the next run of the control removes them (and
// takes the lock over), saying so on stderr.
//
// The killed run reads 1,000,000 rows (RECONCILE_SIGKILL_ROWS to change
// it; the 5 M take minutes on a shared 2-core machine) and is
// killed once its progress line says the source is loaded, so it is in
// the middle of loading the sink however fast the machine: what it leaves
// is what a 5 M-row run leaves, only smaller.
func TestSIGKILLLeavesNothingFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads a million rows")
	}
	rows := 1_000_000
	if v := os.Getenv("RECONCILE_SIGKILL_ROWS"); v != "" {
		var err error
		if rows, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildReconcile(t)
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	os.MkdirAll(tmp, 0o755)
	big := filepath.Join(dir, "big.csv")
	writeLedger(t, big, rows)
	writeLedger(t, big+".sink.csv", rows)
	small := filepath.Join(dir, "small.csv")
	writeLedger(t, small, 10)
	writeLedger(t, small+".sink.csv", 10)
	out := filepath.Join(dir, "evidence", "ledger")
	args := func(src string) []string {
		return []string{"run", "--source", src, "--sink", src + ".sink.csv", "--id", "entry_id", "--measure", "amount", "--group-by", "account",
			"--out", out, "--name", "ledger", "--format", "json", "--progress"}
	}
	env := append(os.Environ(), "TMPDIR="+tmp)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, args(big)...)
	run.Env = env
	stderr, err := run.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	pid := run.Process.Pid
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
		if strings.HasPrefix(sc.Text(), "loaded source:") {
			break
		}
	}
	if err := run.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	err = run.Wait()
	if ws, ok := run.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the run was not killed mid-run (%v); stderr:\n%s", err, strings.Join(said, "\n"))
	}

	// What the killed run left: never a folder at --out, only leftovers
	// named for pid.
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("after SIGKILL %s exists (%v): a half-written folder would look finished", out, err)
	}
	staging, _ := filepath.Glob(filepath.Join(dir, "evidence", ".ledger.incomplete-"+strconv.Itoa(pid)+"-*"))
	temps, _ := filepath.Glob(filepath.Join(tmp, leftover.TempPrefix+strconv.Itoa(pid)+"-*"))
	if len(staging) != 1 || len(temps) != 1 {
		t.Fatalf("after SIGKILL: staging %v, DuckDB temp %v; want one of each, named for pid %d", staging, temps, pid)
	}
	if st, ok := evidence.ParseStaging(filepath.Base(staging[0])); !ok || st.Owner.PID != pid || st.Owner.Alive() {
		t.Fatalf("staging %s: %+v, %v", staging[0], st, ok)
	}
	if _, err := os.Stat(lock.Path(out, "ledger")); err != nil {
		t.Fatalf("the killed run's lock: %v", err)
	}

	// The next run of the control (tonight's smaller partition).
	again := exec.CommandContext(ctx, bin, args(small)...)
	again.Env = env
	var so, se bytes.Buffer
	again.Stdout, again.Stderr = &so, &se
	if err := again.Run(); err != nil {
		t.Fatalf("the run after the kill: %v\n%s\n%s", err, so.String(), se.String())
	}
	for _, want := range []string{
		"reconcile: took over the lock of ledger from a run that is gone (pid " + strconv.Itoa(pid),
		"reconcile: removed " + staging[0] + " (evidence staging folder (never published) of pid " + strconv.Itoa(pid) + ", which is no longer running",
		"reconcile: removed " + temps[0] + " (DuckDB temporary folder of pid " + strconv.Itoa(pid) + ", which is no longer running",
	} {
		if !strings.Contains(se.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, se.String())
		}
	}
	for _, p := range append(staging, temps...) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, leftover.TempPrefix+"*"))
	if len(left) != 0 {
		t.Errorf("DuckDB temp folders left after the second run: %v", left)
	}
	if v, err := evidence.Verify(context.Background(), out, nil); err != nil || !v.OK() {
		t.Errorf("the second run's evidence does not verify: %+v, %v", v, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "evidence"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ledger" {
		t.Errorf("the evidence folder's parent holds %v, want only ledger", names)
	}
}
