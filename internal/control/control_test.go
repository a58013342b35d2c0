package control_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests read inputs of every kind
)

// testdata: source.csv holds ids 1-3; sink.csv lacks 3 and holds 2 twice
// (so the control fails, with evidence); sink-bad-value.csv has the amount
// "2.0O" on line 3; queries-broken/ is one check file that loads but whose
// query fails in DuckDB.

// newSpec is a control over testdata's source and the given sink, writing
// its evidence to out.
func newSpec(t *testing.T, sink, out string) *spec.Spec {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return &spec.Spec{
		Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: sink},
		ID: []string{"id"}, Measures: []string{"amount"}, Out: out, Dir: dir,
	}
}

// clock returns a fixed clock at hour h, so that two runs have two run ids.
func clock(h int) func() time.Time {
	return func() time.Time { return time.Date(2026, 11, 27, h, 0, 0, 0, time.UTC) }
}

// entries lists a folder's entry names, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// summaryRunID reads the run id from the summary.json of an evidence folder.
func summaryRunID(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Run.ID
}

// watchLog is an Options.Log that calls see with each progress line as the
// run writes it, so a test can look at the file system mid-run.
type watchLog func(line string)

func (w watchLog) Write(p []byte) (int, error) {
	w(string(p))
	return len(p), nil
}

// While the checks run, the evidence exists only as a staging folder whose
// name says it is incomplete; the folder appears at --out only when every
// file is written, the manifest last, and nothing else is left beside it.
func TestRunPublishesOnlyComplete(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "ev")
	var midRun []string
	var outDuringRun bool
	log := watchLog(func(line string) {
		if strings.HasPrefix(line, "check ") && midRun == nil {
			midRun = entries(t, parent)
			_, err := os.Stat(out)
			outDuringRun = err == nil
		}
	})
	res, err := control.Run(context.Background(), newSpec(t, "sink.csv", out), control.Options{Formats: []string{"json", "md"}, Log: log, Now: clock(1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != evidence.Fail {
		t.Errorf("status %s, want fail (3 is missing, 2 is doubled)", res.Status)
	}
	if outDuringRun {
		t.Error("the evidence folder existed at --out while the checks ran")
	}
	if len(midRun) != 1 || !strings.HasPrefix(midRun[0], ".ev.incomplete-") {
		t.Errorf("mid-run the parent held %v, want only the staging folder .ev.incomplete-…", midRun)
	}
	if got := entries(t, parent); len(got) != 1 || got[0] != "ev" {
		t.Errorf("after the run the parent holds %v, want only ev", got)
	}
	got := entries(t, out)
	for _, want := range []string{"exceptions", "manifest.json", "queries", "report.md", "summary.json"} {
		if i := sort.SearchStrings(got, want); i == len(got) || got[i] != want {
			t.Errorf("evidence folder %v lacks %s", got, want)
		}
	}
	v, err := evidence.Verify(context.Background(), out, nil)
	if err != nil || !v.OK() {
		t.Errorf("the published folder does not verify against its manifest: %v %+v", err, v)
	}
	if id := summaryRunID(t, out); id != res.Run.ID || id == "" {
		t.Errorf("summary.json run id %q, result %q", id, res.Run.ID)
	}
}

// An error after the evidence folder was begun — a value that is not a
// decimal, a check query that fails, a cancelled run — leaves nothing
// behind: no folder at --out, no staging folder.
func TestRunLeavesNothingOnError(t *testing.T) {
	broken, err := filepath.Abs(filepath.Join("testdata", "queries-broken"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		sink   string
		opt    control.Options
		cancel string // cancel the run when a progress line starts with this
		want   error
		msg    string
	}{
		{name: "bad value", sink: "sink-bad-value.csv", want: checks.ErrValue, msg: `sink-bad-value.csv:3: column amount: value "2.0O"`},
		{name: "failing check query", sink: "sink.csv", opt: control.Options{Queries: os.DirFS(broken)}, msg: "no_such_table"},
		{name: "cancelled during the checks", sink: "sink.csv", cancel: "check "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "ev")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			began := false
			tt.opt.Log = watchLog(func(line string) {
				if strings.HasPrefix(line, "loaded sink") {
					began = len(entries(t, parent)) == 1
				}
				if tt.cancel != "" && strings.HasPrefix(line, tt.cancel) {
					cancel()
				}
			})
			res, err := control.Run(ctx, newSpec(t, tt.sink, out), tt.opt)
			if err == nil {
				t.Fatalf("no error; result %+v", res)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
			if fault.Of(err) != fault.Runtime {
				t.Errorf("error %v is of class %v, want runtime", err, fault.Of(err))
			}
			if !began {
				t.Error("the staging folder did not exist once the inputs were loaded; the case does not test clean-up")
			}
			if got := entries(t, parent); len(got) != 0 {
				t.Errorf("a failed run left %v", got)
			}
		})
	}
}

// An input inside the evidence folder is refused before anything is
// written, even with Force, and the folder is kept as it was.
func TestRunRefusesInputInsideEvidence(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "ev")
	if _, err := control.Run(context.Background(), newSpec(t, "sink.csv", out), control.Options{Formats: []string{"json"}, Now: clock(1)}); err != nil {
		t.Fatal(err)
	}
	before := summaryRunID(t, out)
	s := newSpec(t, filepath.Join(out, "exceptions", "missing_ids.csv"), out)
	_, err := control.Run(context.Background(), s, control.Options{Force: true, Formats: []string{"json"}, Now: clock(2)})
	if !errors.Is(err, spec.ErrInvalid) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), "lies inside the evidence folder") {
		t.Fatalf("err = %v, want a usage error: the input lies inside the evidence folder", err)
	}
	if got := summaryRunID(t, out); got != before {
		t.Errorf("the evidence folder was replaced (run %s, was %s)", got, before)
	}
	if got := entries(t, parent); len(got) != 1 || got[0] != "ev" {
		t.Errorf("the parent holds %v, want only ev", got)
	}
	// the same folder reached through a symbolic link (found by a
	// reviewer: the paths were compared as text)
	link := filepath.Join(t.TempDir(), "sl")
	if err := os.Symlink(parent, link); err != nil {
		t.Fatal(err)
	}
	s = newSpec(t, filepath.Join(out, "exceptions", "missing_ids.csv"), filepath.Join(link, "ev"))
	_, err = control.Run(context.Background(), s, control.Options{Force: true, Formats: []string{"json"}, Now: clock(3)})
	if !errors.Is(err, spec.ErrInvalid) || !strings.Contains(err.Error(), "lies inside the evidence folder") {
		t.Fatalf("through a link: err = %v, want the input refused as inside the evidence folder", err)
	}
	if got := summaryRunID(t, out); got != before {
		t.Errorf("through a link: the evidence folder was replaced (run %s, was %s)", got, before)
	}
}

// Force replaces only an earlier, unedited evidence folder, and only once
// the new one is complete; without Force an existing folder is an error.
func TestRunForce(t *testing.T) {
	ctx := context.Background()
	first := func(t *testing.T) (parent, out, id string) {
		t.Helper()
		parent = t.TempDir()
		out = filepath.Join(parent, "ev")
		res, err := control.Run(ctx, newSpec(t, "sink.csv", out), control.Options{Formats: []string{"json", "md"}, Now: clock(1)})
		if err != nil {
			t.Fatal(err)
		}
		return parent, out, res.Run.ID
	}
	again := func(t *testing.T, sink, out string, force bool) error {
		t.Helper()
		_, err := control.Run(ctx, newSpec(t, sink, out), control.Options{Force: force, Formats: []string{"json", "md"}, Now: clock(2)})
		return err
	}

	t.Run("existing folder without force", func(t *testing.T) {
		parent, out, id := first(t)
		err := again(t, "sink.csv", out, false)
		if !errors.Is(err, evidence.ErrExists) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("err = %v, want evidence.ErrExists naming --force", err)
		}
		if got := summaryRunID(t, out); got != id {
			t.Errorf("the folder was replaced: run %s, was %s", got, id)
		}
		if got := entries(t, parent); len(got) != 1 {
			t.Errorf("the parent holds %v", got)
		}
	})
	t.Run("force over earlier evidence", func(t *testing.T) {
		parent, out, id := first(t)
		if err := again(t, "sink.csv", out, true); err != nil {
			t.Fatal(err)
		}
		if got := summaryRunID(t, out); got == id {
			t.Errorf("the folder still holds run %s", got)
		}
		if got := entries(t, parent); len(got) != 1 || got[0] != "ev" {
			t.Errorf("the parent holds %v, want only ev (no old or staging folder)", got)
		}
	})
	t.Run("force with a failing run keeps the earlier evidence", func(t *testing.T) {
		parent, out, id := first(t)
		if err := again(t, "sink-bad-value.csv", out, true); !errors.Is(err, checks.ErrValue) {
			t.Fatalf("err = %v, want checks.ErrValue", err)
		}
		if got := summaryRunID(t, out); got != id {
			t.Errorf("the earlier evidence was replaced by a failed run: %s, was %s", got, id)
		}
		if v, err := evidence.Verify(ctx, out, nil); err != nil || !v.OK() {
			t.Errorf("the earlier evidence no longer verifies: %v %+v", err, v)
		}
		if got := entries(t, parent); len(got) != 1 || got[0] != "ev" {
			t.Errorf("the parent holds %v, want only ev", got)
		}
	})
	t.Run("force over a folder annotated during the run", func(t *testing.T) {
		// The folder is checked when the run starts and again when it is
		// replaced: notes an auditor adds meanwhile are kept, and the run
		// is refused (found by a reviewer: they were deleted).
		_, out, id := first(t)
		notes := filepath.Join(out, "auditor-notes.txt")
		log := writerFunc(func(p []byte) {
			if strings.Contains(string(p), "wrote the exceptions files") {
				if err := os.WriteFile(notes, []byte("seen\n"), 0o644); err != nil {
					t.Error(err)
				}
			}
		})
		_, err := control.Run(ctx, newSpec(t, "sink.csv", out), control.Options{Force: true, Formats: []string{"json", "md"}, Now: clock(2), Log: log})
		if !errors.Is(err, evidence.ErrExists) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), "ev (during the run) was changed after reconcile wrote it") {
			t.Fatalf("err = %v, want evidence.ErrExists: the folder gained a file during the run", err)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "seen\n" {
			t.Errorf("the auditor's notes: %q, %v", b, err)
		}
		if got := summaryRunID(t, out); got != id {
			t.Errorf("the folder holds run %s, want the earlier %s", got, id)
		}
		if got := entries(t, filepath.Dir(out)); len(got) != 1 || got[0] != "ev" {
			t.Errorf("the parent holds %v, want only ev", got)
		}
	})
	t.Run("force over an edited evidence folder", func(t *testing.T) {
		_, out, _ := first(t)
		notes := []byte("auditor's notes\n")
		if err := os.WriteFile(filepath.Join(out, "report.md"), notes, 0o644); err != nil {
			t.Fatal(err)
		}
		err := again(t, "sink.csv", out, true)
		if !errors.Is(err, evidence.ErrExists) || !strings.Contains(err.Error(), "was changed after reconcile wrote it") {
			t.Fatalf("err = %v, want a refusal: the folder was edited", err)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "report.md")); string(b) != string(notes) {
			t.Error("the edited report.md was replaced")
		}
	})
	t.Run("force over a folder that is not evidence", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			setup func(t *testing.T, out string)
			why   string
		}{
			{"a data folder", func(t *testing.T, out string) {
				os.Mkdir(out, 0o755)
				os.WriteFile(filepath.Join(out, "ledger.csv"), []byte("id\n1\n"), 0o644)
			}, "is not an evidence folder"},
			{"an empty folder", func(t *testing.T, out string) { os.Mkdir(out, 0o755) }, "is not an evidence folder"},
			{"a file", func(t *testing.T, out string) { os.WriteFile(out, []byte("x"), 0o644) }, "is not a folder"},
			{"evidence with a file added", func(t *testing.T, out string) {
				if _, err := control.Run(ctx, newSpec(t, "sink.csv", out), control.Options{Formats: []string{"json"}, Now: clock(1)}); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(out, "mine.txt"), []byte("keep me\n"), 0o644)
			}, "was changed after reconcile wrote it"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				parent := t.TempDir()
				out := filepath.Join(parent, "ev")
				tt.setup(t, out)
				before := entries(t, parent)
				err := again(t, "sink.csv", out, true)
				if !errors.Is(err, evidence.ErrExists) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "--force replaces only an earlier evidence folder") {
					t.Fatalf("err = %v, want a refusal saying %q", err, tt.why)
				}
				if got := entries(t, parent); strings.Join(got, ",") != strings.Join(before, ",") {
					t.Errorf("the parent holds %v, had %v", got, before)
				}
			})
		}
	})
}

// TestRunRecordsMemoryBudget: summary.json says what memory the run had
// and where the figure came from — --memory-limit, or the machine's share —
// and a malformed limit is refused before anything is read.
func TestRunRecordsMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		limit, source string
		bytes         int64
	}{{"1GB", memory.SourceFlag, 1e9}, {"", "", 0}} {
		out := filepath.Join(dir, "ev"+tc.limit)
		res, err := control.Run(context.Background(), newSpec(t, "sink.csv", out), control.Options{MemoryLimit: tc.limit, Formats: []string{"json"}})
		if err != nil && !errors.Is(err, checks.ErrFailed) {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s evidence.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		m := s.Run.Memory
		if m == nil || res.Run.Memory == nil {
			t.Fatalf("limit %q: no run.memory in summary.json", tc.limit)
		}
		if tc.limit != "" && (m.Source != tc.source || m.LimitBytes != tc.bytes) {
			t.Errorf("limit %q: recorded %d from %q", tc.limit, m.LimitBytes, m.Source)
		}
		if tc.limit == "" && (m.Source == memory.SourceFlag || m.AvailableBytes <= 0 || m.LimitBytes != int64(float64(m.AvailableBytes)*memory.MachineShare)) {
			t.Errorf("default: recorded %+v, want MachineShare of the machine's available memory", *m)
		}
		if m.DuckDBBytes <= 0 || m.DuckDBBytes+m.GoBytes >= m.LimitBytes {
			t.Errorf("limit %q: shares %+v", tc.limit, *m)
		}
	}
	_, err := control.Run(context.Background(), newSpec(t, "sink.csv", filepath.Join(dir, "bad")), control.Options{MemoryLimit: "4G"})
	if !errors.Is(err, spec.ErrInvalid) {
		t.Fatalf("--memory-limit 4G: %v, want spec.ErrInvalid", err)
	}
}

// writerFunc is an io.Writer calling f with each write.
type writerFunc func(p []byte)

func (w writerFunc) Write(p []byte) (int, error) {
	w(p)
	return len(p), nil
}

// A sink file rewritten in place once it is loaded — same inode and size,
// its modification time set back as touch -d does — fails the run
// (sources.ErrChanged, exit 3) and publishes no evidence: the SHA-256 it
// would carry might not be of the bytes the run read (found by a tester:
// checkUnchanged compared identity, size and modification time only).
func TestRunInputRewrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	sink := filepath.Join(dir, "sink.csv")
	body, err := os.ReadFile(filepath.Join("testdata", "sink.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sink, body, 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	if err := os.Chtimes(sink, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	rewritten := false
	log := watchLog(func(line string) {
		if !strings.HasPrefix(line, "loaded sink") {
			return
		}
		time.Sleep(50 * time.Millisecond) // the change time's coarse clock ticks
		f, err := os.OpenFile(sink, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		// "1,1.00" becomes "1,9.00": the same number of bytes
		if _, err := f.WriteAt([]byte("9"), int64(strings.Index(string(body), "1.00"))); err != nil {
			t.Error(err)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		if err := os.Chtimes(sink, mtime, mtime); err != nil {
			t.Error(err)
		}
		rewritten = true
	})
	out := filepath.Join(dir, "ev")
	_, err = control.Run(context.Background(), newSpec(t, sink, out), control.Options{Formats: []string{"json"}, Log: log})
	if !rewritten {
		t.Fatal("the sink was not rewritten; the case tests nothing")
	}
	if !errors.Is(err, sources.ErrChanged) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "sink.csv was changed in place") {
		t.Fatalf("err = %v, want sources.ErrChanged naming sink.csv (a runtime error)", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an evidence folder was published: %v", err)
	}
}
