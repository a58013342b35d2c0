package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// BadRecordsTable is the table BadRecords creates.
const BadRecordsTable = "bad_records"

// maxBadRecords bounds the records one input lists as bad (bad_records:
// report), as for a Kafka input: past it the run stops — an option (a
// declared type, a format, the kind) is then more likely wrong than the
// records.
const maxBadRecords = 100_000

// BadRecords creates table bad_records (side VARCHAR, location VARCHAR,
// column VARCHAR, value VARCHAR, reason VARCHAR): one row per record an
// input could not read and listed instead of stopping (bad_records: report;
// sources.Input.BadRecords), side being the input's role, column and value
// those that could not be read (NULL for a record that does not decode as a
// whole). It is created, possibly empty, when any input reports bad
// records, and ok says whether it was; the checks' preparation adds the
// records it finds (Refuse).
func BadRecords(ctx context.Context, db *duck.DB, inputs []*sources.Input) (ok bool, err error) {
	for _, in := range inputs {
		ok = ok || in.ReportsBadRecords
	}
	if !ok {
		return false, nil
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "side", Type: arrow.BinaryTypes.String},
		{Name: "location", Type: arrow.BinaryTypes.String},
		{Name: "column", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "value", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "reason", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, in := range inputs {
		for _, r := range in.BadRecords {
			b.Field(0).(*array.StringBuilder).Append(in.Role)
			b.Field(1).(*array.StringBuilder).Append(r.Location)
			appendOrNull(b.Field(2).(*array.StringBuilder), r.Column, r.Column != "")
			appendOrNull(b.Field(3).(*array.StringBuilder), deref(r.Value), r.Value != nil)
			b.Field(4).(*array.StringBuilder).Append(r.Reason)
		}
	}
	if err := loadBuilt(ctx, db, BadRecordsTable, b); err != nil {
		return false, err
	}
	return true, nil
}

// loadBuilt loads the rows of b as table (created, possibly empty) through
// DuckDB's Arrow interface.
func loadBuilt(ctx context.Context, db *duck.DB, table string, b *array.RecordBuilder) error {
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return err
	}
	defer rr.Release()
	_, err = db.LoadArrow(ctx, table, rr)
	return err
}

// appendOrNull appends v to b when ok, else NULL.
func appendOrNull(b *array.StringBuilder, v string, ok bool) {
	if ok {
		b.Append(v)
	} else {
		b.AppendNull()
	}
}

// badRow is one row a check of a value selected: its location as firstBad
// formats it in messages (`file:line: column C: value "v"`), its parts and
// its __row.
type badRow struct {
	msg, location, column string
	value                 *string
	row                   int64
}

// badRows runs q, which selects __file, __line, the value of column and
// __row of rows of table in read order, and returns them as badRow.
func badRows(ctx context.Context, db *duck.DB, table, q, column string) ([]badRow, error) {
	_, rows, err := db.Strings(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]badRow, len(rows))
	for i, r := range rows {
		val := "NULL"
		if r[2] != nil {
			val = strconv.Quote(*r[2])
		}
		loc := deref(r[0]) + db.LocationSeparator(table) + deref(r[1])
		out[i] = badRow{msg: fmt.Sprintf("%s: column %s: value %s", loc, column, val), location: loc, column: column, value: r[2]}
		if len(r) > 3 && r[3] != nil {
			out[i].row, _ = strconv.ParseInt(*r[3], 10, 64)
		}
	}
	return out, nil
}

// refusal is what a load step does with the values it cannot read: with
// report false (bad_records: fail, the default) the first one's error
// stops the run; with report (bad_records: report) every such row is
// removed from the table and listed in *bad — it counts as not read — and
// the run goes on.
type refusal struct {
	report bool
	bad    *[]sources.BadRecord
}

// refusalOf is the refusal of input in.
func refusalOf(in *sources.Input) refusal {
	return refusal{report: in.ReportsBadRecords, bad: &in.BadRecords}
}

// limit is how many rows a query for r's refuse returns: the first
// without report, else one more than an input may list.
func (r refusal) limit() int {
	if r.report {
		return maxBadRecords + 1
	}
	return 1
}

// refuse applies r to the rows query selects, rendered for a LIMIT
// (r.limit; what names the query in its errors): without report, fail(the
// first row) is the error, if any row is selected; with report, each
// selected row is removed from table and listed with the reason fail gives
// it, its message less the row's location, column and value (`file:line:
// column C: value "v" does not convert …` lists `does not convert …`). An
// error of fail that does not start with the row's message (a query that
// failed) stops the run; so do more than maxBadRecords rows.
func (r refusal) refuse(ctx context.Context, db *duck.DB, table, column, what string, query func(limit int) (string, error), fail func(badRow) error) error {
	q, err := query(r.limit())
	if err != nil {
		return err
	}
	rows, err := badRows(ctx, db, table, q, column)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(rows) == 0 {
		return nil
	}
	if !r.report {
		return fail(rows[0])
	}
	if len(*r.bad)+len(rows) > maxBadRecords {
		return fmt.Errorf("%w (bad_records: report lists at most %d records: is an option of the input wrong?)", fail(rows[0]), maxBadRecords)
	}
	ids := make([]int64, 0, len(rows))
	for _, row := range rows {
		why := fail(row)
		if why == nil {
			continue
		}
		if !strings.HasPrefix(why.Error(), row.msg) {
			return why
		}
		reason := strings.TrimSpace(strings.TrimPrefix(why.Error(), row.msg))
		*r.bad = append(*r.bad, sources.BadRecord{Location: row.location, Column: row.column, Value: row.value, Reason: reason})
		ids = append(ids, row.row)
	}
	return deleteRows(ctx, db, table, ids)
}

// deleteRows removes the rows of table whose __row is in rows, making the
// table again without them (delete_rows.sql; a view — an input read in
// place, or over its raw rows — becomes a table first).
func deleteRows(ctx context.Context, db *duck.DB, table string, rows []int64) error {
	if len(rows) == 0 {
		return nil
	}
	if err := db.Materialize(ctx, table); err != nil {
		return err
	}
	if err := db.ExecFile(ctx, statements(), queries.LoadDeleteRows, struct {
		Table string
		Rows  []int64
	}{table, rows}); err != nil {
		return fmt.Errorf("remove the bad records of %s: %w", table, err)
	}
	return nil
}

// dropReadBadRecords removes from table the records in.BadRecords lists
// with a File: records the engine read all the same (it reads whole files),
// such as a Parquet value DuckDB would read changed, found in the file
// itself before it was read.
func dropReadBadRecords(ctx context.Context, db *duck.DB, table string, in *sources.Input) error {
	type line struct {
		File string
		Line int64
	}
	var lines []line
	for _, b := range in.BadRecords {
		if b.File != "" {
			lines = append(lines, line{b.File, b.Line})
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if err := db.Materialize(ctx, table); err != nil {
		return err
	}
	if err := db.ExecFile(ctx, statements(), queries.LoadDeleteLines, struct {
		Table string
		Lines []line
	}{table, lines}); err != nil {
		return fmt.Errorf("remove the bad records of %s: %w", table, err)
	}
	return nil
}

// Refuse is how the checks' preparation refuses values it cannot read (a
// measure that is not a decimal number, a text compared with a typed column
// that does not read as its type), by the rule of the loaders: the rows of
// table (input side, "source" or "sink") where cond holds — a boolean
// expression over its columns — are, unless the input reports bad records
// (duck.DB.ReportsBadRecords: bad_records: report), the error fail(msg,
// value) of the first one (msg as BadValue formats it, value the value
// itself, nil for NULL); when it does, each is removed
// from table and added to table bad_records (which BadRecords made) with
// column, value and reason (what is wrong with the value: "is not a decimal
// number …"). n is how many rows were removed; nothing is done, and nil
// returned, when no row matches.
func Refuse(ctx context.Context, db *duck.DB, table, side, column, cond, reason string, fail func(msg string, value *string) error) (n int, err error) {
	var bad []sources.BadRecord
	r := refusal{report: db.ReportsBadRecords(table), bad: &bad}
	err = r.refuse(ctx, db, table, column, "find the bad values of "+column, func(limit int) (string, error) {
		return statements().SQL(queries.LoadBadValue, struct {
			Table, Column, Cond string
			Limit               int
		}{table, column, cond, limit})
	}, func(row badRow) error {
		if r.report {
			return fmt.Errorf("%s %s", row.msg, reason)
		}
		return fail(row.msg, row.value)
	})
	if err != nil || len(bad) == 0 {
		return 0, err
	}
	type record struct {
		Side, Location, Column string
		Value                  *string
		Reason                 string
	}
	recs := make([]record, len(bad))
	for i, b := range bad {
		recs[i] = record{side, b.Location, b.Column, b.Value, b.Reason}
	}
	const chunk = 1_000
	for start := 0; start < len(recs); start += chunk {
		if err := db.ExecFile(ctx, statements(), queries.LoadInsertBadRecords, struct {
			Table   string
			Records []record
		}{BadRecordsTable, recs[start:min(start+chunk, len(recs))]}); err != nil {
			return 0, err
		}
	}
	return len(bad), nil
}

// CountRows is the number of rows of a loaded table (count_rows.sql), for
// an input's Rows once rows were removed from it (Refuse).
func CountRows(ctx context.Context, db *duck.DB, table string) (int64, error) {
	return db.CountFile(ctx, statements(), queries.LoadCountRows, tableData{table})
}
