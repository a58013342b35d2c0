// Package sourcetest is the conformance suite every source kind runs: it
// checks the Source contract of package sources (the numbered rules of its
// doc comment) against one shared fixture, written by each kind in its own
// format. It reads the records twice — as Arrow batches straight from
// Source.Read, with no engine, and through package load into DuckDB (the
// native scan for a kind that has one) — and requires both to give the
// fixture's values and the same provenance.
package sourcetest

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/klauspost/compress/zstd"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
)

// FixtureRows is the number of rows of Fixture: more than one batch
// (sources.BatchRows), so every kind's batching is exercised.
const FixtureRows = sources.BatchRows + 4_464

// Table is a fixture: column names and rows of values as text, as a file
// would hold them; nil is a NULL (an empty field).
type Table struct {
	Columns []string
	Rows    [][]*string
}

// Fixture is the shared table every kind must read faithfully. The first
// rows are the ones a naive reader gets wrong (a leading zero, a trailing
// space, case, a NULL, a decimal beyond float64); the rest are generated.
// Amounts have two fraction digits, as a numeric(20,2) column returns them.
// It is built on first use, so a binary that only links the suite holds no
// fixture.
var Fixture = sync.OnceValue(func() *Table {
	return &Table{Columns: []string{"entry_id", "account", "amount"}, Rows: fixtureRows()}
})

func fixtureRows() [][]*string {
	rows := [][]*string{
		{s("0001"), s("ACC-1"), s("10.50")},
		{s("007"), s("ACC-2"), s("-0.01")},
		{s("A1 "), nil, s("12345678901234567.89")},
		{s("b2"), s("ACC-3"), nil},
	}
	for i := len(rows); i < FixtureRows; i++ {
		var account *string
		if i%97 != 0 {
			account = s(fmt.Sprintf("ACC-%d", i%13))
		}
		rows = append(rows, []*string{s(fmt.Sprintf("E%08d", i)), account, s(fmt.Sprintf("%d.%02d", i*7919%100000-50000, i%100))})
	}
	return rows
}

func s(v string) *string { return &v }

// Writer writes Fixture in the kind's format under dir and returns the
// Location that reads it.
type Writer func(t *testing.T, dir string) sources.Location

// Run checks a kind against the contract:
//   - Read yields the fixture's columns in order, then the kind's own
//     provenance columns if it has any (named __…, listed in
//     Input.Provenance: Kafka's __partition, __offset, …), then __file
//     (utf8), __line (int64) and __row (int64), in batches of at most
//     BatchRows rows, more than one; values exact (typed kinds compared as
//     text); __row 0, 1, 2, … in read order; __line positive (an offset,
//     from 0, for an input whose LocationForm is sources.LocationOffset)
//     and increasing within a file;
//   - the loader (package load) gives the same rows, values and provenance
//     as Read, Input.Rows the row count and Input.Columns the fixture's
//     columns;
//   - a context cancelled before the read, or between two batches, ends
//     it with an error for which errors.Is(err, context.Canceled) holds,
//     and the loader leaves no table behind.
func Run(t *testing.T, write Writer) {
	t.Run("records", func(t *testing.T) {
		src := open(t, write(t, t.TempDir()))
		got, batches, in := readAll(t, src)
		if batches < 2 {
			t.Errorf("%d batch(es) for %d rows: want batches of at most %d rows", batches, FixtureRows, sources.BatchRows)
		}
		checkRows(t, got, minLine(in))
	})

	t.Run("loader gives what Read gives", func(t *testing.T) {
		loc := write(t, t.TempDir())
		read, _, rin := readAll(t, open(t, loc))
		db := DB(t)
		in, err := load.Table(context.Background(), db, "t", open(t, loc))
		if err != nil {
			t.Fatal(err)
		}
		if in.Rows != int64(FixtureRows) {
			t.Errorf("Input.Rows = %d, want %d", in.Rows, FixtureRows)
		}
		var names []string
		for _, c := range in.Columns {
			if !slices.Contains(in.Provenance, c.Name) {
				names = append(names, c.Name)
			}
		}
		if strings.Join(names, ",") != strings.Join(Fixture().Columns, ",") {
			t.Errorf("Input.Columns %v, want %v", names, Fixture().Columns)
		}
		cols := make([]string, len(Fixture().Columns))
		for i, c := range Fixture().Columns {
			cols[i] = duck.Ident(c)
		}
		_, rows, err := db.Strings(context.Background(), "SELECT "+strings.Join(cols, ", ")+", __file, __line, __row FROM t ORDER BY __row")
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(read) {
			t.Fatalf("the loader gave %d rows, Read %d", len(rows), len(read))
		}
		bad := 0
		for i, r := range rows {
			if w := read[i]; fmt.Sprint(text(r)) != fmt.Sprint(text(w)) {
				if bad++; bad <= 3 {
					t.Errorf("row %d: loader %v, Read %v", i, text(r), text(w))
				}
			}
		}
		checkRows(t, rows, minLine(rin))
	})

	t.Run("cancelled before the read", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		src := open(t, write(t, t.TempDir()))
		_, rr, err := src.Read(ctx)
		if err == nil {
			for rr.Next() {
			}
			err = rr.Err()
			rr.Release()
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read with a cancelled context: err = %v, want one matching context.Canceled", err)
		}
		db := DB(t)
		if _, err := load.Table(ctx, db, "t", open(t, write(t, t.TempDir()))); !errors.Is(err, context.Canceled) {
			t.Errorf("load with a cancelled context: err = %v, want one matching context.Canceled", err)
		}
		if n, err := db.Count(context.Background(), `SELECT count(*) FROM information_schema.tables`); err != nil || n != 0 {
			t.Errorf("a cancelled load left %d table(s) behind (%v)", n, err)
		}
	})

	t.Run("cancelled between batches", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		src := open(t, write(t, t.TempDir()))
		_, rr, err := src.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		if !rr.Next() {
			t.Fatalf("no first batch: %v", rr.Err())
		}
		cancel()
		n := 0
		for rr.Next() {
			n++
		}
		if err := rr.Err(); !errors.Is(err, context.Canceled) {
			t.Errorf("after cancelling, %d more batch(es) and err = %v, want one matching context.Canceled", n, err)
		}
	})
}

// RunCompressed runs Run on the fixture compressed, once with gzip (.gz) and
// once with zstd (.zst): write must return a Location whose URI is the
// path of one file, which is then compressed and renamed.
func RunCompressed(t *testing.T, write Writer) {
	for _, c := range []struct {
		ext string
		new func(io.Writer) (io.WriteCloser, error)
	}{
		{".gz", func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil }},
		{".zst", func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }},
	} {
		t.Run(c.ext, func(t *testing.T) {
			Run(t, func(t *testing.T, dir string) sources.Location {
				loc := write(t, dir)
				Compress(t, loc.URI, loc.URI+c.ext, c.new)
				loc.URI += c.ext
				return loc
			})
		})
	}
}

// Compress writes the file from, compressed by newWriter, to to, and
// removes from.
func Compress(t *testing.T, from, to string, newWriter func(io.Writer) (io.WriteCloser, error)) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(from); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, loc sources.Location) sources.Source {
	t.Helper()
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// DB opens an in-memory DuckDB database (its spill folder a test
// directory), closed when the test ends.
func DB(t *testing.T) *duck.DB {
	t.Helper()
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// minLine is the least __line of in's records: 0 for offsets, else 1.
func minLine(in *sources.Input) int64 {
	if in != nil && in.LocationForm == sources.LocationOffset {
		return 0
	}
	return 1
}

// readAll reads every record of src with Read and returns each row's values
// as text (the user columns, then __file, __line, __row; a kind's own
// provenance columns left out), the number of batches and the Input. It
// fails the test on a schema or batch that breaks the contract.
func readAll(t *testing.T, src sources.Source) ([][]*string, int, *sources.Input) {
	t.Helper()
	in, rr, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if in.Role == "" || in.Kind == "" || in.Location == "" {
		t.Errorf("Input %+v: want Role, Kind and Location", in)
	}
	sc := rr.Schema()
	nu := len(Fixture().Columns)
	extra := sc.NumFields() - nu - 3
	if extra < 0 || extra != len(in.Provenance) {
		t.Fatalf("schema %v: want %v, the kind's provenance columns %v, then __file, __line, __row", sc, Fixture().Columns, in.Provenance)
	}
	for i := nu; i < nu+extra; i++ {
		if n := sc.Field(i).Name; !strings.HasPrefix(n, "__") || !slices.Contains(in.Provenance, n) {
			t.Errorf("column %d is %q: after the user columns only the kind's provenance columns (__…, Input.Provenance) may come", i, n)
		}
	}
	for i, c := range Fixture().Columns {
		if sc.Field(i).Name != c {
			t.Errorf("column %d is %q, want %q", i, sc.Field(i).Name, c)
		}
	}
	for i, want := range []struct {
		name string
		typ  arrow.DataType
	}{{sources.FileColumn, arrow.BinaryTypes.String}, {sources.LineColumn, arrow.PrimitiveTypes.Int64}, {sources.RowColumn, arrow.PrimitiveTypes.Int64}} {
		if f := sc.Field(nu + extra + i); f.Name != want.name || !arrow.TypeEqual(f.Type, want.typ) {
			t.Errorf("provenance column %d is %s %s, want %s %s", i, f.Name, f.Type, want.name, want.typ)
		}
	}
	var rows [][]*string
	batches := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		batches++
		if rec.NumRows() > sources.BatchRows {
			t.Errorf("batch %d holds %d rows, more than %d", batches, rec.NumRows(), sources.BatchRows)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]*string, 0, nu+3)
			for c := 0; c < int(rec.NumCols()); c++ {
				if c < nu || c >= nu+extra {
					row = append(row, valueText(rec.Column(c), r))
				}
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, batches, in
}

// valueText is an Arrow value as text: a string as it is, a decimal with its
// scale's digits, any other type as arrow-go renders it; nil for a null.
func valueText(a arrow.Array, i int) *string {
	if a.IsNull(i) {
		return nil
	}
	switch v := a.(type) {
	case *array.String:
		return s(v.Value(i))
	case *array.Decimal128:
		// with every fraction digit (ValueStr drops trailing zeros)
		return s(v.Value(i).ToString(v.DataType().(*arrow.Decimal128Type).Scale))
	}
	return s(a.ValueStr(i))
}

// checkRows compares rows (the user columns, then __file, __line, __row, as
// text) with the fixture.
func checkRows(t *testing.T, rows [][]*string, minLine int64) {
	t.Helper()
	if len(rows) != FixtureRows {
		t.Fatalf("%d rows, want %d", len(rows), FixtureRows)
	}
	nu := len(Fixture().Columns)
	bad := 0
	lastLine := map[string]int64{}
	first := map[string]bool{}
	for i, r := range rows {
		for j, want := range Fixture().Rows[i] {
			if got := r[j]; (got == nil) != (want == nil) || got != nil && *got != *want {
				if bad++; bad <= 5 {
					t.Errorf("row %d %s = %s, want %s", i, Fixture().Columns[j], show(got), show(want))
				}
			}
		}
		if r[nu] == nil || *r[nu] == "" {
			t.Errorf("row %d: no __file", i)
			return
		}
		line, err := strconv.ParseInt(deref(r[nu+1]), 10, 64)
		if err != nil || line < minLine || first[*r[nu]] && line <= lastLine[*r[nu]] {
			t.Errorf("row %d: __line %s after %d in %s: want a positive line, increasing within a file", i, show(r[nu+1]), lastLine[*r[nu]], *r[nu])
			return
		}
		lastLine[*r[nu]], first[*r[nu]] = line, true
		if got := deref(r[nu+2]); got != strconv.Itoa(i) {
			t.Errorf("row %d: __row %s, want %d", i, got, i)
			return
		}
	}
}

func text(r []*string) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = show(v)
	}
	return out
}

func show(v *string) string {
	if v == nil {
		return "NULL"
	}
	return strconv.Quote(*v)
}

func deref(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}
