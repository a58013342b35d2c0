package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"

	"github.com/reconcile-dev/reconcile/sources"
)

// myFill runs query on conn over the text protocol and writes every row to
// w, each value parsed straight into its column's Arrow builder (see
// myAppenderFor); cols are the columns the statement was described with.
// __file is file and __line the 1-based row. A value with no exact Arrow
// representation is an error naming the row, the column and the value; the
// read then stops at once: the connection is dropped rather than drained.
func myFill(ctx context.Context, conn *sql.Conn, query string, cols []myColumn, file string, w *sources.RowWriter, zd *zeroDates) error {
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("mysql: the driver connection %T cannot run a query", dc)
		}
		rows, err := qc.QueryContext(ctx, query, nil)
		if err != nil {
			return err
		}
		names := rows.Columns()
		tn, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
		if len(names) != len(cols) || tn == nil {
			return &myAbort{fmt.Errorf("mysql: the statement returned %d columns, %d when described", len(names), len(cols))}
		}
		for i, n := range names {
			// A query's columns were described as a derived table, which
			// may type a column of NULLs as BINARY; any other change of
			// type stops the read.
			read := myColumn{Name: n, WireType: tn.ColumnTypeDatabaseTypeName(i), Precision: 1}
			if n != cols[i].Name || read.WireType != "NULL" && (!mapMyType(&read) || read.class != cols[i].class) {
				return &myAbort{fmt.Errorf("mysql: column %d changed between describe and read (%s %s, then %s %s)", i+1, cols[i].Name, cols[i].WireType, n, read.WireType)}
			}
		}
		nc := len(cols)
		app := make([]myAppender, nc)
		for i := range cols {
			app[i] = myAppenderFor(&cols[i], i, w.Column(i), zd)
		}
		dest := make([]driver.Value, nc)
		var row int64
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					return rows.Close()
				}
				return &myAbort{err}
			}
			size := 0
			for i, v := range dest {
				if v == nil {
					w.Column(i).AppendNull()
					continue
				}
				n, err := app[i](v)
				if err != nil {
					c := cols[i]
					return &myAbort{fmt.Errorf("%s:%d: column %s (%s): value %s: %w", file, row+1, c.Name, c.MyType, myValueText(v), err)}
				}
				size += n
			}
			row++
			if err := w.EndRow(file, row, size); err != nil {
				return &myAbort{err}
			}
		}
	})
}

// myAbort ends a read in the middle of a result: it matches
// driver.ErrBadConn, so database/sql drops the connection (the server stops
// sending) instead of reading the rest of the result to discard it. Its
// message is its cause's.
type myAbort struct{ err error }

func (e *myAbort) Error() string { return e.err.Error() }

func (e *myAbort) Unwrap() []error { return []error{e.err, driver.ErrBadConn} }
