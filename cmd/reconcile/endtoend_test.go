package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// runIDText and startedText are a run id and a start time as the verdict
// line prints them; secondsText is the time between two inputs' reads in
// the note on inputs not read as of one instant; versionText is the tool
// and DuckDB versions as verify prints them.
var (
	runIDText   = regexp.MustCompile(`\b\d{8}T\d{6}Z-[0-9a-f]{8}\b`)
	startedText = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ(  run )`)
	secondsText = regexp.MustCompile(`read began \d+\.\d+ s after`)
	versionText = regexp.MustCompile(`\(reconcile [^,()]*(\([^)]*\))?[^,()]*, DuckDB [^)]*\)`)
)

var update = flag.Bool("update", false, "rewrite the want/ folders of testdata/endtoend from this run")

// TestEndToEnd runs every case folder of testdata/endtoend through the real
// entry point and compares what the run produced with the case's want/
// folder, file by file (sqlc's internal/endtoend is the model):
//
//	testdata/endtoend/<case>/
//	  spec.yaml, source.csv, sink.csv, …   the control and its inputs
//	  args                                 optional: the arguments, one per line, and
//	                                       # comment lines (default: run, --config, spec.yaml)
//	  before                               optional: commands run first (below)
//	  needs                                optional: the servers the case needs,
//	                                       one a line: postgres, mysql, kafka
//	  setup.postgres.sql                   optional: run in the case's schema
//	  setup.mysql.sql                      optional: run in the case's database
//	  setup.kafka                          optional: the case's topics (below)
//	  want/exit_code                       the exit code
//	  want/stdout                          the summary printed for the cron log
//	  want/stderr                          optional: the lines reconcile: prints (errors, hints)
//	  want/summary.json                    summary.json, normalised (below)
//	  want/exceptions/<check>.csv          every exceptions file, byte for byte
//	  want/before<N>/exit_code, stdout,    the same of the before file's Nth command
//	    stderr
//
// The run starts in the case folder, as an auditor re-performing it would:
//
//	cd testdata/endtoend/<case> && reconcile $(cat args) --out /tmp/ev --format json
//
// with --out a fresh folder and --format json appended when the command is
// run; any other command (explain, diff, verify, sample) is run with its
// arguments as they are. A run that exits 2 or 3 must leave no evidence
// folder.
//
// Servers. A case that needs PostgreSQL gets a schema of its own on the
// server of RECONCILE_PG_URL, one that needs MySQL or MariaDB a database of
// its own on the server of RECONCILE_MYSQL_URL (both dropped when the case
// ends), and one that needs Kafka an in-process cluster (kfake, as
// internal/kafkatest runs it). When PostgreSQL or MySQL cannot be reached
// the case is skipped with pgtest's or mysqltest's one-line reason, or
// fails under RECONCILE_REQUIRE_PG=1 or RECONCILE_REQUIRE_MYSQL=1. The setup
// files are run before the commands: setup.postgres.sql with search_path
// set to the case's schema, setup.mysql.sql in the case's database (several
// statements separated by semicolons in either), and setup.kafka, whose
// lines are
//
//	topic NAME PARTITIONS         create a topic
//	record TOPIC PARTITION VALUE  write one record (VALUE: the rest of the
//	                              line) with a plain producer, timestamp
//	                              kafkatest.Epoch; records are written in order
//	load NAME TOPIC [ARG]         write one of kafkatest's topics: NAME is
//	                              commit-abort-commit, retry-duplicates or
//	                              ledger-sample (ARG: its source CSV)
//
// ('#' starts a comment line). A case with a needs file runs in a copy of
// its folder in which the placeholders below are replaced in every text
// file but want/, so its spec can name the server; files it shares with
// the repository it names through ${REPO}.
//
// Placeholders, replaced in args, before, the setup files and (for a case
// with needs) the case's files:
//
//	${REPO}            the repository's root folder
//	${PG_URL}          RECONCILE_PG_URL (default postgres://root@127.0.0.1:5432/test);
//	                   ${PG_URL}? continues its query with & when it has one
//	${PG_KEYWORDS}     the same server in libpq's key=value form (host=… port=… user=… dbname=…)
//	${PG_SCHEMA}       the case's schema
//	${MYSQL_URL}       RECONCILE_MYSQL_URL with the case's database (${MYSQL_URL}? as ${PG_URL}?)
//	${MYSQL_DATABASE}  the case's database
//	${KAFKA_BROKERS}   the in-process cluster's host:port
//	${BEFORE1}, …      the evidence folder of the before file's 1st, … command
//
// A placeholder of a server the case does not declare fails the case.
//
// Before. The before file holds commands run ahead of args, one argument a
// line (and # comment lines), commands separated by an empty line: to load
// a table (sample load-postgres), or to make the evidence an explain, diff
// or verify case reads. The Nth command, when it is a run, writes its
// evidence to ${BEFORE<N>} (--out and --format json are appended; that
// folder reads $BEFORE<N> in want/). Its exit code, stdout and stderr are
// compared as the main command's are.
//
// Normalised means: the run's id, times, user, host and tool and DuckDB
// versions are dropped from summary.json; on stdout and stderr the verdict
// line's start and a run id read $STARTED and $RUN_ID, and verify's versions
// $TOOL_VERSION and $DUCKDB_VERSION; the evidence folder's path reads
// $OUT, the repository's path $REPO, and each placeholder's value $NAME
// (so ${PG_SCHEMA} in a spec reads $PG_SCHEMA in want/); keys are sorted.
// A server input's details that change from run to run or server to
// server (snapshot ids, LSN, times, server version; see varyingDetails)
// read $<key>_<n>, the same value the same token wherever it appears, so a
// shared snapshot still reads as one; the binary-log and GTID details,
// which the server's configuration decides, are dropped; the seconds
// between two inputs' reads read $SECONDS; in a case run in a copy, the
// spec's SHA-256 reads $SPEC_SHA256 (the copy holds the server's names).
// What a server says of itself otherwise (its user and database names in
// messages, MariaDB's facts) is as the default servers give it (.ci/services).
// Progress lines on stderr (they hold timings) are not compared.
//
// To add a PostgreSQL case: a folder with a needs file saying postgres, a
// setup.postgres.sql that creates and fills its tables, a spec.yaml whose
// input is ${PG_URL}?table=${PG_SCHEMA}.name (or uri: ${PG_URL} and a
// query: over ${PG_SCHEMA}.name), then -update (below) and read want/.
// MySQL is the same with ${MYSQL_URL}?table=name; Kafka with a setup.kafka
// and kafka://${KAFKA_BROKERS}/topic.
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

// TestEndToEndCasesAgree holds pairs of cases that read one data set
// through two input kinds to the same findings: their want/ folders must
// agree on the exit code, the status, each check's status and exception
// count and the totals, and on the exceptions files named byte for byte
// (a change to one case's want/ that the other does not share fails
// here, not only in review).
func TestEndToEndCasesAgree(t *testing.T) {
	for _, p := range []struct {
		a, b       string
		exceptions []string
	}{
		{"samples-ledger-at-least-once", "postgres-ledger-at-least-once", nil},
		{"samples-ledger-exactly-once", "postgres-ledger-exactly-once", nil},
		{"samples-ledger-at-least-once", "mysql-ledger-at-least-once", nil},
		{"samples-ledger-exactly-once", "mysql-ledger-exactly-once", nil},
		{"kafka-commit-abort-commit-read-committed", "kcat-commit-abort-commit-read-committed", kafkaAgreed},
		{"kafka-commit-abort-commit-read-uncommitted", "kcat-commit-abort-commit-read-uncommitted", kafkaAgreed},
	} {
		t.Run(p.a+"="+p.b, func(t *testing.T) {
			read := func(c, f string) string {
				b, err := os.ReadFile(filepath.Join("testdata", "endtoend", c, "want", f))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			findings := func(c string) string {
				var s struct {
					Status string `json:"status"`
					Checks []struct {
						ID         string `json:"id"`
						Status     string `json:"status"`
						Exceptions int    `json:"exceptions"`
					} `json:"checks"`
					Totals json.RawMessage `json:"totals"`
				}
				if err := json.Unmarshal([]byte(read(c, "summary.json")), &s); err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				return read(c, "exit_code") + string(b)
			}
			if a, b := findings(p.a), findings(p.b); a != b {
				t.Errorf("findings differ\n%s:\n%s\n%s:\n%s", p.a, a, p.b, b)
			}
			for _, f := range p.exceptions {
				if a, b := read(p.a, "exceptions/"+f), read(p.b, "exceptions/"+f); a != b {
					t.Errorf("%s differs (-%s +%s):\n%s", f, p.a, p.b, cmp.Diff(a, b))
				}
			}
		})
	}
}

// kafkaAgreed are the exceptions files a live topic and its kcat dump
// agree on byte for byte.
var kafkaAgreed = []string{"duplicate_ids.csv", "missing_ids.csv", "unexpected_ids.csv", "value_mismatches.csv", "row_count_balance.csv", "sum_balance.csv"}

// placeholder is a ${NAME} the test replaces; serverOf names the server a
// placeholder needs.
var (
	placeholder = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)\}`)
	serverOf    = map[string]string{
		"PG_URL": "postgres", "PG_KEYWORDS": "postgres", "PG_SCHEMA": "postgres",
		"MYSQL_URL": "mysql", "MYSQL_DATABASE": "mysql",
		"KAFKA_BROKERS": "kafka",
	}
	beforeName = regexp.MustCompile(`^BEFORE[1-9][0-9]*$`)
)

// endToEndCase is one case being run: where it runs, what its placeholders
// stand for and the tokens of the values that vary from run to run.
type endToEndCase struct {
	t      *testing.T
	name   string
	dir    string // the case folder in the repository
	runDir string // where the commands run: dir, or its copy
	repo   string
	vars   map[string]string // placeholder → value
	needs  map[string]bool
	tokens map[string]string // varying value → $key_n
	counts map[string]int    // key → tokens given
}

// expand replaces the placeholders in s; a server placeholder the case
// does not declare fails the case. Other ${…} (reconcile's own spec
// parameters) are left as they are.
func (c *endToEndCase) expand(what, s string) string {
	c.t.Helper()
	for _, name := range []string{"PG_URL", "MYSQL_URL"} {
		if v, ok := c.vars[name]; ok {
			sep := "?"
			if strings.Contains(v, "?") {
				sep = "&"
			}
			s = strings.ReplaceAll(s, "${"+name+"}?", v+sep)
		}
	}
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := c.vars[name]; ok {
			return v
		}
		if srv, ok := serverOf[name]; ok {
			c.t.Fatalf("%s uses %s: list %s in the case's needs file", what, m, srv)
		}
		if beforeName.MatchString(name) {
			c.t.Fatalf("%s uses %s: the before file has no such command", what, m)
		}
		return m
	})
}

// normal replaces in s what varies from run to run (see TestEndToEnd).
func (c *endToEndCase) normal(s string, out string) string {
	type pair struct{ value, name string }
	var ps []pair
	if out != "" {
		ps = append(ps, pair{out, "$OUT"})
	}
	if c.runDir != c.dir {
		ps = append(ps, pair{c.runDir, filepath.Join(c.dir)})
	}
	for name, v := range c.vars {
		switch {
		case name == "REPO":
		case name == "PG_URL" || name == "MYSQL_URL":
			if strings.Contains(v, "?") {
				ps = append(ps, pair{v + "&", "$" + name + "?"})
			}
			ps = append(ps, pair{v, "$" + name})
		default:
			ps = append(ps, pair{v, "$" + name})
		}
	}
	for v, tok := range c.tokens {
		if len(v) >= 6 { // a shorter one could be part of other text; normalSummary replaces it in details
			ps = append(ps, pair{v, tok})
		}
	}
	// Longest first: a URL before the schema or database in it.
	sort.SliceStable(ps, func(i, j int) bool {
		if len(ps[i].value) != len(ps[j].value) {
			return len(ps[i].value) > len(ps[j].value)
		}
		return ps[i].value < ps[j].value
	})
	for _, p := range ps {
		if p.value != "" {
			s = strings.ReplaceAll(s, p.value, p.name)
		}
	}
	s = strings.ReplaceAll(s, c.repo, "$REPO")
	return secondsText.ReplaceAllString(s, "read began $$SECONDS s after")
}

// normalRun is normal plus the run's id, start and the versions, as the
// verdict line and verify print them.
func (c *endToEndCase) normalRun(s, out string) string {
	s = c.normal(s, out)
	s = runIDText.ReplaceAllString(s, "$$RUN_ID")
	s = startedText.ReplaceAllString(s, "$$STARTED$1")
	return versionText.ReplaceAllString(s, "(reconcile $$TOOL_VERSION, DuckDB $$DUCKDB_VERSION)")
}

// runCase runs the case in dir and returns its results as want/ would hold
// them: relative path → content.
func runCase(t *testing.T, dir, repo string) map[string]string {
	c := &endToEndCase{
		t: t, name: filepath.Base(dir), dir: dir, runDir: dir, repo: repo,
		vars:   map[string]string{"REPO": repo},
		needs:  map[string]bool{},
		tokens: map[string]string{}, counts: map[string]int{},
	}
	c.prepareServers()
	tmp := t.TempDir()
	befores := c.commands("before", "")
	for i := range befores {
		c.vars[fmt.Sprintf("BEFORE%d", i+1)] = filepath.Join(tmp, fmt.Sprintf("before%d", i+1))
	}
	mains := c.commands("args", "run\n--config\nspec.yaml\n")
	if len(mains) != 1 {
		t.Fatalf("args holds %d commands, want 1 (no empty lines)", len(mains))
	}
	for _, cmd := range append(befores, mains...) {
		for i, a := range cmd {
			cmd[i] = c.expand("args or before", a)
		}
	}
	if len(c.needs) > 0 {
		c.runDir = filepath.Join(tmp, "case")
		copyCase(t, dir, c.runDir, c.expand)
	}
	t.Chdir(c.runDir)
	got := map[string]string{}
	for i, args := range befores {
		c.runOne(args, c.vars[fmt.Sprintf("BEFORE%d", i+1)], fmt.Sprintf("before%d/", i+1), got, false)
	}
	c.runOne(mains[0], filepath.Join(tmp, "evidence"), "", got, true)
	if t.Failed() {
		t.FailNow()
	}
	return got
}

// commands reads file (or def when the case has none) as commands: one
// argument a line, commands separated by an empty line, lines starting
// with # left out.
func (c *endToEndCase) commands(file, def string) [][]string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, file))
	switch {
	case os.IsNotExist(err) && def == "":
		return nil
	case os.IsNotExist(err):
		b = []byte(def)
	case err != nil:
		c.t.Fatal(err)
	}
	var cmds [][]string
	var cur []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "#") {
			continue
		} else if l != "" {
			cur = append(cur, l)
			continue
		}
		if len(cur) > 0 {
			cmds = append(cmds, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// runOne runs args (with --out out when the command is run) and puts its
// exit code, stdout and stderr under prefix in got, and with all, the
// summary and the exceptions files too.
func (c *endToEndCase) runOne(args []string, out, prefix string, got map[string]string, all bool) {
	t := c.t
	t.Helper()
	isRun := len(args) > 0 && args[0] == "run"
	if isRun {
		args = append(append([]string(nil), args...), "--out", out, "--format", "json")
	}
	code, stdout, stderr := runCLI(t, args...)
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if isRun {
		if _, err := os.Stat(out); err == nil && (code == exitUsage || code == exitRuntime) {
			t.Errorf("%srun exited %d and left an evidence folder %s", prefix, code, out)
		}
		if summary != nil {
			c.collectTokens(summary)
		}
	}
	if !all {
		out = "" // a before command's folder reads $BEFORE<N>
	}
	got[prefix+"exit_code"] = fmt.Sprintf("%d\n", code)
	got[prefix+"stdout"] = c.normalRun(stdout, out)
	var said []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(l, "reconcile: ") {
			said = append(said, l)
		}
	}
	if len(said) > 0 {
		got[prefix+"stderr"] = c.normalRun(strings.Join(said, ""), out) // an error may name a run by its id
	}
	if !all {
		return
	}
	if summary != nil {
		got["summary.json"] = c.normalSummary(c.normal(string(summary), out))
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
		got["exceptions/"+filepath.Base(f)] = c.normal(string(b), out)
	}
}

// varyingDetails are the keys of a server input's details whose values
// change from run to run (a snapshot, a time, a log position) or from
// server to server of one kind (its version, its system time zone);
// droppedDetails the key prefixes whose presence the server's
// configuration decides (binary log on or off).
var (
	varyingDetails = []string{
		"snapshot", "exported_snapshot", "transaction_started_at", "wal_lsn", "server_version",
		"offsets_listed_at",
	}
	droppedDetails = []string{"gtid_", "binlog_"}
	// unnumberedDetails are varying details whose equality across inputs
	// other sessions decide (another writer moves the WAL position between
	// two reads; two listings may fall in one millisecond): one token for
	// every value, so a case does not depend on the server's other load.
	unnumberedDetails = []string{"wal_lsn", "offsets_listed_at"}
)

// collectTokens gives each value of varyingDetails in summary a token
// $key_n, numbered per key in the order the inputs and runs give them
// ($key alone for unnumberedDetails).
func (c *endToEndCase) collectTokens(summary []byte) {
	var s struct {
		Inputs []struct {
			Details map[string]any `json:"details"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(summary, &s); err != nil {
		c.t.Fatalf("summary.json: %v", err)
	}
	for _, in := range s.Inputs {
		for _, k := range varyingDetails {
			v, ok := in.Details[k].(string)
			if !ok || v == "" {
				continue
			}
			if _, seen := c.tokens[v]; seen {
				continue
			}
			if slices.Contains(unnumberedDetails, k) {
				c.tokens[v] = "$" + k
				continue
			}
			c.counts[k]++
			c.tokens[v] = fmt.Sprintf("$%s_%d", k, c.counts[k])
		}
	}
}

// runFields are the parts of summary.json's run object that differ from
// run to run or machine to machine.
var runFields = []string{"id", "started_at", "finished_at", "user", "host", "tool_version", "duckdb_version", "memory"}

// normalSummary drops the run's varying fields and the inputs' dropped
// details and re-indents summary.json with sorted keys; numbers keep their
// literal text.
func (c *endToEndCase) normalSummary(s string) string {
	t := c.t
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
	if _, ok := run["spec_sha256"]; ok && c.runDir != c.dir {
		run["spec_sha256"] = "$SPEC_SHA256"
	}
	inputs, _ := v["inputs"].([]any)
	for _, in := range inputs {
		in, _ := in.(map[string]any)
		details, _ := in["details"].(map[string]any)
		for _, k := range varyingDetails {
			if v, ok := details[k].(string); ok && c.tokens[v] != "" {
				details[k] = c.tokens[v]
			}
		}
		for k := range details {
			for _, p := range droppedDetails {
				if strings.HasPrefix(k, p) {
					delete(details, k)
				}
			}
		}
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

// prepareServers reads the needs file, gives the case a schema, a database
// or a cluster, and runs the setup files.
func (c *endToEndCase) prepareServers() {
	t := c.t
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(c.dir, "needs")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			switch l = strings.TrimSpace(l); l {
			case "":
			case "postgres", "mysql", "kafka":
				c.needs[l] = true
			default:
				t.Fatalf("needs: %q is not postgres, mysql or kafka", l)
			}
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, f := range []struct{ file, server string }{
		{"setup.postgres.sql", "postgres"}, {"setup.mysql.sql", "mysql"}, {"setup.kafka", "kafka"},
	} {
		if _, err := os.Stat(filepath.Join(c.dir, f.file)); err == nil && !c.needs[f.server] {
			t.Fatalf("%s: list %s in the case's needs file", f.file, f.server)
		}
	}
	if c.needs["postgres"] {
		schema, conn := pgtest.Schema(t)
		c.vars["PG_URL"] = pgtest.URL()
		c.vars["PG_SCHEMA"] = schema
		cfg, err := pgx.ParseConfig(pgtest.URL())
		if err != nil {
			t.Fatalf("RECONCILE_PG_URL: %v", err)
		}
		c.vars["PG_KEYWORDS"] = fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.Database)
		if sql := c.setupFile("setup.postgres.sql"); sql != "" {
			pgtest.Exec(t, conn, "SET search_path TO "+pgx.Identifier{schema}.Sanitize())
			pgtest.Exec(t, conn, sql)
		}
	}
	if c.needs["mysql"] {
		db, conn := mysqltest.Database(t)
		c.vars["MYSQL_URL"] = mysqltest.DatabaseURL(t, db)
		c.vars["MYSQL_DATABASE"] = db
		if sql := c.setupFile("setup.mysql.sql"); sql != "" {
			mysqltest.Exec(t, conn, sql)
		}
	}
	if c.needs["kafka"] {
		cl, err := kafkatest.Start(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		c.vars["KAFKA_BROKERS"] = cl.Addr
		if setup := c.setupFile("setup.kafka"); setup != "" {
			if err := loadKafka(context.Background(), cl, setup); err != nil {
				t.Fatalf("setup.kafka: %v", err)
			}
		}
	}
}

// setupFile is the case's file name with its placeholders replaced, or ""
// when the case has none.
func (c *endToEndCase) setupFile(name string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return c.expand(name, string(b))
}

// recordLine is a setup.kafka record line; its group is the value.
var recordLine = regexp.MustCompile(`^record\s+\S+\s+\S+\s+(.*)$`)

// loadKafka writes the topics setup describes (see TestEndToEnd) to cl.
func loadKafka(ctx context.Context, cl *kafkatest.Cluster, setup string) error {
	var producer *kgo.Client
	defer func() {
		if producer != nil {
			producer.Close()
		}
	}()
	sc := bufio.NewScanner(strings.NewReader(setup))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		var err error
		switch {
		case f[0] == "topic" && len(f) == 3:
			var parts int
			if parts, err = strconv.Atoi(f[2]); err == nil {
				err = cl.CreateTopic(f[1], int32(parts), nil)
			}
		case f[0] == "record" && len(f) >= 4:
			var part int
			if part, err = strconv.Atoi(f[2]); err != nil {
				break
			}
			if producer == nil {
				if producer, err = cl.Producer(); err != nil {
					break
				}
			}
			value := recordLine.FindStringSubmatch(line)[1]
			err = kafkatest.Plain(ctx, producer, &kgo.Record{Topic: f[1], Partition: int32(part), Value: []byte(value), Timestamp: kafkatest.Epoch})
		case f[0] == "load" && len(f) == 3 && f[1] == "commit-abort-commit":
			err = kafkatest.LoadCommitAbortCommit(ctx, cl, f[2])
		case f[0] == "load" && len(f) == 3 && f[1] == "retry-duplicates":
			err = kafkatest.LoadRetryDuplicates(ctx, cl, f[2])
		case f[0] == "load" && len(f) == 4 && f[1] == "ledger-sample":
			err = kafkatest.LoadLedgerSample(ctx, cl, f[2], f[3])
		default:
			err = fmt.Errorf("not topic NAME PARTITIONS, record TOPIC PARTITION VALUE or load NAME TOPIC [ARG]")
		}
		if err != nil {
			return fmt.Errorf("line %d: %q: %w", n, line, err)
		}
	}
	return sc.Err()
}

// copyCase copies the case folder from to to, but want/, with expand
// applied to every text file.
func copyCase(t *testing.T, from, to string, expand func(what, s string) string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == "want" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if utf8.Valid(b) && !bytes.ContainsRune(b, 0) {
			b = []byte(expand(rel, string(b)))
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
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
