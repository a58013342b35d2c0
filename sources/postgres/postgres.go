package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

func init() {
	sources.Register("postgres", openPostgres, "postgresql")
}

// pgQueryFile is the __file value of rows read with a query (a table's rows
// carry the table name).
const pgQueryFile = "query"

// pgSource reads one PostgreSQL table or query (see the package doc).
type pgSource struct {
	loc      sources.Location
	connStr  string   // the URI or key=value string for pgx, without table/query
	table    []string // schema and name, unquoted; nil for a query
	query    string
	tableArg string // the table as the user wrote it, for messages
}

// openPostgres parses a postgres:// or postgresql:// URI (or, with the
// kind: postgres option, a key=value connection string) and the table: or
// query: option or URI parameter. Exactly one of table and query is
// required. It does no I/O: the connection string is parsed by pgx, which
// also reads the PG* environment variables and ~/.pgpass, only in Read.
func openPostgres(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("postgres", loc.Options)
	table := o.String("table", "")
	query := o.String("query", "")
	if err := o.Err(); err != nil {
		return nil, err
	}
	connStr, uTable, uQuery, err := splitPGURI(loc.URI)
	if err != nil {
		return nil, err
	}
	table, query, err = sqlserver.TableOrQuery(table, query, uTable, uQuery)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	switch {
	case table == "" && query == "" && !isPGURI(loc.URI):
		return nil, fmt.Errorf("%w: %s names no table: add table=schema.name (or query='SELECT …', quoted as libpq quotes a value with spaces) to the connection string, or table:/query: to the spec", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	case table == "" && query == "":
		return nil, fmt.Errorf("%w: %s names no table: add ?table=schema.name (or ?query=SELECT …) to the URI, or table:/query: to the spec", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	case table != "" && query != "":
		return nil, fmt.Errorf("%w: give a table or a query, not both", sources.ErrInvalidLocation)
	}
	s := &pgSource{loc: loc, connStr: connStr, tableArg: table}
	if table != "" {
		if s.table, err = ParseTableName(table); err != nil {
			return nil, err
		}
	} else {
		s.query = strings.TrimRight(query, "; \t\r\n")
	}
	return s, nil
}

// splitPGURI removes the table and query parameters from a postgres URI and
// returns them decoded (form encoding: %XX and + for a space). Other
// parameters (sslmode, …) are kept as written. From a key=value connection
// string ("host=h dbname=d table=s.t", "… query='SELECT 1 AS id'") the
// table and query settings are taken by libpq's rules (splitPGKeywords).
func splitPGURI(uri string) (conn, table, query string, err error) {
	if !isPGURI(uri) {
		return splitPGKeywords(uri)
	}
	base, raw, found := strings.Cut(uri, "?")
	if !found {
		return uri, "", "", nil
	}
	var keep []string
	for _, part := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(part, "=")
		key, kerr := url.QueryUnescape(k)
		if kerr != nil {
			return "", "", "", fmt.Errorf("%w: URI parameter %q: %w", sources.ErrInvalidLocation, sources.Redact(k), kerr)
		}
		switch key {
		case "table", "query":
			val, verr := url.QueryUnescape(v)
			if verr != nil {
				return "", "", "", fmt.Errorf("%w: URI parameter %s: %w (encode %% as %%25, & as %%26 and + as %%2B, or use the spec's long form)", sources.ErrInvalidLocation, key, verr)
			}
			if key == "table" {
				table = val
			} else {
				query = val
			}
		default:
			if part != "" {
				keep = append(keep, part)
			}
		}
	}
	conn = base
	if len(keep) > 0 {
		conn += "?" + strings.Join(keep, "&")
	}
	return conn, table, query, nil
}

// isPGURI reports whether uri is a postgres:// or postgresql:// URI (not a
// key=value connection string).
func isPGURI(uri string) bool {
	lower := strings.ToLower(uri)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// ParseTableName splits a table name as PostgreSQL reads it: "name" or
// "schema.name", each part either unquoted (folded to lower case) or
// double-quoted (kept exactly, "" standing for a quote). It returns the
// unquoted parts; errors wrap ErrInvalidLocation. The result is only ever
// put into SQL through pgx.Identifier.Sanitize, so no name injects SQL.
func ParseTableName(s string) ([]string, error) {
	parts, err := sqlserver.SplitTableName(s, sqlserver.TableNameRules{
		Quote:     '"',
		Fold:      strings.ToLower,
		Qualified: "schema.name",
		QuoteHint: `quote names with dots or capitals as "Name"`,
		TooMany:   "want schema.name or name (the database belongs in the URI)",
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	return parts, nil
}

func (s *pgSource) Close() error { return nil }

// label names the input in progress lines and messages: "sink
// public.ledger" or "source query".
func (s *pgSource) label() string {
	if s.table != nil {
		return s.loc.Role + " " + s.file()
	}
	return s.loc.Role + " " + pgQueryFile
}

// file is the __file value: the table as schema.name (quoted where
// PostgreSQL would need quotes), or "query".
func (s *pgSource) file() string {
	if s.table == nil {
		return pgQueryFile
	}
	parts := make([]string, len(s.table))
	for i, p := range s.table {
		parts[i] = p
		if !plainIdent(p) {
			parts[i] = pgx.Identifier{p}.Sanitize()
		}
	}
	return strings.Join(parts, ".")
}

// plainIdent reports whether PostgreSQL reads p unquoted as itself.
func plainIdent(p string) bool {
	for i, r := range p {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			return false
		}
	}
	return p != ""
}

// sql is the statement run to read the input.
func (s *pgSource) sql() (string, error) {
	if s.table != nil {
		return pgSQL(queries.PostgresReadTable, struct{ Table []string }{s.table})
	}
	return s.query, nil
}

// config parses the connection string (pgx also reads the PG* environment
// variables and ~/.pgpass here) and names the session "reconcile" unless
// the string names it. Errors wrap ErrInvalidLocation.
func (s *pgSource) config() (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(s.connStr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "reconcile"
	}
	return cfg, nil
}

// Schema returns the input's columns, in order, and the DuckDB types they
// load as, without reading a row: on a connection of its own, closed before
// it returns, the statement Read runs (for a table, SELECT * FROM it) is
// parsed and described (pgx's Prepare: the extended protocol's Parse and
// Describe, never Execute) and the result's type OIDs and modifiers are
// mapped as Read maps them (pgColumns, mapPGType). No transaction is begun:
// the read's REPEATABLE READ snapshot, and a snapshot shared through the
// run's Group, are taken later by Read alone. An unconstrained numeric has
// Type "": Read finds its scale with a pre-scan of the values in its
// snapshot, so its type is known only once loaded (the comparison is then
// planned after the load). Errors are those of Read for the same cause:
// ErrInvalidLocation for a connection string pgx cannot parse,
// ErrUnmappedType for a column type with no exact mapping (or
// ErrInvalidLocation for a duplicate or provenance column name), a
// *pgconn.PgError from the server (a missing table, SQLSTATE 42P01, names
// table, database and user), or ctx's error; none carries the password.
func (s *pgSource) Schema(ctx context.Context) (cols []sources.Column, err error) {
	defer func() {
		if err != nil {
			err = s.scrub(err)
		}
	}()
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	query, err := s.sql()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	sd, err := conn.PgConn().Prepare(ctx, "", query, nil)
	if err != nil {
		details := map[string]any{"database": cfg.Database, "user": cfg.User}
		if q, qerr := pgSQL(queries.PostgresSession, nil); qerr == nil {
			var db, user string
			if conn.QueryRow(ctx, q).Scan(&db, &user) == nil {
				details["database"], details["user"] = db, user
			}
		}
		return nil, s.queryError(details, err)
	}
	pc, err := pgColumns(ctx, conn, sd.Fields)
	if err != nil {
		return nil, err
	}
	out := make([]sources.Column, len(pc))
	for i, c := range pc {
		out[i] = sources.Column{Name: c.Name}
		if !c.numeric {
			out[i].Type = sqlserver.EngineType(c.Arrow)
		}
	}
	return out, nil
}

// Read connects, opens a REPEATABLE READ READ ONLY transaction, records the
// server version, snapshot and WAL position, and checks that every column
// has a mapped type, all before any row is read; the records then stream
// the rows in binary format, decoded straight into Arrow builders. The
// connection is closed when the records end or are released. Errors:
// ErrInvalidLocation for a connection string pgx cannot parse, and
// ErrUnmappedType (which wraps it) for a column type with no exact mapping;
// otherwise a *pgconn.PgError from the server (a missing table is SQLSTATE
// 42P01; the message names table, database and user), a value with no exact
// representation (the message names row, column and value), or ctx's error.
// No error or Input carries the password.
func (s *pgSource) Read(ctx context.Context) (in *sources.Input, records array.RecordReader, err error) {
	defer func() {
		if err != nil {
			err = s.scrub(err)
		}
	}()
	cfg, err := s.config()
	if err != nil {
		return nil, nil, err
	}
	// A larger read buffer in front of pgx's 8 KiB chunk reader saves
	// system calls on long results.
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		return pgproto3.NewFrontend(bufio.NewReaderSize(r, 256<<10), w)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	closeConn := func() { conn.Close(context.WithoutCancel(ctx)) }
	reading := false
	defer func() {
		if !reading {
			closeConn()
		}
	}()

	tx, details, exp, err := s.pgBegin(ctx, conn, cfg)
	if err != nil {
		return nil, nil, err
	}
	details["host"] = cfg.Host
	details["port"] = cfg.Port
	details["isolation"] = "REPEATABLE READ, READ ONLY"
	query, err := s.sql()
	if err != nil {
		return nil, nil, err
	}
	details["sql"] = query

	sd, err := conn.PgConn().Prepare(ctx, "", query, nil)
	if err != nil {
		return nil, nil, s.queryError(details, err)
	}
	cols, err := pgColumns(ctx, tx, sd.Fields)
	if err != nil {
		return nil, nil, err
	}
	scan, err := prescanSQL(query, cols, pgMajor(conn.PgConn().ParameterStatus("server_version")) >= 13)
	if err != nil {
		return nil, nil, err
	}
	if scan != "" {
		details["prescan_sql"] = scan
		if err := prescan(ctx, tx, scan, cols); err != nil {
			if pgHiddenRows(err) {
				err = s.queryError(details, err)
			}
			return nil, nil, err
		}
	}
	details["columns"] = columnEvidence(cols)

	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Arrow, Nullable: true}
	}
	file := s.file()
	records, err = sources.ReadRows(ctx, fields, sources.ReadOptions{Progress: s.loc.Progress, Label: "reading " + s.label()}, func(ctx context.Context, w *sources.RowWriter) error {
		err := pgFill(ctx, conn.PgConn(), query, cols, file, w)
		switch {
		case err != nil || exp == nil:
			closeConn() // which ends the read-only transaction
		default:
			// The exported snapshot lives as long as this transaction:
			// the run's Group ends it once every input is loaded.
			release := func() error { closeConn(); return nil }
			s.loc.Group.Put(pgServerKey(cfg), exp, nil)
			err = s.loc.Group.Put(pgSnapshotKey(cfg), exp, release)
		}
		if err != nil {
			return s.scrub(s.queryError(details, err))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	reading = true
	in = &sources.Input{Role: s.loc.Role, Kind: "postgres", Location: sources.Redact(s.loc.URI), Details: details}
	if s.table != nil && sd.Fields[0].TableOID != 0 {
		in.Relation = fmt.Sprintf("postgres %s:%d %v relation %d", cfg.Host, cfg.Port, details["database"], sd.Fields[0].TableOID)
	}
	return in, records, nil
}

// pgEvidence pins the read's settings (row_security off and TimeZone UTC,
// SET LOCAL: pin_row_security.sql, pin_time_zone.sql; utility statements,
// which take no snapshot), then runs the transaction's first query, which
// fixes its snapshot, and returns what an auditor needs to say "as of
// what" the rows were read: server_version, database, user, snapshot
// (pg_current_snapshot()), transaction_started_at (UTC, RFC 3339), wal_lsn
// (pg_current_wal_lsn(), or pg_last_wal_replay_lsn() on a standby),
// row_security ("off") and session_time_zone ("UTC"). When the WAL
// position cannot be read (permission, or no WAL on a standby), wal_lsn is
// omitted and wal_lsn_unavailable says why.
func pgEvidence(ctx context.Context, tx pgx.Tx) (map[string]any, error) {
	for _, id := range []string{"pin_row_security", "pin_time_zone"} {
		if err := pgExec(ctx, tx, id); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
	}
	var version, db, user, snapshot string
	var started time.Time
	var recovery bool
	asOf, err := pgSQL(queries.PostgresAsOf, nil)
	if err != nil {
		return nil, err
	}
	err = tx.QueryRow(ctx, asOf).Scan(&version, &db, &user, &snapshot, &started, &recovery)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	d := map[string]any{
		"server_version":         version,
		"database":               db,
		"user":                   user,
		"snapshot":               snapshot,
		"transaction_started_at": started.UTC().Format(time.RFC3339Nano),
		"in_recovery":            recovery,
		"row_security":           "off",
		"session_time_zone":      "UTC",
	}
	fn := "pg_current_wal_lsn()"
	if recovery {
		fn = "pg_last_wal_replay_lsn()"
	}
	d["wal_lsn_function"] = fn
	if err := pgExec(ctx, tx, "savepoint"); err != nil {
		return nil, fmt.Errorf("savepoint: %w", err)
	}
	walSQL, err := pgSQL(queries.PostgresWALLSN, struct{ Standby bool }{recovery})
	if err != nil {
		return nil, err
	}
	var lsn *string
	if err := tx.QueryRow(ctx, walSQL).Scan(&lsn); err != nil {
		d["wal_lsn_unavailable"] = err.Error()
		if rerr := pgExec(ctx, tx, "rollback_to_savepoint"); rerr != nil {
			return nil, fmt.Errorf("after %s failed (%v): %w", fn, err, rerr)
		}
	} else if lsn == nil {
		d["wal_lsn_unavailable"] = fn + " returned NULL"
	} else {
		d["wal_lsn"] = *lsn
	}
	if err := pgExec(ctx, tx, "release_savepoint"); err != nil {
		return nil, fmt.Errorf("release savepoint: %w", err)
	}
	return d, nil
}

// pgQuerier runs a query: the read's transaction (pgx.Tx), or Schema's
// connection outside any transaction (*pgx.Conn).
type pgQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pgColumns maps the result columns of a prepared statement. A column whose
// type is not mapped, a duplicate name or a provenance name is an error
// naming the column; nothing has been read yet.
func pgColumns(ctx context.Context, tx pgQuerier, fields []pgconn.FieldDescription) ([]pgColumn, error) {
	if len(fields) == 0 {
		return nil, errors.New("the statement returns no columns")
	}
	oids := make([]uint32, len(fields))
	mods := make([]int32, len(fields))
	for i, f := range fields {
		oids[i], mods[i] = f.DataTypeOID, f.TypeModifier
	}
	names := make([]string, 0, len(fields))
	typesSQL, err := pgSQL(queries.PostgresColumnTypes, nil)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, typesSQL, oids, mods)
	if err != nil {
		return nil, fmt.Errorf("column types: %w", err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("column types: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(names) != len(fields) {
		return nil, fmt.Errorf("column types: %d names for %d columns: %v", len(names), len(fields), err)
	}
	cols := make([]pgColumn, len(fields))
	seen := map[string]bool{}
	var bad []string
	for i, f := range fields {
		c := pgColumn{Name: string(f.Name), OID: f.DataTypeOID, TypMod: f.TypeModifier, PGType: names[i]}
		switch {
		case seen[c.Name]:
			return nil, fmt.Errorf("%w: the result has two columns named %q; give them distinct names (SELECT a.x AS a_x, …)", sources.ErrInvalidLocation, c.Name)
		case c.Name == sources.FileColumn || c.Name == sources.LineColumn || c.Name == sources.RowColumn:
			return nil, fmt.Errorf("%w: column name %q is reserved for provenance; rename it in a query", sources.ErrInvalidLocation, c.Name)
		}
		seen[c.Name] = true
		if err := sources.CaseClash(pgFieldNames(fields[:i+1])); err != nil {
			return nil, fmt.Errorf("%w; give them distinct names in a query (SELECT \"AMOUNT\" AS amount_upper, …)", err)
		}
		t, ok := mapPGType(c.OID, c.TypMod)
		if !ok {
			bad = append(bad, fmt.Sprintf("column %s has type %s", c.Name, c.PGType))
			continue
		}
		c.Arrow = t
		c.numeric = c.OID == oidNumeric && c.TypMod < 4
		cols[i] = c
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s, which reconcile cannot load exactly; read it through a query that casts it (query: SELECT …, col::text AS col FROM …)", ErrUnmappedType, strings.Join(bad, "; "))
	}
	return cols, nil
}

// pgFieldNames are the names of a result's columns.
func pgFieldNames(fields []pgconn.FieldDescription) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = string(f.Name)
	}
	return out
}

// ErrUnmappedType is returned by Read when a PostgreSQL column has a type
// with no exact mapping (see the package doc). The message names every such
// column and its type; nothing has been read. It wraps ErrInvalidLocation:
// the location must change (a query that casts the column), so it is a
// usage error.
var ErrUnmappedType = fmt.Errorf("%w: unmapped PostgreSQL type", sources.ErrInvalidLocation)

// prescanSQL is the statement that finds the scale of every unconstrained
// numeric column of query ("" when there is none), run in the same snapshot
// before the rows are read: the largest number of fraction digits a value
// needs, trailing zeros not counted (PostgreSQL keeps them: 1.000 has scale
// 3 and needs none). minScale says the server has min_scale (PostgreSQL
// 13 and later); else the digits are counted in the values' text.
func prescanSQL(query string, cols []pgColumn, minScale bool) (string, error) {
	var names []string
	for _, c := range cols {
		if c.numeric {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	return pgSQL(queries.PostgresPrescan, struct {
		Columns  []string
		Query    string
		MinScale bool
	}{names, query, minScale})
}

// pgMajor is the major version in a server_version parameter ("15.18
// (Debian 15.18-0+deb12u1)" is 15, "9.6.24" is 9), 0 when it has none.
func pgMajor(version string) int {
	end := 0
	for end < len(version) && version[end] >= '0' && version[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(version[:end])
	return n
}

// prescan sets the decimal128 type of every unconstrained numeric column to
// (38, s), s being the largest scale any of its values needs (prescanSQL:
// trailing zeros dropped). A column needing more than 38 fraction digits is
// an error; a value with more than 38-s integer digits is reported, with its
// row, when it is read.
func prescan(ctx context.Context, tx pgx.Tx, scan string, cols []pgColumn) error {
	var idx []int
	for i, c := range cols {
		if c.numeric {
			idx = append(idx, i)
		}
	}
	scales := make([]*int32, len(idx))
	dest := make([]any, len(idx))
	for i := range scales {
		dest[i] = &scales[i]
	}
	if err := tx.QueryRow(ctx, scan).Scan(dest...); err != nil {
		return fmt.Errorf("find the scale of unconstrained numeric columns: %w", err)
	}
	for j, i := range idx {
		s := int32(0)
		if scales[j] != nil {
			s = *scales[j]
		}
		if s > sqlserver.MaxDecimalDigits {
			return fmt.Errorf("%w: column %s (numeric) has values with %d fraction digits; an exact decimal holds at most %d digits", errPGValue, cols[i].Name, s, sqlserver.MaxDecimalDigits)
		}
		cols[i].Arrow = sqlserver.DecimalType(sqlserver.MaxDecimalDigits, s)
	}
	return nil
}

// sameColumns checks that the executed statement returns the columns that
// were described and mapped.
func sameColumns(fields []pgconn.FieldDescription, cols []pgColumn) error {
	if len(fields) != len(cols) {
		return fmt.Errorf("the statement returned %d columns, %d when described", len(fields), len(cols))
	}
	for i, f := range fields {
		if f.DataTypeOID != cols[i].OID || string(f.Name) != cols[i].Name {
			return fmt.Errorf("column %d changed between describe and execute (%s %d, then %s %d)", i+1, cols[i].Name, cols[i].OID, f.Name, f.DataTypeOID)
		}
	}
	return nil
}

// columnEvidence lists each column's PostgreSQL type and the Arrow type it
// was read as.
func columnEvidence(cols []pgColumn) []map[string]string {
	out := make([]map[string]string, len(cols))
	for i, c := range cols {
		out[i] = map[string]string{"name": c.Name, "pg_type": c.PGType, "arrow_type": c.Arrow.String()}
	}
	return out
}

// queryError adds who was asking, and where, to a server error, so "relation
// does not exist" says which database and user looked.
func (s *pgSource) queryError(details map[string]any, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" && s.table != nil {
		return fmt.Errorf("table %s not found in database %v (as user %v, search_path applies to a name without schema): %w", s.tableArg, details["database"], details["user"], err)
	}
	if pgHiddenRows(err) {
		return fmt.Errorf("postgres %s in database %v as user %v: a row-level security policy would hide rows from this role, and reconcile reads every row (row_security = off): read as a role that bypasses it (the table's owner or a role with BYPASSRLS), or name the rows wanted in a query input: %w", s.file(), details["database"], details["user"], err)
	}
	return fmt.Errorf("postgres %s in database %v as user %v: %w", s.file(), details["database"], details["user"], err)
}

// pgHiddenRows reports whether err is PostgreSQL's refusal of a statement
// that a row-level security policy would filter while row_security is off
// (SQLSTATE 42501, "query would be affected by row-level security
// policy for table …").
func pgHiddenRows(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501" && strings.Contains(pe.Message, "row-level security")
}

// scrub removes the password of the connection string from an error
// message, in case a driver echoes it.
func (s *pgSource) scrub(err error) error {
	return sqlserver.Scrub(err, pgPassword(s.connStr))
}

// pgPassword is the password written in a connection string, if any.
func pgPassword(conn string) string {
	if u, err := url.Parse(conn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			return pw
		}
	}
	for _, f := range strings.Fields(conn) {
		if k, v, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "password") {
			return strings.Trim(v, "'")
		}
	}
	return ""
}
