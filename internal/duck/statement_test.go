//go:build duckdb_arrow

package duck_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// The statement helpers render a file of queries/ and run it as the
// methods for rendered text do: ExecFile changes the session, CountFile
// and ExecCountFile return the count, StringsFile the rows as text; a file
// that is not in the set is its rendering error, and a statement DuckDB
// refuses is wrapped with its first line.
func TestStatementHelpers(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	engine := queries.MustSet("engine", sqlfile.Funcs())
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT * FROM range(3) r(i)"); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountFile(ctx, engine, queries.EngineCountRows, "t"); err != nil || n != 3 {
		t.Errorf("CountFile count_rows: %d, %v; want 3", n, err)
	}
	if n, err := db.CountFile(ctx, engine, queries.EngineIsView, nil, "t"); err != nil || n != 0 {
		t.Errorf("CountFile is_view t: %d, %v; want 0", n, err)
	}
	cols, rows, err := db.StringsFile(ctx, engine, queries.EngineTableColumns, nil, "t")
	if err != nil || len(cols) != 2 || len(rows) != 1 || *rows[0][0] != "i" || *rows[0][1] != "BIGINT" {
		t.Errorf("StringsFile table_columns: %v %v %v; want one row i BIGINT", cols, rows, err)
	}
	if err := db.ExecFile(ctx, engine, queries.EngineDropTable, "t"); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ExecCountFile(ctx, engine, queries.EngineCountRows, "t"); err == nil || !strings.Contains(err.Error(), "duckdb: SELECT") {
		t.Errorf("ExecCountFile on a dropped table: %d, %v; want DuckDB's error with the statement", n, err)
	}
	if err := db.ExecFile(ctx, engine, "no_such_statement", nil); !errors.Is(err, sqlfile.ErrParse) {
		t.Errorf("ExecFile of an unknown id: %v; want sqlfile.ErrParse", err)
	}
}
