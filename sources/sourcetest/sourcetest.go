//go:build duckdb_arrow

// Package sourcetest is the conformance suite every source kind runs: it
// checks the loaded-table contract of package sources against one shared
// fixture, written by each kind in its own format.
package sourcetest

import (
	"context"
	"errors"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/sources"
)

// Fixture is the shared table every kind must load faithfully. Values are
// text as a file would hold them; nil is a NULL (an empty field).
var Fixture = struct {
	Columns []string
	Rows    [][]*string
}{
	Columns: []string{"entry_id", "account", "amount"},
	Rows: [][]*string{
		{s("0001"), s("ACC-1"), s("10.50")},
		{s("007"), s("ACC-2"), s("-0.01")},
		{s("A1 "), nil, s("12345678901234567.89")},
		{s("b2"), s("ACC-3"), nil},
	},
}

func s(v string) *string { return &v }

// Writer writes Fixture in the kind's format under dir and returns the
// Location that reads it.
type Writer func(t *testing.T, dir string) sources.Location

// Run checks a kind against the contract: columns in order, values exact,
// row count, provenance columns, no table left by a failed load, and
// cancellation. exactText says the kind keeps values as text (CSV, NDJSON);
// typed kinds are compared after a cast to VARCHAR.
func Run(t *testing.T, write Writer) {
	ctx := context.Background()
	// open starts a DuckDB session and opens the kind on a fresh fixture.
	open := func(t *testing.T) (*duck.DB, sources.Source) {
		db, err := duck.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		src, err := sources.Open(write(t, t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return db, src
	}

	t.Run("loads columns and values exactly", func(t *testing.T) {
		db, src := open(t)
		in, err := src.Load(ctx, db, "t")
		if err != nil {
			t.Fatal(err)
		}
		if in.Rows != int64(len(Fixture.Rows)) {
			t.Errorf("Rows = %d, want %d", in.Rows, len(Fixture.Rows))
		}
		var names []string
		for _, c := range in.Columns {
			names = append(names, c.Name)
		}
		if len(names) != len(Fixture.Columns) {
			t.Fatalf("columns %v, want %v", names, Fixture.Columns)
		}
		for i := range names {
			if names[i] != Fixture.Columns[i] {
				t.Errorf("column %d = %q, want %q", i, names[i], Fixture.Columns[i])
			}
		}
		_, rows, err := db.Strings(ctx, `SELECT entry_id, account, amount, __row FROM t ORDER BY __row`)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(Fixture.Rows) {
			t.Fatalf("%d rows, want %d", len(rows), len(Fixture.Rows))
		}
		for i, r := range rows {
			for j, want := range Fixture.Rows[i] {
				got := r[j]
				switch {
				case want == nil && got != nil:
					t.Errorf("row %d %s = %q, want NULL", i, Fixture.Columns[j], *got)
				case want != nil && got == nil:
					t.Errorf("row %d %s = NULL, want %q", i, Fixture.Columns[j], *want)
				case want != nil && *got != *want:
					t.Errorf("row %d %s = %q, want %q", i, Fixture.Columns[j], *got, *want)
				}
			}
			if *r[3] != string(rune('0'+i)) {
				t.Errorf("row %d __row = %s, want %d", i, *r[3], i)
			}
		}
		n, err := db.Count(ctx, `SELECT count(DISTINCT __line) FROM t WHERE __file IS NOT NULL AND __line > 0`)
		if err != nil || n != int64(len(Fixture.Rows)) {
			t.Errorf("distinct __line = %d (%v), want %d", n, err, len(Fixture.Rows))
		}
	})

	t.Run("cancelled context stops the load and leaves no table", func(t *testing.T) {
		db, src := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := src.Load(cctx, db, "t"); err == nil {
			t.Fatal("Load with a cancelled context succeeded")
		} else if !errors.Is(err, context.Canceled) {
			t.Logf("error (not context.Canceled, accepted if it names the cancellation): %v", err)
		}
		if n, _ := db.Count(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_name = 't'`); n != 0 {
			t.Error("a failed load left table t behind")
		}
	})
}
