package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A repeated column flag adds its columns (--id a --id b is the composite
// id a,b, --measure x --measure y balances both); a repeated one-value flag
// is a usage error naming both values. Before, the last value won without a
// word: a composite id cut to its last part, a measure never balanced.
func TestRepeatedFlags(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "source.csv"), "a,b,x,y\n1,1,1.00,2\n1,2,1.00,2\n")
	snk := writeFile(t, filepath.Join(dir, "sink.csv"), "a,b,x,y\n1,1,1.00,2\n1,2,1.00,3\n")
	out := filepath.Join(dir, "ev")
	code, _, stderr := runCLI(t, "run", "--source", src, "--sink", snk, "--id", "a", "--id", "b", "--measure", "x", "--measure", "y", "--out", out, "--format", "json")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (y differs on id 1,2): %s", code, exitFailed, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Parameters struct {
			ID       []string `json:"id"`
			Measures []string `json:"measures"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Parameters.ID, []string{"a", "b"}) || !slices.Equal(s.Parameters.Measures, []string{"x", "y"}) {
		t.Errorf("id %v, measures %v; want [a b] and [x y]", s.Parameters.ID, s.Parameters.Measures)
	}
	code, _, stderr = runCLI(t, "run", "--source", src, "--sink", snk, "--sink", src, "--id", "a,b", "--out", filepath.Join(dir, "ev2"))
	if code != exitUsage || !strings.Contains(stderr, `given twice (`) || !strings.Contains(stderr, "--sink") {
		t.Errorf("--sink twice: exit %d, %q; want %d naming the flag and both values", code, stderr, exitUsage)
	}
}

// --duplicates is a column flag like --group-by: repeated, it adds its
// columns; the control then lists repeated postings (duplicate_postings).
func TestDuplicatesFlag(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "source.csv"), "id,acct,amt\n1,A,5\n2,A,5\n3,B,5\n")
	snk := writeFile(t, filepath.Join(dir, "sink.csv"), "id,acct,amt\n1,A,5\n2,A,5\n3,B,5\n")
	out := filepath.Join(dir, "ev")
	code, stdout, stderr := runCLI(t, "run", "--source", src, "--sink", snk, "--id", "id", "--duplicates", "acct", "--duplicates", "amt", "--out", out, "--format", "json")
	if code != exitFailed || !strings.Contains(stdout, "duplicate_postings") {
		t.Fatalf("exit %d, want %d (A,5 twice in each input): %s%s", code, exitFailed, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	type check struct {
		ID         string `json:"id"`
		Exceptions int64  `json:"exceptions"`
	}
	var s struct {
		Parameters struct {
			Duplicates []string `json:"duplicates"`
		} `json:"parameters"`
		Checks []check `json:"checks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Parameters.Duplicates, []string{"acct", "amt"}) {
		t.Errorf("duplicates %v, want [acct amt]", s.Parameters.Duplicates)
	}
	i := slices.IndexFunc(s.Checks, func(c check) bool { return c.ID == "duplicate_postings" })
	if i < 0 || s.Checks[i].Exceptions != 2 {
		t.Errorf("duplicate_postings: %+v, want 2 exceptions (one per input)", s.Checks)
	}
}
