package load_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
)

// badRecordsText lists bad records one a line: location, column, value
// (NULL for none) and reason.
func badRecordsText(bad []sources.BadRecord) string {
	var out []string
	for _, b := range bad {
		v := "NULL"
		if b.Value != nil {
			v = fmt.Sprintf("%q", *b.Value)
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", b.Location, b.Column, v, b.Reason))
	}
	return strings.Join(out, "\n")
}

// With bad_records: report, a file input's records that cannot be read —
// a CSV line of another number of fields, a value that is not UTF-8, a
// line that is not a JSON object, a value that is not its declared type —
// are left out of the table and listed (location, column, value, reason)
// instead of stopping the load; the other records load as they would. The
// default (fail) still stops on the first. Before bad_records was a file
// option, the CSV and NDJSON kinds refused it as an unknown option.
func TestFileBadRecordsReported(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		opts             map[string]any
		rows, bad, fail  string
	}{
		{
			name: "csv", file: "in.csv",
			text: "id,qty\n1,5\n2,1.5\n3\n4,\xff\n5,7\n",
			opts: map[string]any{"types": map[string]any{"qty": "INTEGER"}},
			rows: "[1 5 2] [5 7 6]",
			bad: `in.csv:4||NULL|1 fields, the header has 2
in.csv:5|qty|"\xff"|holds bytes that are not UTF-8; declare encoding: latin-1 (or windows-1252) if the file is not UTF-8
in.csv:3|qty|"1.5"|does not convert exactly to the declared type INTEGER: an integer type holds a plain integer (an optional sign and digits: no fraction digits, exponent, hex or _), and DuckDB's cast would round a fraction (1.5 becoming 2)`,
			fail: "in.csv:4: 1 fields, the header has 2",
		},
		{
			// One column: an empty line is a NULL record, and the lines
			// after a skipped record keep their numbers.
			name: "csv-one-column", file: "one.csv",
			text: "a\n\nb,c\nd\n",
			opts: map[string]any{"columns": []any{"id"}},
			rows: "[a 1] [NULL 2] [d 4]",
			bad:  "one.csv:3||NULL|2 fields, columns: names 1",
			fail: "one.csv:3: 2 fields, columns: names 1",
		},
		{
			name: "ndjson", file: "in.ndjson",
			text: "{\"id\":\"1\",\"qty\":\"5\"}\n{\"id\":\"2\",\n{\"id\":\"3\",\"id\":\"3\"}\n{\"id\":\"4\",\"qty\":\"\xff\"}\n{\"id\":\"5\",\"qty\":\"x\"}\n{\"id\":\"6\",\"qty\":\"7\"}\n{\"id\":\"7\",\"qty\":{\"a\":1,\"a\":2}}\n",
			opts: map[string]any{"types": map[string]any{"qty": "INTEGER"}},
			rows: "[1 5 1] [6 7 6]",
			bad: `in.ndjson:2||NULL|not valid JSON: EOF
in.ndjson:3||NULL|key "id" appears twice in one object; which value holds is not defined
in.ndjson:4||NULL|at byte 18 of the line: byte 0xFF is not UTF-8; NDJSON is UTF-8 text (RFC 8259 section 8.1): convert the file to UTF-8
in.ndjson:7||NULL|key "qty": key "a" appears twice in one object; which value holds is not defined
in.ndjson:5|qty|"x"|does not convert to the declared type INTEGER`,
			fail: "in.ndjson:2: not valid JSON",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := map[string]any{"bad_records": "report"}
			for k, v := range c.opts {
				opts[k] = v
			}
			db, in, err := loadInto(t, sources.Location{Role: "source", URI: c.file, BaseDir: dir, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			cols := "id, __line"
			if c.opts["types"] != nil {
				cols = "id, qty, __line"
			}
			if got := rowsOf(t, db, "SELECT "+cols+" FROM t ORDER BY __row"); got != c.rows {
				t.Errorf("rows %s, want %s", got, c.rows)
			}
			if got := badRecordsText(in.BadRecords); got != c.bad {
				t.Errorf("bad records:\n%s\nwant\n%s", got, c.bad)
			}
			if !in.ReportsBadRecords || in.Rows != int64(strings.Count(c.rows, "[")) {
				t.Errorf("ReportsBadRecords %v, Rows %d", in.ReportsBadRecords, in.Rows)
			}
			delete(opts, "bad_records")
			_, _, err = loadInto(t, sources.Location{Role: "source", URI: c.file, BaseDir: dir, Options: opts})
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("without bad_records: report: %v, want %q", err, c.fail)
			}
		})
	}
}

// The records the checks' preparation refuses (Refuse) are removed and
// added to table bad_records when the table reports bad records, and are
// the error of the first one otherwise.
func TestRefuse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte("id,amount\n1,10\n2,yo\n3,30\n4,no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, report := range []bool{false, true} {
		opts := map[string]any{}
		if report {
			opts["bad_records"] = "report"
		}
		db, in, err := loadInto(t, sources.Location{Role: "source", URI: "in.csv", BaseDir: dir, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load.BadRecords(ctx, db, []*sources.Input{in}); err != nil {
			t.Fatal(err)
		}
		n, err := load.Refuse(ctx, db, "t", "source", "amount", "NOT regexp_full_match(amount, '[0-9]+')", "is not a number", func(msg string, _ *string) error {
			return fmt.Errorf("%s is wrong", msg)
		})
		if !report {
			if want := `in.csv:3: column amount: value "yo" is wrong`; err == nil || err.Error() != want || n != 0 {
				t.Errorf("Refuse without report: %d, %v, want %s", n, err, want)
			}
			continue
		}
		if err != nil || n != 2 {
			t.Fatalf("Refuse: %d, %v", n, err)
		}
		if got, want := rowsOf(t, db, "SELECT id FROM t ORDER BY __row"), "[1] [3]"; got != want {
			t.Errorf("rows %s, want %s", got, want)
		}
		if got, want := rowsOf(t, db, `SELECT side, location, "column", value, reason FROM bad_records`), "[source in.csv:3 amount yo is not a number] [source in.csv:5 amount no is not a number]"; got != want {
			t.Errorf("bad_records %s, want %s", got, want)
		}
		// The values removed are not cast by a later change of the
		// column's type (DuckDB 1.5 casts deleted rows' values too).
		if err := db.Exec(ctx, `ALTER TABLE t ALTER COLUMN amount SET DATA TYPE INTEGER USING CAST(amount AS INTEGER)`); err != nil {
			t.Errorf("convert after Refuse: %v", err)
		}
	}
}
