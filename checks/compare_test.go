package checks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// The comparability rule, type family by type family, both ways round.
func TestComparison(t *testing.T) {
	tests := []struct {
		source, sink string
		want         checks.Method // "" for incomparable
	}{
		{"VARCHAR", "VARCHAR", checks.MethodText},
		{"VARCHAR", "JSON", checks.MethodText},
		{"BIGINT", "DECIMAL(18,2)", checks.MethodNumber},
		{"VARCHAR", "DECIMAL(38,10)", checks.MethodNumber},
		{"HUGEINT", "VARCHAR", checks.MethodNumber},
		{"DOUBLE", "FLOAT", checks.MethodFloat},
		{"DOUBLE", "DECIMAL(18,2)", checks.MethodFloat},
		{"VARCHAR", "DOUBLE", checks.MethodFloat},
		{"DOUBLE", "BOOLEAN", ""},
		{"BOOLEAN", "BOOLEAN", checks.MethodBoolean},
		{"VARCHAR", "BOOLEAN", checks.MethodBoolean},
		{"BOOLEAN", "INTEGER", ""},
		{"DATE", "VARCHAR", checks.MethodDate},
		{"DATE", "TIMESTAMP", ""},
		{"TIMESTAMP WITH TIME ZONE", "TIMESTAMP", checks.MethodTimestamp},
		{"TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE", checks.MethodTimestamp},
		{"VARCHAR", "TIMESTAMP WITH TIME ZONE", checks.MethodTimestamp},
		{"TIMESTAMP WITH TIME ZONE", "BIGINT", ""},
		{"UUID", "VARCHAR", checks.MethodValue},
		{"UUID", "UUID", checks.MethodValue},
		{"BLOB", "BLOB", checks.MethodValue},
		{"BLOB", "VARCHAR", ""},
		{"INTEGER[]", "INTEGER[]", checks.MethodValue},
		{"INTEGER[]", "VARCHAR", ""},
	}
	for _, tt := range tests {
		for _, pair := range [][2]string{{tt.source, tt.sink}, {tt.sink, tt.source}} {
			got, err := checks.Comparison(pair[0], pair[1])
			switch {
			case tt.want == "" && (err == nil || !errors.Is(err, checks.ErrIncomparable)):
				t.Errorf("Comparison(%s, %s) = %s, %v; want ErrIncomparable", pair[0], pair[1], got, err)
			case tt.want != "" && (err != nil || got != tt.want):
				t.Errorf("Comparison(%s, %s) = %s, %v; want %s", pair[0], pair[1], got, err, tt.want)
			}
		}
	}
	_, err := checks.Comparison("TIMESTAMP WITH TIME ZONE", "BIGINT")
	if want := "TIMESTAMP WITH TIME ZONE (a timestamp with time zone) cannot be compared with BIGINT (an integer)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %q", err, want)
	}
}

func cols(kv ...string) []sources.Column {
	var out []sources.Column
	for i := 0; i < len(kv); i += 2 {
		out = append(out, sources.Column{Name: kv[i], Type: kv[i+1]})
	}
	return out
}

func tolerance(t *testing.T, s string) checks.Tolerance {
	t.Helper()
	v, err := spec.ParseTolerance(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The default: every column in both inputs but the id, checkpoint and
// logical key, in the source's order; ignore removes from it, compare
// narrows it, and every column of either input not compared is listed
// with its reason.
func TestPlanComparison(t *testing.T) {
	src := cols("id", "VARCHAR", "status", "VARCHAR", "amount", "VARCHAR", "event_time", "VARCHAR", "colour", "VARCHAR")
	sink := cols("id", "VARCHAR", "colour", "VARCHAR", "amount", "DECIMAL(18,2)", "status", "VARCHAR", "checkpoint_id", "BIGINT", "posted_at", "TIMESTAMP")
	plan := func(c checks.Columns) string {
		t.Helper()
		p, err := checks.PlanComparison(c, src, sink)
		if err != nil {
			t.Fatal(err)
		}
		var cmp, un []string
		for _, c := range p.Compared {
			cmp = append(cmp, c.Name+":"+string(c.Method))
		}
		for _, u := range p.Uncompared {
			un = append(un, u.Name+"/"+u.Input+"/"+u.Reason)
		}
		return strings.Join(cmp, ",") + " | " + strings.Join(un, ",")
	}
	base := checks.Columns{ID: []string{"id"}, Checkpoint: "checkpoint_id"}
	if got, want := plan(base), "status:text,amount:number,colour:text | id/both/id: matched, not compared,event_time/source/only in the source,checkpoint_id/sink/checkpoint id,posted_at/sink/only in the sink"; got != want {
		t.Errorf("default:\n got %s\nwant %s", got, want)
	}
	ig := base
	ig.Ignore = []string{"colour", "posted_at"}
	if got, want := plan(ig), "status:text,amount:number | id/both/id: matched, not compared,event_time/source/only in the source,colour/both/ignore:,checkpoint_id/sink/checkpoint id,posted_at/sink/ignore:"; got != want {
		t.Errorf("ignore:\n got %s\nwant %s", got, want)
	}
	cm := base
	cm.Compare = []string{"colour", "status"}
	if got, want := plan(cm), "colour:text,status:text | id/both/id: matched, not compared,amount/both/not in compare:,event_time/source/only in the source,checkpoint_id/sink/checkpoint id,posted_at/sink/only in the sink"; got != want {
		t.Errorf("compare:\n got %s\nwant %s", got, want)
	}
	// A measure is a number even as text on both sides.
	src2 := cols("id", "VARCHAR", "amount", "VARCHAR")
	p, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}, Tolerance: map[string]checks.Tolerance{"amount": tolerance(t, "0.01")}}, src2, src2)
	if err != nil || p.Compared[0].Method != checks.MethodNumber {
		t.Errorf("a text measure: %+v, %v", p, err)
	}
	// No id (a windowed sink): nothing compared.
	if p, err := checks.PlanComparison(checks.Columns{}, src, sink); err != nil || len(p.Compared)+len(p.Uncompared) != 0 {
		t.Errorf("windowed: %+v, %v", p, err)
	}
}

func TestPlanComparisonErrors(t *testing.T) {
	src := cols("id", "VARCHAR", "settled_at", "TIMESTAMP WITH TIME ZONE", "n", "BIGINT", "name", "VARCHAR", "flag", "BOOLEAN", "only_src", "VARCHAR")
	sink := cols("id", "VARCHAR", "settled_at", "BIGINT", "n", "BIGINT", "name", "VARCHAR", "flag", "BOOLEAN", "only_sink", "VARCHAR")
	tests := []struct {
		name string
		c    checks.Columns
		is   error
		want string
	}{
		{"incomparable", checks.Columns{ID: []string{"id"}}, checks.ErrIncomparable,
			"column settled_at: TIMESTAMP WITH TIME ZONE (a timestamp with time zone) cannot be compared with BIGINT (an integer)"},
		{"incomparable id", checks.Columns{ID: []string{"settled_at"}, Ignore: []string{"n"}}, checks.ErrIncomparable,
			"column settled_at (matched: an id or group column): TIMESTAMP WITH TIME ZONE"},
		{"compare only in one", checks.Columns{ID: []string{"id"}, Compare: []string{"only_src", "nope", "Name"}}, checks.ErrColumn,
			`compare: column "only_src" is only in the source; a compared column must be in both inputs; compare: column "nope" is in neither input; compare: column "Name" is in neither input (did you mean "name"?`},
		{"ignore unknown", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at", "colour"}}, checks.ErrColumn, `ignore: column "colour" is in neither input`},
		{"normalise a number", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at"}, Normalize: map[string][]string{"n": {"trim"}}}, checks.ErrColumn,
			"normalize.n: the column is compared as number"},
		{"normalise an uncompared column", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at"}, Normalize: map[string][]string{"only_sink": {"trim"}}}, checks.ErrColumn,
			"normalize.only_sink: the column is not compared (only in the sink)"},
		{"duration of a number", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at"}, Tolerance: map[string]checks.Tolerance{"n": tolerance(t, "2s")}}, checks.ErrColumn,
			"tolerance.n: 2s is a duration, but the column holds numbers"},
		{"tolerance of text", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at"}, Tolerance: map[string]checks.Tolerance{"name": tolerance(t, "1")}}, checks.ErrColumn,
			"tolerance.name: the column is text in both inputs"},
		{"tolerance of a boolean", checks.Columns{ID: []string{"id"}, Ignore: []string{"settled_at"}, Tolerance: map[string]checks.Tolerance{"flag": tolerance(t, "1")}}, checks.ErrColumn,
			"tolerance.flag: the column is compared as boolean, which has no tolerance"},
	}
	// A floating-point id or group against any other type: matched as
	// floats, distinct ids would be one (9007199254740993 and
	// 9007199254740992; "01" and "1.0").
	for _, c := range []struct{ source, sink, want string }{
		{"BIGINT", "DOUBLE", "BIGINT (an integer) cannot be matched with DOUBLE (a binary floating-point number)"},
		{"VARCHAR", "DOUBLE", "VARCHAR (a text) cannot be matched with DOUBLE"},
		{"FLOAT", "DECIMAL(18,2)", "FLOAT (a binary floating-point number) cannot be matched with DECIMAL(18,2)"},
		{"FLOAT", "DOUBLE", "FLOAT (a binary floating-point number) cannot be matched with DOUBLE"},
	} {
		fsrc, fsink := cols("id", c.source, "n", "BIGINT"), cols("id", c.sink, "n", "BIGINT")
		_, err := checks.PlanComparison(checks.Columns{ID: []string{"n"}, GroupBy: []string{"id"}}, fsrc, fsink)
		if !errors.Is(err, checks.ErrIncomparable) || !strings.Contains(err.Error(), "column id (matched: an id or group column): "+c.want) {
			t.Errorf("float group %s against %s: %v", c.source, c.sink, err)
		}
		_, err = checks.PlanComparison(checks.Columns{ID: []string{"id"}}, fsrc, fsink)
		if !errors.Is(err, checks.ErrIncomparable) || !strings.Contains(err.Error(), "column id (matched: an id or group column): "+c.want) {
			t.Errorf("float id %s against %s: %v", c.source, c.sink, err)
		}
	}
	// One floating-point type on both sides is matched as it is.
	if _, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}}, cols("id", "DOUBLE"), cols("id", "DOUBLE")); err != nil {
		t.Errorf("DOUBLE id against DOUBLE: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checks.PlanComparison(tt.c, src, sink)
			if !errors.Is(err, tt.is) || !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

// valueMismatches prepares c over the loaded tables and returns the rows of
// value_mismatches without their locations, as column|source|sink|difference
// (|tolerance|within when a tolerance is declared), and Prepare's notes.
func valueMismatches(t *testing.T, db *duck.DB, c checks.Columns) ([]string, string) {
	t.Helper()
	ctx := context.Background()
	p, notes, err := checks.Prepare(ctx, db, c)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := checks.Run(ctx, db, []*checks.Check{find(t, builtin(t), "value_mismatches")}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := outs[0]
	if o.Status == checks.Skipped {
		t.Fatalf("value_mismatches skipped: %s", o.SkipReason)
	}
	var sel []string
	for _, col := range o.Columns {
		if col.Role != checks.RoleLocation {
			sel = append(sel, "coalesce(CAST("+duck.Ident(col.Name)+" AS VARCHAR), 'NULL')")
		}
	}
	return query(t, db, "SELECT "+strings.Join(sel, " || '|' || ")+" FROM "+duck.Ident(o.Table)), strings.Join(notes, "\n")
}

// A timestamptz 10:00+00 against a zone-less sink value: 10:00 read in UTC
// and 18:00 read in Asia/Shanghai are the same instant; 18:00 read in UTC is
// 8 hours later. The verdict does not depend on the process's TZ.
func TestTimestampsAreInstants(t *testing.T) {
	for _, tz := range []string{"America/Los_Angeles", "Asia/Tokyo"} {
		t.Run(tz, func(t *testing.T) {
			t.Setenv("TZ", tz)
			for _, tc := range []struct {
				sink, zone string
				want       []string
				note       string
			}{
				{"2024-03-01 10:00:00", "UTC", nil, "a zone-less TIMESTAMP in the sink read as wall-clock time in UTC"},
				{"2024-03-01 18:00:00", "Asia/Shanghai", nil, "a zone-less TIMESTAMP in the sink read as wall-clock time in Asia/Shanghai"},
				{"2024-03-01 18:00:00", "UTC", []string{"1|settled_at|2024-03-01 10:00:00+00|2024-03-01 18:00:00|08:00:00"}, "compared as instants"},
			} {
				db := newDB(t)
				load(t, db, "source", "id VARCHAR, settled_at TIMESTAMPTZ", []any{"1", "2024-03-01 10:00:00+00"})
				load(t, db, "sink", "id VARCHAR, settled_at TIMESTAMP", []any{"1", tc.sink})
				got, notes := valueMismatches(t, db, checks.Columns{ID: []string{"id"}, SinkZone: tc.zone})
				if !slices.Equal(got, tc.want) {
					t.Errorf("sink %s in %s: %q, want %q", tc.sink, tc.zone, got, tc.want)
				}
				if !strings.Contains(notes, "column settled_at: TIMESTAMP WITH TIME ZONE in the source (instants) and "+tc.note) && !strings.Contains(notes, tc.note) {
					t.Errorf("notes do not say which zone was used:\n%s", notes)
				}
				if strings.Contains(notes, "read as UTC where they are compared") {
					t.Errorf("the old note survives:\n%s", notes)
				}
			}
		})
	}
}

// Text against a typed column is read as that type, every value checked:
// a CSV's " true" equals a BOOLEAN true and 2024-03-01 a DATE, a text with
// an offset is that instant; a value that does not read is an error naming
// file, line and value, never a NULL or a mismatch.
func TestTextReadAsItsCounterpart(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, paid VARCHAR, day VARCHAR, settled VARCHAR, amount VARCHAR",
		[]any{"1", " true", "2024-03-01", "2024-03-01T11:00:00+01:00", "100.0000"},
		[]any{"2", "f", "2024-03-02", "2024-03-01 10:00:00", "7"})
	load(t, db, "sink", "id VARCHAR, paid BOOLEAN, day DATE, settled TIMESTAMPTZ, amount DECIMAL(10,2)",
		[]any{"1", true, "2024-03-01", "2024-03-01 10:00:00+00", 100},
		[]any{"2", true, "2024-03-05", "2024-03-01 09:00:00+00", 7.01})
	got, notes := valueMismatches(t, db, checks.Columns{ID: []string{"id"}, SourceZone: "Europe/Berlin"})
	want := []string{"2|amount|7|7.01|0.0100", "2|day|2024-03-02|2024-03-05|3 days", "2|paid|f|true|NULL"}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q", got, want)
	}
	for _, w := range []string{"the source's text read as BOOLEAN", "text in the source (a value naming a zone or offset is that instant, one without wall-clock time in Europe/Berlin)",
		"compared by exact value as DECIMAL(38,4) (text read as a plain decimal number)"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}

	for _, bad := range []struct{ col, typ, value, want string }{
		{"paid", "BOOLEAN", "maybe", `source.csv:2: column paid: value "maybe" in the source is not a BOOLEAN`},
		{"day", "DATE", "01/03/2024", `source.csv:2: column day: value "01/03/2024" in the source is not a DATE`},
		{"settled", "TIMESTAMPTZ", "1709287200000", `source.csv:2: column settled: value "1709287200000" in the source is not a timestamp`},
		{"amount", "DECIMAL(10,2)", "1e3", `source.csv:2: column amount: value "1e3" in the source is not a decimal number`},
		// DuckDB's cast would drop the time of day and the seventh digit,
		// making both equal to the sink's value.
		{"day", "DATE", "2024-01-02 13:45:00", `source.csv:2: column day: value "2024-01-02 13:45:00" in the source is not a DATE (a plain date`},
		{"settled", "TIMESTAMPTZ", "2024-01-02 10:00:00.1234567Z", `source.csv:2: column settled: value "2024-01-02 10:00:00.1234567Z" in the source is not a timestamp`},
		// DuckDB's cast to TIME would drop the date, the offset and the
		// seventh digit, each making the value equal to TIME 12:00:00.
		{"clock", "TIME", "2024-01-01 12:00:00", `source.csv:2: column clock: value "2024-01-01 12:00:00" in the source is not a TIME (a plain time of day`},
		{"clock", "TIME", "12:00:00+05", `source.csv:2: column clock: value "12:00:00+05" in the source is not a TIME (a plain time of day`},
		{"clock", "TIME", "12:00:00.0000009", `source.csv:2: column clock: value "12:00:00.0000009" in the source is not a TIME (a plain time of day`},
	} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, "+bad.col+" VARCHAR", []any{"1", bad.value})
		load(t, db, "sink", "id VARCHAR, "+bad.col+" "+bad.typ, []any{"1", nil})
		_, _, err := checks.Prepare(context.Background(), db, checks.Columns{ID: []string{"id"}})
		if !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want ErrValue containing %q", bad.col, err, bad.want)
		}
	}
}

// Binary floating point is compared at the narrower side's precision: the
// text 0.1 is the DOUBLE 0.1, the DOUBLE 0.1 is the FLOAT 0.1 read as a
// FLOAT; 9007199254740993 and 9007199254740992 are one DOUBLE (the note
// says values below the precision are not told apart).
func TestFloats(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, d VARCHAR, f DOUBLE, big BIGINT", []any{"1", "0.1", 0.1, 9007199254740993}, []any{"2", "-2.5e-3", 1.5, 1})
	load(t, db, "sink", "id VARCHAR, d DOUBLE, f FLOAT, big DOUBLE", []any{"1", 0.1, 0.1, 9007199254740992}, []any{"2", -0.0025, 1.25, 1})
	got, notes := valueMismatches(t, db, checks.Columns{ID: []string{"id"}})
	if want := []string{"2|f|1.5|1.25|NULL"}; !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q", got, want)
	}
	if !strings.Contains(notes, "column f is DOUBLE in the source and FLOAT in the sink: compared as binary floating point (FLOAT: each value read as the nearest FLOAT; values that differ below its precision are not told apart)") {
		t.Errorf("notes:\n%s", notes)
	}
	db = newDB(t)
	load(t, db, "source", "id VARCHAR, d VARCHAR", []any{"1", "1,5"})
	load(t, db, "sink", "id VARCHAR, d DOUBLE", []any{"1", 1.5})
	if _, _, err := checks.Prepare(context.Background(), db, checks.Columns{ID: []string{"id"}}); !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), `value "1,5" in the source is not a number`) {
		t.Errorf("err = %v", err)
	}
}

// Numbers by value (0.0000 = 0), NULL = NULL, NULL ≠ value, text byte for
// byte ("A1 " ≠ "A1", "b" ≠ "B"), and an empty text equal to NULL, as CSV
// cannot tell them apart.
func TestTypedEquality(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, n VARCHAR, name VARCHAR, colour VARCHAR",
		[]any{"1", "0.0000", "A1", "blue"}, []any{"2", nil, "b", nil}, []any{"3", "5", "x", ""})
	load(t, db, "sink", "id VARCHAR, n BIGINT, name VARCHAR, colour VARCHAR",
		[]any{"1", 0, "A1 ", nil}, []any{"2", nil, "B", nil}, []any{"3", nil, "x", nil})
	got, notes := valueMismatches(t, db, checks.Columns{ID: []string{"id"}})
	want := []string{"1|colour|blue|NULL|NULL", "1|name|A1|A1 |NULL", "2|name|b|B|NULL", "3|n|5|NULL|NULL"}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q", got, want)
	}
	if !strings.Contains(notes, "column colour: 1 empty value(s) compared as NULL") {
		t.Errorf("notes:\n%s", notes)
	}
}

// Tolerances, exactly and inclusively: 100.004 vs 100.00 within 0.01,
// 100.02 beyond it; 0.1% of the source value (not of the sink's); a
// duration between instants.
func TestTolerances(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, amount VARCHAR, rate VARCHAR, settled TIMESTAMPTZ",
		[]any{"1", "100.004", "1000.0", "2024-03-01 10:00:00+00"},
		[]any{"2", "100.02", "1000.0", "2024-03-01 10:00:00+00"},
		[]any{"3", "100.01", "999.0", "2024-03-01 10:00:00+00"})
	load(t, db, "sink", "id VARCHAR, amount VARCHAR, rate VARCHAR, settled TIMESTAMPTZ",
		[]any{"1", "100.00", "1001.0", "2024-03-01 10:00:02+00"},
		[]any{"2", "100.00", "999.0", "2024-03-01 09:59:57.999999+00"},
		[]any{"3", "100.00", "1000.0", "2024-03-01 10:00:00+00"})
	got, _ := valueMismatches(t, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount", "rate"},
		Tolerance: map[string]checks.Tolerance{"amount": tolerance(t, "0.01"), "rate": tolerance(t, "0.1%"), "settled": tolerance(t, "2s")}})
	want := []string{
		"1|amount|100.004|100.000|-0.004|0.01|true",
		"1|rate|1000.0|1001.0|1.0|0.1%|true",
		"1|settled|2024-03-01 10:00:00+00|2024-03-01 10:00:02+00|00:00:02|2s|true",
		"2|amount|100.020|100.000|-0.020|0.01|false",
		"2|rate|1000.0|999.0|-1.0|0.1%|true",
		"2|settled|2024-03-01 10:00:00+00|2024-03-01 09:59:57.999999+00|-00:00:02.000001|2s|false",
		"3|amount|100.010|100.000|-0.010|0.01|true",
		"3|rate|999.0|1000.0|1.0|0.1%|false", // 1.0 > 0.1% of 999.0 = 0.999
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Ids typed as instants on one side and zone-less on the other match as
// instants (a zone-less id read in its input's zone), whatever TZ says.
func TestTimestampIDsMatchAsInstants(t *testing.T) {
	for _, tz := range []string{"UTC", "Pacific/Kiritimati"} {
		t.Setenv("TZ", tz)
		db := newDB(t)
		load(t, db, "source", "settled TIMESTAMPTZ, amount VARCHAR", []any{"2024-03-01 10:00:00+00", "1"}, []any{"2024-03-01 11:00:00+00", "2"})
		load(t, db, "sink", "settled TIMESTAMP, amount VARCHAR", []any{"2024-03-01 18:00:00", "1"}, []any{"2024-03-01 11:00:00", "2"})
		ctx := context.Background()
		p, notes, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"settled"}, SinkZone: "Asia/Shanghai"})
		if err != nil {
			t.Fatal(err)
		}
		all := builtin(t)
		outs, err := checks.Run(ctx, db, []*checks.Check{find(t, all, "missing_ids"), find(t, all, "unexpected_ids")}, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%s %d, %s %d", outs[0].ID, outs[0].Exceptions, outs[1].ID, outs[1].Exceptions)
		if got != "missing_ids 1, unexpected_ids 1" {
			t.Errorf("TZ=%s: %s, want the 10:00 UTC / 18:00 Shanghai id matched and the 11:00 ones not", tz, got)
		}
		if m := query(t, db, "SELECT CAST(settled AS VARCHAR) FROM "+duck.Ident(outs[0].Table)); !slices.Equal(m, []string{"2024-03-01 11:00:00+00"}) {
			t.Errorf("TZ=%s: missing %v", tz, m)
		}
		if !strings.Contains(strings.Join(notes, "\n"), "column settled (matched) is TIMESTAMP WITH TIME ZONE in the source (instants) and a zone-less TIMESTAMP in the sink read as wall-clock time in Asia/Shanghai") {
			t.Errorf("notes:\n%s", strings.Join(notes, "\n"))
		}
	}
}

// normalize: [trim] matches A1 with "A1 " — and lists the match, with a
// collision when the normalised value is written two ways within one input.
func TestNormalizedMatches(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, name VARCHAR", []any{"1", "A1"}, []any{"2", "A1 "}, []any{"3", "B"})
	load(t, db, "sink", "id VARCHAR, name VARCHAR", []any{"1", "A1 "}, []any{"2", "A1"}, []any{"3", " B"})
	ctx := context.Background()
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Normalize: map[string][]string{"name": {"trim"}}})
	if err != nil {
		t.Fatal(err)
	}
	all := builtin(t)
	outs, err := checks.Run(ctx, db, []*checks.Check{find(t, all, "value_mismatches"), find(t, all, "normalized_matches")}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Exceptions != 0 || outs[1].Status != checks.Info || outs[1].Exceptions != 3 {
		t.Fatalf("value_mismatches %d, normalized_matches %s %d", outs[0].Exceptions, outs[1].Status, outs[1].Exceptions)
	}
	got := query(t, db, `SELECT id || '|' || source_value || '|' || sink_value || '|' || normalized_value || '|' || collision FROM `+duck.Ident(outs[1].Table))
	want := []string{"1|A1|A1 |A1|true", "2|A1 |A1|A1|true", "3|B| B|B|false"}
	if !slices.Equal(got, want) {
		t.Errorf("normalized_matches %q, want %q", got, want)
	}
}

// A TIMESTAMP WITH TIME ZONE id missing from the sink is found: DuckDB
// rewrites CAST(id AS VARCHAR) = ” for such a column into a comparison
// that is NULL, which made every row neither a NULL id nor a matched one.
func TestZonedIDsAreNotLost(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "settled TIMESTAMPTZ", []any{"2024-03-01 10:00:00+00"}, []any{"2024-03-01 11:00:00+00"})
	load(t, db, "sink", "settled TIMESTAMPTZ", []any{"2024-03-01 10:00:00+00"})
	ctx := context.Background()
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"settled"}})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := checks.Run(ctx, db, []*checks.Check{find(t, builtin(t), "missing_ids")}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Exceptions != 1 {
		t.Errorf("missing_ids found %d, want the 11:00 id", outs[0].Exceptions)
	}
}
