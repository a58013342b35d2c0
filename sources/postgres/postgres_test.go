package postgres_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
	_ "github.com/reconcile-dev/reconcile/sources/all" // the csv kind reads the expected values
	"github.com/reconcile-dev/reconcile/sources/postgres"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// pgLoad opens loc and loads it as table t of a fresh DuckDB session.
func pgLoad(t *testing.T, loc sources.Location) (*duck.DB, *sources.Input, error) {
	t.Helper()
	pgtest.Connect(t) // skip (or fail under RECONCILE_REQUIRE_PG=1) without a server
	ctx := context.Background()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if loc.Role == "" {
		loc.Role = "sink"
	}
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer src.Close()
	in, err := load.Table(ctx, db, "t", src)
	return db, in, err
}

// pgTypesTable creates testdata/types.sql in a schema of the test's
// own and returns the schema.
func pgTypesTable(t *testing.T) string {
	t.Helper()
	schema, conn := pgtest.Schema(t)
	sql, err := os.ReadFile(filepath.Join("testdata", "types.sql"))
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, conn, "SET search_path TO "+pgx.Identifier{schema}.Sanitize())
	pgtest.Exec(t, conn, string(sql))
	return schema
}

func TestPostgresConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T, dir string) sources.Location {
		schema, conn := pgtest.Schema(t)
		pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %s.fixture (entry_id text, account text, amount numeric(20,2))`, schema))
		rows := make([][]any, len(sourcetest.Fixture().Rows))
		for i, r := range sourcetest.Fixture().Rows {
			rows[i] = []any{r[0], r[1], r[2]}
		}
		// COPY, in the fixture's order: a table without ORDER BY returns a
		// freshly loaded heap in insertion order.
		if _, err := conn.CopyFrom(context.Background(), pgx.Identifier{schema, "fixture"}, sourcetest.Fixture().Columns, pgx.CopyFromRows(rows)); err != nil {
			t.Fatal(err)
		}
		return sources.Location{Role: "sink", URI: pgtest.TableURL(schema, "fixture")}
	})
}

// Every mapped type's edge values, loaded from PostgreSQL, equal the same
// values written as text in types.csv and cast by DuckDB; and each column
// has the DuckDB type of the package doc's mapping.
func TestPostgresTypesRoundTrip(t *testing.T) {
	schema := pgTypesTable(t)
	ctx := context.Background()
	db, in, err := pgLoad(t, sources.Location{URI: pgtest.TableURL(schema, "types")})
	if err != nil {
		t.Fatal(err)
	}
	csvSrc, err := sources.Open(sources.Location{Role: "source", URI: filepath.Join("testdata", "types.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := load.Table(ctx, db, "c", csvSrc); err != nil {
		t.Fatal(err)
	}
	// column → DuckDB type of the PostgreSQL load, and the expression that
	// turns the CSV's text ({}) into that type.
	want := []struct{ col, typ, fromText string }{
		{"id", "INTEGER", "CAST({} AS INTEGER)"},
		{"i2", "SMALLINT", "CAST({} AS SMALLINT)"},
		{"i4", "INTEGER", "CAST({} AS INTEGER)"},
		{"i8", "BIGINT", "CAST({} AS BIGINT)"},
		{"n182", "DECIMAL(18,2)", "CAST({} AS DECIMAL(18,2))"},
		{"n3810", "DECIMAL(38,10)", "CAST({} AS DECIMAL(38,10))"},
		{"nu", "DECIMAL(38,10)", "CAST({} AS DECIMAL(38,10))"},
		{"nneg", "DECIMAL(7,0)", "CAST({} AS DECIMAL(7,0))"},
		{"nsmall", "DECIMAL(5,5)", "CAST({} AS DECIMAL(5,5))"},
		{"f4", "FLOAT", "CAST({} AS FLOAT)"},
		{"f8", "DOUBLE", "CAST({} AS DOUBLE)"},
		{"t", "VARCHAR", "{}"},
		{"vc", "VARCHAR", "{}"},
		{"c", "VARCHAR", "{}"},
		{"b", "BOOLEAN", "CAST({} AS BOOLEAN)"},
		{"d", "DATE", "CAST({} AS DATE)"},
		{"ts", "TIMESTAMP", "CAST({} AS TIMESTAMP)"},
		{"tstz", "TIMESTAMP WITH TIME ZONE", "CAST({} AS TIMESTAMPTZ)"},
		{"u", "VARCHAR", "{}"},
		{"j", "VARCHAR", "{}"},
		{"jb", "VARCHAR", "{}"},
		{"by", "BLOB", "unhex({})"},
	}
	if len(in.Columns) != len(want) {
		t.Fatalf("loaded columns %v, want %d", in.Columns, len(want))
	}
	for i, w := range want {
		if got := in.Columns[i]; got.Name != w.col || got.Type != w.typ {
			t.Errorf("column %d = %s %s, want %s %s", i, got.Name, got.Type, w.col, w.typ)
		}
		expr := strings.ReplaceAll(w.fromText, "{}", "c."+duck.Ident(w.col))
		q := fmt.Sprintf(`SELECT c.id, CAST(c.%[1]s AS VARCHAR), CAST(t.%[1]s AS VARCHAR) FROM c FULL JOIN t ON CAST(c.id AS INTEGER) = t.id
WHERE %[2]s IS DISTINCT FROM t.%[1]s`, duck.Ident(w.col), expr)
		_, rows, err := db.Strings(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", w.col, err)
		}
		for _, r := range rows {
			t.Errorf("column %s, id %s: PostgreSQL loaded %s, CSV says %s", w.col, pgStr(r[0]), pgStr(r[2]), pgStr(r[1]))
		}
	}
	if in.Rows != 4 {
		t.Errorf("Rows = %d, want 4", in.Rows)
	}
	// Sums are exact (never through float64): DuckDB adds the loaded decimals.
	_, rows, err := db.Strings(ctx, `SELECT sum(i8::HUGEINT), sum(n182), sum(n3810), sum(nu) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"-1", "0.00", "0.0000000001", "1234567890123456789012345677.6234567889"} {
		if got := pgStr(rows[0][i]); got != w {
			t.Errorf("sum %d = %s, want %s", i, got, w)
		}
	}
	// Provenance: __file is the table, __line the 1-based row.
	n, err := db.Count(ctx, fmt.Sprintf(`SELECT count(*) FROM t WHERE __file = '%s.types' AND __line = __row + 1`, schema))
	if err != nil || n != 4 {
		t.Errorf("provenance rows = %d (%v), want 4", n, err)
	}
}

// Empty text and empty bytea stay empty, not NULL; char(n) keeps its
// padding; NULL stays NULL.
func TestPostgresEmptyAndNull(t *testing.T) {
	ctx := context.Background()
	db, _, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": `SELECT ''::text AS t, ''::bytea AS b, 'x'::char(3) AS c, NULL::text AS n, NULL::numeric(5,1) AS m`}})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := db.Strings(ctx, `SELECT t IS NULL, length(t), b IS NULL, octet_length(b), c, n IS NULL, m IS NULL FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows[0]))
	for i, v := range rows[0] {
		got[i] = pgStr(v)
	}
	if want := "false 0 false 0 x   true true"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}

// Values with no exact Arrow form stop the load with an error naming the
// column, the row and the value, and leave no table behind.
func TestPostgresValueErrors(t *testing.T) {
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"NaN", `SELECT * FROM (VALUES (1, 1.5::numeric), (2, 'NaN'::numeric)) AS v(id, amount)`, []string{"query:2", "column amount", "NaN"}},
		{"Infinity", `SELECT * FROM (VALUES (1, 'Infinity'::numeric)) AS v(id, amount)`, []string{"query:1", "column amount", "Infinity"}},
		{"server error", `SELECT 'Infinity'::numeric(10,2) AS amount`, []string{"numeric field overflow"}},
		{"minus infinity", `SELECT '-Infinity'::numeric AS amount`, []string{"column amount", "-Infinity"}},
		{"39 digits", `SELECT 123456789012345678901234567890123456789::numeric AS big`, []string{"column big", "123456789012345678901234567890123456789", "more than 38 digits"}},
		{"precision above 38", `SELECT 1234567890123456789012345678901234567890::numeric(40,0) AS big`, []string{"column big", "numeric(40,0)", "1234567890123456789012345678901234567890"}},
		{"scale above 38", `SELECT 0.000000000000000000000000000000000000001::numeric AS tiny`, []string{"column tiny", "39 fraction digits"}},
		{"date infinity", `SELECT 'infinity'::date AS d`, []string{"column d", "infinity"}},
		{"timestamptz minus infinity", `SELECT '-infinity'::timestamptz AS ts`, []string{"column ts", "-infinity"}},
		// the microsecond DuckDB keeps for its own 'infinity': not a
		// calendar value there, so refused at the load, not read as one
		{"timestamp at DuckDB's infinity", `SELECT timestamp '294247-01-10 04:00:54.775807' AS ts`, []string{"column ts", "out of range"}},
		{"timestamptz at DuckDB's infinity", `SELECT timestamptz '294247-01-10 04:00:54.775807+00' AS ts`, []string{"column ts", "out of range"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, _, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{"query": tt.query}})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if n, _ := db.Count(context.Background(), `SELECT count(*) FROM information_schema.tables WHERE table_name = 't'`); n != 0 {
				t.Error("a failed load left table t behind")
			}
		})
	}
}

// A type with no mapping is refused before any row is read, naming every
// such column.
func TestPostgresUnmappedType(t *testing.T) {
	_, _, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": `SELECT 1 AS id, interval '1 day' AS wait, ARRAY[1,2] AS list, 'NaN'::numeric AS never_read`}})
	if !errors.Is(err, postgres.ErrUnmappedType) {
		t.Fatalf("err = %v, want ErrUnmappedType", err)
	}
	for _, w := range []string{"column wait has type interval", "column list has type integer[]"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "NaN") {
		t.Errorf("error %q: a row was read before the types were checked", err)
	}
}

func TestPostgresOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		loc  sources.Location
	}{
		{"no table", sources.Location{URI: "postgres://h/db"}},
		{"table and query", sources.Location{URI: "postgres://h/db?table=a&query=SELECT+1"}},
		{"table twice", sources.Location{URI: "postgres://h/db?table=a", Options: map[string]any{"table": "b"}}},
		{"three parts", sources.Location{URI: "postgres://h/db?table=a.b.c"}},
		{"unterminated quote", sources.Location{URI: `postgres://h/db?table="a`}},
		{"empty part", sources.Location{URI: "postgres://h/db?table=a."}},
		{"unknown option", sources.Location{URI: "postgres://h/db?table=a", Options: map[string]any{"delimiter": ";"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.loc.Role = "sink"
			_, err := sources.Open(tt.loc)
			if !errors.Is(err, sources.ErrInvalidLocation) {
				t.Errorf("Open(%q, %v) = %v, want ErrInvalidLocation", tt.loc.URI, tt.loc.Options, err)
			}
		})
	}
}

func TestParseTableName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ledger", []string{"ledger"}},
		{"Public.Ledger", []string{"public", "ledger"}},
		{`"My Schema"."Tab.le"`, []string{"My Schema", "Tab.le"}},
		{`s."a""b"`, []string{"s", `a"b`}},
		{`x"; DROP TABLE y; --`, nil},
	}
	for _, tt := range tests {
		got, err := postgres.ParseTableName(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("ParseTableName(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("ParseTableName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// A table name is an identifier, never SQL: a quoted name holding SQL is
// looked up as a (missing) table and the statement in it does not run.
func TestPostgresTableNameIsNotSQL(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf("CREATE TABLE %s.victim (id int)", schema))
	name := fmt.Sprintf(`%s."victim; DROP TABLE %s.victim; --"`, schema, schema)
	_, _, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{"table": name}})
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("err = %v, want undefined_table (42P01)", err)
	}
	var n int
	if err := conn.QueryRow(context.Background(), fmt.Sprintf("SELECT count(*) FROM %s.victim", schema)).Scan(&n); err != nil {
		t.Fatalf("table victim is gone: %v", err)
	}
}

// A missing table is a runtime error that says which table, database and
// user; it is not a usage error.
func TestPostgresMissingTable(t *testing.T) {
	schema, _ := pgtest.Schema(t)
	_, _, err := pgLoad(t, sources.Location{URI: pgtest.TableURL(schema, "nope")})
	if err == nil {
		t.Fatal("Load of a missing table succeeded")
	}
	if !strings.Contains(err.Error(), schema+".nope not found in database") {
		t.Errorf("error %q does not name the table", err)
	}
	if errors.Is(err, sources.ErrInvalidLocation) || errors.Is(err, sources.ErrUnknownKind) {
		t.Errorf("error %q is a usage error; a missing table is a runtime error", err)
	}
}

// The snapshot, WAL position, server version and exact SQL are recorded.
func TestPostgresDetails(t *testing.T) {
	schema := pgTypesTable(t)
	_, in, err := pgLoad(t, sources.Location{URI: pgtest.TableURL(schema, "types")})
	if err != nil {
		t.Fatal(err)
	}
	d := in.Details
	if got, want := d["sql"], fmt.Sprintf(`SELECT * FROM "%s"."types"`, schema); got != want {
		t.Errorf("sql = %v, want %s", got, want)
	}
	if d["isolation"] != "REPEATABLE READ, READ ONLY" {
		t.Errorf("isolation = %v", d["isolation"])
	}
	for _, k := range []string{"server_version", "snapshot", "database", "user", "transaction_started_at"} {
		if s, _ := d[k].(string); s == "" {
			t.Errorf("details[%s] is empty: %v", k, d)
		}
	}
	if _, ok := d["wal_lsn"]; !ok {
		if _, why := d["wal_lsn_unavailable"]; !why {
			t.Errorf("neither wal_lsn nor wal_lsn_unavailable in %v", d)
		}
	}
	if in.Kind != "postgres" || in.Rows != 4 {
		t.Errorf("Kind %s Rows %d", in.Kind, in.Rows)
	}
}

// A query in the URI (form-encoded) is run as written; a computed numeric
// without typmod gets the scale its values need.
func TestPostgresQueryParameter(t *testing.T) {
	schema := pgTypesTable(t)
	q := fmt.Sprintf("SELECT id, n182 * 2 AS doubled FROM %s.types WHERE id <= 2 ORDER BY id", schema)
	uri := pgtest.URL()
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	uri += sep + "query=" + strings.NewReplacer("%", "%25", "&", "%26", "+", "%2B", " ", "+", "*", "%2A").Replace(q)
	db, in, err := pgLoad(t, sources.Location{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if in.Details["sql"] != q {
		t.Errorf("sql = %q, want %q", in.Details["sql"], q)
	}
	_, rows, err := db.Strings(context.Background(), "SELECT id, doubled, typeof(doubled), __file FROM t ORDER BY __row")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(derefs(rows))
	if want := "[[1 -19999999999999999.98 DECIMAL(38,2) query] [2 19999999999999999.98 DECIMAL(38,2) query]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

// The password of the URI appears nowhere: not in Input, not in errors.
func TestPostgresPasswordRedacted(t *testing.T) {
	const pw = "S3cr3t-pw-42"
	schema, conn := pgtest.Schema(t)
	role := schema + "_role"
	pgtest.Exec(t, conn, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, pw))
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	pgtest.Exec(t, conn, fmt.Sprintf("CREATE TABLE %s.t (id int); GRANT USAGE ON SCHEMA %s TO %s; GRANT SELECT ON %s.t TO %s", schema, schema, role, schema, role))
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("postgres://%s:%s@%s:%d/%s", role, pw, cfg.Host, cfg.Port, cfg.Database)
	_, in, err := pgLoad(t, sources.Location{URI: base + "?table=" + schema + ".t"})
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("%+v", *in); strings.Contains(s, pw) {
		t.Errorf("Input holds the password: %s", s)
	}
	// Errors: a missing table, and a server that refuses the connection.
	for _, uri := range []string{base + "?table=" + schema + ".missing", fmt.Sprintf("postgres://%s:%s@127.0.0.1:1/db?table=t&connect_timeout=2", role, pw)} {
		_, _, err := pgLoad(t, sources.Location{URI: uri})
		if err == nil {
			t.Fatalf("load of %s succeeded", sources.Redact(uri))
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error holds the password: %v", err)
		}
	}
	if r := sources.Redact(base + "?table=x&password=" + pw); strings.Contains(r, pw) {
		t.Errorf("Redact left the password: %s", r)
	}
}

// Progress goes to Location.Progress as one summary line when it is not a
// terminal.
func TestPostgresProgressLine(t *testing.T) {
	var buf bytes.Buffer
	_, _, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Progress: &buf, Options: map[string]any{
		"query": "SELECT i FROM generate_series(1, 100000) AS i"}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "reading sink query: 100000 rows in ") || !strings.Contains(out, "rows/s") {
		t.Errorf("progress output %q, want one summary line", out)
	}
}

// More rows than one batch keep their order and provenance across batches.
func TestPostgresManyBatches(t *testing.T) {
	ctx := context.Background()
	db, in, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": "SELECT i AS id, (i / 100.0)::numeric(12,2) AS amount FROM generate_series(1, 200000) AS i ORDER BY i"}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 200000 {
		t.Fatalf("Rows = %d", in.Rows)
	}
	n, err := db.Count(ctx, "SELECT count(*) FROM t WHERE id = __line AND __line = __row + 1")
	if err != nil || n != 200000 {
		t.Errorf("rows in order = %d (%v), want 200000", n, err)
	}
	_, rows, err := db.Strings(ctx, "SELECT sum(amount) FROM t")
	if err != nil || pgStr(rows[0][0]) != "200001000.00" {
		t.Errorf("sum = %v (%v), want 200001000.00", derefs(rows), err)
	}
}

// A context cancelled in the middle of a long result stops the load
// promptly and leaves no table.
func TestPostgresCancelMidway(t *testing.T) {
	pgtest.Connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := sources.Open(sources.Location{Role: "sink", URI: pgtest.URL(), Options: map[string]any{
		"query": "SELECT generate_series(1, 200000000) AS i"}})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(500*time.Millisecond, cancel)
	t0 := time.Now()
	_, err = load.Table(ctx, db, "t", src)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("cancelled load took %s to stop", d)
	}
	if n, _ := db.Count(context.Background(), `SELECT count(*) FROM information_schema.tables WHERE table_name = 't'`); n != 0 {
		t.Error("a cancelled load left table t behind")
	}
}

func pgStr(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

func derefs(rows [][]*string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = pgStr(v)
		}
	}
	return out
}

// What the URI leaves out comes from the PG* environment variables, and a
// key=value connection string works with the postgres: prefix.
func TestPostgresEnvironmentAndKeyValue(t *testing.T) {
	schema := pgTypesTable(t)
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("PG variables", func(t *testing.T) {
		t.Setenv("PGHOST", cfg.Host)
		t.Setenv("PGPORT", fmt.Sprint(cfg.Port))
		t.Setenv("PGUSER", cfg.User)
		t.Setenv("PGDATABASE", cfg.Database)
		_, in, err := pgLoad(t, sources.Location{URI: "postgres://?table=" + schema + ".types"})
		if err != nil {
			t.Fatal(err)
		}
		if in.Rows != 4 || in.Details["database"] != cfg.Database {
			t.Errorf("rows %d, database %v", in.Rows, in.Details["database"])
		}
	})
	t.Run("key=value", func(t *testing.T) {
		dsn := fmt.Sprintf("postgres:host=%s port=%d user=%s dbname=%s table=%s.types", cfg.Host, cfg.Port, cfg.User, cfg.Database, schema)
		_, in, err := pgLoad(t, sources.Location{URI: dsn})
		if err != nil {
			t.Fatal(err)
		}
		if in.Rows != 4 {
			t.Errorf("rows %d", in.Rows)
		}
	})
}

// A query ending in a comment or semicolon works, also when an unconstrained
// numeric needs the pre-scan that wraps it.
func TestPostgresQueryWithComment(t *testing.T) {
	db, in, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": "SELECT 1.25::numeric AS x -- the amount\n;\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Details["prescan_sql"], "SELECT max(min_scale(\"x\")) FROM (\nSELECT 1.25::numeric AS x -- the amount\n) AS reconcile_prescan"; got != want {
		t.Errorf("prescan_sql %q, want %q", got, want)
	}
	_, rows, err := db.Strings(context.Background(), "SELECT x, typeof(x) FROM t")
	if err != nil || fmt.Sprint(derefs(rows)) != "[[1.25 DECIMAL(38,2)]]" {
		t.Errorf("rows %v (%v)", derefs(rows), err)
	}
}

// Thousands of numerics of every sign, size and scale decode to exactly the
// value PostgreSQL prints, as numeric(38,10) and as unconstrained numeric.
func TestPostgresNumericsMatchServerText(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, "SELECT setseed(0.3)")
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.n AS
SELECT i, v AS free, v::numeric(38,10) AS fixed, v::text AS txt
FROM (SELECT i, round(((random() - 0.5) * 10 ^ (random() * 27)::int)::numeric, (random() * 10)::int) AS v
      FROM generate_series(1, 20000) AS i) AS q;
INSERT INTO %[1]s.n VALUES (0, 0, 0, '0'), (-1, -0.0000000001, -0.0000000001, '-0.0000000001'),
  (-2, 99999999999999999999999999.9999999999, 99999999999999999999999999.9999999999, '99999999999999999999999999.9999999999')`, schema))
	db, in, err := pgLoad(t, sources.Location{URI: pgtest.TableURL(schema, "n")})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 20003 {
		t.Fatalf("rows %d", in.Rows)
	}
	_, rows, err := db.Strings(context.Background(), `SELECT i, txt, free, fixed FROM t
WHERE CAST(txt AS DECIMAL(38,10)) IS DISTINCT FROM free OR CAST(txt AS DECIMAL(38,10)) IS DISTINCT FROM fixed LIMIT 5`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range derefs(rows) {
		t.Errorf("row %s: server %s, loaded %s (numeric) and %s (numeric(38,10))", r[0], r[1], r[2], r[3])
	}
}

// Two inputs in one database of one server, read through one Group, share
// the first input's snapshot: a row committed after the source was read is
// not in the sink. The source's transaction stays open until the Group is
// closed. Without a Group, or in another database of the server, the sink
// has a snapshot of its own, and its details say why.
func TestPostgresSharedSnapshot(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.src (id int, amount numeric(10,2)); CREATE TABLE %[1]s.snk (id int, amount numeric(10,2));
INSERT INTO %[1]s.src VALUES (1, 1.00), (2, 2.00); INSERT INTO %[1]s.snk VALUES (1, 1.00), (2, 2.00)`, schema))
	ctx := context.Background()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	load1 := func(table string, loc sources.Location) *sources.Input {
		t.Helper()
		src, err := sources.Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		in, err := load.Table(ctx, db, table, src)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	next := 3
	run := func(group *sources.Group, sinkURI string) (src, snk *sources.Input, sinkRows int64) {
		t.Helper()
		src = load1("source", sources.Location{Role: "source", URI: pgtest.TableURL(schema, "src"), Group: group})
		// Committed by another session after the source was read.
		pgtest.Exec(t, conn, fmt.Sprintf("INSERT INTO %s.snk VALUES (%d, 3.00)", schema, next))
		next++
		snk = load1("sink", sources.Location{Role: "sink", URI: sinkURI, Group: group})
		if group != nil {
			var open int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'reconcile' AND state = 'idle in transaction'").Scan(&open); err != nil {
				t.Fatal(err)
			}
			if src.Details["exported_snapshot"] != nil && open == 0 {
				t.Error("the exporting transaction was closed before the Group")
			}
			if err := group.Close(); err != nil {
				t.Errorf("group.Close: %v", err)
			}
		}
		n, err := db.Count(ctx, "SELECT count(*) FROM sink")
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range []string{"source", "sink"} {
			db.Exec(ctx, "DROP TABLE "+tb)
		}
		return src, snk, n
	}
	sinkURI := pgtest.TableURL(schema, "snk")
	src, snk, n := run(sources.NewGroup(), sinkURI)
	if n != 2 {
		t.Errorf("shared snapshot: sink has %d rows, want 2 (the row committed after the source's snapshot is not in it)", n)
	}
	for _, in := range []*sources.Input{src, snk} {
		if in.Details["shared_snapshot"] != true || in.Details["exported_snapshot"] == nil {
			t.Errorf("%s: shared_snapshot %v exported_snapshot %v (%v), want true and the id", in.Role, in.Details["shared_snapshot"], in.Details["exported_snapshot"], in.Details["shared_snapshot_reason"])
		}
	}
	if snk.Details["snapshot_opened_by"] != "source" || src.Details["snapshot_shared_with"] != "sink" ||
		snk.Details["snapshot"] != src.Details["snapshot"] || snk.Details["exported_snapshot"] != src.Details["exported_snapshot"] {
		t.Errorf("source details %v\nsink details %v", src.Details, snk.Details)
	}
	_, snk, n = run(nil, sinkURI)
	if n != 4 {
		t.Errorf("no group: sink has %d rows, want 4 (a snapshot of its own, after both inserts)", n)
	}
	if snk.Details["shared_snapshot"] != false || snk.Details["exported_snapshot"] != nil {
		t.Errorf("no group: details %v", snk.Details)
	}
	// Another database of the same server cannot import the snapshot.
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	otherDB := fmt.Sprintf("postgres://%s@%s:%d/postgres?query=SELECT+1+AS+id", cfg.User, cfg.Host, cfg.Port)
	_, snk, _ = run(sources.NewGroup(), otherDB)
	if why, _ := snk.Details["shared_snapshot_reason"].(string); snk.Details["shared_snapshot"] != false || !strings.Contains(why, "only into the database that exported it") {
		t.Errorf("other database: shared_snapshot %v, reason %q", snk.Details["shared_snapshot"], why)
	}
}

// pgSchema opens loc as the sink and asks it for its columns.
func pgSchema(t *testing.T, loc sources.Location) ([]sources.Column, error) {
	t.Helper()
	pgtest.Connect(t)
	loc.Role = "sink"
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer src.Close()
	sc, ok := src.(sources.Schemer)
	if !ok {
		t.Fatal("the postgres kind does not tell its columns (sources.Schemer)")
	}
	return sc.Schema(context.Background())
}

// Schema gives, for a table and for a query, every column with the type it
// loads as, for every type of the mapping (types.sql, and in the query
// numeric(p,s) with p above 38, a cast varchar(n) and a NULL of a declared
// type); an unconstrained numeric, whose scale only the read's pre-scan
// finds, has no type yet. Schema opens no connection it leaves behind.
func TestPostgresSchema(t *testing.T) {
	schema := pgTypesTable(t)
	_, conn := pgtest.Schema(t)
	var b [4]byte
	rand.Read(b[:])
	app := "pgschema_" + hex.EncodeToString(b[:])
	withApp := func(uri string) string {
		sep := "?"
		if strings.Contains(uri, "?") {
			sep = "&"
		}
		return uri + sep + "application_name=" + app
	}
	query := fmt.Sprintf(`SELECT *, n182::numeric(20,4) AS n204, NULL::numeric(40,2) AS wide, vc::varchar(3) AS v3,
  i4::int8 AS i48, NULL::numeric(5,1) AS m, nu * 2 AS nu2 FROM %s.types`, schema)
	for _, tt := range []struct {
		name    string
		loc     sources.Location
		untyped []string
	}{
		{"table", sources.Location{URI: withApp(pgtest.TableURL(schema, "types"))}, []string{"nu"}},
		{"query", sources.Location{URI: withApp(pgtest.URL()), Options: map[string]any{"query": query}}, []string{"nu", "nu2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cols, err := pgSchema(t, tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			// A closed connection's backend leaves pg_stat_activity as it
			// exits, a moment after the client hung up.
			for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var open int
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&open); err != nil {
					t.Fatal(err)
				}
				if open == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d connections of Schema still open", open)
				}
			}
			_, in, err := pgLoad(t, tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			if len(cols) != len(in.Columns) {
				t.Fatalf("Schema %v\nloaded %v", cols, in.Columns)
			}
			for i, c := range cols {
				l := in.Columns[i]
				want := l.Type
				if slices.Contains(tt.untyped, l.Name) {
					want = ""
				}
				if c.Name != l.Name || c.Type != want {
					t.Errorf("column %d: Schema %s %q, loaded %s %s (want %q)", i, c.Name, c.Type, l.Name, l.Type, want)
				}
			}
			if got := fmt.Sprint(cols[len(cols)-6:]); tt.name == "query" && got != "[{n204 DECIMAL(20,4) } {wide DECIMAL(38,2) } {v3 VARCHAR } {i48 BIGINT } {m DECIMAL(5,1) } {nu2  }]" {
				t.Errorf("query's own columns %s", got)
			}
		})
	}
}

// Schema describes the statement without running it: a query that fails
// once executed (a division by zero) is described, and Read then fails; an
// unmapped type is the error Read gives, naming the column, before any row.
func TestPostgresSchemaDoesNotRun(t *testing.T) {
	loc := sources.Location{URI: pgtest.URL(), Options: map[string]any{"query": "SELECT g AS id, 1 / (g - g) AS boom FROM generate_series(1, 3) AS g"}}
	cols, err := pgSchema(t, loc)
	if err != nil || fmt.Sprint(cols) != "[{id INTEGER } {boom INTEGER }]" {
		t.Fatalf("Schema = %v, %v; want id and boom, INTEGER", cols, err)
	}
	if _, _, err := pgLoad(t, loc); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("Load = %v, want division by zero", err)
	}
	_, err = pgSchema(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": "SELECT 1 / (g - g) AS boom, interval '1 day' AS wait, ARRAY[g] AS list FROM generate_series(1, 3) AS g"}})
	if !errors.Is(err, postgres.ErrUnmappedType) {
		t.Fatalf("err = %v, want ErrUnmappedType", err)
	}
	for _, w := range []string{"column wait has type interval", "column list has type integer[]"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	_, err = pgSchema(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{"query": "SELECT 1 AS __row"}})
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "reserved for provenance") {
		t.Errorf("provenance name: %v", err)
	}
}

// A missing table is the runtime error Read gives, naming table, database
// and user; a password is in no error of Schema.
func TestPostgresSchemaErrors(t *testing.T) {
	const pw = "S3cr3t-schema-17"
	schema, conn := pgtest.Schema(t)
	_, err := pgSchema(t, sources.Location{URI: pgtest.TableURL(schema, "pgschema_nope")})
	cfg, cerr := pgx.ParseConfig(pgtest.URL())
	if cerr != nil {
		t.Fatal(cerr)
	}
	var user string
	if err := conn.QueryRow(context.Background(), "SELECT current_user").Scan(&user); err != nil {
		t.Fatal(err)
	}
	var pe *pgconn.PgError
	want := fmt.Sprintf("table %s.pgschema_nope not found in database %s (as user %s", schema, cfg.Database, user)
	if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Errorf("missing table: %v, want %q", err, want)
	}
	if errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("missing table: %v is a usage error", err)
	}
	role := schema + "_role"
	pgtest.Exec(t, conn, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, pw))
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	base := fmt.Sprintf("postgres://%s:%s@%s:%d/%s", role, pw, cfg.Host, cfg.Port, cfg.Database)
	for _, uri := range []string{base + "?table=" + schema + ".pgschema_missing", fmt.Sprintf("postgres://%s:%s@127.0.0.1:1/db?table=t&connect_timeout=2", role, pw)} {
		_, err := pgSchema(t, sources.Location{URI: uri})
		if err == nil {
			t.Fatalf("Schema of %s succeeded", sources.Redact(uri))
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error holds the password: %v", err)
		}
	}
}

// fixin: a table, or a query alias, whose columns differ only in case
// ("amount", "AMOUNT") is refused, by Schema and by Read, naming both:
// DuckDB would load the second as AMOUNT_1, so a source's AMOUNT would
// count as a column "only in the source" and a differing value pass.
func TestPostgresCaseOnlyColumnsRefused(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %s.fixin_cc (id text, amount numeric(10,2), "AMOUNT" numeric(10,2));
INSERT INTO %s.fixin_cc VALUES ('1', 1.50, 8)`, schema, schema))
	for name, loc := range map[string]sources.Location{
		"table": {URI: pgtest.TableURL(schema, "fixin_cc")},
		"query": {URI: pgtest.URL(), Options: map[string]any{"query": fmt.Sprintf(`SELECT id, amount, 8 AS "AMOUNT" FROM %s.fixin_cc`, schema)}},
	} {
		t.Run(name, func(t *testing.T) {
			_, serr := pgSchema(t, loc)
			_, _, lerr := pgLoad(t, loc)
			for what, err := range map[string]error{"Schema": serr, "Read": lerr} {
				if !errors.Is(err, sources.ErrInvalidLocation) {
					t.Fatalf("%s: err = %v, want ErrInvalidLocation", what, err)
				}
				if !strings.Contains(err.Error(), `"amount" and "AMOUNT" differ only in case`) {
					t.Errorf("%s: error %q does not name both columns", what, err)
				}
			}
		})
	}
}

// A database of encoding SQL_ASCII passes its text on as stored, so a
// latin-1 "café" arrives as bytes that are not UTF-8: refused naming row,
// column and value (it failed inside DuckDB with "Invalid unicode", naming
// nothing: found by a reviewer).
func TestPostgresTextNotUTF8(t *testing.T) {
	conn := pgtest.Connect(t)
	ctx := context.Background()
	name := fmt.Sprintf("reconcile_ascii_%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" ENCODING 'SQL_ASCII' TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dconn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dconn, `CREATE TABLE t (id text, v text); INSERT INTO t VALUES ('1', 'cafe'), ('2', E'caf\xe9')`)
	dconn.Close(ctx)
	_, _, err = pgLoad(t, sources.Location{URI: u.String(), Options: map[string]any{"table": "t"}})
	if err == nil || !strings.Contains(err.Error(), `t:2: column v (text)`) || !strings.Contains(err.Error(), `"caf\xe9" is not UTF-8 text`) {
		t.Errorf("err = %v, want a refusal naming row 2, column v and the value", err)
	}
}

// Trailing zeros do not set an unconstrained numeric's scale: 1.0…0 with 36
// fraction digits beside a 12-digit amount is DECIMAL(38,1) (the -0.50's
// one digit), every value exact, not "more than 38 digits".
func TestPostgresNumericTrailingZeros(t *testing.T) {
	db, in, err := pgLoad(t, sources.Location{URI: pgtest.URL(), Options: map[string]any{
		"query": `SELECT * FROM (VALUES (1, 1.000000000000000000000000000000000000::numeric), (2, 123456789012::numeric), (3, -0.50::numeric), (4, 0.000::numeric)) AS v(id, amount)`}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(in.Details["prescan_sql"]), "min_scale(") {
		t.Errorf("prescan_sql %v, want min_scale on this server", in.Details["prescan_sql"])
	}
	_, rows, err := db.Strings(context.Background(), `SELECT string_agg(amount::VARCHAR, ' ' ORDER BY id), any_value(typeof(amount)) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(derefs(rows)), "[[1.0 123456789012.0 -0.5 0.0 DECIMAL(38,1)]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}
