package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
)

// The libpq key=value form takes table= and query= as the URI form does,
// by libpq's quoting rules: a quoted query with spaces, spaces around '=',
// \' inside a quoted value, a quoted table name; the other settings reach
// the server as written. A setting without '=' (a query quoted SQL's way,
// doubling a quote) and an unterminated quote are refused naming the keyword.
func TestKeywordForm(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, "CREATE TABLE "+pgx.Identifier{schema, "keyword_form"}.Sanitize()+" (id text, amount numeric(10,2)); INSERT INTO "+
		pgx.Identifier{schema, "keyword_form"}.Sanitize()+" VALUES ('a', 1.50), ('b', 2.00)")
	cfg := conn.Config()
	base := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.Database)
	for _, c := range []struct {
		name, dsn string
		rows      int64
	}{
		{"table", base + " table=" + schema + ".keyword_form", 2},
		{"quoted table first", "table='" + schema + ".keyword_form' " + base, 2},
		{"query", base + " query='SELECT id, amount FROM " + schema + ".keyword_form'", 2},
		{"query with spaces around =", base + " query = 'SELECT 1 AS id'", 1},
		{"query with an escaped quote", base + ` query='SELECT id FROM ` + schema + `.keyword_form WHERE id = \'a\''`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, in, err := pgLoad(t, sources.Location{URI: "postgres:" + c.dsn})
			if err != nil {
				t.Fatal(err)
			}
			if in.Rows != c.rows || in.Kind != "postgres" {
				t.Errorf("rows %d kind %s, want %d postgres", in.Rows, in.Kind, c.rows)
			}
		})
	}
	for _, c := range []struct{ name, dsn, want string }{
		{"no table", base, "add table=schema.name (or query='SELECT …'"},
		{"SQL quoting", base + " query='SELECT ''a'' AS id'", `setting "'a''" has no '='`},
		{"unterminated", base + " query='SELECT 1", "the value of query has no closing quote"},
		{"table twice", base + " table=a", "the table is given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			loc := sources.Location{URI: "postgres:" + c.dsn, Role: "sink"}
			if c.name == "table twice" {
				loc.Options = map[string]any{"table": "b"}
			}
			_, err := sources.Open(loc)
			if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open: %v, want ErrInvalidLocation with %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "?table=") {
				t.Errorf("advice in the URI form for a key=value string: %v", err)
			}
		})
	}
}
