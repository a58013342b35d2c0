package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A --quiet night with a history says, below its verdict line, what was
// resolved since the last run, passing or failing; nothing when nothing
// was, on the first night, or without a history.
func TestQuietSaysWhatWasResolved(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "src.csv"), "id,amount\n1,1.00\n2,2.00\n3,3.00\n4,4.00\n5,5.00\n")
	hist := filepath.Join(dir, "history.duckdb")
	night := func(n int, sink string, history bool) (exitCode, []string) {
		t.Helper()
		snk := writeFile(t, filepath.Join(dir, fmt.Sprintf("sink%d.csv", n)), "id,amount\n"+sink)
		args := []string{"run", "--source", src, "--sink", snk, "--id", "id", "--name", "ledger",
			"--out", filepath.Join(dir, fmt.Sprint("night", n)), "--format", "json", "--quiet"}
		if history {
			args = append(args, "--history", hist)
		}
		code, stdout, stderr := runCLI(t, args...)
		if stderr != "" {
			t.Errorf("night %d: stderr %q", n, stderr)
		}
		return code, strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	}
	for i, tt := range []struct {
		sink     string
		history  bool
		code     exitCode
		resolved string // the line after the verdict line, "" for none
	}{
		// night 1: 3 missing, 2 duplicated; nothing before it
		{"1,1.00\n1,1.00\n2,2.00\n2,2.00\n", true, exitFailed, ""},
		// night 2 fails (5 duplicated) and resolves all of night 1's
		{"1,1.00\n2,2.00\n3,3.00\n4,4.00\n5,5.00\n5,5.00\n", true, exitFailed, "resolved since last run: 3 missing_ids, 2 duplicate_ids"},
		// night 3 passes and resolves the last duplicate, and the row count
		// (no --group-by: one key, the whole input) that was off since night 1
		{"1,1.00\n2,2.00\n3,3.00\n4,4.00\n5,5.00\n", true, exitOK, "resolved since last run: 1 duplicate_ids, 1 row_count_balance"},
		// night 4 passes with nothing left to resolve
		{"1,1.00\n2,2.00\n3,3.00\n4,4.00\n5,5.00\n", true, exitOK, ""},
		// night 5 has no history: nothing to say
		{"1,1.00\n2,2.00\n3,3.00\n4,4.00\n5,5.00\n", false, exitOK, ""},
	} {
		code, lines := night(i+1, tt.sink, tt.history)
		if code != tt.code || !strings.HasPrefix(lines[0], "PASS  ledger  ") && !strings.HasPrefix(lines[0], "FAIL  ledger  ") {
			t.Errorf("night %d: exit %d, want %d:\n%s", i+1, code, tt.code, strings.Join(lines, "\n"))
			continue
		}
		got := ""
		if len(lines) > 1 && strings.HasPrefix(lines[1], "resolved") {
			got = lines[1]
		}
		if got != tt.resolved || strings.Count(strings.Join(lines, "\n"), "resolved since") > 1 {
			t.Errorf("night %d: the line after the verdict %q, want %q:\n%s", i+1, got, tt.resolved, strings.Join(lines, "\n"))
		}
	}
	// Without --quiet each check's line says it, as before.
	_, stdout, _ := runCLI(t, "run", "--source", src, "--sink", filepath.Join(dir, "sink1.csv"), "--id", "id", "--name", "ledger",
		"--out", filepath.Join(dir, "loud"), "--format", "json", "--history", hist)
	if strings.Contains(stdout, "resolved since last run") || !strings.Contains(stdout, "(new 3, recurring 0, resolved 0)") {
		t.Errorf("without --quiet:\n%s", stdout)
	}
}
