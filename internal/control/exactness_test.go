package control_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// dstCase is a source of zone-less wall-clock times read in Europe/Berlin
// and compared with a sink of instants; found by a reviewer: DuckDB (ICU)
// read 02:30 of 31 March 2024 (skipped) as 03:30 CEST and 02:30 of 27
// October (shown twice) as its +01:00 instant, and the run passed.
type dstCase struct {
	name string
	// source returns the source input holding id 1 at wall, id 2 at
	// 2024-06-01 12:00:00 (summer: 10:00Z), read in Europe/Berlin.
	source func(t *testing.T, dir, wall string) spec.Input
}

// dstRun runs tc with id 1 at wall against a sink holding sinkInstant for
// it: a pass or a refusal.
func dstRun(t *testing.T, tc dstCase, wall, sinkInstant string) error {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, [][2]string{{"sink.csv", "id,ts\n1," + sinkInstant + "\n2,2024-06-01 10:00:00+00\n"}})
	src := tc.source(t, dir, wall)
	src.TimeZone = "Europe/Berlin"
	s := &spec.Spec{Source: src, Sink: spec.Input{URI: "sink.csv", Options: map[string]any{"types": map[string]any{"ts": "TIMESTAMPTZ"}}},
		ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if err == nil && res.Status != "pass" {
		t.Fatalf("%s %s: status %s, want a pass or a refusal", tc.name, wall, res.Status)
	}
	return err
}

// A zone-less wall-clock time that a DST change skips or repeats, read in
// the input's zone to be compared with an instant, is refused (ErrTime,
// exit 3) naming file or row, column and value, from CSV text, a
// PostgreSQL timestamp and a MySQL DATETIME; a summer time of the same
// inputs reads as its one instant and passes.
func TestZonelessTimeInDSTChangeRefused(t *testing.T) {
	cases := []dstCase{
		{"csv text", func(t *testing.T, dir, wall string) spec.Input {
			writeFiles(t, dir, [][2]string{{"source.csv", "id,ts\n1," + wall + "\n2,2024-06-01 12:00:00\n"}})
			return spec.Input{URI: "source.csv"}
		}},
		{"postgres timestamp", func(t *testing.T, dir, wall string) spec.Input {
			schema, conn := pgtest.Schema(t)
			pgtest.Exec(t, conn, "CREATE TABLE "+schema+".src (id text, ts timestamp); INSERT INTO "+schema+".src VALUES ('1', '"+wall+"'), ('2', '2024-06-01 12:00:00')")
			return spec.Input{URI: pgtest.TableURL(schema, "src")}
		}},
		{"mysql datetime", func(t *testing.T, dir, wall string) spec.Input {
			name, db := mysqltest.Database(t)
			mysqltest.Exec(t, db, "CREATE TABLE src (id VARCHAR(4), ts DATETIME); INSERT INTO src VALUES ('1', '"+wall+"'), ('2', '2024-06-01 12:00:00')")
			return spec.Input{URI: mysqltest.TableURL(t, name, "src")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// the sink holds the instant a naive reading gives (01:30Z),
			// so a run that guesses passes
			for _, w := range []struct{ wall, sink, msg string }{
				{"2024-03-31 02:30:00", "2024-03-31 01:30:00+00", "does not exist in Europe/Berlin (a DST change skips it)"},
				{"2024-10-27 02:30:00", "2024-10-27 01:30:00+00", "occurs twice in Europe/Berlin (a DST change repeats it)"},
			} {
				err := dstRun(t, tc, w.wall, w.sink)
				if !errors.Is(err, checks.ErrTime) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), w.msg) ||
					!strings.Contains(err.Error(), "column ts") || !strings.Contains(err.Error(), w.wall) {
					t.Errorf("%s: err = %v, want checks.ErrTime: %q naming column ts and the value", w.wall, err, w.msg)
				}
			}
			// 01:30, the hour before the autumn change, is one instant
			// (+02:00: 23:30Z the day before)
			if err := dstRun(t, tc, "2024-10-27 01:30:00", "2024-10-26 23:30:00+00"); err != nil {
				t.Errorf("an unambiguous wall-clock time: %v", err)
			}
		})
	}
}

// A plain date as text, compared with an instant, is its day's first
// instant, as a DATE is: America/Santiago skipped midnight on 8 September
// 2024, and the day began at 01:00 -03 (a reviewer found it refused as a
// gap); a time of that skipped hour is refused.
func TestTextDateIsDayStart(t *testing.T) {
	run := func(v string) error {
		dir := t.TempDir()
		writeFiles(t, dir, [][2]string{{"source.csv", "id,d\n1," + v + "\n"}, {"sink.csv", "id,d\n1,2024-09-08 01:00:00-03:00\n"}})
		s := &spec.Spec{Source: spec.Input{URI: "source.csv", TimeZone: "America/Santiago"}, Sink: spec.Input{URI: "sink.csv", Options: map[string]any{"types": map[string]any{"d": "TIMESTAMPTZ"}}},
			ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
		res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
		if err == nil && res.Status != "pass" {
			return errors.New("status " + string(res.Status))
		}
		return err
	}
	if err := run("2024-09-08"); err != nil {
		t.Errorf("a plain date: %v", err)
	}
	if err := run("2024-09-08 00:30:00"); !errors.Is(err, checks.ErrTime) || !strings.Contains(err.Error(), "does not exist in America/Santiago") {
		t.Errorf("00:30, skipped: err = %v", err)
	}
}

// Text compared with a timestamp is read as ISO 8601 only (as the README
// says): DuckDB's cast also reads "epoch", one-digit fields, 24:00:00 and
// "infinity", each refused here naming the value (ErrValue, exit 3; found
// by a reviewer, who had each pass against 1970-01-01 00:00 UTC). Spaces
// around, a T, and a zone (Z, UTC, an offset) are ISO and read.
func TestTextTimestampISOOnly(t *testing.T) {
	run := func(v string) error {
		dir := t.TempDir()
		writeFiles(t, dir, [][2]string{{"source.csv", "id,ts\n1," + v + "\n"}, {"sink.csv", "id,ts\n1,1970-01-01 00:00:00+00\n"}})
		s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv", Options: map[string]any{"types": map[string]any{"ts": "TIMESTAMPTZ"}}},
			ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
		res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
		if err == nil && res.Status != "pass" {
			return errors.New("status " + string(res.Status))
		}
		return err
	}
	for _, v := range []string{"epoch", "1970-1-1 0:0:0", "1969-12-31 24:00:00", "infinity", "1970-01-01 00:00:00 Europe/London", "19700101T000000Z"} {
		err := run(v)
		if !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), `value "`+v+`" in the source is not a timestamp (ISO 8601`) {
			t.Errorf("%q: err = %v, want checks.ErrValue naming it", v, err)
		}
	}
	for _, v := range []string{" 1970-01-01 00:00:00 ", "1970-01-01T00:00:00Z", "1970-01-01 00:00:00 UTC", "1970-01-01 01:00:00+01:00", "1970-01-01"} {
		if err := run(v); err != nil {
			t.Errorf("%q: %v, want a pass", v, err)
		}
	}
}

// A total past 38 digits is refused (ErrOverflow, exit 3), not written
// under its DECIMAL(38,s) type: DuckDB's sum of two DECIMAL(38,2) values of
// 6e35 gave 1.2e36 + 0.03, 39 digits, labelled DECIMAL(38,2) (found by a
// reviewer). One such value alone, and a sum just inside, pass.
func TestTotalPast38DigitsRefused(t *testing.T) {
	run := func(amounts ...string) error {
		dir := t.TempDir()
		body := "id,amount\n"
		for i, a := range amounts {
			body += fmt.Sprintf("%d,%s\n", i+1, a)
		}
		writeFiles(t, dir, [][2]string{{"source.csv", body}, {"sink.csv", body}})
		s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"},
			ID: []string{"id"}, Measures: []string{"amount"}, Out: filepath.Join(dir, "ev"), Dir: dir}
		_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
		return err
	}
	err := run("600000000000000000000000000000000000.01", "600000000000000000000000000000000000.02")
	if !errors.Is(err, checks.ErrOverflow) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "measure amount") || !strings.Contains(err.Error(), "39 digits") {
		t.Errorf("err = %v, want checks.ErrOverflow naming measure amount and its 39 digits", err)
	}
	if err := run("600000000000000000000000000000000000.01"); err != nil {
		t.Errorf("one value: %v", err)
	}
	if err := run("499999999999999999999999999999999999.99", "500000000000000000000000000000000000.00"); err != nil {
		t.Errorf("a sum of 38 digits: %v", err)
	}
}

// A source and a sink column whose names differ only in case, in white
// space around them (a header written "id, amount") or in invisible
// characters are refused (exit 2) naming both, with the rename: that makes
// them one compared column and the ignore: that leaves both out (found by
// reviewers: Status posted against status FAILED, and " amount" 10.00
// against amount 99.00, passed without a word; then with a WARNING only,
// which issue 30, item 10 found still passing with a value changed). With
// compare:, the columns it does not list are left out by the spec, and the
// WARNING note still points at the pair.
func TestLookAlikeColumnNamesRefused(t *testing.T) {
	for _, c := range []struct {
		name, source, sink, want string
		// rename is the source's and the sink's rename: the error gives,
		// applied in a second run that must find the mismatch; ignore its
		// ignore:, applied in a third that must pass.
		rename [2]map[string]string
		ignore []string
	}{
		{"case", "id,Status\n1,posted\n", "id,status\n1,FAILED\n",
			"column Status of the source and status of the sink differ only in case: names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have; to compare them, rename both to one new name (source: {rename: {Status: status_value}}, sink: {rename: {status: status_value}}), or to leave both uncompared, ignore: [Status, status]",
			[2]map[string]string{{"Status": "status_value"}, {"status": "status_value"}}, []string{"Status", "status"}},
		{"case, the new name taken", "id,amount,Amount_value\n1,10.00,x\n", "id,Amount,Amount_value\n1,99.00,x\n",
			"column amount of the source and Amount of the sink differ only in case: names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have; to compare them, rename both to one new name (source: {rename: {amount: Amount_value_2}}, sink: {rename: {Amount: Amount_value_2}}), or to leave both uncompared, ignore: [amount, Amount]",
			[2]map[string]string{{"amount": "Amount_value_2"}, {"Amount": "Amount_value_2"}}, []string{"amount", "Amount"}},
		{"white space", "id, amount\n1,10.00\n", "id,amount\n1,99.00\n",
			`column " amount" of the source and "amount" of the sink differ only in white space around the name: names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have; to compare them, rename: source: {rename: {" amount": amount}}, or to leave both uncompared, ignore: [" amount", amount]`,
			[2]map[string]string{{" amount": "amount"}}, []string{" amount", "amount"}},
		// look-alikes no warning named before (found by an adversarial
		// tester: both passed without a word)
		{"zero-width space", "id,status\n1,ok\n", "id,status\u200b\n1,BAD\n",
			`column "status" of the source and "status\u200b" of the sink look alike but differ in invisible characters (zero-width, byte-order mark) or in Unicode normalisation (é as one code point or as e and a combining accent): names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have (code point by code point); to compare them, rename: sink: {rename: {"status\u200b": "status"}}, or to leave both uncompared, ignore: [status, "status\u200b"]`,
			[2]map[string]string{nil, {"status\u200b": "status"}}, []string{"status", "status\u200b"}},
		{"NFC against NFD", "id,caf\u00e9\n1,a\n", "id,cafe\u0301\n1,b\n",
			`column "caf\u00e9" of the source and "cafe\u0301" of the sink look alike but differ in invisible characters (zero-width, byte-order mark) or in Unicode normalisation (é as one code point or as e and a combining accent): names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have (code point by code point); to compare them, rename: sink: {rename: {"cafe\u0301": "caf\u00e9"}}, or to leave both uncompared, ignore: ["caf\u00e9", "cafe\u0301"]`,
			[2]map[string]string{nil, {"cafe\u0301": "caf\u00e9"}}, []string{"caf\u00e9", "cafe\u0301"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, [][2]string{{"source.csv", c.source}, {"sink.csv", c.sink}})
			s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"}, ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
			_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
			if !errors.Is(err, checks.ErrColumn) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant checks.ErrColumn (exit 2) containing %q", err, c.want)
			}
			s.Source.Rename, s.Sink.Rename = c.rename[0], c.rename[1]
			s.Out = filepath.Join(dir, "ev2")
			res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := exceptionsOf(res, "value_mismatches"); got != 1 {
				t.Errorf("with the rename, value_mismatches has %d exceptions, want 1", got)
			}
			s.Source.Rename, s.Sink.Rename = nil, nil
			s.Ignore = c.ignore
			s.Out = filepath.Join(dir, "ev3")
			if res, err = control.Run(context.Background(), s, control.Options{Formats: []string{"json"}}); err != nil {
				t.Fatalf("with the ignore: %v", err)
			}
			if n := slices.IndexFunc(res.Comparison.Uncompared, func(u evidence.UncomparedColumn) bool { return u.Reason == checks.ReasonIgnored }); n < 0 || len(res.Comparison.Uncompared) != 3 {
				t.Errorf("with the ignore: uncompared %+v, want both columns left out by ignore:", res.Comparison.Uncompared)
			}
		})
	}
	// With compare:, the pair is not refused; the WARNING names it.
	dir := t.TempDir()
	writeFiles(t, dir, [][2]string{{"source.csv", "id,x,Status\n1,a,posted\n"}, {"sink.csv", "id,x,status\n1,a,FAILED\n"}})
	s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"}, ID: []string{"id"}, Compare: []string{"x"}, Out: filepath.Join(dir, "ev"), Dir: dir}
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "WARNING: column Status of the source and status of the sink differ only in case, so neither is compared"; !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("with compare: notes lack %q:\n%s", want, strings.Join(res.Notes, "\n"))
	}
}

// An input whose columns come from its records and that read none (an empty
// kcat dump, a Kafka range of markers only) has provenance columns only:
// the refusal of the id says so, instead of listing __partition, … alone
// (found by a reviewer).
func TestNoRecordsNoColumnsSaid(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, [][2]string{{"source.csv", "id\n1\n"}, {"dump.jsonl", ""}})
	s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "kcat:dump.jsonl"}, ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
	_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), "the sink has provenance columns only") || !strings.Contains(err.Error(), "read no record") {
		t.Errorf("err = %v, want checks.ErrColumn saying the sink read no record", err)
	}
}

// The evidence fingerprints the spec that ran: its bytes as read, not the
// file as it is at the end (found by a reviewer: a spec rewritten during the
// run gave the new file's SHA-256 beside the old spec's parameters).
func TestSpecHashAsRead(t *testing.T) {
	dir := t.TempDir()
	body := "name: h\nsource: source.csv\nsink: sink.csv\nid: [id]\n"
	writeFiles(t, dir, [][2]string{{"source.csv", "id\n1\n"}, {"sink.csv", "id\n1\n"}, {"spec.yaml", body}})
	path := filepath.Join(dir, "spec.yaml")
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Out = filepath.Join(dir, "ev")
	log := writerFunc(func(p []byte) {
		if strings.Contains(string(p), "wrote the exceptions files") {
			if err := os.WriteFile(path, []byte(body+"measures: [id]\n"), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	if want := hex.EncodeToString(sum[:]); res.Run.SpecSHA256 != want {
		t.Errorf("spec_sha256 %s, want %s (the spec as read)", res.Run.SpecSHA256, want)
	}
}

// exceptionsOf is the exception count of check id in res, -1 when res has
// no such check.
func exceptionsOf(res *evidence.Summary, id string) int64 {
	for _, c := range res.Checks {
		if c.ID == id {
			return c.Exceptions
		}
	}
	return -1
}
