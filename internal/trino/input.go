package trino

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/queries"
)

// InputScheme is the prefix of an input location read by the engine:
// trino:catalog.schema.table, or trino:?query=SELECT … for a query.
const InputScheme = "trino:"

// IsInput reports whether uri names a Trino input (InputScheme).
func IsInput(uri string) bool { return strings.HasPrefix(uri, InputScheme) }

// Column is one column of an input as Trino reads it: its name, Trino's type
// (decimal(12,2), varchar, timestamp(6) with time zone) and the DuckDB type
// its values take in the evidence (DECIMAL(12,2), VARCHAR, TIMESTAMP WITH
// TIME ZONE; "" for a type with no exact DuckDB form).
type Column struct {
	Name, Trino, DuckDB string
}

// Fingerprint is what Trino can attest of an input's rows: their count and,
// for every column, checksum() (an order-insensitive hash of its values,
// lower-case hex), taken in one statement.
type Fingerprint struct {
	Rows      int64             `json:"rows"`
	Checksums map[string]string `json:"checksums"`
	// RowChecksum is checksum() of each row's xxhash64 over all its
	// columns (queries/trino/fingerprint.sql): a value moved from one row
	// to another leaves every column's checksum as it was, not this one.
	RowChecksum string `json:"row_checksum"`
	QueryID     string `json:"query_id"`
}

// rowText is the SQL text expression of a row of columns cols that
// fingerprint.sql hashes: for each column, n when it is NULL, else v, the
// length of its text, a colon and the text (so that no two rows give one
// text), the columns' texts concatenated. A value's text is its CAST to
// varchar; varbinary is written as hex, and an array, map, row or json as
// its JSON text. A type with no such text is Trino's error (the run fails,
// exit 3), never left out of the fingerprint.
func rowText(cols []Column) string {
	if len(cols) == 0 {
		return "''"
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		x := sqlfile.Ident(c.Name)
		t := strings.ToLower(c.Trino)
		text := "CAST(" + x + " AS varchar)"
		switch {
		case t == "varbinary":
			text = "to_hex(" + x + ")"
		case strings.HasPrefix(t, "array") || strings.HasPrefix(t, "map") || strings.HasPrefix(t, "row") || t == "json":
			text = "json_format(CAST(" + x + " AS json))"
		}
		parts[i] = fmt.Sprintf("CASE WHEN %s IS NULL THEN 'n' ELSE 'v' || CAST(length(%s) AS varchar) || ':' || %s END", x, text, text)
	}
	return strings.Join(parts, " || ")
}

// Input is one input of the run, read by the engine where it lies.
type Input struct {
	// Role is "source" or "sink"; Location the spec's URI.
	Role, Location string
	// Catalog, Schema and Table name a table ("" for a query input);
	// Connector is the catalog's connector (iceberg, hive, postgresql,
	// mysql, …).
	Catalog, Schema, Table, Connector string
	// Query is the SELECT of a query input ("" for a table).
	Query string
	// Snapshot is the Iceberg snapshot read (FOR VERSION AS OF), "" when
	// the connector cannot pin a version; SnapshotBy says how it was
	// chosen ("snapshot:" or "current (main branch)"); SnapshotFacts are
	// its committed_at, operation and parent, and the table's location.
	Snapshot, SnapshotBy string
	SnapshotFacts        map[string]string
	// Columns are the input's columns in order, as Trino reads them (the
	// snapshot's schema for a pinned Iceberg table), under their names in
	// the input; Rename maps a name to the control's (spec rename:).
	Columns []Column
	Rename  map[string]string
	// Hidden are the columns of the table (or of the tables a query
	// reads) that Trino's PostgreSQL, MySQL or MariaDB connector hides or
	// misreads (Engine.Describe); Prepare refuses those the checks read.
	Hidden []Hidden
	// Before and After are the fingerprints taken before the checks and,
	// for an input that cannot be pinned, after them.
	Before, After *Fingerprint
	// Definition is the relation's SELECT as the statements read it (the
	// body of the CTE source or sink): set by Engine.SetInputs.
	Definition string
}

// tableName is catalog.schema.table, each part a plain or double-quoted
// identifier.
var tableName = regexp.MustCompile(`^("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$-]*)\.("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$-]*)\.("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$-]*)$`)

// ParseInput reads an input location: trino:catalog.schema.table (each
// part an identifier, double-quoted when it must be), optionally with
// ?snapshot=ID, or trino:?query=SELECT …; options are the long form's
// (snapshot:, query:). Errors wrap ErrRefused.
func ParseInput(role, uri string, options map[string]any) (*Input, error) {
	if !IsInput(uri) {
		return nil, fmt.Errorf("%w: the %s %q is not a Trino table: with --engine trino://…, name each input as trino:catalog.schema.table (every input is read by the cluster, none by reconcile)", ErrRefused, role, uri)
	}
	in := &Input{Role: role, Location: uri}
	rest := strings.TrimPrefix(uri, InputScheme)
	name, params, _ := strings.Cut(rest, "?")
	opts := map[string]string{}
	if params != "" {
		for _, kv := range strings.Split(params, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if k == "query" {
				// the rest of the URI is the query, & included
				v = params[strings.Index(params, "query=")+len("query="):]
				opts[k] = v
				break
			}
			opts[k] = v
		}
	}
	for k, v := range options {
		switch k {
		case "snapshot", "query":
			opts[k] = fmt.Sprint(v)
		case "uri":
		default:
			return nil, fmt.Errorf("%w: the %s %s: option %s: a Trino input takes snapshot: (an Iceberg snapshot id) or query:", ErrRefused, role, uri, k)
		}
	}
	for k := range opts {
		if k != "snapshot" && k != "query" {
			return nil, fmt.Errorf("%w: the %s %s: parameter %s: a Trino input takes snapshot= (an Iceberg snapshot id) or query=", ErrRefused, role, uri, k)
		}
	}
	// A statement's terminating semicolons are not part of the query the
	// checks read as a subquery.
	if q := strings.TrimRight(strings.TrimSpace(opts["query"]), "; \t\r\n"); q != "" {
		if name != "" {
			return nil, fmt.Errorf("%w: the %s %s: a table or a query, not both", ErrRefused, role, uri)
		}
		if opts["snapshot"] != "" {
			return nil, fmt.Errorf("%w: the %s %s: snapshot: pins a table; a query pins its own tables (FOR VERSION AS OF)", ErrRefused, role, uri)
		}
		in.Query = q
		return in, nil
	}
	m := tableName.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("%w: the %s %q: want trino:catalog.schema.table (or trino:?query=SELECT …)", ErrRefused, role, uri)
	}
	in.Catalog, in.Schema, in.Table = unquote(m[1]), unquote(m[2]), unquote(m[3])
	if s := opts["snapshot"]; s != "" {
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("%w: the %s %s: snapshot %q is not a snapshot id (a 64-bit integer)", ErrRefused, role, uri, s)
		}
		in.Snapshot, in.SnapshotBy = s, "snapshot:"
	}
	return in, nil
}

// unquote reads one identifier: a double-quoted one as written, a plain
// one lower-cased (Trino's names are case-insensitive, kept in lower case).
func unquote(id string) string {
	if strings.HasPrefix(id, `"`) {
		return strings.ReplaceAll(id[1:len(id)-1], `""`, `"`)
	}
	return strings.ToLower(id)
}

// ident quotes name as a Trino identifier.
func ident(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// literal quotes s as a Trino string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Relation is the input's relation in Trino's SQL: the quoted table name
// with FOR VERSION AS OF its snapshot when pinned, or the query in
// parentheses.
func (in *Input) Relation() string {
	if in.Query != "" {
		// On a line of its own, the closing parenthesis cannot fall into
		// a -- comment that ends the query.
		return "(" + in.Query + "\n)"
	}
	r := ident(in.Catalog) + "." + ident(in.Schema) + "." + ident(in.Table)
	if in.Snapshot != "" {
		r += " FOR VERSION AS OF " + in.Snapshot
	}
	return r
}

// Name is catalog.schema.table, or "query" for a query input.
func (in *Input) Name() string {
	if in.Query != "" {
		return "query"
	}
	return in.Catalog + "." + in.Schema + "." + in.Table
}

// Pinned reports whether the input is read as of a fixed version (an
// Iceberg snapshot): the same rows however long the run takes.
func (in *Input) Pinned() bool { return in.Snapshot != "" }

// Describe finds the input's connector, pins an Iceberg table to its
// current snapshot (unless snapshot: chose one) and reads its columns as of
// that snapshot, and finds the columns a PostgreSQL, MySQL or MariaDB
// connector hides or misreads (Input.Hidden, for Prepare). A table the
// cluster does not have, a snapshot: on a connector that cannot pin one,
// or a table whose declared columns cannot be read, is an error wrapping
// ErrRefused.
func (e *Engine) Describe(ctx context.Context, in *Input) error {
	if in.Query == "" {
		rows, err := e.rawFile(ctx, queries.TrinoConnector, struct{ Catalog string }{in.Catalog})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%w: the %s %s: the cluster has no catalog %s", ErrRefused, in.Role, in.Location, in.Catalog)
		}
		in.Connector = str(rows[0][0])
		switch {
		case in.Connector == "iceberg":
			if err := e.pinSnapshot(ctx, in); err != nil {
				return err
			}
		case in.Snapshot != "":
			return fmt.Errorf("%w: the %s %s: snapshot: pins an Iceberg table, and catalog %s's connector is %s", ErrRefused, in.Role, in.Location, in.Catalog, in.Connector)
		}
	}
	cols, err := e.columnsOf(ctx, in.Relation())
	if err != nil {
		return fmt.Errorf("the %s %s: %w", in.Role, in.Location, err)
	}
	in.Columns = cols
	return e.findHidden(ctx, in)
}

// pinSnapshot sets in.Snapshot to the Iceberg table's current snapshot
// (its main branch, $refs) unless snapshot: chose one, and records the
// snapshot's facts ($snapshots, $properties).
func (e *Engine) pinSnapshot(ctx context.Context, in *Input) error {
	data := struct{ Catalog, Schema, Table string }{in.Catalog, in.Schema, in.Table}
	if in.Snapshot == "" {
		rows, err := e.rawFile(ctx, queries.TrinoIcebergCurrent, data)
		if err != nil {
			return fmt.Errorf("the %s %s: its current snapshot: %w", in.Role, in.Location, err)
		}
		if len(rows) == 0 || rows[0][0] == nil {
			return fmt.Errorf("%w: the %s %s: the table has no snapshot (no main branch): nothing was ever committed to it", ErrRefused, in.Role, in.Location)
		}
		in.Snapshot, in.SnapshotBy = *rows[0][0], "current (main branch)"
	}
	rows, err := e.rawFile(ctx, queries.TrinoIcebergSnapshot, struct {
		Catalog, Schema, Table, Snapshot string
	}{in.Catalog, in.Schema, in.Table, in.Snapshot})
	if err != nil {
		return fmt.Errorf("the %s %s: snapshot %s: %w", in.Role, in.Location, in.Snapshot, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%w: the %s %s: the table has no snapshot %s", ErrRefused, in.Role, in.Location, in.Snapshot)
	}
	in.SnapshotFacts = map[string]string{"committed_at": str(rows[0][0]), "operation": str(rows[0][1]), "parent_id": str(rows[0][2]), "table_location": str(rows[0][3])}
	return nil
}

// columnsOf reads the columns of relation (a LIMIT 0 query: Trino's
// result types, as of a pinned snapshot's schema).
func (e *Engine) columnsOf(ctx context.Context, relation string) ([]Column, error) {
	q, err := statements().SQL(queries.TrinoColumns, struct{ Relation string }{relation})
	if err != nil {
		return nil, err
	}
	e.starting()
	rows, err := e.conn.QueryContext(ctx, q, e.callback(q)...)
	if err != nil {
		return nil, e.statementError(q, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, e.statementError(q, err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return nil, e.statementError(q, err)
	}
	out := make([]Column, len(types))
	for i, t := range types {
		tt := trinoType(t)
		out[i] = Column{Name: t.Name(), Trino: tt, DuckDB: duckType(tt)}
	}
	return out, nil
}

// trinoType is a result column's Trino type as SQL writes it: decimal(12,2),
// varchar, varchar(10), char(3), timestamp(6) with time zone, bigint, ….
func trinoType(t *sql.ColumnType) string {
	name := strings.ToLower(t.DatabaseTypeName())
	switch name {
	case "decimal":
		if p, s, ok := t.DecimalSize(); ok {
			return fmt.Sprintf("decimal(%d,%d)", p, s)
		}
	case "timestamp", "timestamp with time zone", "time", "time with time zone":
		if p, _, ok := t.DecimalSize(); ok {
			base, zone, _ := strings.Cut(name, " ")
			if zone != "" {
				return fmt.Sprintf("%s(%d) %s", base, p, zone)
			}
			return fmt.Sprintf("%s(%d)", base, p)
		}
	case "char", "varchar":
		if n, ok := t.Length(); ok && n > 0 && n < 1<<31-1 {
			return fmt.Sprintf("%s(%d)", name, n)
		}
	}
	return name
}

// typeArgs reads the precision of timestamp(p) or time(p) and the
// precision and scale of decimal(p,s).
var typeArgs = regexp.MustCompile(`^([a-z ]+?)(?:\((\d+)(?:,(\d+))?\))?( with time zone)?$`)

// duckType is the DuckDB type the values of Trino type t take in the
// evidence (the type an embedded run loads the same column as), "" when
// it has none that holds every value exactly (time with time zone,
// timestamps below the microsecond, nested types, …).
func duckType(t string) string {
	m := typeArgs.FindStringSubmatch(t)
	if m == nil {
		return ""
	}
	base, p, s, tz := m[1], m[2], m[3], m[4] != ""
	prec := 3
	if p != "" {
		prec, _ = strconv.Atoi(p)
	}
	switch base {
	case "boolean":
		return "BOOLEAN"
	case "tinyint":
		return "TINYINT"
	case "smallint":
		return "SMALLINT"
	case "integer":
		return "INTEGER"
	case "bigint":
		return "BIGINT"
	case "real":
		return "FLOAT"
	case "double":
		return "DOUBLE"
	case "decimal":
		if s == "" {
			s = "0"
		}
		return "DECIMAL(" + p + "," + s + ")"
	case "varchar":
		return "VARCHAR"
	case "date":
		return "DATE"
	case "timestamp":
		if prec > 6 {
			return ""
		}
		if tz {
			return "TIMESTAMP WITH TIME ZONE"
		}
		return "TIMESTAMP"
	case "time":
		if tz || prec > 6 {
			return ""
		}
		return "TIME"
	case "uuid":
		return "UUID"
	case "varbinary":
		return "BLOB"
	case "json":
		return "JSON"
	}
	return ""
}

// Fingerprint takes the fingerprint of input in: its rows and the
// checksum() of every column, in one statement over the relation as the
// checks read it (queries/trino/fingerprint.sql).
func (e *Engine) Fingerprint(ctx context.Context, in *Input) (*Fingerprint, error) {
	names := make([]string, len(in.Columns))
	for i, c := range in.Columns {
		names[i] = c.Name
	}
	rows, err := e.rawFile(ctx, queries.TrinoFingerprint, struct {
		Relation string
		Columns  []string
		RowText  string
	}{in.Relation(), names, rowText(in.Columns)})
	if err != nil {
		return nil, fmt.Errorf("the fingerprint of the %s %s: %w", in.Role, in.Location, err)
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("the fingerprint of the %s %s: %d rows", in.Role, in.Location, len(rows))
	}
	f := &Fingerprint{Checksums: map[string]string{}, QueryID: e.LastQueryID()}
	if _, err := fmt.Sscan(str(rows[0][0]), &f.Rows); err != nil {
		return nil, fmt.Errorf("the fingerprint of the %s %s: %w", in.Role, in.Location, err)
	}
	if len(rows[0]) != len(names)+2 {
		return nil, fmt.Errorf("the fingerprint of the %s %s: %d columns, want %d", in.Role, in.Location, len(rows[0]), len(names)+2)
	}
	for i, n := range names {
		f.Checksums[n] = strings.ToLower(str(rows[0][i+1]))
	}
	f.RowChecksum = strings.ToLower(str(rows[0][len(names)+1]))
	return f, nil
}

// Changed names, sorted, what differs between fingerprints f and g: "rows"
// when their counts differ, each column whose checksum differs, and "values
// moved between rows" when only the row checksum differs.
func (f *Fingerprint) Changed(g *Fingerprint) []string {
	var out []string
	if f.Rows != g.Rows {
		out = append(out, "rows")
	}
	var cols []string
	for k, v := range f.Checksums {
		if g.Checksums[k] != v {
			cols = append(cols, "column "+k)
		}
	}
	slices.Sort(cols)
	out = append(out, cols...)
	if len(out) == 0 && f.RowChecksum != g.RowChecksum {
		out = append(out, "values moved between rows (the row checksum)")
	}
	return out
}

// Same reports whether two fingerprints attest the same rows.
func (f *Fingerprint) Same(g *Fingerprint) bool {
	if f.Rows != g.Rows || f.RowChecksum != g.RowChecksum || len(f.Checksums) != len(g.Checksums) {
		return false
	}
	for k, v := range f.Checksums {
		if g.Checksums[k] != v {
			return false
		}
	}
	return true
}
