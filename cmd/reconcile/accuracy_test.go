package main

// The five inputs of the accuracy issue where a naive tool is wrong, each
// through `reconcile run` with every report, read back as an auditor reads
// them: the workbook's sheets (excelize), report.html and report.md. The
// golden end-to-end cases of the same names (testdata/endtoend) pin the
// exceptions files and summary.json; these tests pin the reports, and run
// the timestamp cases under two process time zones and, from PostgreSQL,
// under two server session time zones.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// endToEndDir is testdata/endtoend, absolute (tests change folder).
var endToEndDir = func() string {
	d, err := filepath.Abs(filepath.Join("testdata", "endtoend"))
	if err != nil {
		panic(err)
	}
	return d
}()

// evidenceOf is one run's evidence folder, read back.
type evidenceOf struct {
	code           exitCode
	stdout, stderr string
	dir            string
	md, html       string
	book           *excelize.File
}

// runAccuracyCase runs the end-to-end case folder name with every report and the
// extra arguments, from the case's folder.
func runAccuracyCase(t *testing.T, name string, args ...string) *evidenceOf {
	t.Helper()
	dir := filepath.Join(endToEndDir, name)
	if len(args) == 0 {
		args = []string{"run", "--config", "spec.yaml"}
	}
	out := filepath.Join(t.TempDir(), "evidence")
	t.Chdir(dir)
	ev := &evidenceOf{dir: out}
	ev.code, ev.stdout, ev.stderr = runCLI(t, append(args, "--out", out, "--format", "all")...)
	readEvidence(t, ev)
	return ev
}

func readEvidence(t *testing.T, ev *evidenceOf) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(ev.dir, "report.md"))
	if err != nil {
		t.Fatalf("exit %d: %v\n%s%s", ev.code, err, ev.stdout, ev.stderr)
	}
	html, err := os.ReadFile(filepath.Join(ev.dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	ev.md, ev.html = string(md), string(html)
	if ev.book, err = excelize.OpenFile(filepath.Join(ev.dir, "workbook.xlsx")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ev.book.Close() })
}

// sheetRows returns a sheet's rows, cells joined by "|".
func (ev *evidenceOf) sheetRows(t *testing.T, sheet string) []string {
	t.Helper()
	rows, err := ev.book.GetRows(sheet)
	if err != nil {
		t.Fatalf("sheet %s: %v (sheets: %v)", sheet, err, ev.book.GetSheetList())
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

// summaryRow returns the Summary sheet's row whose first cell is first.
func (ev *evidenceOf) summaryRow(t *testing.T, first string) string {
	t.Helper()
	for _, r := range ev.sheetRows(t, "Summary") {
		if strings.HasPrefix(r, first+"|") {
			return r
		}
	}
	t.Fatalf("Summary has no row %q", first)
	return ""
}

func contains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// 1. A partial upsert blanked an attribute: with nothing but the id given,
// colour is compared and blue against NULL fails the run.
func TestAccuracyPartialUpsert(t *testing.T) {
	ev := runAccuracyCase(t, "partial-upsert-blanks-attribute", "run", "--source", "source.csv", "--sink", "sink.csv", "--id", "id")
	if ev.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	rows := ev.sheetRows(t, "value_mismatches")
	if len(rows) != 2 || rows[0] != "id|column|source_value|sink_value|difference|source_location|sink_location" || rows[1] != "1|colour|blue|||source.csv:2|sink.csv:2" {
		t.Errorf("value_mismatches sheet %q", rows)
	}
	contains(t, "report.md", ev.md, "| 1 | colour | blue | NULL | NULL | source.csv:2 | sink.csv:2 |",
		"| `colour` | VARCHAR | VARCHAR | text, byte for byte | – | – |", "| `size` | VARCHAR | VARCHAR |")
	contains(t, "report.html", ev.html, `<td class="v">colour</td><td class="v">blue</td><td class="null">NULL</td>`, "<h2>Columns compared</h2>")
	contains(t, "workbook Summary", strings.Join(ev.sheetRows(t, "Summary"), "\n"), "colour|VARCHAR|VARCHAR|text, byte for byte|–|–")
}

// TestSubprocessRun is not a test: re-executed by inProcessZone with
// RECONCILE_SUBPROCESS_ARGS set, it runs reconcile with those arguments
// (a JSON list) and exits with its code, so that a run sees the process
// time zone (TZ) and PostgreSQL session zone (PGTZ) it is started with —
// Go and DuckDB read TZ once, at their start.
func TestSubprocessRun(t *testing.T) {
	args := os.Getenv("RECONCILE_SUBPROCESS_ARGS")
	if args == "" {
		t.Skip("runs only as inProcessZone's subprocess")
	}
	var list []string
	if err := json.Unmarshal([]byte(args), &list); err != nil {
		t.Fatal(err)
	}
	code := run(context.Background(), list, strings.NewReader(""), os.Stdout, os.Stderr)
	os.Exit(int(code))
}

// inProcessZone runs reconcile in a new process with TZ set to tz and
// PGTZ to pgtz ("" leaves it unset) from folder dir, and returns its exit
// code and output.
func inProcessZone(t *testing.T, dir, tz, pgtz string, args ...string) (exitCode, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubprocessRun$")
	cmd.Dir = dir
	list, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "TZ="+tz, "RECONCILE_SUBPROCESS_ARGS="+string(list))
	if pgtz != "" {
		cmd.Env = append(cmd.Env, "PGTZ="+pgtz)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return exitCode(code), out.String()
}

// 2. A timestamptz 10:00+00 against a zone-less sink value: 10:00 read in
// UTC matches, 18:00 read in Asia/Shanghai matches, 18:00 read in UTC is 8
// hours off. The same exceptions under two process time zones; the zone
// used for each input is stated in every report.
func TestAccuracyTimestampsAsInstants(t *testing.T) {
	for _, tc := range []struct {
		name, mismatch, zone string
	}{
		{"timestamps-zone-less-in-utc", "2|settled_at|2024-03-01 10:00:00+00|2024-03-01 18:00:00|08:00:00|source.csv:3|sink.csv:3", "UTC"},
		{"timestamps-zone-less-in-shanghai", "1|settled_at|2024-03-01 10:00:00+00|2024-03-01 10:00:00|-08:00:00|source.csv:2|sink.csv:2", "Asia/Shanghai"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(endToEndDir, tc.name)
			var files []string
			for _, tz := range []string{"America/Los_Angeles", "Asia/Kolkata"} {
				out := filepath.Join(t.TempDir(), "evidence")
				code, output := inProcessZone(t, dir, tz, "", "run", "--config", "spec.yaml", "--out", out, "--format", "all")
				if code != exitFailed {
					t.Fatalf("TZ=%s: exit %d, want 1\n%s", tz, code, output)
				}
				b, err := os.ReadFile(filepath.Join(out, "exceptions", "value_mismatches.csv"))
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, string(b))
				ev := &evidenceOf{code: code, dir: out}
				readEvidence(t, ev)
				rows := ev.sheetRows(t, "value_mismatches")
				if len(rows) != 2 || rows[1] != tc.mismatch {
					t.Errorf("TZ=%s: value_mismatches sheet %q, want the one row %q", tz, rows, tc.mismatch)
				}
				note := "column settled_at is TIMESTAMP WITH TIME ZONE in the source (instants) and a zone-less TIMESTAMP in the sink read as wall-clock time in " + tc.zone + ": compared as instants"
				contains(t, "report.md", ev.md, note, "| `settled_at` | TIMESTAMP WITH TIME ZONE | TIMESTAMP | instants (sink: zone-less values read in "+tc.zone+") |")
				contains(t, "report.html", ev.html, note)
				contains(t, "workbook Summary", strings.Join(ev.sheetRows(t, "Summary"), "\n"), "settled_at|TIMESTAMP WITH TIME ZONE|TIMESTAMP|instants (sink: zone-less values read in "+tc.zone+")", "Note|"+note)
				if strings.Contains(ev.md, "read as UTC where they are compared") {
					t.Error("the old zone note survives")
				}
			}
			if files[0] != files[1] {
				t.Errorf("the verdict depends on the process time zone:\n%s\n%s", files[0], files[1])
			}
		})
	}
}

// The same from PostgreSQL: a timestamptz source table against a timestamp
// sink table, run under two process zones and two server session zones
// (PGTZ), with the sink's zone-less values read in Asia/Shanghai (match)
// and in UTC (8 hours off).
func TestAccuracyPostgresTimestamps(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	s := pgx.Identifier{schema}.Sanitize()
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.src (id text, settled_at timestamptz);
CREATE TABLE %[1]s.snk (id text, settled_at timestamp);
INSERT INTO %[1]s.src VALUES ('1', '2024-03-01 10:00:00+00');
INSERT INTO %[1]s.snk VALUES ('1', '2024-03-01 18:00:00')`, s))
	dir := t.TempDir()
	for _, tc := range []struct {
		zone string
		want exitCode
		diff string
	}{{"Asia/Shanghai", exitOK, ""}, {"UTC", exitFailed, "08:00:00"}} {
		spec := writeFile(t, filepath.Join(dir, strings.ReplaceAll(tc.zone, "/", "_")+".yaml"), fmt.Sprintf(`source: {uri: %q}
sink: {uri: %q, time_zone: %s}
id: [id]
`, pgtest.TableURL(schema, "src"), pgtest.TableURL(schema, "snk"), tc.zone))
		var files []string
		for _, z := range [][2]string{{"America/New_York", "Pacific/Auckland"}, {"Asia/Tokyo", "America/Los_Angeles"}} {
			out := filepath.Join(t.TempDir(), "ev")
			code, output := inProcessZone(t, dir, z[0], z[1], "run", "--config", spec, "--out", out, "--format", "json")
			if code != tc.want {
				t.Fatalf("sink in %s, TZ=%s PGTZ=%s: exit %d, want %d\n%s", tc.zone, z[0], z[1], code, tc.want, output)
			}
			b, err := os.ReadFile(filepath.Join(out, "exceptions", "value_mismatches.csv"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, string(b))
			if tc.diff != "" && !strings.Contains(string(b), ",settled_at,2024-03-01 10:00:00+00,2024-03-01 18:00:00,"+tc.diff+",") {
				t.Errorf("sink in %s: value_mismatches %s", tc.zone, b)
			}
		}
		if files[0] != files[1] {
			t.Errorf("sink in %s: the verdict depends on TZ or the session TimeZone:\n%s\n%s", tc.zone, files[0], files[1])
		}
	}
}

// 3. normalize: [trim] matches "A1" with "A1 " — and lists it, as a
// collision (the source writes the name two ways), never silently.
func TestAccuracyNormalizedCollision(t *testing.T) {
	ev := runAccuracyCase(t, "normalized-collision")
	if ev.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	contains(t, "stdout", ev.stdout, "INFO    normalized_matches         accuracy                 1 exception")
	rows := ev.sheetRows(t, "normalized_matches")
	if want := "1|name|A1|A1 |A1|true|source.csv:2|sink.csv:2"; len(rows) != 2 || rows[1] != want {
		t.Errorf("normalized_matches sheet %q, want %q", rows, want)
	}
	contains(t, "report.md", ev.md, "### normalized_matches — INFO", "| 1 | name | A1 | `A1 ` | A1 | true |", "| `name` | VARCHAR | VARCHAR | text, byte for byte | trim | – |")
	contains(t, "report.html", ev.html, `id="check-normalized_matches"`, "<th>collision</th>", `<td class="v">A1 </td>`)
	contains(t, "workbook Summary", ev.summaryRow(t, "normalized_matches"), "|INFO|1|normalized_matches|")
}

// 4. 100.004 against 100.00 within a tolerance of 0.01: no exception, one
// row within tolerance, the tolerance next to the verdict; 100.02 is an
// exception showing the tolerance.
func TestAccuracyTolerance(t *testing.T) {
	ev := runAccuracyCase(t, "tolerance-within")
	if ev.code != exitOK {
		t.Fatalf("within: exit %d, want 0\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	contains(t, "stdout", ev.stdout, "PASS    value_mismatches           accuracy                 0 exceptions; 1 within tolerance (amount 0.01)",
		"PASS    sum_balance                completeness, accuracy   0 exceptions; 1 within tolerance (amount 0.01)")
	rows := ev.sheetRows(t, "value_mismatches")
	if want := "1|amount|100.004|100.000|-0.004|0.01|true|source.csv:2|sink.csv:2"; len(rows) != 2 || rows[1] != want {
		t.Errorf("within: value_mismatches sheet %q, want %q", rows, want)
	}
	contains(t, "workbook Summary", ev.summaryRow(t, "value_mismatches"), "|PASS|0|value_mismatches|", "Tolerance: 1 within tolerance (amount 0.01)")
	contains(t, "report.md", ev.md, "| `value_mismatches` | accuracy | PASS | 0; 1 within tolerance (amount 0.01) |",
		"0 exception(s) and 1 within tolerance (amount 0.01), listed but not exceptions")
	contains(t, "report.html", ev.html, `<td class="n">0; 1 within tolerance (amount 0.01)</td>`)

	ev = runAccuracyCase(t, "tolerance-beyond")
	if ev.code != exitFailed {
		t.Fatalf("beyond: exit %d, want 1\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	rows = ev.sheetRows(t, "value_mismatches")
	if want := "2|amount|100.020|100.000|-0.020|0.01|false|source.csv:3|sink.csv:3"; len(rows) != 3 || rows[2] != want {
		t.Errorf("beyond: value_mismatches sheet %q, want a row %q", rows, want)
	}
	contains(t, "report.md", ev.md, "| `value_mismatches` | accuracy | FAIL | 1; 1 within tolerance (amount 0.01) |", "| 2 | amount | 100.020 | 100.000 | -0.020 | 0.01 | false |")
	contains(t, "workbook Summary", ev.summaryRow(t, "value_mismatches"), "|FAIL|1|value_mismatches|")
	// The number cells of the difference stay exact.
	if v, err := ev.book.GetCellValue("value_mismatches", "E3", excelize.Options{RawCellValue: true}); err != nil || v != "-0.02" {
		t.Errorf("difference cell %q, %v", v, err)
	}
}

// 5. Header-only source and sink: population fails (exit 1) unless
// allow_empty says an empty day is legitimate (exit 0).
func TestAccuracyEmptyPopulation(t *testing.T) {
	ev := runAccuracyCase(t, "header-only-both")
	if ev.code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	if rows := ev.sheetRows(t, "population"); strings.Join(rows, "\n") != "side|records\nsink|0\nsource|0" {
		t.Errorf("population sheet %q", rows)
	}
	contains(t, "report.md", ev.md, "| `population` | completeness, accuracy | FAIL | 2 |")
	contains(t, "report.html", ev.html, `id="check-population"`)

	ev = runAccuracyCase(t, "header-only-both-allowed")
	if ev.code != exitOK {
		t.Fatalf("allowed: exit %d, want 0\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	contains(t, "report.md", ev.md, "| `population` | completeness, accuracy | PASS | 0 |", "the source holds no records; allow_empty: [source] declares that legitimate")
	if slices.Contains(ev.book.GetSheetList(), "population") {
		t.Error("a passed population check got a sheet")
	}
}
