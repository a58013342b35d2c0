package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file sink whose only files are uncommitted holds no committed
// record: population fails (exit 1) and missing_ids carries each id's
// uncommitted_file; with allow_empty: [sink] population passes and
// missing_ids still fails, labelled. The columns come from the uncommitted
// files' headers, which must agree; a folder with no file stays an error.
func TestSinkOnlyUncommitted(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "plain.csv"), "id,amount\n1,1.00\n2,2.00\n")
	writeFile(t, filepath.Join(dir, "ip", ".part-x-0.inprogress.abcd"), "id,amount\n1,1.00\n")
	writeFile(t, filepath.Join(dir, "ip", "_part-1.pending"), "id,amount\n2,2.00\n")
	want := "id,source_rows,source_location,uncommitted_file\n1,1,plain.csv:2,ip/.part-x-0.inprogress.abcd:2\n2,1,plain.csv:3,ip/_part-1.pending:2\n"
	for _, allow := range []bool{false, true} {
		spec := "source: plain.csv\nsink: {uri: ip/, kind: csv}\nid: id\n"
		if allow {
			spec += "allow_empty: [sink]\n"
		}
		cfg := writeFile(t, filepath.Join(dir, fmt.Sprintf("spec-%v.yaml", allow)), spec)
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", cfg, "--out", out, "--format", "json")
		if code != exitFailed || !strings.Contains(stdout, "FAIL    missing_ids") || strings.Contains(stdout, "FAIL    population") == allow {
			t.Fatalf("allow_empty %v: exit %d, stdout %q, stderr %q; want 1, missing_ids failing, population failing unless allowed", allow, code, stdout, stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "exceptions", "missing_ids.csv")); string(b) != want {
			t.Errorf("allow_empty %v: missing_ids.csv\n%s\nwant\n%s", allow, b, want)
		}
		summary, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if !strings.Contains(string(summary), `"path": "ip/_part-1.pending"`) {
			t.Errorf("allow_empty %v: summary.json does not list the skipped files", allow)
		}
		// the terminal summary says so too, where the missing ids are
		if want := "sink: 2 files skipped, 2 of them uncommitted (2 rows not read as records: in-progress or pending output); summary.json skipped_files lists each with its reason\n"; !strings.Contains(stdout, want) {
			t.Errorf("allow_empty %v: stdout lacks %q:\n%s", allow, want, stdout)
		}
	}
	writeFile(t, filepath.Join(dir, "ip", "_part-2.pending"), "id,amt\n3,1\n")
	code, _, stderr := runCLI(t, "run", "--source", src, "--sink", "csv:"+filepath.Join(dir, "ip")+"/", "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
	if code != exitRuntime || !strings.Contains(stderr, "_part-2.pending: header") {
		t.Errorf("uncommitted headers that differ: exit %d, stderr %q; want 3 naming the file", code, stderr)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "run", "--source", src, "--sink", "csv:"+filepath.Join(dir, "empty")+"/", "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
	if code != exitRuntime || !strings.Contains(stderr, "matches no file") {
		t.Errorf("an empty folder: exit %d, stderr %q; want 3", code, stderr)
	}
}
