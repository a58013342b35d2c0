//go:build duckdb_arrow

// Package duck holds the one embedded DuckDB session a reconciliation runs
// in: a single pinned connection (Arrow views belong to one connection),
// set to UTC, into which sources are loaded as tables (or views: a view
// over the input's files, or ViewOver's view adding provenance to a raw
// table) and on which every check query runs.
//
// The package exists so that sources/ and checks/ share one session without
// either owning it. It is built only with the duckdb_arrow build tag, which
// compiles duckdb-go's Arrow interface (github.com/duckdb/duckdb-go/v2,
// arrow.go).
package duck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// DB is an embedded, in-memory DuckDB database with one pinned connection.
// It is not safe for concurrent use: load and query one statement at a time.
type DB struct {
	db    *sql.DB
	conn  *sql.Conn
	arrow *duckdb.Arrow
	// over maps a view made by ViewOver to the table it reads and the
	// statement that makes it (run again by Refresh).
	over map[string]viewOver
	// locSep maps a table to the text between __file and __line in a
	// location of its rows, where it is not ":" (SetLocationSeparator).
	locSep map[string]string
	// reportsBad are the tables whose unreadable rows are listed rather
	// than refused (SetReportsBadRecords).
	reportsBad map[string]bool
}

// SetReportsBadRecords records that a row of table whose value cannot be
// read is removed and listed as a bad record rather than stopping the run
// (the input's bad_records: report), for the steps after the load that
// read its values (load.Refuse).
func (d *DB) SetReportsBadRecords(table string) {
	if d.reportsBad == nil {
		d.reportsBad = map[string]bool{}
	}
	d.reportsBad[table] = true
}

// ReportsBadRecords says whether SetReportsBadRecords was called for table.
func (d *DB) ReportsBadRecords(table string) bool { return d.reportsBad[table] }

// SetLocationSeparator records that a location of table's rows reads
// __file, sep, __line: "@" for a Kafka topic (topic[partition]@offset).
// A table without one reads file:line.
func (d *DB) SetLocationSeparator(table, sep string) {
	if d.locSep == nil {
		d.locSep = map[string]string{}
	}
	d.locSep[table] = sep
}

// LocationSeparator is the text between __file and __line in a location of
// table's rows: as SetLocationSeparator recorded it, else ":".
func (d *DB) LocationSeparator(table string) string {
	if sep, ok := d.locSep[table]; ok {
		return sep
	}
	return ":"
}

// viewOver is a view that adds columns to the rows of one table (base),
// from the small tables more (dropped with it).
type viewOver struct {
	base, create string
	more         []string
}

// MemoryLimit caps the memory DuckDB holds when Open is given a tempDir,
// until SetMemoryLimit says otherwise (a run sets its budget's DuckDB share,
// package memory); beyond it, tables and query state spill to tempDir.
// DuckDB's in-memory tables are uncompressed (10 million ledger rows take
// about 800 MB), and its default limit is 80% of the host's RAM, so without
// a cap a large input grows the process without bound.
const MemoryLimit = "512MB"

// ErrOutOfMemory is in the chain of every error of a statement DuckDB
// could not run within its memory limit (duckdb-go reports it as a
// *duckdb.Error of type ErrorTypeOutOfMemory). It is a runtime error
// (exit 3); the remedy is a larger limit (control.Options.MemoryLimit,
// --memory-limit). The error's message stays DuckDB's own.
var ErrOutOfMemory = fault.Runtime.New("duckdb: out of memory")

// oomError is a DuckDB out-of-memory error that also matches ErrOutOfMemory.
type oomError struct{ err error }

func (e *oomError) Error() string { return e.err.Error() }
func (e *oomError) Unwrap() error { return e.err }
func (e *oomError) Is(target error) bool {
	return target == ErrOutOfMemory || errors.Is(ErrOutOfMemory, target)
}

// engineError is err as this package returns it: an out-of-memory error of
// DuckDB (found by its type, anywhere in err's chain, joined errors
// included) also matches ErrOutOfMemory; anything else is returned as is.
func engineError(err error) error {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory {
		return &oomError{err}
	}
	return err
}

// statementError wraps err, DuckDB's error for query, with the statement's
// first line.
func statementError(query string, err error) error {
	return fmt.Errorf("duckdb: %s: %w", firstLine(query), engineError(err))
}

// Open starts an in-memory DuckDB database. tempDir is where DuckDB may
// spill when a query exceeds memory ("" keeps DuckDB's defaults: no spill
// folder and no MemoryLimit). The
// session time zone is UTC so that no result depends on the host's TZ
// (DuckDB otherwise takes it from the environment).
func Open(ctx context.Context, tempDir string) (*DB, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("duckdb: open: %w", err)
	}
	sqlDB := sql.OpenDB(connector)
	sqlDB.SetMaxOpenConns(1)
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("duckdb: connect: %w", err)
	}
	d := &DB{db: sqlDB, conn: conn}
	if err := conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		d.arrow = a
		return err
	}); err != nil {
		d.Close()
		return nil, fmt.Errorf("duckdb: arrow interface: %w", err)
	}
	setup, err := stmt(queries.EngineSessionSetup, struct{ TempDir, MemoryLimit string }{tempDir, MemoryLimit})
	if err == nil {
		err = d.Exec(ctx, setup)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close releases the connection and the database.
func (d *DB) Close() error {
	var errs []error
	if d.conn != nil {
		errs = append(errs, d.conn.Close())
	}
	errs = append(errs, d.db.Close())
	return errors.Join(errs...)
}

// Conn is the pinned connection, for queries that return rows.
func (d *DB) Conn() *sql.Conn { return d.conn }

// Exec runs one statement and returns its error wrapped with the statement's
// first line.
func (d *DB) Exec(ctx context.Context, query string, args ...any) error {
	_, err := d.ExecCount(ctx, query, args...)
	return err
}

// ExecCount runs one statement and returns the rows it affected (for COPY, the
// rows written).
func (d *DB) ExecCount(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.conn.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, statementError(query, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("duckdb: %s: rows affected: %w", firstLine(query), engineError(err))
	}
	return n, nil
}

// LoadArrow materialises every batch of r as a new table named table and
// returns the number of rows stored. The view DuckDB scans r through is
// dropped and released before LoadArrow returns: an Arrow view can be scanned
// only once, and a query after release crashes the process (see
// ENGINEERING-NOTES "DuckDB + Arrow gotchas" 1 and 2). An error returned by
// r surfaces here, wrapped, and leaves no table behind.
//
// While it loads, DuckDB runs at most one thread fewer than the machine has
// cores: the Go goroutine that produces the batches needs one, and on two
// cores a second DuckDB thread only competes with it (measured with the
// MySQL load benchmark: load/raw 0.78–0.98 with one thread, 0.64–0.76 with
// two, on the same machine in the same run).
func (d *DB) LoadArrow(ctx context.Context, table string, r array.RecordReader) (int64, error) {
	var threads int64
	if err := d.conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&threads); err != nil {
		return 0, fmt.Errorf("duckdb: threads: %w", engineError(err))
	}
	if want := int64(max(1, runtime.NumCPU()-1)); want < threads {
		if err := d.Exec(ctx, fmt.Sprintf("SET threads = %d", want)); err != nil {
			return 0, err
		}
		defer d.conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("SET threads = %d", threads))
	}
	view := table + "__arrow_view"
	release, err := d.arrow.RegisterView(r, view)
	if err != nil {
		return 0, fmt.Errorf("duckdb: register arrow view for %s: %w", table, engineError(err))
	}
	defer release()
	defer d.run(context.WithoutCancel(ctx), queries.EngineDropView, view)
	if err := d.run(ctx, queries.EngineLoadArrow, struct{ Table, View string }{table, view}); err != nil {
		if rerr := r.Err(); rerr != nil {
			return 0, rerr
		}
		return 0, err
	}
	if err := r.Err(); err != nil {
		d.DropTable(ctx, table)
		return 0, err
	}
	return d.CountRows(ctx, table)
}

// DropTable drops table if it exists (the error is reported, but a table
// that is not there is not an error).
func (d *DB) DropTable(ctx context.Context, table string) error {
	return d.run(ctx, queries.EngineDropTable, table)
}

// CountRows returns the number of rows of table.
func (d *DB) CountRows(ctx context.Context, table string) (int64, error) {
	return d.CountFile(ctx, statements(), queries.EngineCountRows, table)
}

// DropView drops the view name if it exists, and the table it reads when
// ViewOver made it.
func (d *DB) DropView(ctx context.Context, name string) error {
	if err := d.run(ctx, queries.EngineDropView, name); err != nil {
		return err
	}
	return d.forget(ctx, name)
}

// forget drops the table a view of ViewOver read, once the view is gone
// (dropped, or become a table), and forgets the view; a no-op for any
// other name.
func (d *DB) forget(ctx context.Context, name string) error {
	delete(d.locSep, name)
	v, ok := d.over[name]
	if !ok {
		return nil
	}
	delete(d.over, name)
	errs := []error{d.DropTable(ctx, v.base)}
	for _, t := range v.more {
		errs = append(errs, d.DropTable(ctx, t))
	}
	return errors.Join(errs...)
}

// IsView reports whether name is a view of the session's main schema
// (engine/is_view.sql) rather than a table: a source read where it lies
// (load.Options.View).
func (d *DB) IsView(ctx context.Context, name string) (bool, error) {
	n, err := d.CountFile(ctx, statements(), queries.EngineIsView, nil, name)
	return n > 0, err
}

// Materialize turns the view name into a table of the same name holding
// the rows the view reads now (engine/materialize.sql, one transaction), for
// a step that rewrites the table in place. A table is left as it is. On
// error the view is left as it was.
func (d *DB) Materialize(ctx context.Context, name string) error {
	view, err := d.IsView(ctx, name)
	if err != nil || !view {
		return err
	}
	if err := d.run(ctx, queries.EngineMaterialize, struct{ View, Temp string }{name, name + "__materialized"}); err != nil {
		d.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("duckdb: copy view %s into a table: %w", name, err)
	}
	return d.forget(ctx, name)
}

// ViewOver runs create, a statement (CREATE OR REPLACE VIEW name AS …)
// that makes name a view adding columns to the rows of table base (from
// the small tables more, when given: joined on a column of base), and
// keeps it: a column of the view's that a step converts in place is
// converted in base (AlterTarget) and the view made again (Refresh) —
// unless the view has columns of more, which base does not hold: such a
// view is made a table first (Materialize) — and Materialize and DropView
// drop base and more with the view. The view must read every column of
// base it shows under its own name.
func (d *DB) ViewOver(ctx context.Context, name, base, create string, more ...string) error {
	if err := d.Exec(ctx, create); err != nil {
		return err
	}
	if d.over == nil {
		d.over = map[string]viewOver{}
	}
	d.over[name] = viewOver{base: base, create: create, more: more}
	return nil
}

// AlterTarget is the table an ALTER TABLE of name's columns must change:
// the table a view made by ViewOver reads (Refresh it afterwards), else
// name itself — also for a view of ViewOver with columns of other tables
// than its base (a column to convert may be one of those: the caller
// makes the view a table first).
func (d *DB) AlterTarget(name string) string {
	if v, ok := d.over[name]; ok && len(v.more) == 0 {
		return v.base
	}
	return name
}

// Refresh makes a view of ViewOver again, after its table's columns were
// altered (DuckDB refuses a view whose table's types changed since it was
// made); a no-op for any other name.
func (d *DB) Refresh(ctx context.Context, name string) error {
	if v, ok := d.over[name]; ok {
		return d.Exec(ctx, v.create)
	}
	return nil
}

// SetMemoryLimit caps the memory DuckDB holds before it spills (a size in
// DuckDB's notation, such as "4GB").
func (d *DB) SetMemoryLimit(ctx context.Context, limit string) error {
	return d.run(ctx, queries.EngineMemoryLimit, limit)
}

// run renders the engine statement id with data and executes it.
func (d *DB) run(ctx context.Context, id string, data any) error {
	return d.ExecFile(ctx, statements(), id, data)
}

// Count runs a query that returns one BIGINT.
func (d *DB) Count(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	if err := d.conn.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, statementError(query, err)
	}
	return n, nil
}

// Strings runs query and returns every row with each value rendered as text
// by DuckDB (NULL as nil), with the column names. Use it only for small
// results: it holds them in memory.
func (d *DB) Strings(ctx context.Context, query string, args ...any) ([]string, [][]*string, error) {
	q, err := stmt(queries.EngineAsText, query)
	if err != nil {
		return nil, nil, err
	}
	rows, err := d.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, statementError(query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]*string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, fmt.Errorf("duckdb: scan: %w", engineError(err))
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, statementError(query, err)
	}
	return cols, out, nil
}

// Column is one column of a table: its name and DuckDB type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Columns lists the columns of table in order, with their types as
// DuckDB's catalog writes them (information_schema.columns); a table that
// does not exist has none. A table of a plain lowercase name (every table
// reconcile makes) is read from its own entry, which is several times
// faster than the catalog view (queries/engine/050_columns.sql; a
// re-performance of 10 M events asked 20 times: 55 ms), and falls back to
// the catalog view should that fail otherwise.
func (d *DB) Columns(ctx context.Context, table string) ([]Column, error) {
	if plainName.MatchString(table) {
		cols, err := d.columns(ctx, queries.EngineTableColumns, table)
		var de *duckdb.Error
		switch {
		case err == nil:
			return cols, nil
		case errors.As(err, &de) && de.Type == duckdb.ErrorTypeCatalog:
			return nil, nil // no such table
		}
	}
	return d.columns(ctx, queries.EngineColumns, table)
}

// plainName is a table name DuckDB reads as itself in a qualified name.
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// columns runs statement id (columns.sql or its table_columns form) for
// table.
func (d *DB) columns(ctx context.Context, id, table string) ([]Column, error) {
	q, err := stmt(id, nil)
	if err != nil {
		return nil, err
	}
	rows, err := d.conn.QueryContext(ctx, q, table)
	if err != nil {
		return nil, fmt.Errorf("duckdb: columns of %s: %w", table, engineError(err))
	}
	defer rows.Close()
	var cols []Column
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Name, &c.Type); err != nil {
			return nil, engineError(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("duckdb: columns of %s: %w", table, engineError(err))
	}
	return cols, nil
}

// Version is the embedded DuckDB library version, such as "v1.5.6".
func (d *DB) Version(ctx context.Context) (string, error) {
	q, err := stmt(queries.EngineVersion, nil)
	if err != nil {
		return "", err
	}
	var v string
	err = d.conn.QueryRowContext(ctx, q).Scan(&v)
	return v, engineError(err)
}

// statements are the files of queries/engine, parsed once (a file that
// does not parse is a broken build).
var statements = sync.OnceValue(func() *queries.Set { return queries.MustSet("engine", sqlfile.Funcs()) })

// stmt renders the engine statement id with data.
func stmt(id string, data any) (string, error) { return statements().SQL(id, data) }

// Ident quotes name as a DuckDB identifier (see sqlfile.Ident).
func Ident(name string) string { return sqlfile.Ident(name) }

// Literal quotes s as a DuckDB string literal (see sqlfile.Literal).
func Literal(s string) string { return sqlfile.Literal(s) }

// List renders ss as a DuckDB list of string literals (see sqlfile.List).
func List(ss []string) string { return sqlfile.List(ss) }

func firstLine(q string) string {
	q = strings.TrimSpace(q)
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		q = q[:i] + " …"
	}
	if len(q) > 120 {
		q = q[:120] + " …"
	}
	return q
}
