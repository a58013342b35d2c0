package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/lock"
	"github.com/reconcile-dev/reconcile/internal/proc"
)

// copyTree copies the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func decodeSummary(t *testing.T, dir string) *evidence.Summary {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, evidence.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := evidence.DecodeSummary(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The nightly operation, as the README walks through it: three
// nights of the ledger (clean; 130 replayed duplicates; 100 of them
// repaired and 20 new) as a suite with --param day and one history file.
func TestNightlyThreeNights(t *testing.T) {
	root := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "samples", "nightly"), filepath.Join(root, "samples", "nightly"))
	controls := filepath.Join(root, "samples", "nightly", "controls")
	ev := filepath.Join(root, "evidence", "nightly")
	metricsFile := filepath.Join(ev, "reconcile.prom")
	os.MkdirAll(ev, 0o755)
	want := []exitCode{exitOK, exitFailed, exitFailed}
	var outs []string
	for i, day := range []string{"2026-11-28", "2026-11-29", "2026-11-30"} {
		code, stdout, stderr := runCLI(t, "run", controls, "--param", "day="+day, "--metrics", metricsFile, "--quiet")
		if code != want[i] {
			t.Fatalf("night %d: exit %d, want %d\n%s\n%s", i+1, code, want[i], stdout, stderr)
		}
		if stderr != "" {
			t.Errorf("night %d: stderr %q, want nothing (no terminal, no --progress)", i+1, stderr)
		}
		outs = append(outs, stdout)
	}
	night := func(n int) *evidence.Summary {
		return decodeSummary(t, filepath.Join(ev, "ledger-nightly", []string{"2026-11-28", "2026-11-29", "2026-11-30"}[n-1]))
	}
	since := func(s *evidence.Summary, check string) evidence.SinceLastRun {
		t.Helper()
		c := s.Check(check)
		if c == nil || c.SinceLastRun == nil {
			t.Fatalf("%s: no since_last_run", check)
		}
		return *c.SinceLastRun
	}
	n2, n3 := night(2), night(3)
	if got := since(n2, "duplicate_ids"); got.New != 130 || got.Recurring != 0 || got.Resolved != 0 || !got.Compared {
		t.Errorf("night 2 duplicate_ids: %+v, want new 130", got)
	}
	if got := since(n3, "duplicate_ids"); got.New != 20 || got.Recurring != 30 || got.Resolved != 100 || !got.Compared {
		t.Errorf("night 3 duplicate_ids: %+v, want recurring 30, new 20, resolved 100", got)
	}
	if n3.Parameters.Params["day"] != "2026-11-30" || n3.History.PreviousRun.ID != n2.Run.ID || len(n3.History.Runs) != 3 {
		t.Errorf("night 3: params %v, previous %+v, %d runs in the trend", n3.Parameters.Params, n3.History.PreviousRun, len(n3.History.Runs))
	}
	// Every recurring duplicate has been open two runs, first seen on night 2.
	f, err := os.Open(filepath.Join(ev, "ledger-nightly", "2026-11-30", "exceptions", "duplicate_ids.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	counts := map[string]int{}
	for _, r := range rows[1:] {
		key := r[col["since_last_run"]] + " open " + r[col["open_runs"]]
		if r[col["since_last_run"]] == "recurring" && r[col["first_seen_run"]] != n2.Run.ID {
			t.Errorf("%s recurring, first seen %s, want night 2 (%s)", r[0], r[col["first_seen_run"]], n2.Run.ID)
		}
		counts[key]++
	}
	if want := map[string]int{"recurring open 2": 30, "new open 1": 20}; !reflect.DeepEqual(counts, want) {
		t.Errorf("night 3 duplicate_ids lifecycle: %v, want %v", counts, want)
	}
	// The quiet output: the verdict line, the failed checks, the evidence
	// path (absolute), then the suite's roll-up.
	verdict := regexp.MustCompile(`(?m)^FAIL  ledger-nightly  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  run \d{8}T\d{6}Z-[0-9a-f]{8}  day=2026-11-30  rows \+50 \(source 3000, sink 3050\)  amount \+60346\.05 \(source 3320763\.51, sink 3381109\.56\)$`)
	if !verdict.MatchString(outs[2]) {
		t.Errorf("night 3 output lacks the verdict line:\n%s", outs[2])
	}
	for _, want := range []string{
		"  FAIL    duplicate_ids              accuracy                 50 exceptions (new 20, recurring 30, resolved 100)\n",
		"evidence: " + filepath.Join(ev, "ledger-nightly", "2026-11-30") + "\n",
		"suite: 2 controls\n",
		"  PASS  warehouse-nightly            exit 0\n",
	} {
		if !strings.Contains(outs[2], want) {
			t.Errorf("night 3 output lacks %q:\n%s", want, outs[2])
		}
	}
	if strings.Contains(outs[2], "PASS    null_ids") {
		t.Errorf("--quiet printed a passed check:\n%s", outs[2])
	}

	// reconcile history shows the three nights.
	hist := filepath.Join(ev, "history.duckdb")
	code, stdout, stderr := runCLI(t, "history", "--history", hist, "--control", "ledger-nightly")
	if code != exitOK {
		t.Fatalf("history: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"ledger-nightly: 3 run(s)", "day=2026-11-28  PASS", "day=2026-11-29  FAIL    duplicate_ids             130         130  0          0",
		"day=2026-11-30  FAIL    duplicate_ids             50          20   30         100"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("history output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "history", "--history", hist, "--json")
	var runs []historyRun
	if err := json.Unmarshal([]byte(stdout), &runs); code != exitOK || err != nil || len(runs) != 6 {
		t.Errorf("history --json: exit %d, %v, %d runs, want 6 (two controls, three nights)", code, err, len(runs))
	}
	if code, _, stderr := runCLI(t, "history", "--history", hist, "--control", "ledger"); code != exitUsage || !strings.Contains(stderr, "controls: ledger-nightly, warehouse-nightly") {
		t.Errorf("history of an unknown control: exit %d, %q", code, stderr)
	}

	// The metrics file parses with the library's parser and holds the
	// last night.
	mf, err := os.Open(metricsFile)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(mf)
	mf.Close()
	if err != nil {
		t.Fatalf("metrics do not parse: %v", err)
	}
	got := map[string]float64{}
	for _, name := range []string{"reconcile_run_status", "reconcile_check_exceptions", "reconcile_check_resolved_exceptions"} {
		for _, m := range fams[name].GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			got[name+"/"+strings.Join(labels, "/")] = m.GetGauge().GetValue()
		}
	}
	for k, v := range map[string]float64{"reconcile_run_status/ledger-nightly": 1, "reconcile_run_status/warehouse-nightly": 0,
		"reconcile_check_exceptions/ledger-nightly/duplicate_ids": 50, "reconcile_check_resolved_exceptions/ledger-nightly/duplicate_ids": 100} {
		if got[k] != v {
			t.Errorf("metric %s = %v, want %v", k, got[k], v)
		}
	}

	// The workbook has the Since last run sheet, the HTML the trend chart.
	wb, err := excelize.OpenFile(filepath.Join(ev, "ledger-nightly", "2026-11-30", evidence.WorkbookFile))
	if err != nil {
		t.Fatal(err)
	}
	sheet, err := wb.GetRows("Since last run")
	wb.Close()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, r := range sheet {
		text.WriteString(strings.Join(r, "|") + "\n")
	}
	for _, want := range []string{"duplicate_ids|entry_id|50|20|30|100|resolved/duplicate_ids.csv", "Resolved since the previous run: 200 key(s)",
		"duplicate_ids|entry_id=E0001401|" + n2.Run.ID + "|"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("Since last run sheet lacks %q:\n%s", want, text.String())
		}
	}
	html, err := os.ReadFile(filepath.Join(ev, "ledger-nightly", "2026-11-30", evidence.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "Exceptions per check over the last 3 runs") {
		t.Error("report.html has no trend chart")
	}

	// diff: night 2 against night 3, keyed as the history keys them.
	code, stdout, stderr = runCLI(t, "diff", filepath.Join(ev, "ledger-nightly", "2026-11-29"), filepath.Join(ev, "ledger-nightly", "2026-11-30"))
	if code != exitFailed || !strings.Contains(stdout, "duplicate_ids: 130 in A, 50 in B: 100 only in A, 20 only in B, 30 in both (0 with other values)\n  - entry_id=E0001401\n") ||
		!strings.Contains(stdout, "row_count_balance: 12 in A, 12 in B: 0 only in A, 0 only in B, 12 in both (12 with other values)\n  ~ account=ACC-01\n") ||
		!strings.Contains(stdout, "  + entry_id=E0002601\n") || strings.Contains(stdout, "null_ids") {
		t.Errorf("diff: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// Night 1 run again with --force writes over its folders, night 2's
	// ledger folder is removed, night 3's ledger manifest edited, night 2's
	// warehouse manifest made unreadable (a folder in its place): the
	// history says which runs' evidence is gone or changed (before, it
	// pointed at the folders as if they held them), and lists the rest.
	if code, stdout, stderr := runCLI(t, "run", controls, "--param", "day=2026-11-28", "--force", "--quiet"); code != exitOK {
		t.Fatalf("night 1 again: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if err := os.RemoveAll(filepath.Join(ev, "ledger-nightly", "2026-11-29")); err != nil {
		t.Fatal(err)
	}
	f3, err := os.OpenFile(filepath.Join(ev, "ledger-nightly", "2026-11-30", evidence.ManifestFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f3.WriteString(" ")
	f3.Close()
	// an edited report, the manifest untouched: every file is checked,
	// not only the manifest (before, this folder was "in place")
	r3, err := os.OpenFile(filepath.Join(ev, "warehouse-nightly", "2026-11-30", "report.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	r3.WriteString("\nreviewed, all fine\n")
	r3.Close()
	wm := filepath.Join(ev, "warehouse-nightly", "2026-11-29", evidence.ManifestFile)
	if err := os.Remove(wm); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(wm, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runCLI(t, "history", "--history", hist, "--json")
	runs = nil
	if err := json.Unmarshal([]byte(stdout), &runs); code != exitOK || err != nil {
		t.Fatalf("history --json: exit %d, %v", code, err)
	}
	var states []string
	var ledger []historyRun // in recording order: nights 1, 2, 3, 1 again
	for _, r := range runs {
		states = append(states, r.Control+" "+r.Params["day"]+" "+r.EvidenceState)
		if r.Control == "ledger-nightly" {
			ledger = append(ledger, r)
		}
	}
	if len(ledger) != 4 {
		t.Fatalf("%d runs of ledger-nightly, want 4", len(ledger))
	}
	sort.Strings(states)
	wantStates := []string{
		"ledger-nightly 2026-11-28 in place", "ledger-nightly 2026-11-28 replaced", "ledger-nightly 2026-11-29 missing", "ledger-nightly 2026-11-30 changed",
		"warehouse-nightly 2026-11-28 in place", "warehouse-nightly 2026-11-28 replaced", "warehouse-nightly 2026-11-29 unreadable", "warehouse-nightly 2026-11-30 changed",
	}
	if !reflect.DeepEqual(states, wantStates) {
		t.Errorf("evidence states:\n%s\nwant:\n%s", strings.Join(states, "\n"), strings.Join(wantStates, "\n"))
	}
	code, stdout, _ = runCLI(t, "history", "--history", hist)
	for _, want := range []string{
		"note: run " + ledger[0].RunID + "'s evidence folder " + filepath.Join(ev, "ledger-nightly", "2026-11-28") + " now holds another run's evidence (it holds run " + ledger[3].RunID,
		"note: run " + ledger[1].RunID + "'s evidence folder " + filepath.Join(ev, "ledger-nightly", "2026-11-29") + " (or its manifest.json) is missing",
		"note: run " + ledger[2].RunID + "'s evidence folder " + filepath.Join(ev, "ledger-nightly", "2026-11-30") + " was changed after the run published it",
		"'s evidence folder " + filepath.Join(ev, "warehouse-nightly", "2026-11-29") + " cannot be read: read " + wm + ": is a directory",
		"'s evidence folder " + filepath.Join(ev, "warehouse-nightly", "2026-11-30") + " was changed after the run published it (report.md changed; reconcile verify",
		"'s evidence folder " + filepath.Join(ev, "ledger-nightly", "2026-11-30") + " was changed after the run published it (its manifest.json is not the one recorded;",
	} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("history: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
}

// Parameters: an unknown or unset one is a spec error naming it (exit 2),
// and so is a --param no spec uses; nothing is written.
func TestParamErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "2026-11-29", "s.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "2026-11-29", "k.csv"), "id\n1\n")
	spec := writeFile(t, filepath.Join(dir, "c.yaml"), "source: ${day}/s.csv\nsink: ${day}/k.csv\nid: [id]\nout: ev-${day}\n")
	os.Unsetenv("RECONCILE_TEST_UNSET")
	envSpec := writeFile(t, filepath.Join(dir, "e.yaml"), "source: s.csv\nsink: s.csv\nid: [id]\nout: ${env:RECONCILE_TEST_UNSET}\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unset parameter", []string{"run", spec}, "source.uri: ${day}: unknown parameter day: give --param day=VALUE"},
		{"unused parameter", []string{"run", spec, "--param", "day=2026-11-29", "--param", "dya=x"}, "--param dya: no spec of this run uses ${dya}"},
		{"unset environment variable", []string{"run", envSpec}, "out: ${env:RECONCILE_TEST_UNSET}: environment variable RECONCILE_TEST_UNSET is not set"},
		{"built-in given", []string{"run", spec, "--param", "day=2026-11-29", "--param", "run_date=2026-01-01"}, "run_date is built in"},
		{"not NAME=VALUE", []string{"run", spec, "--param", "day"}, `--param "day": want NAME=VALUE`},
		{"in a flag", []string{"run", spec, "--param", "day=2026-11-29", "--out", filepath.Join(dir, "x-${dya}")}, "--out: ${dya}: unknown parameter dya"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "ev-*")); len(m) != 0 {
		t.Errorf("evidence written: %v", m)
	}
	// Given, the parameter is used and recorded.
	if code, stdout, stderr := runCLI(t, "run", spec, "--param", "day=2026-11-29", "--format", "json"); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if s := decodeSummary(t, filepath.Join(dir, "ev-2026-11-29")); s.Parameters.Params["day"] != "2026-11-29" {
		t.Errorf("params = %v", s.Parameters.Params)
	}
}

// A suite runs every control, whatever the others did, prints a roll-up
// and exits with the worst code.
func TestSuiteWorstCode(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id\n1\n2\n")
	writeFile(t, filepath.Join(dir, "snk.csv"), "id\n1\n2\n")
	writeFile(t, filepath.Join(dir, "dup.csv"), "id\n1\n2\n2\n")
	suite := filepath.Join(dir, "controls")
	writeFile(t, filepath.Join(suite, "a-pass.yaml"), "name: a-pass\nsource: ../src.csv\nsink: ../snk.csv\nid: [id]\nout: ../ev/a\n")
	writeFile(t, filepath.Join(suite, "b-broken.yaml"), "name: b-broken\nsource: ../missing.csv\nsink: ../src.csv\nid: [id]\nout: ../ev/b\n")
	writeFile(t, filepath.Join(suite, "c-fail.yaml"), "name: c-fail\nsource: ../src.csv\nsink: ../dup.csv\nid: [id]\nout: ../ev/c\n")
	code, stdout, stderr := runCLI(t, "run", suite, "--format", "json")
	if code != exitRuntime {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"suite: 3 controls\n", "  PASS  a-pass                       exit 0\n", "  ERROR b-broken                     exit 3  ", "  FAIL  c-fail                       exit 1  duplicate_ids 1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("roll-up lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "reconcile: b-broken: ") || !strings.Contains(stderr, "reconcile: suite: 2 of 3 controls did not pass: b-broken (exit 3), c-fail (exit 1)") {
		t.Errorf("stderr %q", stderr)
	}
	for _, ev := range []string{"a", "c"} {
		if _, err := os.Stat(filepath.Join(dir, "ev", ev, evidence.ManifestFile)); err != nil {
			t.Errorf("control %s after the broken one: %v", ev, err)
		}
	}
	// A spec error is exit 2, worse than a failed check, not than a
	// runtime error; the same controls as --config flags.
	writeFile(t, filepath.Join(dir, "bad.yaml"), "name: bad\nsource: ../src.csv\nsink: ../src.csv\nout: ../ev/bad\n")
	code, _, _ = runCLI(t, "run", "--config", filepath.Join(suite, "c-fail.yaml"), "--config", filepath.Join(dir, "bad.yaml"), "--format", "json", "--force")
	if code != exitUsage {
		t.Errorf("fail + spec error: exit %d, want 2", code)
	}
	// A flag that sets one control's field is refused with a suite.
	if code, _, stderr := runCLI(t, "run", suite, "--out", filepath.Join(dir, "x")); code != exitUsage || !strings.Contains(stderr, "--out sets one control's field") {
		t.Errorf("--out with a suite: exit %d, %q", code, stderr)
	}
}

// Two specs of one suite naming the same control and keeping one history
// are refused (exit 2) before any runs: the name keys the runs there, so
// each would have been classified against the other's (found by a
// reviewer). Without a shared history a repeated name — the default one,
// out's last part, such as a day — runs as before.
func TestSuiteDuplicateNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "snk.csv"), "id\n1\n")
	suite := filepath.Join(dir, "controls")
	writeFile(t, filepath.Join(suite, "a.yaml"), "name: nightly\nsource: ../src.csv\nsink: ../snk.csv\nid: [id]\nout: ../ev/a/n\nhistory: ../ev/h.duckdb\n")
	writeFile(t, filepath.Join(suite, "b.yaml"), "name: nightly\nsource: ../src.csv\nsink: ../snk.csv\nid: [id]\nout: ../ev/b/n\nhistory: ../ev/h.duckdb\n")
	code, _, stderr := runCLI(t, "run", suite, "--format", "json")
	if code != exitUsage || !strings.Contains(stderr, `both name the control "nightly" and keep one history`) {
		t.Errorf("exit %d, %q; want 2 naming the control", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ev")); !os.IsNotExist(err) {
		t.Errorf("a control ran: %v", err)
	}
	other := filepath.Join(dir, "days")
	writeFile(t, filepath.Join(other, "a.yaml"), "source: ../src.csv\nsink: ../snk.csv\nid: [id]\nout: ../ev/ledger/${day}\n")
	writeFile(t, filepath.Join(other, "b.yaml"), "source: ../src.csv\nsink: ../snk.csv\nid: [id]\nout: ../ev/warehouse/${day}\n")
	if code, stdout, stderr := runCLI(t, "run", other, "--param", "day=2026-11-28", "--format", "json"); code != exitOK {
		t.Errorf("two controls named after one day, no history: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// with --metrics the name labels each series: refused, not written twice
	prom := filepath.Join(dir, "m.prom")
	if code, _, stderr := runCLI(t, "run", other, "--param", "day=2026-11-29", "--format", "json", "--metrics", prom); code != exitUsage || !strings.Contains(stderr, "with --metrics") {
		t.Errorf("one name twice with --metrics: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(prom); !os.IsNotExist(err) {
		t.Errorf("a metrics file was written: %v", err)
	}
}

// holdLock writes the lock file path of control as held by a live process
// (a sleep, killed when the test ends) that took it at
// 2026-11-30T06:00:01Z, and returns that process.
func holdLock(t *testing.T, path, control string) *exec.Cmd {
	t.Helper()
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	start, err := proc.StartTime(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	held, _ := json.Marshal(lock.Holder{Control: control, PID: sleep.Process.Pid, ProcessStart: start, Host: host, StartedAt: "2026-11-30T06:00:01Z"})
	writeFile(t, path, string(held))
	return sleep
}

// A run of a control whose lock another live run holds exits 2 naming that
// run's pid and start time; a lock left by a dead run is taken over and
// reported.
func TestLockContention(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "snk.csv"), "id\n1\n")
	out := filepath.Join(dir, "ev", "ledger")
	args := []string{"run", "--source", filepath.Join(dir, "src.csv"), "--sink", filepath.Join(dir, "snk.csv"), "--id", "id", "--out", out, "--name", "ledger", "--format", "json"}
	path := lock.Path(out, "ledger")
	sleep := holdLock(t, path, "ledger")
	code, _, stderr := runCLI(t, args...)
	if code != exitUsage || !strings.Contains(stderr, "held by pid "+strconv.Itoa(sleep.Process.Pid)) || !strings.Contains(stderr, "since 2026-11-30T06:00:01Z") {
		t.Fatalf("exit %d, stderr %q; want 2 naming pid %d and its start", code, stderr, sleep.Process.Pid)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote evidence: %v", err)
	}
	// The holder dies (SIGKILL leaves its lock): the next run takes over.
	sleep.Process.Kill()
	sleep.Wait()
	code, _, stderr = runCLI(t, args...)
	if code != exitOK || !strings.Contains(stderr, "reconcile: took over the lock of ledger from a run that is gone (pid "+strconv.Itoa(sleep.Process.Pid)) {
		t.Fatalf("after the holder died: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("lock not released on exit: %v", err)
	}
}

// Two runs of one control that share a history but publish into different
// folders take turns on the lock beside the history too: the second is
// refused naming the first (found by a reviewer: both classified against the
// same previous run). A history inside the evidence folder is refused.
func TestHistoryLockContention(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id\n1\n")
	writeFile(t, filepath.Join(dir, "snk.csv"), "id\n1\n")
	hist := filepath.Join(dir, "hist", "h.duckdb")
	args := func(out string) []string {
		return []string{"run", "--source", filepath.Join(dir, "src.csv"), "--sink", filepath.Join(dir, "snk.csv"), "--id", "id", "--out", out, "--name", "ledger", "--history", hist, "--format", "json"}
	}
	sleep := holdLock(t, lock.Path(hist, "ledger"), "ledger") // a run publishing in folder a holds it
	out := filepath.Join(dir, "b", "ev")
	code, _, stderr := runCLI(t, args(out)...)
	if code != exitUsage || !strings.Contains(stderr, "held by pid "+strconv.Itoa(sleep.Process.Pid)) {
		t.Fatalf("exit %d, stderr %q; want 2 naming pid %d", code, stderr, sleep.Process.Pid)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote evidence: %v", err)
	}
	sleep.Process.Kill()
	sleep.Wait()
	if code, _, stderr := runCLI(t, args(out)...); code != exitOK {
		t.Fatalf("after the holder died: exit %d, stderr %q", code, stderr)
	}
	// the history beside the evidence, spelt through a link: one lock, taken
	// once (a reviewer found the run refusing itself: "held by" its own pid)
	link := filepath.Join(dir, "evlink")
	if err := os.Symlink(filepath.Join(dir, "d"), link); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "d"), 0o755)
	same := args(filepath.Join(dir, "d", "ev"))
	same[len(same)-3] = filepath.Join(link, "h.duckdb")
	if code, _, stderr := runCLI(t, same...); code != exitOK {
		t.Errorf("history beside the evidence through a link: exit %d, %q", code, stderr)
	}
	inside := filepath.Join(dir, "c", "ev")
	a := args(inside)
	a[len(a)-3] = filepath.Join(inside, "h.duckdb")
	if code, _, stderr := runCLI(t, a...); code != exitUsage || !strings.Contains(stderr, "lies inside the evidence folder") {
		t.Errorf("a history inside --out: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Errorf("the refused run made %s: %v", inside, err)
	}
}

// --quiet prints the verdict line, the failed checks and the evidence
// path; progress lines go to stderr only with --progress (or a terminal).
func TestQuietAndProgress(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id,amount\n1,1.00\n2,2.00\n")
	writeFile(t, filepath.Join(dir, "dup.csv"), "id,amount\n1,1.00\n2,2.00\n2,2.00\n")
	args := func(out string, extra ...string) []string {
		return append([]string{"run", "--source", filepath.Join(dir, "src.csv"), "--sink", filepath.Join(dir, "dup.csv"), "--id", "id", "--measure", "amount",
			"--out", filepath.Join(dir, out), "--format", "json"}, extra...)
	}
	code, stdout, stderr := runCLI(t, args("q", "--quiet")...)
	if code != exitFailed || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	verdict := regexp.MustCompile(`^FAIL  q  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  run \d{8}T\d{6}Z-[0-9a-f]{8}  rows \+1 \(source 2, sink 3\)  amount \+2\.00 \(source 3\.00, sink 5\.00\)$`)
	want := []string{
		"", // the verdict line
		"  FAIL    duplicate_ids              accuracy                 1 exception",
		"  FAIL    row_count_balance          completeness, accuracy   1 exception",
		"  FAIL    sum_balance                completeness, accuracy   1 exception",
		"evidence: " + filepath.Join(dir, "q"),
	}
	if len(lines) != len(want) || !verdict.MatchString(lines[0]) || !reflect.DeepEqual(lines[1:], want[1:]) {
		t.Errorf("--quiet printed:\n%s", stdout)
	}
	_, _, stderr = runCLI(t, args("p", "--progress")...)
	if !strings.Contains(stderr, "loaded source: 2 rows") || !strings.Contains(stderr, "check duplicate_ids: 1 exception") {
		t.Errorf("--progress: stderr %q", stderr)
	}
	// A relative --out is printed absolute.
	t.Chdir(dir)
	_, stdout, _ = runCLI(t, "run", "--source", "src.csv", "--sink", "dup.csv", "--id", "id", "--out", "rel", "--format", "json", "--quiet")
	if !strings.HasSuffix(stdout, "evidence: "+filepath.Join(dir, "rel")+"\n") {
		t.Errorf("relative --out printed as:\n%s", stdout)
	}
}

// diff refuses evidence that does not verify (exit 3) or is not evidence
// (exit 2), and exits 0 for the same exceptions.
func TestDiffVerifiesFirst(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src.csv"), "id\n1\n2\n")
	writeFile(t, filepath.Join(dir, "dup.csv"), "id\n1\n2\n2\n")
	for _, out := range []string{"a", "b"} {
		if code, _, stderr := runCLI(t, "run", "--source", filepath.Join(dir, "src.csv"), "--sink", filepath.Join(dir, "dup.csv"), "--id", "id", "--out", filepath.Join(dir, out), "--format", "json"); code != exitFailed {
			t.Fatalf("run: exit %d, %s", code, stderr)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if code, stdout, _ := runCLI(t, "diff", a, b); code != exitOK || !strings.Contains(stdout, "duplicate_ids: 1 in A, 1 in B: 0 only in A, 0 only in B, 1 in both (0 with other values)") || !strings.HasSuffix(stdout, "same exceptions\n") {
		t.Errorf("same: exit %d\n%s", code, stdout)
	}
	// The same key with other values (id 2 three times, not twice): "~",
	// exit 1. Before, the two folders were "the same exceptions".
	writeFile(t, filepath.Join(dir, "dup3.csv"), "id\n1\n2\n2\n2\n")
	c := filepath.Join(dir, "c")
	if code, _, stderr := runCLI(t, "run", "--source", filepath.Join(dir, "src.csv"), "--sink", filepath.Join(dir, "dup3.csv"), "--id", "id", "--out", c, "--format", "json"); code != exitFailed {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	if code, stdout, _ := runCLI(t, "diff", a, c); code != exitFailed || !strings.Contains(stdout, "duplicate_ids: 1 in A, 1 in B: 0 only in A, 0 only in B, 1 in both (1 with other values)\n  ~ id=2\n") {
		t.Errorf("other values: exit %d\n%s", code, stdout)
	}
	// An edited exceptions file: refused, not compared.
	os.WriteFile(filepath.Join(b, "exceptions", "duplicate_ids.csv"), []byte("id,side,row_count,conflicting,checkpoint_ids,locations\n"), 0o644)
	if code, _, stderr := runCLI(t, "diff", a, b); code != exitRuntime || !strings.Contains(stderr, "does not verify against its manifest") {
		t.Errorf("edited: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "diff", a, dir); code != exitUsage || !strings.Contains(stderr, "no manifest.json") {
		t.Errorf("not evidence: exit %d, %q", code, stderr)
	}
}

// A control whose spec cannot be loaded (here: --param day forgotten) is
// labelled by the name: its file declares, as its runs are: its metrics
// series say exit 2 where an alert on them looks, and its message names
// the file once. Before, the series was labelled by the file's path.
func TestSpecErrorKeepsControlName(t *testing.T) {
	root := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "samples", "nightly"), filepath.Join(root, "nightly"))
	controls := filepath.Join(root, "nightly", "controls")
	metricsFile := filepath.Join(root, "reconcile.prom")
	code, stdout, stderr := runCLI(t, "run", controls, "--metrics", metricsFile, "--quiet")
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitUsage, stdout, stderr)
	}
	ledger := filepath.Join(controls, "ledger.yaml")
	if want := "reconcile: ledger-nightly: " + ledger + ": spec: invalid"; !strings.Contains(stderr, want) || strings.Contains(stderr, ledger+": "+ledger) {
		t.Errorf("stderr lacks %q (once):\n%s", want, stderr)
	}
	if want := "ERROR ledger-nightly               exit 2  " + ledger + ": spec: invalid"; !strings.Contains(stdout, want) {
		t.Errorf("suite line lacks %q:\n%s", want, stdout)
	}
	b, err := os.ReadFile(metricsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`reconcile_run_status{control="ledger-nightly"} 2`, `reconcile_run_status{control="warehouse-nightly"} 2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %s:\n%s", want, b)
		}
	}
	// A broken copy that keeps a loaded control's name: labelled by its
	// file, or the name's series would be written twice.
	writeFile(t, filepath.Join(controls, "zz-broken.yaml"), "name: ledger-nightly\nbogus_key: 1\n")
	runCLI(t, "run", controls, "--param", "day=2026-11-28", "--metrics", metricsFile, "--quiet")
	if b, err = os.ReadFile(metricsFile); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `reconcile_run_status{control="ledger-nightly"}`); n != 1 || !strings.Contains(string(b), `reconcile_run_status{control="`+filepath.Join(controls, "zz-broken.yaml")+`"} 2`) {
		t.Errorf("ledger-nightly's status %d times, the broken copy not under its file:\n%s", n, b)
	}
}
