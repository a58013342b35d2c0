package checks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/load"
)

// Table names every check reads.
const (
	SourceTable = "source"
	SinkTable   = "sink"
)

// ErrColumn is returned by Prepare when the spec names a column an input
// does not have, or a measure that cannot be an exact decimal type. It is a
// usage error (exit code 2): the spec, not the data, must change.
var ErrColumn = fault.Usage.New("checks: bad column")

// ErrValue is returned by Prepare when a measure holds a value that is not a
// decimal number. The message names file, line, column and value.
var ErrValue = fault.Runtime.New("checks: bad value")

// Columns is what the spec says about columns, before Prepare.
type Columns struct {
	ID, Measures, GroupBy []string
	Checkpoint            string
	LogicalKey            []string
	// SourceLocation and SinkLocation are the inputs' location forms
	// (Params); SourceProvenance and SinkProvenance their kinds' own
	// provenance columns (sources.Input.Provenance), never compared as
	// values; BadRecords: table bad_records exists (Params).
	SourceLocation, SinkLocation     string
	SourceProvenance, SinkProvenance []string
	BadRecords                       bool
}

// maxPrecision is DuckDB's widest DECIMAL (a 128-bit integer).
const maxPrecision = 38

// Prepare checks that every column the spec names exists, aligns the id
// types of the two inputs and converts every measure, in both tables, to
// DECIMAL(38,s) where s is the largest scale either input needs — so no
// value is rounded and sums are exact (never float64). It returns the
// Params the check templates see and notes for the report.
//
// Errors: ErrColumn (a column is missing or a measure is not numeric text or
// a number type; floating-point measures are refused), ErrValue (a measure
// value is not a decimal number; the message names file:line, column and
// value), or a DuckDB error.
func Prepare(ctx context.Context, db *duck.DB, c Columns) (*Params, []string, error) {
	tc, err := readColumns(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	for _, side := range []string{"source", "sink"} {
		tc.need(side, "id", c.ID...)
		tc.need(side, "measures", c.Measures...)
		tc.need(side, "group_by", c.GroupBy...)
	}
	tc.need("sink", "checkpoint", c.Checkpoint)
	tc.need("sink", "logical_key", c.LogicalKey...)
	if err := tc.err(); err != nil {
		return nil, nil, err
	}
	srcCols, sinkCols, src, sink := tc.source, tc.sink, tc.types["source"], tc.types["sink"]

	var notes []string
	// Every conversion of one table is one rewrite (prepare/convert.sql).
	var convert []conversion
	// Ids (and group columns, compared the same way) of different types are
	// compared as text: each value rendered as text from its own type by
	// DuckDB, never re-sniffed (a text "0123" does not equal a number 123).
	// An empty text id (or id part) is NULL on both sides: CSV cannot tell
	// an empty field from a missing one (DuckDB reads both as NULL), NDJSON
	// and PostgreSQL can, and ids must match whatever the formats.
	seen := map[string]bool{}
	for _, col := range append(append([]string{}, c.ID...), c.GroupBy...) {
		if seen[col] {
			continue
		}
		seen[col] = true
		cv := conversion{Name: col}
		text := src[col] == "VARCHAR" && sink[col] == "VARCHAR"
		if src[col] != sink[col] {
			cv.AsText, text = true, true
			notes = append(notes, fmt.Sprintf("column %s is %s in the source and %s in the sink: compared as text, each value rendered from its own type (a BIGINT 7 is \"7\", a text \"007\" stays \"007\")", col, src[col], sink[col]))
		}
		if text {
			empty, err := count(ctx, db, prepareSQL, "empty_ids", struct{ Col string }{col})
			if err != nil {
				return nil, nil, err
			}
			if empty > 0 {
				cv.EmptyAsNull = true
				notes = append(notes, fmt.Sprintf("column %s: %d empty value(s) compared as NULL, as an empty CSV field is", col, empty))
			}
		}
		if cv.AsText || cv.EmptyAsNull {
			convert = append(convert, cv)
		}
	}

	p := &Params{ID: c.ID, Measures: c.Measures, GroupBy: c.GroupBy, Checkpoint: c.Checkpoint, LogicalKey: c.LogicalKey, MeasureTypes: map[string]string{},
		SourceLocation: c.SourceLocation, SinkLocation: c.SinkLocation, BadRecords: c.BadRecords}
	for _, m := range c.Measures {
		storage, arith, err := measureType(ctx, db, m, src[m], sink[m])
		if err != nil {
			return nil, nil, err
		}
		convert = append(convert, conversion{Name: m, Decimal: storage})
		p.MeasureTypes[m] = arith
		notes = append(notes, fmt.Sprintf("measure %s compared as %s, summed as %s (scale from the data; no value rounded)", m, storage, arith))
	}
	for _, t := range []string{SourceTable, SinkTable} {
		if len(convert) == 0 {
			break
		}
		if err := exec(ctx, db, prepareSQL, "convert", struct {
			Table   string
			Columns []conversion
		}{t, convert}); err != nil {
			return nil, nil, fmt.Errorf("convert the %s's ids and measures to exact types: %w", t, err)
		}
	}

	exclude := map[string]bool{c.Checkpoint: true}
	for _, id := range c.ID {
		exclude[id] = true
	}
	p.SourceValueCols, p.SinkValueCols = c.Measures, c.Measures
	if len(c.Measures) == 0 {
		p.SourceValueCols = valueCols(srcCols, exclude, c.SourceProvenance)
		p.SinkValueCols = valueCols(sinkCols, exclude, c.SinkProvenance)
	}
	return p, notes, nil
}

// measureType validates a measure in both tables and returns the exact
// types for it: storage, the narrowest of DECIMAL(18,s) (a 64-bit integer,
// ten times faster to parse than a 128-bit one) and DECIMAL(38,s) that holds
// every value of both inputs; and arith, DECIMAL(38,s), for sums and
// differences.
func measureType(ctx context.Context, db *duck.DB, m, srcType, sinkType string) (storage, arith string, err error) {
	scale, intDigits := 0, 0
	for _, side := range []struct{ table, typ string }{{SourceTable, srcType}, {SinkTable, sinkType}} {
		s, i, err := measureDigits(ctx, db, side.table, m, side.typ)
		if err != nil {
			return "", "", err
		}
		scale, intDigits = max(scale, s), max(intDigits, i)
	}
	if intDigits+scale > maxPrecision {
		return "", "", fmt.Errorf("%w: measure %s needs %d integer and %d fraction digits, more than the %d an exact DECIMAL holds", ErrValue, m, intDigits, scale, maxPrecision)
	}
	arith = decimalType(maxPrecision, scale)
	storage = arith
	if intDigits+scale <= 18 {
		storage = decimalType(18, scale)
	}
	return storage, arith, nil
}

var decimalTypeName = regexp.MustCompile(`^DECIMAL\((\d+),(\d+)\)$`)

// measureDigits returns the fraction and integer digits a measure column
// needs in one table.
func measureDigits(ctx context.Context, db *duck.DB, table, m, typ string) (scale, intDigits int, err error) {
	side := map[string]string{SourceTable: "source", SinkTable: "sink"}[table]
	if mm := decimalTypeName.FindStringSubmatch(typ); mm != nil {
		p, _ := strconv.Atoi(mm[1])
		s, _ := strconv.Atoi(mm[2])
		return s, p - s, nil
	}
	switch typ {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT":
		return 0, 20, nil
	case "HUGEINT", "UHUGEINT":
		return 0, maxPrecision, nil
	case "FLOAT", "DOUBLE", "REAL":
		return 0, 0, fmt.Errorf("%w: measure %s is %s (binary floating point) in the %s: its values are not exact decimals, so sums could not be exact; store amounts as DECIMAL/NUMERIC or text", ErrColumn, m, typ, side)
	case "VARCHAR":
	default:
		return 0, 0, fmt.Errorf("%w: measure %s is %s in the %s; a measure must be a decimal number (text, integer or DECIMAL)", ErrColumn, m, typ, side)
	}
	data := struct{ Table, Col string }{table, m}
	cond, err := prepareSQL.SQL("not_decimal", data)
	if err != nil {
		return 0, 0, err
	}
	msg, bad, err := load.BadValue(ctx, db, table, m, cond)
	if err != nil {
		return 0, 0, err
	}
	if bad {
		return 0, 0, fmt.Errorf("%w: %s in the %s is not a decimal number (expected digits with an optional sign and decimal point, such as -1234.50)", ErrValue, msg, side)
	}
	_, digits, err := rows(ctx, db, prepareSQL, "measure_digits", data)
	if err != nil {
		return 0, 0, err
	}
	scale, _ = strconv.Atoi(*digits[0][0])
	intDigits, _ = strconv.Atoi(*digits[0][1])
	return scale, intDigits, nil
}

// conversion is one column of prepare/convert.sql: an id or group column
// compared as text and/or with empty text as NULL, or a measure cast to
// its exact Decimal type.
type conversion struct {
	Name                string
	AsText, EmptyAsNull bool
	Decimal             string
}

func typeMap(cols []duck.Column) map[string]string {
	m := make(map[string]string, len(cols))
	for _, c := range cols {
		m[c.Name] = c.Type
	}
	return m
}

func names(cols []duck.Column) string {
	var ns []string
	for _, c := range cols {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// suggest points at a column that differs only in case or surrounding
// spaces, the usual cause of a "not found".
func suggest(col string, cols []duck.Column) string {
	if len(cols) == 1 {
		for _, d := range []string{";", "\t", "|"} {
			if strings.Contains(cols[0].Name, d) {
				return fmt.Sprintf(" (the input has one column, named %q: is it delimited by %q? set delimiter: in the spec's long form)", cols[0].Name, d)
			}
		}
	}
	for _, c := range cols {
		if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(col)) {
			return fmt.Sprintf(" (did you mean %q? names are compared exactly)", c.Name)
		}
	}
	return ""
}

func valueCols(cols []duck.Column, exclude map[string]bool, provenance []string) []string {
	var out []string
	for _, c := range cols {
		if !exclude[c.Name] && !slices.Contains(provenance, c.Name) {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// tableColumns are the columns of the loaded source and sink, for checking
// that a spec names only columns they have.
type tableColumns struct {
	source, sink []duck.Column
	types        map[string]map[string]string // "source"/"sink" → column → type
	errs         []string
}

func readColumns(ctx context.Context, db *duck.DB) (*tableColumns, error) {
	src, err := load.UserColumns(ctx, db, SourceTable)
	if err != nil {
		return nil, err
	}
	sink, err := load.UserColumns(ctx, db, SinkTable)
	if err != nil {
		return nil, err
	}
	return &tableColumns{source: src, sink: sink, types: map[string]map[string]string{"source": typeMap(src), "sink": typeMap(sink)}}, nil
}

// need records an error for each of cols (named by spec field) that side
// ("source" or "sink") does not have; "" and "*" are not columns.
func (tc *tableColumns) need(side, field string, cols ...string) {
	all := tc.source
	if side == "sink" {
		all = tc.sink
	}
	for _, col := range cols {
		if col == "" || col == "*" {
			continue
		}
		if _, ok := tc.types[side][col]; !ok {
			tc.errs = append(tc.errs, fmt.Sprintf("column %q (from %s) not found in the %s; its columns are: %s%s",
				col, field, side, names(all), suggest(col, all)))
		}
	}
}

// err is every missing column at once, wrapped in ErrColumn.
func (tc *tableColumns) err() error {
	if len(tc.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrColumn, strings.Join(tc.errs, "; "))
}
