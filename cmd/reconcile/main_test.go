package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI drives the real entry point in-process.
func runCLI(t *testing.T, args ...string) (code exitCode, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The README's main job: the ledger sample's two sinks give exit 1 with the
// replay findings, and exit 0.
func TestLedgerSample(t *testing.T) {
	tests := []struct {
		spec     string
		want     exitCode
		findings map[string]int
	}{
		{"at-least-once.yaml", exitFailed, map[string]int{
			"duplicate_ids": 130, "key_checkpoint_conflicts": 130, "missing_ids": 0, "unexpected_ids": 0,
			"value_mismatches": 10, "null_ids": 0, "row_count_balance": 12, "sum_balance": 12, "population": 0,
		}},
		{"exactly-once.yaml", exitOK, map[string]int{
			"duplicate_ids": 0, "key_checkpoint_conflicts": 0, "missing_ids": 0, "unexpected_ids": 0,
			"value_mismatches": 0, "null_ids": 0, "row_count_balance": 0, "sum_balance": 0, "population": 0,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			code, stdout, stderr := runCLI(t, "run", "--config", filepath.Join("..", "..", "samples", "ledger", tt.spec), "--out", out, "--format", "json,md")
			if code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
			var sum struct {
				SchemaVersion int    `json:"schema_version"`
				Status        string `json:"status"`
				Checks        []struct {
					ID         string `json:"id"`
					Assertion  string `json:"assertion"`
					Status     string `json:"status"`
					Exceptions int    `json:"exceptions"`
				} `json:"checks"`
				Inputs []struct {
					Rows  int `json:"rows"`
					Files []struct {
						SHA256 string `json:"sha256"`
					} `json:"files"`
				} `json:"inputs"`
				Totals struct {
					Measures []struct {
						Difference string `json:"difference"`
					} `json:"measures"`
				} `json:"totals"`
			}
			data, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatal(err)
			}
			if sum.SchemaVersion != 1 || len(sum.Inputs) != 2 || sum.Inputs[0].Rows != 3000 || len(sum.Inputs[1].Files[0].SHA256) != 64 {
				t.Errorf("summary header %+v", sum)
			}
			got := map[string]int{}
			for _, c := range sum.Checks {
				got[c.ID] = c.Exceptions
				if c.Assertion == "" || c.Status == "" {
					t.Errorf("check %s lacks assertion or status", c.ID)
				}
			}
			for id, n := range tt.findings {
				if got[id] != n {
					t.Errorf("%s: %d exceptions, want %d", id, got[id], n)
				}
			}
			if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
				t.Error(err)
			}
			if !strings.Contains(stdout, "evidence: "+out) {
				t.Errorf("stdout lacks the evidence path:\n%s", stdout)
			}
		})
	}
}

// Exit codes: 2 for usage and spec errors, 3 for inputs that cannot be
// read; never 0 for a run without a verdict; no evidence folder left behind.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id,amount\n1,1.00\n2,2.00\n")
	sink := writeFile(t, filepath.Join(dir, "k.csv"), "id,amount\n1,1.00\n2,2.00\n")
	bad := writeFile(t, filepath.Join(dir, "bad.csv"), "id,amount\n1,1.00\n2,1e3\n")
	ragged := writeFile(t, filepath.Join(dir, "ragged.csv"), "id,amount\n1,1.00\n2,2.00,extra,fields\n")
	unknownKey := writeFile(t, filepath.Join(dir, "unknown.yaml"), "source: s.csv\nsink: k.csv\nid: [id]\nmeasure: [amount]\nout: ev\n")
	semi := writeFile(t, filepath.Join(dir, "semi.csv"), "id;amount\n1;1.00\n")
	latin := writeFile(t, filepath.Join(dir, "latin.csv"), "id,name\n1,Caf\xe9\n")
	existing := filepath.Join(dir, "existing")
	os.Mkdir(existing, 0o755)

	tests := []struct {
		name    string
		args    []string
		want    exitCode
		wantErr string
	}{
		{"pass", []string{"--source", src, "--sink", sink, "--id", "id", "--measure", "amount"}, exitOK, ""},
		{"unknown flag", []string{"--source", src, "--sink", sink, "--id", "id", "--bogus"}, exitUsage, "unknown flag"},
		{"missing id", []string{"--source", src, "--sink", sink}, exitUsage, "id is required"},
		{"unknown spec key", []string{"--config", unknownKey}, exitUsage, "unknown key measure"},
		{"bad column", []string{"--source", src, "--sink", sink, "--id", "ID"}, exitUsage, `did you mean "id"`},
		{"bad memory limit", []string{"--source", src, "--sink", sink, "--id", "id", "--memory-limit", "lots"}, exitUsage, "memory limit"},
		{"semicolons without delimiter", []string{"--source", src, "--sink", semi, "--id", "id"}, exitUsage, `is it delimited by ";"?`},
		{"not UTF-8", []string{"--source", src, "--sink", latin, "--id", "id"}, exitRuntime, "declare encoding: latin-1"},
		{"unknown kind", []string{"--source", src + ".xlsx", "--sink", sink, "--id", "id"}, exitUsage, "unknown kind"},
		{"missing file", []string{"--source", filepath.Join(dir, "nope.csv"), "--sink", sink, "--id", "id"}, exitRuntime, "nope.csv"},
		{"not a decimal", []string{"--source", src, "--sink", bad, "--id", "id", "--measure", "amount"}, exitRuntime, `bad.csv:3: column amount: value "1e3"`},
		{"ragged csv", []string{"--source", src, "--sink", ragged, "--id", "id"}, exitRuntime, "ragged.csv"},
		{"glob matches nothing", []string{"--source", filepath.Join(dir, "*.parquet"), "--sink", sink, "--id", "id"}, exitRuntime, "no files match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			args := append([]string{"run", "--out", out}, tt.args...)
			code, _, stderr := runCLI(t, args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.want, stderr)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantErr)
			}
			entries, _ := os.ReadDir(filepath.Dir(out))
			if tt.want != exitOK {
				if len(entries) != 0 {
					t.Errorf("a failed run left %v behind", entries)
				}
			} else if len(entries) != 1 || entries[0].Name() != "ev" {
				t.Errorf("a passing run left %v, want only ev", entries)
			}
		})
	}

	t.Run("existing evidence folder", func(t *testing.T) {
		code, _, stderr := runCLI(t, "run", "--source", src, "--sink", sink, "--id", "id", "--out", existing)
		if code != exitUsage || !strings.Contains(stderr, "--force") {
			t.Fatalf("exit %d, stderr %q; want 2 and a hint at --force", code, stderr)
		}
		// --force replaces only an earlier evidence folder, never a folder
		// of data (here: the one holding the inputs) or an empty one.
		for _, dir := range []string{existing, filepath.Dir(src)} {
			code, _, stderr = runCLI(t, "run", "--source", src, "--sink", sink, "--id", "id", "--out", dir, "--force")
			if code != exitUsage || !strings.Contains(stderr, "replaces only an earlier evidence folder") {
				t.Fatalf("--force on %s: exit %d, stderr %q; want 2", dir, code, stderr)
			}
		}
		if _, err := os.Stat(src); err != nil {
			t.Fatalf("the source was touched: %v", err)
		}
		ev := filepath.Join(t.TempDir(), "ev")
		if code, _, stderr = runCLI(t, "run", "--source", src, "--sink", sink, "--id", "id", "--out", ev); code != exitOK {
			t.Fatalf("first run: exit %d: %s", code, stderr)
		}
		code, _, stderr = runCLI(t, "run", "--source", src, "--sink", sink, "--id", "id", "--out", ev, "--force")
		if code != exitOK {
			t.Fatalf("--force over evidence: exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(ev, "summary.json")); err != nil {
			t.Error(err)
		}
	})
}

// Flags override the spec file field by field; relative paths in the spec
// are relative to its folder.
func TestFlagsOverrideSpec(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "s.csv"), "id,amount\n1,1.00\n")
	writeFile(t, filepath.Join(dir, "in", "k.csv"), "id,amount\n1,1.00\n1,1.00\n")
	writeFile(t, filepath.Join(dir, "in", "k2.csv"), "id,amount\n1,1.00\n")
	cfg := writeFile(t, filepath.Join(dir, "in", "spec.yaml"), "source: s.csv\nsink: {uri: k.csv, delimiter: \",\"}\nid: id\nmeasures: [amount]\nout: ../ev\n")
	code, _, stderr := runCLI(t, "run", "--config", cfg)
	if code != exitFailed {
		t.Fatalf("spec alone: exit %d, want 1: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ev", "summary.json")); err != nil {
		t.Fatalf("out relative to the spec: %v", err)
	}
	code, _, stderr = runCLI(t, "run", "--config", cfg, "--sink", filepath.Join(dir, "in", "k2.csv"), "--out", filepath.Join(dir, "ev2"))
	if code != exitOK {
		t.Fatalf("--sink override: exit %d, want 0: %s", code, stderr)
	}
	// A relative path given as a flag is relative to the working directory,
	// not to the spec's folder.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(dir, "in", "k2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "run", "--config", cfg, "--sink", rel, "--out", filepath.Join(dir, "ev3"))
	if code != exitOK {
		t.Fatalf("relative --sink override: exit %d, want 0: %s", code, stderr)
	}
}

func TestHelpExitCodes(t *testing.T) {
	code, stdout, _ := runCLI(t, "help", "exit-codes")
	if code != exitOK || !strings.Contains(stdout, "3  an input could not be read") {
		t.Errorf("exit %d, output %q", code, stdout)
	}
}

func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id\n1\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"run", "--source", src, "--sink", src, "--id", "id", "--out", filepath.Join(dir, "ev")}, strings.NewReader(""), &out, &errb)
	if code != exitRuntime || !strings.Contains(errb.String(), "cancelled") {
		t.Fatalf("exit %d, stderr %q; want 3 and 'cancelled'", code, errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a cancelled run left %v", entries)
	}
}

// A run that cannot prove anything does not pass, and what --force must
// not replace is kept: a file read as both inputs is a usage error, an
// empty input fails the population check, an edited evidence folder and a
// folder an input lies in are refused.
func TestGuards(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id\n1\n")
	src2 := writeFile(t, filepath.Join(dir, "s2.csv"), "id\n1\n")
	empty := writeFile(t, filepath.Join(dir, "e.csv"), "id\n")
	empty2 := writeFile(t, filepath.Join(dir, "e2.csv"), "id\n")
	odd := writeFile(t, filepath.Join(dir, "data [1].csv"), "id\n1\n")
	cased := writeFile(t, filepath.Join(dir, "cased.csv"), "id,amt,AMT\n1,2,3\n")

	code, stdout, stderr := runCLI(t, "run", "--source", empty, "--sink", empty, "--id", "id", "--out", filepath.Join(dir, "ev-same"))
	if code != exitUsage || !strings.Contains(stderr, "is read as both source and sink") {
		t.Errorf("one file as both inputs: exit %d, stdout %q, stderr %q; want 2", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ev-same")); !os.IsNotExist(err) {
		t.Errorf("a usage error left an evidence folder: %v", err)
	}
	code, stdout, stderr = runCLI(t, "run", "--source", empty, "--sink", empty2, "--id", "id", "--out", filepath.Join(dir, "ev-empty"))
	if code != exitFailed || !strings.Contains(stdout, "FAIL    population") {
		t.Errorf("empty population: exit %d, stdout %q, stderr %q; want 1 with population failing", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, "run", "--source", odd, "--sink", src, "--id", "id", "--out", filepath.Join(dir, "ev-odd")); code != exitOK {
		t.Errorf("a file named with [ ]: exit %d: %s", code, stderr)
	}
	if code, _, stderr = runCLI(t, "run", "--source", cased, "--sink", src, "--id", "id", "--out", filepath.Join(dir, "ev-cased")); code != exitUsage || !strings.Contains(stderr, `"amt" and "AMT" differ only in case`) {
		t.Errorf("amt and AMT: exit %d, stderr %q", code, stderr)
	}

	ev := filepath.Join(dir, "ev")
	if code, _, stderr = runCLI(t, "run", "--source", src, "--sink", src2, "--id", "id", "--out", ev); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	inside := writeFile(t, filepath.Join(ev, "exceptions", "missing_ids.csv"), "id,source_rows,source_location\n")
	code, _, stderr = runCLI(t, "run", "--source", inside, "--sink", src, "--id", "id", "--out", ev, "--force")
	if code != exitUsage || !strings.Contains(stderr, "lies inside the evidence folder") {
		t.Errorf("input inside --out: exit %d, stderr %q; want 2", code, stderr)
	}
	os.WriteFile(filepath.Join(ev, "report.md"), []byte("auditor's notes\n"), 0o644)
	code, _, stderr = runCLI(t, "run", "--source", src, "--sink", src2, "--id", "id", "--out", ev, "--force")
	if code != exitUsage || !strings.Contains(stderr, "was changed after reconcile wrote it") {
		t.Errorf("--force over an edited folder: exit %d, stderr %q; want 2", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(ev, "report.md")); string(b) != "auditor's notes\n" {
		t.Error("the edited report.md was replaced")
	}
}

// With --config in another folder, a relative file given as a flag is read
// against the working directory (the spec's own paths against its folder),
// also behind a kind: prefix; a file of the same name beside the spec is
// not read instead.
func TestRelativeFlagInputWithConfigElsewhere(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// A folder below the working directory, so that the flag can be relative.
	local, err := os.MkdirTemp(wd, "reltest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(local) })
	name := filepath.Base(local)
	writeFile(t, filepath.Join(local, "k.csv"), "id,amount\n1,1.00\n")
	writeFile(t, filepath.Join(local, "part-0"), "id,amount\n1,1.00\n")
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "s.csv"), "id,amount\n1,1.00\n")
	// Beside the spec, files of the same relative names that would fail.
	writeFile(t, filepath.Join(other, name, "k.csv"), "id,amount\n2,2.00\n")
	writeFile(t, filepath.Join(other, name, "part-0"), "id,amount\n2,2.00\n")
	cfg := writeFile(t, filepath.Join(other, "spec.yaml"), "source: s.csv\nsink: nope.csv\nid: id\nmeasures: [amount]\n")
	for _, sink := range []string{filepath.Join(name, "k.csv"), "csv:" + filepath.Join(name, "part-0")} {
		out := filepath.Join(t.TempDir(), "ev")
		code, _, stderr := runCLI(t, "run", "--config", cfg, "--sink", sink, "--out", out, "--format", "json")
		if code != exitOK {
			t.Fatalf("--sink %s: exit %d, want 0 (read against the working directory): %s", sink, code, stderr)
		}
	}
}
