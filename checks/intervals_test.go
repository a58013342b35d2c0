package checks_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
)

// Intervals are compared field by field — months, days, microseconds —
// never by DuckDB's equality, which takes a month for 30 days and a day for
// 24 hours (issue 30, item 2: INTERVAL '1 month' equalled '30 days', and a
// MariaDB TIME 720:00:00, loaded as an INTERVAL, equalled the CSV text
// "1 month"). A year is 12 months and a week 7 days by definition, so
// '1 year 2 months' is '14 months' and '2 weeks' is '14 days'.
func TestIntervalsFieldByField(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, d INTERVAL",
		[]any{"1", "1 month"}, []any{"2", "1 day"}, []any{"3", "1 year 2 months"}, []any{"4", "1 day 02:00:00"}, []any{"5", nil}, []any{"6", "-1 month 30 days"})
	load(t, db, "sink", "id VARCHAR, d INTERVAL",
		[]any{"1", "30 days"}, []any{"2", "24 hours"}, []any{"3", "14 months"}, []any{"4", "1 day 2 hours"}, []any{"5", nil}, []any{"6", "00:00:00"})
	got, notes := valueMismatches(t, db, checks.Columns{ID: []string{"id"}})
	want := []string{"1|d|1 month|30 days|NULL", "2|d|1 day|24:00:00|NULL", "6|d|-1 month 30 days|00:00:00|NULL"}
	if !slices.Equal(got, want) {
		t.Errorf("INTERVAL against INTERVAL: mismatches %q, want %q", got, want)
	}
	if !strings.Contains(notes, "d (interval)") {
		t.Errorf("notes do not say d is compared as an interval:\n%s", notes)
	}

	// The MariaDB case: the sink's TIME 720:00:00 is an INTERVAL of 720
	// hours; the source's CSV text is read as an INTERVAL, then compared
	// field by field.
	db = newDB(t)
	load(t, db, "source", "id VARCHAR, d VARCHAR",
		[]any{"1", "1 month"}, []any{"2", "720:00:00"}, []any{"3", "2 weeks"}, []any{"4", " 1 year 2 mons 3 days 04:05:06.5 "}, []any{"5", "-1 day -00:00:01"})
	load(t, db, "sink", "id VARCHAR, d INTERVAL",
		[]any{"1", "720:00:00"}, []any{"2", "720 hours"}, []any{"3", "14 days"}, []any{"4", "14 months 3 days 4 hours 5 minutes 6.5 seconds"}, []any{"5", "-1 day -1 second"})
	got, notes = valueMismatches(t, db, checks.Columns{ID: []string{"id"}})
	if want := []string{"1|d|1 month|720:00:00|NULL"}; !slices.Equal(got, want) {
		t.Errorf("text against INTERVAL: mismatches %q, want %q", got, want)
	}
	if !strings.Contains(notes, "column d is VARCHAR in the source and INTERVAL in the sink: the source's text read as INTERVAL (a plain duration), compared field by field (months, days, microseconds") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A text compared with an INTERVAL must be a plain duration: DuckDB's cast
// would read each of these as some interval without a word — a fraction of
// a month as 30-day months, a fraction of a day as 24-hour days, a time of
// day before the units drops the units, digits beyond microseconds are
// dropped, "1M" is a minute. Each is an error naming file, line, column and
// value.
func TestIntervalTextMustBePlain(t *testing.T) {
	for _, bad := range []string{"0.5 months", "1.5 days", "04:05:06 1 day", "00:00:00.0000005", "1M", "1 day ago", "90", "P1D", "banana"} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, d VARCHAR", []any{"1", bad})
		load(t, db, "sink", "id VARCHAR, d INTERVAL", []any{"1", "1 day"})
		_, _, err := checks.Prepare(context.Background(), db, checks.Columns{ID: []string{"id"}})
		want := `source.csv:2: column d: value "` + bad + `" in the source is not an INTERVAL (a plain duration`
		if !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want ErrValue containing %q", bad, err, want)
		}
	}
}

// Interval ids match field by field too: the source's '1 month' is not the
// sink's '30 days', and a text id is read as an interval first.
func TestIntervalIDsMatchFieldByField(t *testing.T) {
	for _, srcType := range []string{"INTERVAL", "VARCHAR"} {
		db := newDB(t)
		load(t, db, "source", "d "+srcType+", amount VARCHAR", []any{"1 month", "1"}, []any{"2 weeks", "2"})
		load(t, db, "sink", "d INTERVAL, amount VARCHAR", []any{"30 days", "1"}, []any{"14 days", "2"})
		ctx := context.Background()
		p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"d"}})
		if err != nil {
			t.Fatal(err)
		}
		all := builtin(t)
		outs, err := checks.Run(ctx, db, []*checks.Check{find(t, all, "missing_ids"), find(t, all, "unexpected_ids"), find(t, all, "duplicate_ids")}, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := query(t, db, "SELECT CAST(d AS VARCHAR) FROM "+duck.Ident(outs[0].Table)); !slices.Equal(got, []string{"1 month"}) {
			t.Errorf("%s id: missing %q, want the 1-month id", srcType, got)
		}
		if got := query(t, db, "SELECT CAST(d AS VARCHAR) FROM "+duck.Ident(outs[1].Table)); !slices.Equal(got, []string{"30 days"}) {
			t.Errorf("%s id: unexpected %q, want the 30-day id", srcType, got)
		}
		if outs[2].Exceptions != 0 {
			t.Errorf("%s id: %d duplicate ids, want none", srcType, outs[2].Exceptions)
		}
	}
}
