package mysql_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/mysql"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the csv kind reads the expected values
)

// myLoad opens loc and loads it as table t of a fresh DuckDB session.
func myLoad(t *testing.T, loc sources.Location) (*duck.DB, *sources.Input, error) {
	t.Helper()
	mysqltest.Connect(t) // skip (or fail under RECONCILE_REQUIRE_MYSQL=1) without a server
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	in, err := myLoadInto(t, db, "t", loc)
	return db, in, err
}

// myLoadInto loads loc as table of db.
func myLoadInto(t *testing.T, db *duck.DB, table string, loc sources.Location) (*sources.Input, error) {
	t.Helper()
	if loc.Role == "" {
		loc.Role = "sink"
	}
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer src.Close()
	return load.Table(context.Background(), db, table, src)
}

// myTypesTable creates testdata/types.sql in a database of the test's
// own and returns the database.
func myTypesTable(t *testing.T) string {
	t.Helper()
	name, db := mysqltest.Database(t)
	script, err := os.ReadFile(filepath.Join("testdata", "types.sql"))
	if err != nil {
		t.Fatal(err)
	}
	mysqltest.Exec(t, db, "SET time_zone = '+00:00'; "+string(script))
	return name
}

// withParam adds a URI parameter.
func withParam(uri, kv string) string {
	if strings.Contains(uri, "?") {
		return uri + "&" + kv
	}
	return uri + "?" + kv
}

func TestMySQLConformance(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T, dir string) sources.Location {
		name, db := mysqltest.Database(t)
		// No primary key: InnoDB returns a freshly loaded table in insertion
		// order, the fixture's.
		mysqltest.Exec(t, db, "CREATE TABLE fixture (entry_id VARCHAR(16), account VARCHAR(12), amount DECIMAL(20,2))")
		rows := sourcetest.Fixture().Rows
		for start := 0; start < len(rows); start += 5000 {
			end := min(start+5000, len(rows))
			var q strings.Builder
			args := make([]any, 0, 3*(end-start))
			q.WriteString("INSERT INTO fixture VALUES ")
			for i, r := range rows[start:end] {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(?, ?, ?)")
				for _, v := range r {
					if v == nil {
						args = append(args, nil)
					} else {
						args = append(args, *v)
					}
				}
			}
			if _, err := db.Exec(q.String(), args...); err != nil {
				t.Fatal(err)
			}
		}
		return sources.Location{Role: "sink", URI: mysqltest.TableURL(t, name, "fixture")}
	})
}

// Every mapped type's edge values, loaded from MariaDB, equal the same
// values written as text in types.csv and cast by DuckDB; and each column
// has the DuckDB type of the package doc's mapping.
func TestMySQLTypesRoundTrip(t *testing.T) {
	name := myTypesTable(t)
	ctx := context.Background()
	db, in, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "types")})
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
	// column → DuckDB type of the MySQL load, and the expression that turns
	// the CSV's text ({}) into that type.
	cast := func(typ string) string { return "CAST({} AS " + typ + ")" }
	want := []struct{ col, typ, fromText string }{
		{"id", "INTEGER", cast("INTEGER")},
		{"ti", "TINYINT", cast("TINYINT")},
		{"t1", "TINYINT", cast("TINYINT")}, // TINYINT(1) is a number, 2 included
		{"tu", "UTINYINT", cast("UTINYINT")},
		{"si", "SMALLINT", cast("SMALLINT")},
		{"su", "USMALLINT", cast("USMALLINT")},
		{"mi", "INTEGER", cast("INTEGER")},
		{"mu", "UINTEGER", cast("UINTEGER")},
		{"i4", "INTEGER", cast("INTEGER")},
		{"iu", "UINTEGER", cast("UINTEGER")},
		{"bi", "BIGINT", cast("BIGINT")},
		{"bu", "UBIGINT", cast("UBIGINT")},
		{"d182", "DECIMAL(18,2)", cast("DECIMAL(18,2)")},
		{"du", "DECIMAL(20,2)", cast("DECIMAL(20,2)")},
		{"d3810", "DECIMAL(38,10)", cast("DECIMAL(38,10)")},
		{"d654", "DECIMAL(38,4)", cast("DECIMAL(38,4)")},
		{"d55", "DECIMAL(5,5)", cast("DECIMAL(5,5)")},
		{"f4", "FLOAT", cast("FLOAT")},
		{"f8", "DOUBLE", cast("DOUBLE")},
		{"c", "VARCHAR", "{}"},
		{"vc", "VARCHAR", "{}"},
		{"tx", "VARCHAR", "{}"},
		{"lt", "VARCHAR", "{}"},
		{"l1", "VARCHAR", "{}"},
		{"bn", "BLOB", "unhex({})"},
		{"vb", "BLOB", "unhex({})"},
		{"bl", "BLOB", "unhex({})"},
		{"dd", "DATE", cast("DATE")},
		{"dt", "TIMESTAMP", cast("TIMESTAMP")},
		{"dt0", "TIMESTAMP", cast("TIMESTAMP")},
		{"ts", "TIMESTAMP WITH TIME ZONE", cast("TIMESTAMPTZ")},
		{"tm", "INTERVAL", cast("INTERVAL")},
		{"y", "SMALLINT", cast("SMALLINT")},
		{"b1", "UBIGINT", cast("UBIGINT")},
		{"b64", "UBIGINT", cast("UBIGINT")},
		{"e", "VARCHAR", "{}"},
		{"st", "VARCHAR", "{}"},
		{"j", "VARCHAR", "{}"},
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
			t.Errorf("column %s, id %s: MariaDB loaded %s, CSV says %s", w.col, nullText(r[0]), nullText(r[2]), nullText(r[1]))
		}
	}
	if in.Rows != 4 {
		t.Errorf("Rows = %d, want 4", in.Rows)
	}
	// Sums are exact (never through float64): DuckDB adds the loaded values.
	_, rows, err := db.Strings(ctx, `SELECT sum(bu::HUGEINT), sum(d182), sum(du), sum(d3810), sum(d654), sum(b64::HUGEINT) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"27670116110564327423", "0.00", "1000000000000000000.00", "0.0000000001", "0.0001", "18446744073709551620"} {
		if got := nullText(rows[0][i]); got != w {
			t.Errorf("sum %d = %s, want %s", i, got, w)
		}
	}
	// Provenance: __file is the table, __line the 1-based row.
	n, err := db.Count(ctx, `SELECT count(*) FROM t WHERE __file = 'types' AND __line = __row + 1`)
	if err != nil || n != 4 {
		t.Errorf("provenance rows = %d (%v), want 4", n, err)
	}
}

// BIGINT UNSIGNED's largest value, 18446744073709551615, survives as
// UBIGINT, also next to the values a signed 64-bit integer holds; it is
// not 1.8446744073709552e19 or -1.
func TestMySQLBigintUnsignedMax(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `CREATE TABLE u (id BIGINT UNSIGNED NOT NULL, n BIGINT UNSIGNED);
INSERT INTO u VALUES (18446744073709551615, 18446744073709551615), (9223372036854775808, 9223372036854775807), (0, NULL)`)
	db, _, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "u")})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := db.Strings(context.Background(), "SELECT id, n, typeof(id), typeof(n) FROM t ORDER BY __row")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(derefs(rows))
	if want := "[[18446744073709551615 18446744073709551615 UBIGINT UBIGINT] [9223372036854775808 9223372036854775807 UBIGINT UBIGINT] [0 NULL UBIGINT UBIGINT]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

// A TIMESTAMP is an instant: read under two different server session zones
// (the URI's time_zone parameter, which the driver sets on connecting) it
// gives the same instants, although the server itself renders it
// differently in those zones. A DATETIME is read as written, zone-less,
// whatever the session zone.
func TestMySQLTimestampUnderSessionZones(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `SET time_zone = '+00:00';
CREATE TABLE z (id INT, ts TIMESTAMP(6) NULL, dt DATETIME(6));
INSERT INTO z VALUES (1, '2026-11-27 00:00:31.250000', '2026-11-27 00:00:31.250000'), (2, '2026-03-29 01:30:00', '2026-03-29 01:30:00')`)
	var texts []string
	var loaded []string
	for _, zone := range []string{"'+08:00'", "'-05:30'"} {
		// The server's own rendering in that zone differs: the test could fail.
		cfg := mysqltest.Config(t)
		cfg.DBName = name
		cfg.Params = map[string]string{"time_zone": zone}
		direct := mysqltest.ConnectConfig(t, cfg)
		var text string
		if err := direct.QueryRow("SELECT CAST(ts AS CHAR) FROM z WHERE id = 1").Scan(&text); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)

		uri := withParam(mysqltest.TableURL(t, name, "z"), "time_zone="+url.QueryEscape(zone))
		db, in, err := myLoad(t, sources.Location{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		if in.Details["session_time_zone"] != "+00:00" {
			t.Errorf("session_time_zone %v, want +00:00", in.Details["session_time_zone"])
		}
		_, rows, err := db.Strings(context.Background(), "SELECT typeof(ts), CAST(ts AS VARCHAR), typeof(dt), CAST(dt AS VARCHAR) FROM t ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		loaded = append(loaded, fmt.Sprint(derefs(rows)))
	}
	if texts[0] == texts[1] {
		t.Fatalf("the server rendered the TIMESTAMP as %q in both session zones: the test proves nothing", texts[0])
	}
	want := "[[TIMESTAMP WITH TIME ZONE 2026-11-27 00:00:31.25+00 TIMESTAMP 2026-11-27 00:00:31.25] [TIMESTAMP WITH TIME ZONE 2026-03-29 01:30:00+00 TIMESTAMP 2026-03-29 01:30:00]]"
	for i, got := range loaded {
		if got != want {
			t.Errorf("session zone %d: loaded %s, want %s", i, got, want)
		}
	}
}

// MySQL's zero dates (0000-00-00, a zero month or day) stop the load with
// the row, column and value; with zero_dates: null they are NULL and
// counted in the evidence. A date that is no calendar date (2024-02-30,
// stored under ALLOW_INVALID_DATES) is refused either way.
func TestMySQLZeroDates(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `SET SESSION sql_mode = 'ALLOW_INVALID_DATES';
CREATE TABLE zd (id INT, d DATE, dt DATETIME, ts TIMESTAMP NULL DEFAULT NULL);
INSERT INTO zd VALUES (1, '2024-01-10', '2024-01-10 10:00:00', '2024-01-10 10:00:00'),
  (2, '2024-00-10', '2024-01-10 10:00:00', NULL), (3, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'),
  (4, '2024-05-00', '2024-05-01 00:00:00', NULL);
CREATE TABLE bad (id INT, d DATE);
INSERT INTO bad VALUES (1, '2024-02-30')`)
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "zd")})
	if !errors.Is(err, mysql.ErrZeroDate) {
		t.Fatalf("err = %v, want ErrZeroDate", err)
	}
	for _, w := range []string{"zd:2", "column d", `"2024-00-10"`, "zero_dates: null"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
	for _, opt := range []map[string]any{{"zero_dates": nil}, {"zero_dates": "null"}} {
		db, in, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "zd"), Options: opt})
		if err != nil {
			t.Fatal(err)
		}
		_, rows, err := db.Strings(context.Background(), "SELECT id, d, dt, ts FROM t ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(derefs(rows)), "[[1 2024-01-10 2024-01-10 10:00:00 2024-01-10 10:00:00+00] [2 NULL 2024-01-10 10:00:00 NULL] [3 NULL NULL NULL] [4 NULL 2024-05-01 00:00:00 NULL]]"; got != want {
			t.Errorf("rows %s, want %s", got, want)
		}
		if got := fmt.Sprint(in.Details["zero_dates_read_as_null"]); got != "map[d:3 dt:1 ts:1]" {
			t.Errorf("zero_dates_read_as_null = %s, want map[d:3 dt:1 ts:1]", got)
		}
		if in.Details["zero_dates"] != "null" {
			t.Errorf("zero_dates = %v", in.Details["zero_dates"])
		}
		// a WARNING per column: two zero dates, or one and a NULL, compare equal
		if notes := strings.Join(in.Notes, "\n"); len(in.Notes) != 3 || !strings.Contains(notes, "WARNING: sink column d: 3 zero date(s)") || !strings.Contains(notes, "are not told apart") {
			t.Errorf("notes %q, want a WARNING for each of d, dt, ts", in.Notes)
		}
	}
	_, _, err = myLoad(t, sources.Location{URI: withParam(mysqltest.TableURL(t, name, "bad"), "zero_dates=null")})
	if err == nil || errors.Is(err, mysql.ErrZeroDate) || !strings.Contains(err.Error(), `"2024-02-30" is not a calendar date`) || !strings.Contains(err.Error(), "bad:1") {
		t.Errorf("err = %v, want 2024-02-30 refused as no calendar date at bad:1", err)
	}
}

// A type with no mapping is refused before any row is read, naming every
// such column.
func TestMySQLUnmappedType(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `CREATE TABLE g (id INT, place POINT, d DATE); SET SESSION sql_mode = '';
INSERT INTO g VALUES (1, POINT(1, 2), '0000-00-00')`)
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "g")})
	if !errors.Is(err, mysql.ErrUnmappedType) || !errors.Is(err, sources.ErrInvalidLocation) {
		t.Fatalf("err = %v, want ErrUnmappedType", err)
	}
	if !strings.Contains(err.Error(), "column place has type point") {
		t.Errorf("error %q does not name the column and its type", err)
	}
	if strings.Contains(err.Error(), "0000-00-00") {
		t.Errorf("error %q: a row was read before the types were checked", err)
	}
	_, _, err = myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"query": "SELECT id, ST_AsText(place) AS wkt, place AS p FROM g"}})
	if !errors.Is(err, mysql.ErrUnmappedType) || !strings.Contains(err.Error(), "column p has type GEOMETRY") || strings.Contains(err.Error(), "wkt") {
		t.Errorf("err = %v, want the query's GEOMETRY column refused, and only it", err)
	}
}

func TestMySQLOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		loc  sources.Location
	}{
		{"no table", sources.Location{URI: "mysql://h/db"}},
		{"table and query", sources.Location{URI: "mysql://h/db?table=a&query=SELECT+1"}},
		{"table twice", sources.Location{URI: "mysql://h/db?table=a", Options: map[string]any{"table": "b"}}},
		{"three parts", sources.Location{URI: "mysql://h/db?table=a.b.c"}},
		{"unterminated quote", sources.Location{URI: "mysql://h/db?table=%60a"}},
		{"empty part", sources.Location{URI: "mysql://h/db?table=a."}},
		{"unknown option", sources.Location{URI: "mysql://h/db?table=a", Options: map[string]any{"delimiter": ";"}}},
		{"bad zero_dates", sources.Location{URI: "mysql://h/db?table=a", Options: map[string]any{"zero_dates": "zero"}}},
		{"bad zero_dates parameter", sources.Location{URI: "mysql://h/db?table=a&zero_dates=keep"}},
		{"database path", sources.Location{URI: "mysql://h/db/x?table=a"}},
		{"bad driver parameter", sources.Location{URI: "mysql://h/db?table=a&timeout=soon"}},
		{"not a URI", sources.Location{URI: "root@tcp(h)/db", Options: map[string]any{"kind": "mysql", "table": "a"}}},
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
	for _, uri := range []string{"mysql://root@127.0.0.1/db?table=t", "mariadb://root@[::1]:3307/db?query=SELECT+1", "MySQL://h?table=db.t&zero_dates=null&tls=false"} {
		if _, err := sources.Open(sources.Location{Role: "sink", URI: uri}); err != nil {
			t.Errorf("Open(%q) = %v", uri, err)
		}
	}
}

func TestParseTableName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ledger", []string{"ledger"}},
		{"Ledger.Postings", []string{"Ledger", "Postings"}},
		{"`my db`.`ta.ble`", []string{"my db", "ta.ble"}},
		{"d.`a``b`", []string{"d", "a`b"}},
		{"x`; DROP TABLE y; --", nil},
		{"a.b.c", nil},
	}
	for _, tt := range tests {
		got, err := mysql.ParseTableName(tt.in)
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
	if got := mysql.Ident("a`b"); got != "`a``b`" {
		t.Errorf("Ident = %s", got)
	}
}

// A table name is an identifier, never SQL: a quoted name holding SQL is
// looked up as a (missing) table and the statement in it does not run.
func TestMySQLTableNameIsNotSQL(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, "CREATE TABLE victim (id INT)")
	table := fmt.Sprintf("`%s`.`victim; DROP TABLE victim; --`", name)
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"table": table}})
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1146 {
		t.Fatalf("err = %v, want error 1146 (no such table)", err)
	}
	var n int
	if err := conn.QueryRow("SELECT count(*) FROM victim").Scan(&n); err != nil {
		t.Fatalf("table victim is gone: %v", err)
	}
}

// A missing table is a runtime error that says which table, database and
// user; it is not a usage error.
func TestMySQLMissingTable(t *testing.T) {
	name, _ := mysqltest.Database(t)
	u, err := url.Parse(mysqltest.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawQuery = "", "table=nope"
	if _, _, err := myLoad(t, sources.Location{URI: u.String()}); err == nil || !strings.Contains(err.Error(), "table nope: no database") {
		t.Errorf("a table without a database: %v", err)
	}
	for _, table := range []string{"nope", name + ".nope", "no_such_db.t"} {
		_, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"table": table}})
		if err == nil {
			t.Fatalf("load of missing table %s succeeded", table)
		}
		db := name
		if strings.HasPrefix(table, "no_such_db") {
			db = "no_such_db"
		}
		if want := fmt.Sprintf("table %s not found in database %s (as user %s@", table, db, mysqltest.Config(t).User); !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		if errors.Is(err, sources.ErrInvalidLocation) || errors.Is(err, sources.ErrUnknownKind) {
			t.Errorf("error %q is a usage error; a missing table is a runtime error", err)
		}
	}
}

// The server, version, snapshot facts, the GTID position (or why there is
// none), the session time zone and the exact SQL are recorded.
func TestMySQLDetails(t *testing.T) {
	name := myTypesTable(t)
	_, in, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "types")})
	if err != nil {
		t.Fatal(err)
	}
	d := in.Details
	if got := d["sql"]; got != "SELECT * FROM `types`" {
		t.Errorf("sql = %v", got)
	}
	if d["isolation"] != "REPEATABLE READ, READ ONLY, WITH CONSISTENT SNAPSHOT" || d["server_isolation_level"] != "REPEATABLE-READ" {
		t.Errorf("isolation = %v, %v", d["isolation"], d["server_isolation_level"])
	}
	if p, _ := d["port"].(int); p <= 0 {
		t.Errorf("port %v", d["port"])
	}
	for _, k := range []string{"server", "server_version", "database", "user", "connect_user", "host", "transaction_started_at", "session_time_zone", "table_engine"} {
		if s, _ := d[k].(string); s == "" {
			t.Errorf("details[%s] is empty: %v", k, d)
		}
	}
	if d["database"] != name || d["table_engine"] != "InnoDB" || d["session_time_zone"] != "+00:00" {
		t.Errorf("database %v, engine %v, zone %v", d["database"], d["table_engine"], d["session_time_zone"])
	}
	gtid := "gtid_executed"
	if d["server"] == "MariaDB" {
		gtid = "gtid_current_pos"
		if !strings.Contains(fmt.Sprint(d["server_version"]), "MariaDB") {
			t.Errorf("server MariaDB, version %v", d["server_version"])
		}
	}
	_, has := d[gtid]
	why, _ := d[gtid+"_unavailable"].(string)
	if has == (why != "") {
		t.Errorf("want exactly one of %s and %s_unavailable: %v", gtid, gtid, d)
	}
	if d["shared_snapshot"] != false || d["shared_snapshot_reason"] == nil {
		t.Errorf("shared_snapshot %v (%v), want false with a reason", d["shared_snapshot"], d["shared_snapshot_reason"])
	}
	cols, _ := d["columns"].([]map[string]string)
	if len(cols) != 38 || cols[13]["mysql_type"] != "decimal(20,2) unsigned" || cols[13]["arrow_type"] != "decimal(20, 2)" || cols[2]["mysql_type"] != "tinyint(1)" {
		t.Errorf("columns %v", cols)
	}
	if in.Kind != "mysql" || in.Rows != 4 {
		t.Errorf("Kind %s Rows %d", in.Kind, in.Rows)
	}
}

// Two inputs on one server read one snapshot: a row committed by another
// session after the first input was read is not seen by the second, and
// both record that they shared it. Without a group, the second input sees
// the row (the test could fail).
func TestMySQLSharedSnapshot(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `CREATE TABLE src (id INT, amount DECIMAL(10,2)); CREATE TABLE snk (id INT, amount DECIMAL(10,2));
INSERT INTO src VALUES (1, 1.00), (2, 2.00); INSERT INTO snk VALUES (1, 1.00), (2, 2.00)`)
	mysqltest.Connect(t)
	other, _ := mysqltest.Database(t) // a second database on the same server
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := func(group *sources.Group, sinkURI string) (src, snk *sources.Input, sinkRows int64) {
		src, err := myLoadInto(t, db, "source", sources.Location{Role: "source", URI: mysqltest.TableURL(t, name, "src"), Group: group})
		if err != nil {
			t.Fatal(err)
		}
		// Committed by another session after the source was read.
		mysqltest.Exec(t, conn, "INSERT INTO snk VALUES (3, 3.00)")
		snk, err = myLoadInto(t, db, "sink", sources.Location{Role: "sink", URI: sinkURI, Group: group})
		if err != nil {
			t.Fatal(err)
		}
		if err := group.Close(); err != nil {
			t.Errorf("group.Close: %v", err)
		}
		n, err := db.Count(context.Background(), "SELECT count(*) FROM sink")
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range []string{"source", "sink"} {
			db.Exec(context.Background(), "DROP TABLE "+tb)
		}
		return src, snk, n
	}
	// The sink's URI names the other database; the table is qualified.
	sinkURI := mysqltest.DatabaseURL(t, other) + "?table=" + url.QueryEscape(name+".snk")
	src, snk, n := run(sources.NewGroup(), sinkURI)
	if n != 2 {
		t.Errorf("shared snapshot: sink has %d rows, want 2 (the row committed after the snapshot is not in it)", n)
	}
	for _, in := range []*sources.Input{src, snk} {
		if in.Details["shared_snapshot"] != true {
			t.Errorf("%s: shared_snapshot %v (%v), want true", in.Role, in.Details["shared_snapshot"], in.Details["shared_snapshot_reason"])
		}
	}
	if snk.Details["snapshot_opened_by"] != "source" || snk.Details["transaction_started_at"] != src.Details["transaction_started_at"] || snk.Details["database"] != other {
		t.Errorf("sink details %v", snk.Details)
	}
	_, snk, n = run(nil, sinkURI)
	if n != 4 {
		t.Errorf("no group: sink has %d rows, want 4 (a snapshot of its own, after both inserts)", n)
	}
	if snk.Details["shared_snapshot"] != false {
		t.Errorf("no group: shared_snapshot %v", snk.Details["shared_snapshot"])
	}
	// Another user on the same server: a snapshot of its own, and why.
	mysqltest.Exec(t, conn, fmt.Sprintf("CREATE USER '%s_u'@'%%' IDENTIFIED BY 'pw-1'; GRANT SELECT ON `%s`.* TO '%s_u'@'%%'", name, name, name))
	t.Cleanup(func() { conn.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s_u'@'%%'", name)) })
	cfg := mysqltest.Config(t)
	otherUser := fmt.Sprintf("mysql://%s_u:pw-1@%s/%s?table=snk", name, cfg.Addr, name)
	_, snk, n = run(sources.NewGroup(), otherUser)
	if n != 5 || snk.Details["shared_snapshot"] != false || !strings.Contains(fmt.Sprint(snk.Details["shared_snapshot_reason"]), "another user") {
		t.Errorf("another user: %d rows, shared_snapshot %v (%v)", n, snk.Details["shared_snapshot"], snk.Details["shared_snapshot_reason"])
	}
}

// A query in the URI (form-encoded) or the long form is run as written; a
// computed DECIMAL keeps its precision and scale.
func TestMySQLQuery(t *testing.T) {
	name := myTypesTable(t)
	q := "SELECT id, d182 * 2 AS doubled, CONCAT(c, '|') AS c FROM types WHERE id <= 2 ORDER BY id"
	uri := withParam(mysqltest.DatabaseURL(t, name), "query="+url.QueryEscape(q))
	for _, loc := range []sources.Location{{URI: uri}, {URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"query": q + ";\n"}}} {
		db, in, err := myLoad(t, loc)
		if err != nil {
			t.Fatal(err)
		}
		if in.Details["sql"] != q {
			t.Errorf("sql = %q, want %q", in.Details["sql"], q)
		}
		_, rows, err := db.Strings(context.Background(), "SELECT id, doubled, typeof(doubled), c, __file FROM t ORDER BY __row")
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(derefs(rows))
		// a query's DECIMAL is read one digit wider than the driver says
		// (TestMySQLQueryDecimalUnsigned)
		if want := "[[1 -19999999999999999.98 DECIMAL(20,2) ab| query] [2 19999999999999999.98 DECIMAL(20,2) abcde| query]]"; got != want {
			t.Errorf("rows %s, want %s", got, want)
		}
	}
}

// Schema gives the columns and their load types without reading a row.
func TestMySQLSchema(t *testing.T) {
	name := myTypesTable(t)
	src, err := sources.Open(sources.Location{Role: "sink", URI: mysqltest.TableURL(t, name, "types")})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := src.(sources.Schemer).Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, in, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "types")})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(cols) != fmt.Sprint(in.Columns) {
		t.Errorf("Schema %v\nloaded %v", cols, in.Columns)
	}
	missing, _ := sources.Open(sources.Location{Role: "sink", URI: mysqltest.TableURL(t, name, "nope")})
	if _, err := missing.(sources.Schemer).Schema(context.Background()); err == nil || !strings.Contains(err.Error(), "nope not found in database "+name) {
		t.Errorf("Schema of a missing table: %v", err)
	}
}

// The password of the URI, or of MYSQL_PWD, appears nowhere: not in Input,
// not in errors.
func TestMySQLPasswordRedacted(t *testing.T) {
	const pw = "S3cr3t-my-42"
	name, conn := mysqltest.Database(t)
	user := name + "_p"
	mysqltest.Exec(t, conn, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'; GRANT SELECT ON `%s`.* TO '%s'@'%%'; CREATE TABLE t (id INT); INSERT INTO t VALUES (1)", user, pw, name, user))
	t.Cleanup(func() { conn.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	addr := mysqltest.Config(t).Addr
	withPW := fmt.Sprintf("mysql://%s:%s@%s/%s", user, pw, addr, name)
	noPW := fmt.Sprintf("mysql://%s@%s/%s", user, addr, name)
	check := func(t *testing.T, in *sources.Input, err error, wantErr bool) {
		t.Helper()
		if (err != nil) != wantErr {
			t.Fatalf("err = %v, want error %v", err, wantErr)
		}
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("error holds the password: %v", err)
		}
		if in != nil {
			if s := fmt.Sprintf("%+v", *in); strings.Contains(s, pw) {
				t.Errorf("Input holds the password: %s", s)
			}
		}
	}
	_, in, err := myLoad(t, sources.Location{URI: withPW + "?table=t"})
	check(t, in, err, false)
	if !strings.Contains(in.Location, user+":xxxxx@") {
		t.Errorf("location %q: want the password masked", in.Location)
	}
	_, _, err = myLoad(t, sources.Location{URI: withPW + "?table=missing"})
	check(t, nil, err, true)
	_, _, err = myLoad(t, sources.Location{URI: fmt.Sprintf("mysql://%s:%s@127.0.0.1:1/%s?table=t&timeout=2s", user, pw, name)})
	check(t, nil, err, true)
	t.Run("MYSQL_PWD", func(t *testing.T) {
		_, _, err := myLoad(t, sources.Location{URI: noPW + "?table=t"})
		if err == nil {
			t.Fatal("a connection without a password succeeded: MYSQL_PWD would prove nothing")
		}
		t.Setenv("MYSQL_PWD", pw)
		_, in, err := myLoad(t, sources.Location{URI: noPW + "?table=t"})
		check(t, in, err, false)
		_, _, err = myLoad(t, sources.Location{URI: noPW + "?table=missing"})
		check(t, nil, err, true)
	})
}

// Progress goes to Location.Progress as one summary line when it is not a
// terminal.
func TestMySQLProgressLine(t *testing.T) {
	var buf bytes.Buffer
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, "CREATE TABLE n (i INT); INSERT INTO n VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Progress: &buf, Options: map[string]any{
		"query": "SELECT a.i + 10 * b.i + 100 * c.i + 1000 * d.i + 10000 * e.i AS i FROM n a, n b, n c, n d, n e"}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "reading sink query: 100000 rows in ") || !strings.Contains(out, "rows/s") {
		t.Errorf("progress output %q, want one summary line", out)
	}
}

// A context cancelled in the middle of a long result stops the load
// promptly and leaves no table.
func TestMySQLCancelMidway(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, "CREATE TABLE n (i INT); INSERT INTO n VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := sources.Open(sources.Location{Role: "sink", URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{
		"query": "SELECT a.i AS i FROM n a, n b, n c, n d, n e, n f, n g, n h, n i"}})
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

// A value that does not fit stops the read at once, even in the middle of a
// long result: the connection is dropped, not drained.
func TestMySQLValueErrorStopsAtOnce(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, "SET SESSION sql_mode = ''; CREATE TABLE n (i INT, d DATE); INSERT INTO n VALUES (0, '0000-00-00'),(1, '2024-01-01'),(2, '2024-01-01'),(3, '2024-01-01'),(4, '2024-01-01'),(5, '2024-01-01'),(6, '2024-01-01'),(7, '2024-01-01'),(8, '2024-01-01'),(9, '2024-01-01')")
	t0 := time.Now()
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{
		"query": "SELECT a.d AS d FROM n a, n b, n c, n d, n e, n f, n g, n h, n i"}})
	if !errors.Is(err, mysql.ErrZeroDate) {
		t.Fatalf("err = %v, want ErrZeroDate", err)
	}
	if d := time.Since(t0); d > 20*time.Second {
		t.Errorf("the failed read took %s: the rest of the result was read", d)
	}
}

// A session that fails its checks after the connection opened (results in
// latin1: charset=latin1 in the URI) is refused with the reason, and the
// connection is released (it panicked releasing a nil session: found by a
// reviewer).
func TestMySQLSessionRefusedAfterConnect(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE cs1 (id VARCHAR(10), a DECIMAL(10,2)); INSERT INTO cs1 VALUES ('1', 1.00)")
	for _, param := range []string{"charset=latin1", "character_set_results=latin1"} {
		uri := withParam(mysqltest.DatabaseURL(t, name), param)
		_, _, err := myLoad(t, sources.Location{URI: uri, Options: map[string]any{"table": "cs1"}})
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), `character set "latin1"`) {
			t.Errorf("%s: err = %v, want the refusal of latin1 results", param, err)
		}
	}
}

// A query's DECIMAL UNSIGNED column is read whole: the driver's precision
// (display length less a sign it does not have) is one short, and 999.99
// of a DECIMAL(5,2) UNSIGNED was refused as more than 4 digits (found by a
// reviewer).
func TestMySQLQueryDecimalUnsigned(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE du (id VARCHAR(4), d DECIMAL(5,2) UNSIGNED, e DECIMAL(37,0) UNSIGNED); INSERT INTO du VALUES ('1', 999.99, 9999999999999999999999999999999999999), ('2', 0.01, 0)")
	q := "SELECT id, d, e FROM du ORDER BY id"
	ddb, _, err := myLoad(t, sources.Location{URI: withParam(mysqltest.DatabaseURL(t, name), "query="+url.QueryEscape(q))})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := ddb.Strings(context.Background(), "SELECT id, d, e FROM t ORDER BY __row")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(derefs(rows)), "[[1 999.99 9999999999999999999999999999999999999] [2 0.01 0]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

// A table with an INVISIBLE column (MariaDB 10.3+, MySQL 8.0.23+) is
// refused naming it: SELECT * leaves it out, so it was never compared and
// the report called it a column of the other input only (found by a
// reviewer). A query naming it reads it.
func TestMySQLInvisibleColumnRefused(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE inv (id INT PRIMARY KEY, v INT, h INT INVISIBLE); INSERT INTO inv (id, v, h) VALUES (1, 1, 100)")
	_, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"table": "inv"}})
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "INVISIBLE): h;") {
		t.Fatalf("err = %v, want a refusal naming the invisible column h", err)
	}
	ddb, _, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"query": "SELECT *, h FROM inv"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, rows, err := ddb.Strings(context.Background(), "SELECT id, v, h FROM t"); err != nil || fmt.Sprint(derefs(rows)) != "[[1 1 100]]" {
		t.Errorf("rows %v, %v", derefs(rows), err)
	}
}

// A FLOAT column is read as the server's text prints it, 6 significant
// digits at most: 1234567 and 1234568 arrive as one value, so the input
// carries a WARNING naming the column and the way to read it whole (found
// by a reviewer: the two compared equal without a word).
func TestMySQLFloatWarned(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE fl (id VARCHAR(4), f FLOAT, d DOUBLE); INSERT INTO fl VALUES ('1', 1234567, 1)")
	_, in, err := myLoad(t, sources.Location{URI: mysqltest.DatabaseURL(t, name), Options: map[string]any{"table": "fl"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Notes) != 1 || !strings.HasPrefix(in.Notes[0], "WARNING: sink column f is a MySQL FLOAT") || !strings.Contains(in.Notes[0], "CAST(f AS DOUBLE)") {
		t.Errorf("notes %q, want one WARNING on column f", in.Notes)
	}
}

// Results in utf8mb3 (charset=utf8, or character_set_results=utf8mb3) are
// refused: the server sends a 4-byte character that set lacks as '?', so
// 'a😀' arrived as 'a?' and compared equal to a sink's 'a?' (found by an
// adversarial tester: exit 0). The default connection reads it whole.
func TestMySQLUtf8mb3ResultsRefused(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE emoji (id VARCHAR(4), s VARCHAR(10)) CHARACTER SET utf8mb4; INSERT INTO emoji VALUES ('1', 'a😀')")
	ddb, in, err := myLoad(t, sources.Location{URI: mysqltest.TableURL(t, name, "emoji")})
	if err != nil {
		t.Fatal(err)
	}
	if in.Details["character_set_results"] != "utf8mb4" {
		t.Errorf("character_set_results = %v, want utf8mb4", in.Details["character_set_results"])
	}
	if _, rows, err := ddb.Strings(context.Background(), "SELECT s FROM t"); err != nil || len(rows) != 1 || nullText(rows[0][0]) != "a😀" {
		t.Errorf("read %v (%v), want a😀", rows, err)
	}
	for _, param := range []string{"charset=utf8", "charset=utf8mb3", "character_set_results=utf8mb3"} {
		uri := withParam(mysqltest.TableURL(t, name, "emoji"), param)
		_, _, err := myLoad(t, sources.Location{URI: uri})
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), `character set "utf8mb3"`) || !strings.Contains(err.Error(), "utf8mb4") {
			t.Errorf("%s: err = %v, want the refusal of utf8mb3 results", param, err)
		}
	}
}

// A sql_select_limit in the URI (which the driver sets as a session
// variable) does not cut the read short: the session pins it to its
// maximum before the snapshot, and Details record it. With ?sql_select_limit=3
// a sink's duplicate and unexpected id went unread (exit 0: found by an
// adversarial tester). The catalog, read with a SELECT too, is read whole:
// Schema gets the DECIMAL UNSIGNED's precision from it.
func TestMySQLSelectLimitPinned(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE lim (id VARCHAR(4), d DECIMAL(5,2) UNSIGNED); INSERT INTO lim VALUES ('1', 1.00), ('2', 2.00), ('2', 2.00), ('9', 999.99)")
	uri := withParam(mysqltest.DatabaseURL(t, name), "sql_select_limit=1")
	for _, loc := range []sources.Location{
		{URI: withParam(uri, "table=lim")},
		{URI: withParam(uri, "query="+url.QueryEscape("SELECT id, d FROM lim"))},
	} {
		_, in, err := myLoad(t, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc.URI, err)
		}
		if in.Rows != 4 {
			t.Errorf("%s: read %d rows, want 4", loc.URI, in.Rows)
		}
		if got := in.Details["sql_select_limit"]; got != "18446744073709551615" {
			t.Errorf("%s: details sql_select_limit = %v, want 18446744073709551615", loc.URI, got)
		}
		if got, has := in.Details["system_versioning_asof"]; in.Details["server"] == "MariaDB" && got != "DEFAULT" {
			t.Errorf("%s: details system_versioning_asof = %v (%v), want DEFAULT", loc.URI, got, has)
		}
	}
	src, err := sources.Open(sources.Location{Role: "sink", URI: withParam(uri, "table=lim")})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := src.(sources.Schemer).Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cols); !strings.Contains(got, "DECIMAL(5,2)") {
		t.Errorf("Schema %s, want d as DECIMAL(5,2) (the catalog's precision)", got)
	}
}

// On MariaDB, a system_versioning_asof in the URI (a session variable the
// driver sets) does not read a system-versioned table as of the past: the
// session pins it to DEFAULT before the snapshot, and the current rows are
// read. With ?system_versioning_asof=<a past time> the old rows were read
// and passed (exit 0: found by an adversarial tester).
func TestMySQLSystemVersioningAsOfPinned(t *testing.T) {
	name, db := mysqltest.Database(t)
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		t.Skipf("server %s is not MariaDB: no system-versioned tables", version)
	}
	mysqltest.Exec(t, db, "CREATE TABLE sv (id VARCHAR(4), v VARCHAR(8)) WITH SYSTEM VERSIONING; INSERT INTO sv VALUES ('1', 'old'), ('2', 'old')")
	// One connection, so the time is read and used in one session time zone
	// (the server's, as the driver's SET of the URI's value uses).
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	time.Sleep(20 * time.Millisecond)
	var asOf string
	if err := conn.QueryRowContext(context.Background(), "SELECT DATE_FORMAT(NOW(6), '%Y-%m-%d %H:%i:%s.%f')").Scan(&asOf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := conn.ExecContext(context.Background(), "UPDATE sv SET v = 'new' WHERE id = '1'; DELETE FROM sv WHERE id = '2'; INSERT INTO sv VALUES ('3', 'new')"); err != nil {
		t.Fatal(err)
	}
	// The test's own check: as of that time the table held the old rows.
	var past string
	if err := conn.QueryRowContext(context.Background(), "SELECT GROUP_CONCAT(id, v ORDER BY id) FROM sv FOR SYSTEM_TIME AS OF TIMESTAMP ?", asOf).Scan(&past); err != nil || past != "1old,2old" {
		t.Fatalf("as of %s the table held %q (%v), want 1old,2old", asOf, past, err)
	}
	param := "system_versioning_asof=" + strings.ReplaceAll(url.QueryEscape("'"+asOf+"'"), "+", "%20")
	for _, loc := range []sources.Location{
		{URI: withParam(mysqltest.TableURL(t, name, "sv"), param)},
		{URI: withParam(withParam(mysqltest.DatabaseURL(t, name), param), "query="+url.QueryEscape("SELECT id, v FROM sv"))},
	} {
		ddb, in, err := myLoad(t, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc.URI, err)
		}
		_, rows, err := ddb.Strings(context.Background(), "SELECT string_agg(id || v, ',' ORDER BY id) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		if got := nullText(rows[0][0]); got != "1new,3new" {
			t.Errorf("%s: read %s, want the current rows 1new,3new", loc.URI, got)
		}
		if got := in.Details["system_versioning_asof"]; got != "DEFAULT" {
			t.Errorf("%s: details system_versioning_asof = %v, want DEFAULT", loc.URI, got)
		}
	}
}

// nullText is a value as text, NULL for nil.
func nullText(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// derefs are rows of values as text (nullText).
func derefs(rows [][]*string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = nullText(v)
		}
	}
	return out
}
