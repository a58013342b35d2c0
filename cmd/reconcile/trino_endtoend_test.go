package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/trinotest"
	"github.com/reconcile-dev/reconcile/sources"
)

// trinoSkipped are the cases of testdata/endtoend that TestTrinoEndToEnd
// does not run on Trino, each with the reason. A reason of one of these
// forms is checked against the case, so that the list cannot go stale:
//
//	"not a run: …"        the case's command is not run (explain, diff,
//	                      verify read evidence or inputs of their own)
//	"embedded exit N: …"  the embedded run exits N (2 or 3) before any
//	                      check: there is no evidence to compare
//	"refused: KEY; …"     Trino refuses the spec's keys (trino.Refuse):
//	                      a run with --engine exits 2 naming each, before
//	                      the cluster is asked
//	"refused by Trino: …" the case's inputs are made Trino tables and its
//	                      run on Trino exits 2 with this message (a column
//	                      Trino does not compare exactly)
//
// Any other reason is a fact about the case that the test cannot check
// (say what would have to change for it to run).
var trinoSkipped = map[string]string{
	"bad-records-default-fail":             "embedded exit 3: load source: source.csv:5: 3 fields, the header has 4",
	"bad-records-reported-csv":             "bad_records: report: the embedded run reports the records its reader cannot read (check bad_records) and leaves them out; a Trino table has no such records",
	"bad-records-reported-ndjson":          "bad_records: report: the embedded run reports the records its reader cannot read (check bad_records) and leaves them out; a Trino table has no such records",
	"balance-postings-against-balances":    "refused: grain:",
	"balance-postings-against-postings":    "refused: group_by: and measures: without id:",
	"column-names-differ-in-case":          "embedded exit 2: checks: bad column: column b of the source and B of the sink differ only in case: names are matched…",
	"dateformat-undeclared":                "embedded exit 3: load sink: sink.csv:2: column posted_on: value \"01/02/2024\" does not convert to the declared type DA…",
	"decimal-comma-undeclared":             "embedded exit 3: checks: bad value: sink.csv:2: column amount: value \"1.234,50\" in the sink is not a decimal number (…",
	"declared-date-with-time":              "embedded exit 3: checks: bad value: sink.csv:2: column posted_on: value \"2024-01-02 13:45:00\" in the sink is not a DA…",
	"declared-dst-gap":                     "embedded exit 3: load sink: sink.csv:2: column booked_at: value \"2024-03-31 02:30:00\" is a wall-clock time that does…",
	"declared-hugeint-39-digits":           "embedded exit 3: checks: bad value: measure amount needs 39 integer and 0 fraction digits, more than the 38 an exact…",
	"declared-integer-fraction":            "embedded exit 3: load sink: sink.csv:2: column qty: value \"1.5\" does not convert exactly to the declared type INTEGER…",
	"declared-type-unknown":                "embedded exit 2: spec: invalid: sink: types: column amount: DECIMAL(5,10) is not a DuckDB type (Binder Error: DECIMAL…",
	"diff-folder-without-manifest":         "not a run: diff has no --engine",
	"diff-night-to-night":                  "not a run: diff has no --engine",
	"diff-same-exceptions":                 "not a run: diff has no --engine",
	"duplicates-unknown-column":            "embedded exit 2: checks: bad column: duplicates: [account, amount, mtime]: no input has every column, so no input's p…",
	"encoding-undeclared":                  "embedded exit 3: load sink: sink.csv:2: column entry_id: value \"Caf\\xe9-1\" holds bytes that are not UTF-8; declare en…",
	"explain-changed-amount":               "not a run: explain has no --engine",
	"explain-evidence-keys-from":           "not a run: explain has no --engine",
	"explain-hourly-report":                "not a run: explain has no --engine",
	"explain-key-not-found":                "not a run: explain has no --engine",
	"explain-key-not-found-json":           "not a run: explain has no --engine",
	"explain-ledger-entry":                 "not a run: explain has no --engine",
	"explain-ledger-restart":               "not a run: explain has no --engine",
	"explain-session-counts-json":          "not a run: explain has no --engine",
	"filesink-bucket-folder":               "FileSink in-progress files: the embedded run names the uncommitted file holding a missing record (missing_ids' uncommitted_file); a Trino table has committed rows only",
	"gzip-trailing-bytes":                  "embedded exit 3: source: $REPO/cmd/reconcile/testdata/endtoend/gzip-trailing-bytes/source.csv.gz: 4 bytes follow the…",
	"interval-month-is-not-30-days":        "an INTERVAL column: no Hive or Iceberg table holds one (and Trino compares no interval)",
	"interval-text-not-plain":              "embedded exit 3: checks: bad value: sink.csv:2: column d: value \"0.5 months\" in the sink is not an INTERVAL (a plain…",
	"json-text-duplicate-key":              "embedded exit 3: load source: source.ndjson:2: key \"meta\": key \"b\" appears twice in one object; which value holds is…",
	"kafka-explain":                        "not a run: explain has no --engine",
	"kafka-not-json-reported":              "bad_records: report: the embedded run reports the records its reader cannot read (check bad_records) and leaves them out; a Trino table has no such records",
	"kafka-not-json":                       "embedded exit 3: load sink: kafka: record: t[0]@1: value is not JSON (value: json): cannot parse JSON: cannot parse n…",
	"ledger-restart":                       "refused: restarts:",
	"mysql-missing-table":                  "embedded exit 3: sink: table nope not found in database $MYSQL_DATABASE (as user root): Error 1146 (42S02): Table '$M…",
	"mysql-unknown-column":                 "embedded exit 2: checks: bad column: column \"entry_no\" (from id) not found in the source; its columns are: entry_id,…",
	"mysql-unmapped-type":                  "embedded exit 2: sink: sources: invalid location: unmapped MySQL type: column place has type point, which reconcile c…",
	"mysql-uri-without-table":              "embedded exit 2: sink (mysql): sources: invalid location: $MYSQL_URL names no table: add ?table=name (or ?query=SELEC…",
	"mysql-zero-date":                      "embedded exit 3: load sink: mysql zero in database $MYSQL_DATABASE as user root@localhost: zero:1: column posted (dat…",
	"ndjson-bracket-after-object":          "embedded exit 3: load sink: sink.ndjson:1: \"}\" after the object; expected the end of the line (one JSON object per li…",
	"ndjson-white-space-not-json":          "embedded exit 3: load sink: sink.ndjson:2:1: U+000B is white space JSON does not allow; only space, tab, CR and LF ma…",
	"normalized-collision":                 "refused: normalize:",
	"normalized-id-integer-refused":        "embedded exit 2: checks: bad column: normalize.entry_id: the id column is BIGINT in the source and BIGINT in the sink…",
	"normalized-ids-collision":             "refused: normalize:",
	"normalized-ids-explain":               "not a run: explain has no --engine",
	"normalized-ids-padded-uncommitted":    "refused: normalize:",
	"normalized-ids-trim":                  "refused: normalize:",
	"parquet-decimal-40-digits-too-wide":   "embedded exit 3: sink: sink.parquet:2: column amount: value \"12345678901234567890123456789012345678.50\" has 38 intege…",
	"parquet-decimals-differ":              refusedByTrino + "column entry_id is VARCHAR in the source and BIGINT in the sink",
	"parquet-id-types-differ":              "embedded exit 3: sink: sources: files of one input differ in schema: column entry_id is BIGINT (int64) in ids/a.parqu…",
	"parquet-nanoseconds-int96-id":         "embedded exit 3: load source: source.parquet:1: column ts: value \"2026-01-01T10:00:00.000000999\" has digits below a m…",
	"parquet-nanoseconds-reported":         refusedByTrino + "compared column ts is",
	"parquet-nanoseconds-utc":              "embedded exit 3: load sink: sink.parquet:1: column ts: value \"2026-01-01T10:00:00.000000999Z\" has digits below a micr…",
	"parquet-timestamp-units":              refusedByTrino + "compared column ts is VARCHAR in the source and TIMESTAMP WITH TIME ZONE in the sink",
	"postgres-explain-evidence":            "not a run: explain has no --engine",
	"postgres-explain-evidence-changed":    "not a run: explain has no --engine",
	"postgres-zone-less-timestamp-flagged": refusedByTrino + "compared column posted_at is TIMESTAMP in the source and TIMESTAMP WITH TIME ZONE in the sink",
	"postgres-types":                       refusedByTrino + "column id is VARCHAR in the source and INTEGER in the sink",
	"mysql-types":                          "an INTERVAL column (tm, MySQL's TIME): no Hive or Iceberg table holds one (and Trino compares no interval)",
	"postgres-missing-table":               "embedded exit 3: sink: table $PG_SCHEMA.nope not found in database test (as user root, search_path applies to a name…",
	"postgres-unknown-column":              "embedded exit 2: checks: bad column: column \"entry_no\" (from id) not found in the source; its columns are: entry_id,…",
	"postgres-unmapped-type":               "embedded exit 2: sink: sources: invalid location: unmapped PostgreSQL type: column wait has type interval, which reco…",
	"postgres-uri-without-table":           "embedded exit 2: sink (postgres): sources: invalid location: $PG_URL names no table: add ?table=schema.name (or ?quer…",
	"quote-backtick-not-utf8":              "embedded exit 3: load source: source.csv:2: column note: value \"\\\"0\\xe50\" holds bytes that are not UTF-8; declare enc…",
	"rename-misspelled":                    "embedded exit 2: spec: invalid: source.rename: column \"txn_idd\" is not in the source, whose columns are: txn_id, acco…",
	"roll-forward":                         "refused: opening:; grain:",
	"roll-forward-opening-is-closing":      "embedded exit 2: spec: invalid: closing.csv is read as both sink and opening: the control would compare a file with i…",
	"roll-forward-opening-unrenamed":       "embedded exit 2: checks: bad column: column \"amount\" (from measures) not found in the opening; its columns are: accou…",
	"roll-forward-tolerance":               "refused: balance_tolerance:; opening:; grain:",
	"roll-forward-verify":                  "not a run: verify has no --engine",
	"same-file-both-inputs":                "embedded exit 2: spec: invalid: ledger.csv is read as both source and sink: the control would compare a file with its…",
	"samples-filesink":                     "refused: reperform:; watermark:; emission:",
	"samples-hourly-report":                "refused: reperform:; restarts:; watermark:; emission:",
	"samples-session-counts":               "refused: reperform:; restarts:",
	"sink-option-header-less":              refusedByTrino + "compared column booked_on is VARCHAR in the source and DATE in the sink",
	"sink-option-unknown":                  "embedded exit 2: sink (csv): sources: invalid location: unknown option(s) delimeter for kind csv (it takes: uri, bad_…",
	"thousands-comma-declared-type":        "embedded exit 3: load source: source.csv:2: column amount: value \"1,000.00\" does not convert to the declared type DEC…",
	"thousands-comma-undeclared":           "embedded exit 3: checks: bad value: source.csv:2: column amount: value \"1,000.00\" in the source is not a decimal numb…",
	"timestampformat-12-hour":              refusedByTrino + "compared column settled_at is",
	"timestampformat-mismatch":             "embedded exit 3: load sink: sink.csv:3: column settled_at: value \"01/02/2024 18:30:00\" does not match timestampformat…",
	"timestamps-zone-less-in-shanghai":     "refused: sink.time_zone:",
	"timestamps-zone-less-in-utc":          refusedByTrino + "compared column settled_at is TIMESTAMP WITH TIME ZONE in the source and TIMESTAMP in the sink",
	"tolerance-beyond":                     "refused: tolerance:; balance_tolerance:",
	"tolerance-default":                    "refused: tolerance:; balance_tolerance:",
	"tolerance-within":                     "refused: tolerance:; balance_tolerance:",
	"verify-signed":                        "not a run: verify has no --engine",
	"verify-tampered":                      "not a run: verify has no --engine",
	"verify-unsigned-with-key":             "not a run: verify has no --engine",
	"verify-untouched":                     "not a run: verify has no --engine",
}

// TestTrinoEndToEnd runs every case of testdata/endtoend that can be
// expressed on Trino through the Trino engine and requires what the
// embedded run wrote — the case's want/ folder, which TestEndToEnd holds
// the embedded run to — again: the same exit code, status, totals, checks
// (each with its status and exception count) and exceptions files byte
// for byte, but for the columns that say where a row lies (docs/trino.md,
// "What legitimately differs from an embedded run"). A case it cannot run
// is listed in trinoSkipped with the reason; a case neither run nor listed
// fails (a new case is run on Trino, or says why not).
//
// The case's inputs become tables of one schema, made once: each input is
// read into DuckDB exactly as the embedded run reads it (sources.Open and
// load.TableWith, with the spec's options, renames and declared types;
// a server or Kafka input after the case's setup, as TestEndToEnd makes
// it), each column read as text that the embedded run compared or summed
// as another type (a CSV's numbers) cast to that type (its summary's
// comparison and measure notes), every other column kept as read, and
// written as Parquet, over which a Hive table declares the same types (an
// Iceberg table copied from it where a column is a timestamp, which Hive
// reads to milliseconds only). The run on Trino is the case's own command
// with its inputs replaced by those tables and --engine.
//
// Six cases run at once: it took 2 min 49 s on the development machine
// while other work kept its two cores busy (load average 13 to 18).
func TestTrinoEndToEnd(t *testing.T) {
	trinotest.Connect(t)
	schema, tdb := trinotest.Schema(t, "hive")
	iceSchema, _ := trinotest.Schema(t, "iceberg")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(repo, "cmd", "reconcile", "testdata", "endtoend", "*"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, dir := range cases {
		names[filepath.Base(dir)] = true
	}
	for name := range trinoSkipped {
		if !names[name] {
			t.Errorf("trinoSkipped lists %s, which is no case of testdata/endtoend", name)
		}
	}
	slots := make(chan struct{}, 6) // runs at once: Trino's latency, not its work, bounds them
	t.Run("case", func(t *testing.T) {
		for _, dir := range cases {
			name := filepath.Base(dir)
			t.Run(name, func(t *testing.T) {
				c := &trinoCase{t: t, name: name, dir: dir, runDir: dir, repo: repo, schema: schema, iceSchema: iceSchema, db: tdb}
				why, skip := trinoSkipped[name]
				if skip && !strings.HasPrefix(why, refusedByTrino) {
					c.checkSkip(why)
					t.Skip(why)
				}
				t.Parallel()
				slots <- struct{}{}
				defer func() { <-slots }()
				c.run(strings.TrimPrefix(why, refusedByTrino))
			})
		}
	})
}

// refusedByTrino starts the reason of a case whose run on Trino exits 2.
const refusedByTrino = "refused by Trino: "

// trinoCase is one case of the corpus run on Trino.
type trinoCase struct {
	t         *testing.T
	name, dir string
	runDir    string        // where the case's files are read: dir, or its copy with the placeholders replaced
	server    *endToEndCase // the case's servers and placeholders (TestEndToEnd's), nil without a needs file
	repo      string
	schema    string // the Hive schema of every case's tables
	iceSchema string // the Iceberg schema of the tables with timestamps
	db        *sql.DB
	want      wantSummary // the embedded run's summary.json, its placeholders replaced
	wantCode  string      // the embedded run's exit code
	configDir string      // the folder of --config, "" without
}

// wantSummary is what the test reads of a summary.json.
type wantSummary struct {
	Status     string          `json:"status"`
	Totals     json.RawMessage `json:"totals"`
	Checks     []parityCheck   `json:"checks"`
	Notes      []string        `json:"notes"`
	Parameters struct {
		Source   specInput `json:"source"`
		Sink     specInput `json:"sink"`
		Measures []string  `json:"measures"`
		TimeZone string    `json:"time_zone"`
	} `json:"parameters"`
	Comparison struct {
		Compared []struct {
			Column     string `json:"column"`
			SourceType string `json:"source_type"`
			SinkType   string `json:"sink_type"`
		} `json:"compared"`
	} `json:"comparison"`
}

type specInput struct {
	URI      string            `json:"uri"`
	TimeZone string            `json:"time_zone"`
	Rename   map[string]string `json:"rename"`
	Options  map[string]any    `json:"options"`
}

// measureNote is the note that gives a measure's type in an embedded run.
var measureNote = regexp.MustCompile(`^measure (\S+) compared as (\S+),`)

// checkSkip fails the test when a checkable reason does not hold.
func (c *trinoCase) checkSkip(why string) {
	t := c.t
	t.Helper()
	args := c.commandArgs()
	c.readWant()
	switch {
	case strings.HasPrefix(why, "not a run:"):
		if len(args) > 0 && args[0] == "run" {
			t.Errorf("skipped as %q, but its command is run", why)
		}
	case strings.HasPrefix(why, "embedded exit "):
		if w := c.wantCode; !strings.HasPrefix(why, "embedded exit "+w+":") || w != "2" && w != "3" {
			t.Errorf("skipped as %q, but the embedded run exits %s", why, w)
		}
	case strings.HasPrefix(why, "refused: "):
		keys := strings.Split(strings.TrimPrefix(why, "refused: "), "; ")
		out := filepath.Join(t.TempDir(), "ev")
		run := append(c.trinoArgs(args, "trino:hive.none.source", "trino:hive.none.sink"), "--out", out)
		code, stdout, stderr := runCLI(t, run...)
		if code != exitUsage || !strings.Contains(stderr, "no exact form on the Trino engine") {
			t.Errorf("skipped as %q, but on Trino it exits %d, not %d refusing the spec:\n%s\n%s", why, code, exitUsage, stdout, stderr)
		}
		for _, key := range keys {
			if !strings.Contains(stderr, " "+key+" (") {
				t.Errorf("skipped as %q, but Trino's refusal does not name %s:\n%s", why, key, stderr)
			}
		}
	}
}

// commandArgs is the case's main command (args, or run --config
// spec.yaml), ${REPO} replaced.
func (c *trinoCase) commandArgs() []string {
	b, err := os.ReadFile(filepath.Join(c.dir, "args"))
	if os.IsNotExist(err) {
		b = []byte("run\n--config\nspec.yaml\n")
	} else if err != nil {
		c.t.Fatal(err)
	}
	var args []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			if c.server != nil {
				l = c.server.expand("args", l)
			}
			args = append(args, strings.ReplaceAll(l, "${REPO}", c.repo))
		}
	}
	return args
}

// trinoArgs is args with the inputs (and their options) replaced by
// source and sink, --config made absolute, and --engine added.
func (c *trinoCase) trinoArgs(args []string, source, sink string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "--source", "--sink", "--source-option", "--sink-option":
			i++
			continue
		case "--config":
			out = append(out, a)
			if i+1 < len(args) {
				i++
				p := args[i]
				if !filepath.IsAbs(p) {
					p = filepath.Join(c.runDir, p)
				}
				out = append(out, p)
			}
			continue
		}
		out = append(out, a)
	}
	out = append(out, "--source", source, "--sink", sink, "--engine", trinotest.EngineURI())
	// An input's time_zone: is the control's, not the file's: it stays.
	for _, role := range []string{"source", "sink"} {
		if z := c.inputOf(role).TimeZone; z != "" {
			out = append(out, "--"+role+"-option", "time_zone="+z)
		}
	}
	return out
}

// inputOf is the case's input role: as its flags give it, else as the
// embedded run's summary records it.
func (c *trinoCase) inputOf(role string) specInput {
	if in, ok := c.flagInput(role); ok {
		return in
	}
	if role == "sink" {
		return c.want.Parameters.Sink
	}
	return c.want.Parameters.Source
}

// prepareServers gives a case with a needs file its servers, runs its
// setup files and before commands, and copies its folder with the
// placeholders replaced, as TestEndToEnd does.
func (c *trinoCase) prepareServers() {
	t := c.t
	if _, err := os.Stat(filepath.Join(c.dir, "needs")); os.IsNotExist(err) {
		return
	}
	e := &endToEndCase{
		t: t, name: c.name, dir: c.dir, runDir: c.dir, repo: c.repo,
		vars:   map[string]string{"REPO": c.repo},
		needs:  map[string]bool{},
		tokens: map[string]string{}, counts: map[string]int{},
	}
	e.prepareServers()
	tmp := t.TempDir()
	befores := e.commands("before", "")
	for i := range befores {
		e.vars[fmt.Sprintf("BEFORE%d", i+1)] = filepath.Join(tmp, fmt.Sprintf("before%d", i+1))
	}
	e.runDir = filepath.Join(tmp, "case")
	copyCase(t, c.dir, e.runDir, e.expand)
	got := map[string]string{}
	for i, args := range befores {
		for j, a := range args {
			args[j] = e.expand("before", a)
		}
		e.runOne(args, e.vars[fmt.Sprintf("BEFORE%d", i+1)], fmt.Sprintf("before%d/", i+1), got, false)
		if w, err := os.ReadFile(filepath.Join(c.dir, "want", fmt.Sprintf("before%d", i+1), "exit_code")); err != nil || string(w) != got[fmt.Sprintf("before%d/exit_code", i+1)] {
			t.Fatalf("before command %d exits %s, want %s (%v)", i+1, got[fmt.Sprintf("before%d/exit_code", i+1)], w, err)
		}
	}
	c.server, c.runDir = e, e.runDir
}

// denormal is s (want/'s summary.json) with the placeholders' names
// TestEndToEnd wrote for their values replaced by this run's values.
func (c *trinoCase) denormal(s string) string {
	if c.server == nil {
		return s
	}
	names := make([]string, 0, len(c.server.vars))
	for n := range c.server.vars {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	for _, n := range names {
		v := c.server.vars[n]
		if strings.Contains(v, "?") {
			s = strings.ReplaceAll(s, "$"+n+"?", v+"&")
		}
		s = strings.ReplaceAll(s, "$"+n, v)
	}
	return s
}

// readWant reads the embedded run's exit code and summary.json from
// want/, and reports whether there is a summary.json.
func (c *trinoCase) readWant() bool {
	t := c.t
	t.Helper()
	code, err := os.ReadFile(filepath.Join(c.dir, "want", "exit_code"))
	if err != nil {
		t.Fatal(err)
	}
	c.wantCode = strings.TrimSpace(string(code))
	data, err := os.ReadFile(filepath.Join(c.dir, "want", "summary.json"))
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(c.denormal(string(data))), &c.want); err != nil {
		t.Fatalf("want/summary.json: %v", err)
	}
	return true
}

// run loads the case's inputs as Trino tables, runs the case on Trino and
// compares its evidence with want/; with refused, it requires the run to
// exit 2 saying so instead.
func (c *trinoCase) run(refused string) {
	t := c.t
	c.prepareServers()
	args := c.commandArgs()
	if len(args) == 0 || args[0] != "run" {
		t.Fatalf("the case's command is %q: list it in trinoSkipped (not a run: …)", args)
	}
	for i, a := range args {
		switch a {
		case "--config":
			c.configDir = filepath.Dir(filepath.Join(c.runDir, args[i+1]))
			if filepath.IsAbs(args[i+1]) {
				c.configDir = filepath.Dir(args[i+1])
			}
		}
	}
	if !c.readWant() {
		t.Fatal("the embedded run wrote no summary.json: list the case in trinoSkipped")
	}
	tables := [2]string{}
	tmp := t.TempDir()
	for i, role := range []string{"source", "sink"} {
		tables[i] = c.loadInput(role, tmp)
	}
	out := filepath.Join(tmp, "evidence")
	run := append(c.trinoArgs(args, "trino:"+tables[0], "trino:"+tables[1]), "--out", out, "--format", "json")
	gotCode, stdout, stderr := runCLI(t, run...)
	if refused != "" {
		if gotCode != exitUsage || !strings.Contains(stderr, refused) {
			t.Errorf("listed as refused by Trino (%s), but it exits %d on Trino:\n%s\n%s", refused, gotCode, stdout, stderr)
		}
		return
	}
	if fmt.Sprint(gotCode) != c.wantCode {
		t.Fatalf("exit %d on Trino, %s embedded\n%s\n%s", gotCode, c.wantCode, stdout, stderr)
	}
	c.compare(out)
}

// flagInput is the input role as the case's --source or --sink and
// --source-option or --sink-option flags give it (their options as the
// run reads them: summary.json records them as text), and whether the
// flag is given.
func (c *trinoCase) flagInput(role string) (specInput, bool) {
	args := c.commandArgs()
	var uri string
	var kvs []string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--" + role:
			uri = args[i+1]
		case "--" + role + "-option":
			kvs = append(kvs, args[i+1])
		}
	}
	if uri == "" {
		return specInput{}, false
	}
	in := spec.Input{URI: uri}
	if err := applyInputOptions(&in, "--"+role+"-option", kvs, func(_, v string) string { return v }); err != nil {
		c.t.Fatal(err)
	}
	return specInput{URI: in.URI, TimeZone: in.TimeZone, Rename: in.Rename, Options: in.Options}, true
}

// loadInput reads the case's input role as the embedded run reads it,
// writes it as Parquet under tmp and makes it a Hive table; it returns the
// table's name (catalog.schema.table).
func (c *trinoCase) loadInput(role, tmp string) string {
	t := c.t
	ctx := context.Background()
	in := c.inputOf(role)
	base := c.configDir
	if _, flag := c.flagInput(role); flag || base == "" {
		base = c.runDir
	}
	src, err := sources.Open(sources.Location{Role: role, URI: in.URI, Options: in.Options, BaseDir: base})
	if err != nil {
		t.Fatalf("open the %s: %v", role, err)
	}
	defer src.Close()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	zone := in.TimeZone
	if zone == "" {
		zone = c.want.Parameters.TimeZone
	}
	if _, err := load.TableWith(ctx, db, role, src, load.Options{Rename: in.Rename, Measures: c.want.Parameters.Measures, TimeZone: zone}); err != nil {
		t.Fatalf("load the %s: %v", role, err)
	}
	cols, err := load.UserColumns(ctx, db, role)
	if err != nil {
		t.Fatal(err)
	}
	// The types the embedded run compared and summed the columns it read
	// as text as (a CSV's numbers, say).
	typeOf := map[string]string{}
	for _, n := range c.want.Notes {
		if m := measureNote.FindStringSubmatch(n); m != nil {
			typeOf[m[1]] = m[2]
		}
	}
	for _, cc := range c.want.Comparison.Compared {
		typeOf[cc.Column] = cc.SourceType
		if role == "sink" {
			typeOf[cc.Column] = cc.SinkType
		}
	}
	// A timestamp travels as its microseconds since the epoch (Hive reads
	// Parquet timestamps to milliseconds), and the table is then an
	// Iceberg one, which holds timestamp(6) with and without a zone.
	var sel, decl, final []string
	iceberg := false
	for _, col := range cols {
		ty := col.Type
		if t, ok := typeOf[col.Name]; ok && ty == "VARCHAR" {
			ty = t
		}
		if strings.ToLower(col.Name) != col.Name {
			t.Fatalf("the %s's column %s is not lower case, and Trino's names are: list the case in trinoSkipped", role, col.Name)
		}
		id, q := duck.Ident(col.Name), fmt.Sprintf("%q", col.Name)
		if zone, ok := timestampTypes[strings.ToUpper(ty)]; ok {
			iceberg = true
			sel = append(sel, fmt.Sprintf("epoch_us(CAST(%s AS %s)) AS %s", id, ty, id))
			decl = append(decl, q+" bigint")
			final = append(final, fmt.Sprintf("CAST(from_unixtime_nanos(%s * 1000) AT TIME ZONE 'UTC' AS %s) AS %s", q, zone, q))
			continue
		}
		tt, ok := trinoType(ty)
		if !ok {
			t.Fatalf("the %s's column %s is %s, which no Hive or Iceberg table holds as the embedded run reads it: list the case in trinoSkipped", role, col.Name, ty)
		}
		sel = append(sel, fmt.Sprintf("CAST(%s AS %s) AS %s", id, ty, id))
		decl = append(decl, fmt.Sprintf("%s %s", q, tt))
		final = append(final, q)
	}
	folder := filepath.Join(tmp, role)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, fmt.Sprintf("COPY (SELECT %s FROM %s) TO %s (FORMAT parquet)", strings.Join(sel, ", "), duck.Ident(role), duck.Literal(filepath.Join(folder, "part.parquet")))); err != nil {
		t.Fatal(err)
	}
	name := strings.ReplaceAll(c.name, "-", "_") + "_" + role
	table := fmt.Sprintf("hive.%s.%s", c.schema, name)
	trinotest.Exec(t, c.db, fmt.Sprintf("CREATE TABLE %s (%s) WITH (external_location = %s, format = 'PARQUET')",
		table, strings.Join(decl, ", "), duck.Literal("file://"+folder)))
	if iceberg {
		hive := table
		table = fmt.Sprintf("iceberg.%s.%s", c.iceSchema, name)
		trinotest.Exec(t, c.db, fmt.Sprintf("CREATE TABLE %s AS SELECT %s FROM %s", table, strings.Join(final, ", "), hive))
	}
	return table
}

// timestampTypes are the Trino types of DuckDB's timestamps of
// microseconds.
var timestampTypes = map[string]string{
	"TIMESTAMP":                "timestamp(6)",
	"TIMESTAMP WITH TIME ZONE": "timestamp(6) with time zone",
}

// trinoType is the Trino type of a Hive table column that reads a Parquet
// column DuckDB wrote from duckType, as the embedded run holds it.
func trinoType(duckType string) (string, bool) {
	t := strings.ToUpper(duckType)
	switch t {
	case "VARCHAR":
		return "varchar", true
	case "BLOB":
		return "varbinary", true
	case "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "BOOLEAN", "DATE", "DOUBLE":
		return strings.ToLower(t), true
	case "FLOAT":
		return "real", true
	}
	if strings.HasPrefix(t, "DECIMAL(") {
		return strings.ToLower(t), true
	}
	return "", false
}

// compare compares the Trino run's evidence in out with want/.
func (c *trinoCase) compare(out string) {
	t := c.t
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got wantSummary
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != c.want.Status || !sameJSON(got.Totals, c.want.Totals) {
		t.Errorf("status %s, totals %s on Trino; %s, %s embedded", got.Status, got.Totals, c.want.Status, c.want.Totals)
	}
	embedded := map[string]parityCheck{}
	for _, ch := range c.want.Checks {
		embedded[ch.ID] = ch
	}
	for _, ch := range got.Checks {
		e, ok := embedded[ch.ID]
		delete(embedded, ch.ID)
		switch {
		case !ok:
			t.Errorf("check %s ran on Trino only", ch.ID)
			continue
		case ch.Status != e.Status || ch.Exceptions != e.Exceptions:
			t.Errorf("check %s: %s with %d exceptions on Trino, %s with %d embedded (%s)", ch.ID, ch.Status, ch.Exceptions, e.Status, e.Exceptions, ch.SkipReason)
		}
		if ch.File == "" {
			continue
		}
		where := map[string]bool{}
		for _, col := range ch.Columns {
			if col.Role == "location" || ch.ID == "null_ids" && (col.Name == "file" || col.Name == "line") {
				where[col.Name] = true
			}
		}
		gotFile, wantFile := filepath.Join(out, ch.File), filepath.Join(c.dir, "want", ch.File)
		if len(where) == 0 {
			a, errA := os.ReadFile(gotFile)
			b, errB := os.ReadFile(wantFile)
			if errA != nil || errB != nil || string(a) != string(b) {
				t.Errorf("%s differs:\nTrino    %q %v\nembedded %q %v", ch.File, a, errA, b, errB)
			}
			continue
		}
		if a, b := withoutColumns(t, gotFile, where), withoutColumns(t, wantFile, where); !slices.Equal(a, b) {
			t.Errorf("%s differs but for %v:\nTrino    %q\nembedded %q", ch.File, where, a, b)
		}
	}
	// Checks of the input's reader, which only an embedded run lists: an
	// Iceberg table's commit history, and the records a file's reader
	// could not read (bad_records: report), of which a Trino table has
	// none — so when there were none.
	for id, e := range embedded {
		if !strings.HasPrefix(id, "commit_history") && (id != "bad_records" || e.Status != "pass") {
			t.Errorf("check %s ran embedded only (%s, %d exceptions)", id, e.Status, e.Exceptions)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON value (want/'s keys
// are sorted), numbers compared as written.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	for _, x := range []struct {
		raw json.RawMessage
		v   *any
	}{{a, &va}, {b, &vb}} {
		dec := json.NewDecoder(strings.NewReader(string(x.raw)))
		dec.UseNumber()
		if err := dec.Decode(x.v); err != nil {
			return false
		}
	}
	return reflect.DeepEqual(va, vb)
}
