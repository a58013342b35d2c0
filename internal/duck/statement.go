//go:build duckdb_arrow

package duck

import (
	"context"

	"github.com/reconcile-dev/reconcile/queries"
)

// The methods below are the one way reconcile runs a statement of queries/
// on the session: each renders statement id of set for data
// (queries.Set.SQL: without its header, errors naming the file) and runs
// it with args bound to its parameters, as Exec, ExecCount, Count and
// Strings run a statement already rendered. A rendering error is returned
// as it is; an engine error is wrapped with the statement's first line.

// ExecFile renders statement id of set for data and runs it (see Exec).
func (d *DB) ExecFile(ctx context.Context, set *queries.Set, id string, data any, args ...any) error {
	q, err := set.SQL(id, data)
	if err != nil {
		return err
	}
	return d.Exec(ctx, q, args...)
}

// ExecCountFile renders statement id of set for data, runs it and returns
// the rows it affected (see ExecCount; for COPY, the rows written).
func (d *DB) ExecCountFile(ctx context.Context, set *queries.Set, id string, data any, args ...any) (int64, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return 0, err
	}
	return d.ExecCount(ctx, q, args...)
}

// CountFile renders statement id of set for data, a query that returns one
// BIGINT, and returns it (see Count).
func (d *DB) CountFile(ctx context.Context, set *queries.Set, id string, data any, args ...any) (int64, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return 0, err
	}
	return d.Count(ctx, q, args...)
}

// StringsFile renders statement id of set for data and returns its column
// names and every row as text, NULL as nil (see Strings: for small results
// only).
func (d *DB) StringsFile(ctx context.Context, set *queries.Set, id string, data any, args ...any) ([]string, [][]*string, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return nil, nil, err
	}
	return d.Strings(ctx, q, args...)
}
