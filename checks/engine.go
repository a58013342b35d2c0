package checks

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
)

// Engine is where the statements over the inputs run: a SQL session in
// which the relations source and sink (SourceTable, SinkTable) hold the
// inputs' rows. The embedded DuckDB session (*duck.DB) is one, with the
// inputs loaded into it; a distributed engine (package internal/trino) is
// another, with the inputs where they lie. It is the smallest seam both
// implement: run a statement, read a small result as text or a count, stream
// a result as Arrow record batches, and the dialect the statements must be
// written in. Errors are the engine's, wrapped with the statement.
type Engine interface {
	// Dialect names the SQL dialect of the engine's statements: "duckdb"
	// or "trino".
	Dialect() string
	// Exec runs one statement that returns no rows.
	Exec(ctx context.Context, query string, args ...any) error
	// Count runs a query that returns one BIGINT.
	Count(ctx context.Context, query string, args ...any) (int64, error)
	// Strings runs a query and returns its column names and every row with
	// each value rendered as text by the engine (NULL as nil): for small
	// results only.
	Strings(ctx context.Context, query string, args ...any) ([]string, [][]*string, error)
	// QueryArrow runs a query and streams its result as Arrow record
	// batches; the caller releases the reader.
	QueryArrow(ctx context.Context, query string) (array.RecordReader, error)
}

// Remote is an Engine other than the run's embedded DuckDB session: the
// checks run there, in its dialect, and only their exception rows travel,
// streamed into a table of the session (RunOn), from which the evidence is
// written as for an embedded run.
type Remote interface {
	Engine
	// Render returns check c's statement for p in the engine's dialect,
	// or an error wrapping ErrNoRendering when the check has none (it is
	// then listed as not run, with the error as its reason).
	Render(c *Check, p *Params) (string, error)
	// InputColumns are the names of the columns of source and sink as the
	// engine reads them (a check's own column of such a name is refused:
	// ErrNameClash).
	InputColumns(ctx context.Context) (map[string]bool, error)
}

// ErrNoRendering is in the chain of Remote.Render's error for a check
// that has no statement in the engine's dialect.
var ErrNoRendering = errors.New("no statement in the engine's dialect")

// The embedded session is an Engine.
var _ Engine = (*duck.DB)(nil)

// stringsFile renders statement id of set for data and runs it on e (see
// Engine.Strings).
func stringsFile(ctx context.Context, e Engine, set *queries.Set, id string, data any) ([]string, [][]*string, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return nil, nil, err
	}
	return e.Strings(ctx, q)
}

// countFile renders statement id of set for data, a query returning one
// BIGINT, and runs it on e (see Engine.Count).
func countFile(ctx context.Context, e Engine, set *queries.Set, id string, data any) (int64, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return 0, err
	}
	return e.Count(ctx, q)
}
