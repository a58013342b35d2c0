package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runIDText and startedText are a run id and a start time as the verdict
// line prints them.
var (
	runIDText   = regexp.MustCompile(`\b\d{8}T\d{6}Z-[0-9a-f]{8}\b`)
	startedText = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b`)
)

var update = flag.Bool("update", false, "rewrite the want/ folders of testdata/endtoend from this run")

// TestEndToEnd runs every case folder of testdata/endtoend through the real
// entry point and compares what the run produced with the case's want/
// folder, file by file (sqlc's internal/endtoend is the model):
//
//	testdata/endtoend/<case>/
//	  spec.yaml, source.csv, sink.csv, …   the control and its inputs
//	  args                                 optional: the arguments, one per line
//	                                       (default: run, --config, spec.yaml)
//	  want/exit_code                       the exit code
//	  want/stdout                          the summary printed for the cron log
//	  want/stderr                          optional: the lines reconcile: prints (errors, hints)
//	  want/summary.json                    summary.json, normalised (below)
//	  want/exceptions/<check>.csv          every exceptions file, byte for byte
//
// The run starts in the case folder, as an auditor re-performing it would:
//
//	cd testdata/endtoend/<case> && reconcile $(cat args) --out /tmp/ev --format json
//
// with --out a fresh folder and --format json appended. Normalised means:
// the run's id, times, user, host and tool and DuckDB versions are dropped;
// the evidence folder's path reads $OUT and the repository's path $REPO;
// keys are sorted. Progress lines on stderr (they hold timings) are not
// compared.
//
// A file in want/ the run did not produce, or one the run produced that
// want/ lacks, fails the case. To accept a changed behaviour, rewrite the
// want/ folders and read every changed file before committing it:
//
//	go test -tags duckdb_arrow ./cmd/reconcile/ -run TestEndToEnd -update
//	git diff cmd/reconcile/testdata/endtoend
func TestEndToEnd(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join("testdata", "endtoend", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/endtoend")
	}
	for _, dir := range cases {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			dir, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := runCase(t, dir, repo)
			compareFolder(t, filepath.Join(dir, "want"), got)
		})
	}
}

// runCase runs the case in dir and returns its results as want/ would hold
// them: relative path → content.
func runCase(t *testing.T, dir, repo string) map[string]string {
	args := []string{"run", "--config", "spec.yaml"}
	if b, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
		args = nil
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				args = append(args, l)
			}
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "evidence")
	args = append(args, "--out", out, "--format", "json")
	t.Chdir(dir)
	code, stdout, stderr := runCLI(t, args...)

	norm := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, out, "$OUT"), repo, "$REPO")
	}
	// The verdict line names the run: its start and its id.
	normRun := func(s string) string {
		s = runIDText.ReplaceAllString(s, "$$RUN_ID")
		return startedText.ReplaceAllString(s, "$$STARTED")
	}
	got := map[string]string{
		"exit_code": fmt.Sprintf("%d\n", code),
		"stdout":    normRun(norm(stdout)),
	}
	var said []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "reconcile: ") {
			said = append(said, l)
		}
	}
	if len(said) > 0 {
		got["stderr"] = norm(strings.Join(said, ""))
	}
	if b, err := os.ReadFile(filepath.Join(out, "summary.json")); err == nil {
		got["summary.json"] = normalSummary(t, norm(string(b)))
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(out, "exceptions", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got["exceptions/"+filepath.Base(f)] = string(b)
	}
	if t.Failed() {
		t.FailNow()
	}
	return got
}

// runFields are the parts of summary.json's run object that differ from
// run to run or machine to machine.
var runFields = []string{"id", "started_at", "finished_at", "user", "host", "tool_version", "duckdb_version", "memory"}

// normalSummary drops the run's varying fields and re-indents summary.json
// with sorted keys; numbers keep their literal text.
func normalSummary(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	run, ok := v["run"].(map[string]any)
	if !ok {
		t.Fatalf("summary.json has no run object")
	}
	for _, k := range runFields {
		if _, ok := run[k]; !ok {
			t.Errorf("summary.json run.%s is missing", k)
		}
		delete(run, k)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// compareFolder compares got with the files under want, or with -update
// replaces want by got.
func compareFolder(t *testing.T, want string, got map[string]string) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		for name, content := range got {
			p := filepath.Join(want, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have := map[string]string{}
	err := filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(want, p)
		if err != nil {
			return err
		}
		have[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("%v (a new case? run with -update and read every file it writes)", err)
	}
	names := make([]string, 0, len(have)+len(got))
	for n := range have {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := have[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		w, inWant := have[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			t.Errorf("want/%s: the run produced no such file", n)
		case !inWant:
			t.Errorf("the run produced %s, which want/ lacks:\n%s", n, g)
		case w != g:
			t.Errorf("%s differs (-want +got):\n%s", n, cmp.Diff(w, g))
		}
	}
}
