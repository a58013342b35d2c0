package control_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// reads counts the Read calls of the "tellcolumns" kind.
var reads atomic.Int64

// tellColumns is an input kind that tells its columns (id, amt) and fails
// the test's run if it is ever read: a spec refused from its columns must
// be refused before any input is read.
type tellColumns struct{}

func (tellColumns) Schema(context.Context) ([]sources.Column, error) {
	return []sources.Column{{Name: "id", Type: "VARCHAR"}, {Name: "amt", Type: "VARCHAR"}}, nil
}

func (tellColumns) Read(context.Context) (*sources.Input, array.RecordReader, error) {
	reads.Add(1)
	return nil, nil, errors.New("tellcolumns: read")
}

func (tellColumns) Close() error { return nil }

func init() {
	sources.Register("tellcolumns", func(sources.Location) (sources.Source, error) { return tellColumns{}, nil })
}

// A misspelled rename:, a rename onto a column the input has, and a spec
// column the input lacks once renamed are spec errors (exit 2) found from
// the inputs' columns before either input is read: the sink (a CSV whose
// header is read) is never loaded, the source's Read never called.
func TestRenameRefusedBeforeAnyRead(t *testing.T) {
	for _, tt := range []struct {
		name     string
		rename   map[string]string
		sentinel error
		msg      string
	}{
		{"misspelled", map[string]string{"amtt": "amount"}, spec.ErrInvalid, `source.rename: column "amtt" is not in the source, whose columns are: id, amt`},
		{"onto an existing column", map[string]string{"amt": "id"}, spec.ErrInvalid, "source.rename: amt to id: the source already has a column id"},
		{"spec column missing", map[string]string{"amt": "total"}, nil, `column "amount" (from measures) not found in the source; its columns are: id, total`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reads.Store(0)
			out := filepath.Join(t.TempDir(), "ev")
			s := newSpec(t, "sink.csv", out)
			s.Source = spec.Input{URI: "tellcolumns:x", Rename: tt.rename}
			var log strings.Builder
			_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}, Log: &log})
			if err == nil || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), tt.msg) || (tt.sentinel != nil && !errors.Is(err, tt.sentinel)) {
				t.Fatalf("err = %v (class %v), want a usage error with %q", err, fault.Of(err), tt.msg)
			}
			if !strings.Contains(err.Error(), "before any row was read") {
				t.Errorf("err = %v: does not say it was found before any row was read", err)
			}
			if n := reads.Load(); n != 0 || strings.Contains(log.String(), "loaded") {
				t.Errorf("an input was read (%d reads; log %q)", n, log.String())
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("evidence folder: %v, want none", err)
			}
		})
	}
}

// The rename: of a source that tells its columns, and the report: both
// names of a renamed column are in report.md.
func TestRenameInReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("source.csv", "txn_id,amt\nT1,1.10\nT2,2.20\n")
	write("sink.csv", "entry_id,amount\nT2,2.20\nT1,1.10\n")
	s := &spec.Spec{Source: spec.Input{URI: "source.csv", Rename: map[string]string{"txn_id": "entry_id", "amt": "amount"}},
		Sink: spec.Input{URI: "sink.csv"}, ID: []string{"entry_id"}, Measures: []string{"amount"}, Out: filepath.Join(dir, "ev"), Dir: dir}
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"md"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "pass" || res.Totals.Measures[0].SourceSum != "3.30" {
		t.Fatalf("status %s, totals %+v; want a pass with source sum 3.30", res.Status, res.Totals.Measures)
	}
	md, err := os.ReadFile(filepath.Join(dir, "ev", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "columns renamed (rename:): `txn_id` as `entry_id`, `amt` as `amount`") {
		t.Errorf("report.md lacks the renamed columns:\n%s", md)
	}
}

// The same before-any-read refusal with a PostgreSQL sink, whose columns
// come from the catalog (the statement described, not run): the counting
// source is never read. With the spec right, the source is read (and fails,
// as the tellcolumns kind does).
func TestRenameRefusedBeforeAnyReadPostgres(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.pgschema_sink (entry_id text, amt numeric(18,2));
CREATE TABLE %[1]s.pgschema_blobid (entry_id bytea, amt numeric(18,2))`, schema))
	for _, tt := range []struct {
		name   string
		table  string
		rename map[string]string
		id     string
		msg    string
	}{
		{"right", "pgschema_sink", map[string]string{"entry_id": "id", "amt": "amount"}, "id", "tellcolumns: read"},
		{"misspelled rename", "pgschema_sink", map[string]string{"entry_idd": "id", "amt": "amount"}, "id", `sink.rename: column "entry_idd" is not in the sink, whose columns are: entry_id, amt`},
		{"misspelled id", "pgschema_sink", map[string]string{"entry_id": "id", "amt": "amount"}, "idd", `column "idd" (from id) not found in the sink; its columns are: id, amount`},
		// The catalog's types plan the comparison before the load too: a
		// text id against a bytea (BLOB) id is refused.
		{"incomparable id types", "pgschema_blobid", map[string]string{"entry_id": "id", "amt": "amount"}, "id", "column id (matched: an id or group column): VARCHAR (a text) cannot be compared with BLOB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reads.Store(0)
			out := filepath.Join(t.TempDir(), "ev")
			s := newSpec(t, pgtest.TableURL(schema, tt.table), out)
			s.Source = spec.Input{URI: "tellcolumns:x", Rename: map[string]string{"amt": "amount"}}
			s.Sink.Rename = tt.rename
			s.ID = []string{tt.id}
			var log strings.Builder
			_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}, Log: &log})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
			if tt.name == "right" {
				if reads.Load() != 1 {
					t.Errorf("%d reads of the source, want 1", reads.Load())
				}
				return
			}
			if fault.Of(err) != fault.Usage || tt.name != "incomparable id types" && !strings.Contains(err.Error(), "found before any row was read") {
				t.Errorf("err = %v (class %v), want a usage error found before any row was read", err, fault.Of(err))
			}
			if n := reads.Load(); n != 0 || strings.Contains(log.String(), "loaded") {
				t.Errorf("an input was read (%d reads; log %q)", n, log.String())
			}
		})
	}
}

// An input column with the name of a check's own output column (an id
// named "column", "difference" or "source_location"; a group named
// "difference") is refused as a usage error naming the check and both
// names, and nothing is written: DuckDB would rename one of the two
// ("column_1"), and the evidence would give the id column the check
// column's role. Renamed in the spec, the same inputs reconcile, the
// mismatch found under its id.
func TestInputColumnNamedLikeCheckColumn(t *testing.T) {
	for _, tt := range []struct {
		name, id, group, check, col string
	}{
		{"id column", "column", "", "value_mismatches", "column"},
		{"id difference", "difference", "", "value_mismatches", "difference"},
		{"id source_location", "source_location", "", "missing_ids", "source_location"},
		{"group difference", "entry_id", "difference", "row_count_balance", "difference"},
		// columns a check writes without a role (-- writes:)
		{"id source_value", "source_value", "", "value_mismatches", "source_value"},
		{"id side", "side", "", "null_ids", "side"},
		{"id row_count", "row_count", "", "duplicate_ids", "row_count"},
		{"id Source_Value", "Source_Value", "", "value_mismatches", "source_value"},
		{"id SIDE", "SIDE", "", "null_ids", "side"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			head := tt.id + ",amount"
			if tt.group != "" {
				head = tt.id + "," + tt.group + ",amount"
			}
			row := func(id, amount string) string {
				if tt.group != "" {
					return id + ",G," + amount
				}
				return id + "," + amount
			}
			writeFiles(t, dir, [][2]string{
				{"source.csv", head + "\n" + row("A1", "1.00") + "\n" + row("A2", "2.00") + "\n" + row("A3", "3.00") + "\n"},
				{"sink.csv", head + "\n" + row("A1", "1.00") + "\n" + row("A2", "2.50") + "\n"},
			})
			s := &spec.Spec{Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"},
				ID: []string{tt.id}, Measures: []string{"amount"}, Out: filepath.Join(dir, "ev"), Dir: dir}
			if tt.group != "" {
				s.GroupBy = []string{tt.group}
			}
			_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
			if !errors.Is(err, checks.ErrNameClash) || fault.Of(err) != fault.Usage ||
				!strings.Contains(err.Error(), "check "+tt.check) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.col)) || !strings.Contains(err.Error(), "rename:") {
				t.Fatalf("err = %v, want checks.ErrNameClash (usage) naming check %s and column %q", err, tt.check, tt.col)
			}
			if _, err := os.Stat(filepath.Join(dir, "ev")); !os.IsNotExist(err) {
				t.Errorf("an evidence folder was left: %v", err)
			}

			// renamed, the same inputs reconcile
			rn := map[string]string{tt.id: "entry_id"}
			if tt.group != "" {
				rn = map[string]string{tt.group: "region"}
				s.GroupBy = []string{"region"}
			} else {
				s.ID = []string{"entry_id"}
			}
			s.Source.Rename, s.Sink.Rename = rn, rn
			s.Out = filepath.Join(dir, "ev2")
			res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
			if err != nil || res.Status != "fail" {
				t.Fatalf("renamed: err = %v, want a run that finds the exceptions", err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "ev2", "exceptions", "value_mismatches.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "entry_id,column,") || !strings.Contains(string(b), "\nA2,amount,2.00,2.50,0.50,") {
				t.Errorf("value_mismatches.csv:\n%s", b)
			}
		})
	}
}
