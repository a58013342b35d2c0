//go:build duckdb_arrow

package duck_test

import (
	"context"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

// A view of ViewOver over its base alone is converted in its base
// (AlterTarget); one with columns of other tables is not (the caller makes
// it a table first); dropping either drops the tables it reads.
func TestViewOverTargets(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE a_raw AS SELECT 1 AS x, 0 AS k",
		"CREATE TABLE b_raw AS SELECT 1 AS x, 0 AS k",
		"CREATE TABLE b_more AS SELECT 0 AS k, 'c' AS c",
	} {
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ViewOver(ctx, "a", "a_raw", "CREATE OR REPLACE VIEW a AS SELECT x FROM a_raw"); err != nil {
		t.Fatal(err)
	}
	if err := db.ViewOver(ctx, "b", "b_raw", "CREATE OR REPLACE VIEW b AS SELECT b_raw.x, b_more.c FROM b_raw JOIN b_more ON b_raw.k = b_more.k", "b_more"); err != nil {
		t.Fatal(err)
	}
	if got := db.AlterTarget("a"); got != "a_raw" {
		t.Errorf("AlterTarget(a) = %s, want a_raw", got)
	}
	if got := db.AlterTarget("b"); got != "b" {
		t.Errorf("AlterTarget(b) = %s, want b (a column of b_more is not in b_raw)", got)
	}
	for _, v := range []string{"a", "b"} {
		if err := db.DropView(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.Count(ctx, "SELECT count(*) FROM information_schema.tables"); err != nil || n != 0 {
		t.Errorf("%d tables left after dropping the views (%v)", n, err)
	}
}
