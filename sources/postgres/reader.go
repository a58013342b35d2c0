package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/reconcile-dev/reconcile/sources"
)

// pgFill runs query on conn in binary format and writes every row to w,
// each value decoded straight into its column's Arrow builder (see
// appenderFor); cols are the columns the statement was described with.
// __file is file and __line the 1-based row. A value with no exact Arrow
// representation is an error naming the row, the column and the value.
func pgFill(ctx context.Context, conn *pgconn.PgConn, query string, cols []pgColumn, file string, w *sources.RowWriter) error {
	formats := make([]int16, len(cols))
	for i := range formats {
		formats[i] = pgx.BinaryFormatCode
	}
	rr := conn.ExecParams(ctx, query, nil, nil, nil, formats)
	if len(rr.FieldDescriptions()) == 0 {
		// The statement failed before its first row (a cast that overflows,
		// a division by zero): the error is in the result.
		if _, err := rr.Close(); err != nil {
			return err
		}
	}
	if err := sameColumns(rr.FieldDescriptions(), cols); err != nil {
		rr.Close()
		return err
	}
	nc := len(cols)
	app := make([]pgAppender, nc)
	for i := range cols {
		app[i] = appenderFor(&cols[i], w.Column(i))
	}
	var row int64
	for rr.NextRow() {
		vals := rr.Values()
		if len(vals) != nc {
			rr.Close()
			return fmt.Errorf("row %d: %d values, want %d", row+1, len(vals), nc)
		}
		size := 0
		for i, v := range vals {
			if v == nil {
				w.Column(i).AppendNull()
				continue
			}
			size += len(v)
			if err := app[i](v); err != nil {
				rr.Close()
				c := cols[i]
				return fmt.Errorf("%s:%d: column %s (%s): %w", file, row+1, c.Name, c.PGType, err)
			}
		}
		row++
		if err := w.EndRow(file, row, size); err != nil {
			rr.Close()
			return err
		}
	}
	if _, err := rr.Close(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	return nil
}
