//go:build duckdb_arrow

package duck

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Dialect is the SQL dialect the session's statements are written in:
// "duckdb" (checks.Engine: the embedded engine, where the inputs are
// loaded and every check runs).
func (d *DB) Dialect() string { return "duckdb" }

// QueryArrow runs query and streams its result as Arrow record batches
// (DuckDB's Arrow interface); the caller releases the reader, and runs no
// other statement on the session until it has. Errors are DuckDB's, wrapped
// with the statement's first line (ErrOutOfMemory in the chain of an
// out-of-memory one).
func (d *DB) QueryArrow(ctx context.Context, query string) (array.RecordReader, error) {
	r, err := d.arrow.QueryContext(ctx, query)
	if err != nil {
		return nil, statementError(query, err)
	}
	return r, nil
}
