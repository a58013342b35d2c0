package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sha256Of is the SHA-256 of a file's bytes, lower-case hex.
func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ledgerRun writes a small control (entry 2 posted twice) into a fresh
// folder, runs it into ev, and returns the folder, the spec and the
// evidence folder.
func ledgerRun(t *testing.T, sink string) (dir, spec, ev string) {
	t.Helper()
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "source.csv"), "id,amount\n1,10.00\n2,20.00\n3,30.00\n")
	writeFile(t, filepath.Join(dir, "sink", "part-0.csv"), "id,amount,cp\n1,10.00,1\n2,20.00,1\n2,20.00,2\n3,30.00,2\n")
	spec = writeFile(t, filepath.Join(dir, "spec.yaml"), "name: ledger\nsource: source.csv\nsink: "+sink+"\nid: [id]\nmeasures: [amount]\ncheckpoint: cp\nout: ev\n")
	ev = filepath.Join(dir, "ev")
	if code, _, stderr := runCLI(t, "run", "--config", spec, "--format", "json"); code != exitFailed {
		t.Fatalf("run: exit %d, want 1: %s", code, stderr)
	}
	return dir, spec, ev
}

// explain --evidence refuses an input changed since the run (exit 4),
// naming the input, the file and both SHA-256; --allow-changed-inputs
// explains all the same with a warning on stderr and in the JSON (issue 34).
func TestExplainEvidenceChangedFile(t *testing.T) {
	dir, _, ev := ledgerRun(t, "sink/part-0.csv")
	part := filepath.Join(dir, "sink", "part-0.csv")
	before := sha256Of(t, part)

	if code, stdout, stderr := runCLI(t, "explain", "--evidence", ev, "--key", "2"); code != exitOK || !strings.Contains(stdout, "found by duplicate_ids") {
		t.Fatalf("unchanged inputs: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}

	// The next night appends to the sink: entry 2's third copy.
	writeFile(t, part, "id,amount,cp\n1,10.00,1\n2,20.00,1\n2,20.00,2\n3,30.00,2\n2,20.00,3\n")
	after := sha256Of(t, part)
	code, stdout, stderr := runCLI(t, "explain", "--evidence", ev, "--key", "2")
	if code != exitStale || stdout != "" {
		t.Fatalf("changed sink: exit %d, want %d, stdout %q, stderr %s", code, exitStale, stdout, stderr)
	}
	for _, want := range []string{"an input changed since the run", "the sink sink/part-0.csv (csv)", "file sink/part-0.csv: SHA-256 " + before, after + " (", "--allow-changed-inputs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	code, stdout, stderr = runCLI(t, "explain", "--evidence", ev, "--key", "2", "--allow-changed-inputs")
	if code != exitOK || !strings.Contains(stderr, "WARNING: changed since run") || !strings.Contains(stderr, after) {
		t.Fatalf("--allow-changed-inputs: exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Sink rows (3)") {
		t.Errorf("--allow-changed-inputs shows the sink as it is now (3 rows of entry 2):\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, "explain", "--evidence", ev, "--key", "2", "--allow-changed-inputs", "--json")
	var ex struct {
		Found    bool     `json:"found"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &ex); err != nil || code != exitOK || !ex.Found || len(ex.Warnings) == 0 || !strings.HasPrefix(ex.Warnings[0], "WARNING: ") {
		t.Errorf("--json: exit %d, %+v, %v:\n%s", code, ex, err, stdout)
	}
}

// A file new in a folder input since the run, and a file gone, are
// changes too.
func TestExplainEvidenceFilesNewAndGone(t *testing.T) {
	dir, _, ev := ledgerRun(t, "\"sink/*.csv\"")
	extra := writeFile(t, filepath.Join(dir, "sink", "part-1.csv"), "id,amount,cp\n4,40.00,3\n")
	code, _, stderr := runCLI(t, "explain", "--evidence", ev, "--key", "2")
	if code != exitStale || !strings.Contains(stderr, "file sink/part-1.csv is new since the run") || !strings.Contains(stderr, "4 rows at the run, 5 now") {
		t.Errorf("new file: exit %d, stderr:\n%s", code, stderr)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "sink", "part-0.csv")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sink", "part-9.csv"), "id,amount,cp\n1,10.00,1\n")
	code, _, stderr = runCLI(t, "explain", "--evidence", ev, "--key", "2")
	if code != exitStale || !strings.Contains(stderr, "file sink/part-0.csv was read by the run") || !strings.Contains(stderr, "cannot be read now") {
		t.Errorf("file gone: exit %d, stderr:\n%s", code, stderr)
	}
}

// explain --evidence takes the spec as the run recorded it: its --param
// values and flag overrides, with no --config or --param.
func TestExplainEvidenceRecordedSpec(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "source.csv"), "id,amount\n1,10.00\n7,70.00\n")
	writeFile(t, filepath.Join(dir, "sink-a.csv"), "id,amount\n1,10.00\n")
	writeFile(t, filepath.Join(dir, "sink-b.csv"), "id,amount\n1,10.00\n7,70.00\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: nightly\nsource: source.csv\nsink: sink-${night}.csv\nid: [id]\nmeasures: [amount]\nout: ev-${night}\n")
	for _, night := range []string{"a", "b"} {
		if code, _, stderr := runCLI(t, "run", "--config", spec, "--param", "night="+night, "--format", "json"); code > exitFailed {
			t.Fatalf("run night %s: exit %d: %s", night, code, stderr)
		}
	}
	// Entry 7 is missing on night a, posted on night b.
	code, stdout, stderr := runCLI(t, "explain", "--evidence", filepath.Join(dir, "ev-a"), "--key", "7")
	if code != exitOK || !strings.Contains(stdout, "never posted; found by missing_ids") {
		t.Errorf("night a: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "explain", "--evidence", filepath.Join(dir, "ev-b"), "--key", "7")
	if code != exitOK || !strings.Contains(stdout, "1 source row(s), 1 sink row(s); no check found anything on it") {
		t.Errorf("night b: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// An evidence folder that does not verify, and one whose spec file is not
// where the run read it from, are refused (exit 2) before any input is
// read.
func TestExplainEvidenceRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "source.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "sink.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "spec.yaml"), "source: source.csv\nsink: sink.csv\nid: [id]\nout: ev\n")
	t.Chdir(dir)
	if code, _, stderr := runCLI(t, "run", "--config", "spec.yaml", "--format", "json"); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	ev := filepath.Join(dir, "ev")
	t.Chdir(t.TempDir())
	code, _, stderr := runCLI(t, "explain", "--evidence", ev, "--key", "1")
	if code != exitUsage || !strings.Contains(stderr, "spec file spec.yaml, which is not at that path from this folder") {
		t.Errorf("spec file elsewhere: exit %d, stderr %s", code, stderr)
	}
	t.Chdir(dir)
	if code, stdout, stderr := runCLI(t, "explain", "--evidence", "ev", "--key", "1"); code != exitOK || !strings.Contains(stdout, "Key id=1") {
		t.Fatalf("from the run's folder: exit %d: %s%s", code, stdout, stderr)
	}
	writeFile(t, filepath.Join(ev, "exceptions", "missing_ids.csv"), "id,edited\n")
	if code, _, stderr := runCLI(t, "explain", "--evidence", "ev", "--key", "1"); code != exitUsage || !strings.Contains(stderr, "does not verify against its manifest") {
		t.Errorf("edited evidence: exit %d, stderr %s", code, stderr)
	}
}

// --keys-from reads the key columns of a CSV by their header, composite
// ids included, each key once; a file without them is refused.
func TestExplainKeysFrom(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "source.csv"), "region,no,amount\nEU,1,1.00\nEU,2,2.00\nUS,1,3.00\n")
	writeFile(t, filepath.Join(dir, "sink.csv"), "region,no,amount\nEU,1,1.00\nEU,1,1.00\nUS,1,3.50\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "source: source.csv\nsink: sink.csv\nid: [region, no]\nmeasures: [amount]\nout: ev\n")
	keys := writeFile(t, filepath.Join(dir, "keys.csv"), "side,no,region\nsink,1,EU\nsource,1,EU\nx,1,US\nx,2,EU\n")
	code, stdout, stderr := runCLI(t, "explain", "--config", spec, "--keys-from", keys, "--key", "US,1")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := strings.Count(stdout, "\nKey ") + strings.Count(stdout[:4], "Key "); got != 3 {
		t.Errorf("%d keys explained, want 3 (US,1 once; EU,1 once; EU,2):\n%s", got, stdout)
	}
	for _, want := range []string{"Key region=US, no=1", "Key region=EU, no=1", "Key region=EU, no=2", "source_value=3.00 sink_value=3.50"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if strings.Index(stdout, "Key region=US, no=1") > strings.Index(stdout, "Key region=EU, no=1") {
		t.Error("--key comes before the keys of --keys-from")
	}
	bad := writeFile(t, filepath.Join(dir, "bad.csv"), "no,amount\n1,1.00\n")
	if code, _, stderr := runCLI(t, "explain", "--config", spec, "--keys-from", bad); code != exitUsage || !strings.Contains(stderr, "has no column region (its header: no,amount)") {
		t.Errorf("file without the key columns: exit %d, %s", code, stderr)
	}
	// Several keys as JSON are an array, with the one not found in it.
	code, stdout, _ = runCLI(t, "explain", "--config", spec, "--key", "EU,1", "--key", "XX,9", "--json")
	var exs []struct {
		Found   bool   `json:"found"`
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(stdout), &exs); err != nil || code != exitUsage || len(exs) != 2 || !exs[0].Found || exs[1].Found || !strings.Contains(exs[1].Verdict, "not found") {
		t.Errorf("two keys as JSON: exit %d, %+v, %v", code, exs, err)
	}
}
