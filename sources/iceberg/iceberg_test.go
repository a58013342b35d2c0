package iceberg_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
	ice "github.com/reconcile-dev/reconcile/sources/iceberg"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// ledger is the schema of the fixture: the columns of sourcetest.Fixture.
func ledger() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "entry_id", Type: iceberg.PrimitiveTypes.String, Required: false},
		iceberg.NestedField{ID: 2, Name: "account", Type: iceberg.PrimitiveTypes.String, Required: false},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(20, 2), Required: false},
	)
}

// records builds one batch of the table's schema from rows given as JSON
// objects.
func records(t testing.TB, tb *icebergtest.Table, rows ...map[string]any) arrow.RecordBatch {
	t.Helper()
	sc, err := tb.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Release)
	return rec
}

func fixtureRows(from, to int) []map[string]any {
	fx := sourcetest.Fixture()
	var out []map[string]any
	for _, r := range fx.Rows[from:to] {
		m := map[string]any{}
		for j, c := range fx.Columns {
			if r[j] != nil {
				m[c] = *r[j]
			} else {
				m[c] = nil
			}
		}
		out = append(out, m)
	}
	return out
}

// writeFixture writes the fixture as a table of two Flink commits.
func writeFixture(t *testing.T, dir string) sources.Location {
	ctx := context.Background()
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "ledger", ledger(), 2)
	if err != nil {
		t.Fatal(err)
	}
	half := sourcetest.FixtureRows / 2
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op-1", 1), records(t, tb, fixtureRows(0, half)...)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op-1", 2), records(t, tb, fixtureRows(half, sourcetest.FixtureRows)...)); err != nil {
		t.Fatal(err)
	}
	return sources.Location{Role: "sink", URI: "iceberg:wh/db/ledger", BaseDir: dir}
}

func TestConformance(t *testing.T) { sourcetest.Run(t, writeFixture) }

// read reads a location whole: the Input and every row as a map of column
// to value text.
func read(t *testing.T, loc sources.Location) (*sources.Input, []map[string]string) {
	t.Helper()
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	in, rr, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []map[string]string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			m := map[string]string{}
			for j, f := range rec.Schema().Fields() {
				c := rec.Column(j)
				if c.IsNull(i) {
					m[f.Name] = "NULL"
				} else if d, ok := c.(*array.Decimal128); ok {
					m[f.Name] = d.Value(i).ToString(d.DataType().(*arrow.Decimal128Type).Scale)
				} else {
					m[f.Name] = c.ValueStr(i)
				}
			}
			rows = append(rows, m)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return in, rows
}

func TestProvenanceAndDetails(t *testing.T) {
	dir := t.TempDir()
	loc := writeFixture(t, dir)
	in, rows := read(t, loc)
	if len(rows) != sourcetest.FixtureRows {
		t.Fatalf("%d rows", len(rows))
	}
	first, last := rows[0], rows[len(rows)-1]
	if first[ice.CheckpointColumn] != "1" || last[ice.CheckpointColumn] != "2" || first[ice.JobIDColumn] != "job-a" ||
		first[ice.CheckpointAfterColumn] != "NULL" || last[ice.CheckpointAfterColumn] != "1" {
		t.Errorf("first row %v, last %v", first, last)
	}
	if first[sources.LineColumn] != "1" || !strings.HasPrefix(first[sources.FileColumn], "data/") {
		t.Errorf("first row at %s:%s, want data/…:1", first[sources.FileColumn], first[sources.LineColumn])
	}
	d := in.Details
	if d["snapshot_id"] != last[ice.SnapshotColumn] || d["sequence_number"] != int64(2) || d["format_version"] != 2 {
		t.Errorf("details: snapshot %v sequence %v format %v; last row's snapshot %s", d["snapshot_id"], d["sequence_number"], d["format_version"], last[ice.SnapshotColumn])
	}
	if !strings.HasPrefix(fmt.Sprint(d["metadata_found_by"]), "version-hint.text") || len(in.Files) != 1 || in.Files[0].Path != "wh/db/ledger/metadata/v3.metadata.json" {
		t.Errorf("metadata %v found by %v", in.Files, d["metadata_found_by"])
	}
	files := d["data_files"].([]any)
	if len(files) != 2 || files[0].(map[string]any)["records"] != int64(sourcetest.FixtureRows/2) {
		t.Errorf("data files %v", files)
	}
	if d["commit_history"] != nil {
		t.Errorf("commit history %v, want none", d["commit_history"])
	}
}

func TestOptionsAndRefusals(t *testing.T) {
	dir := t.TempDir()
	loc := writeFixture(t, dir)
	// The first snapshot: half the rows.
	in, _ := read(t, loc)
	anc := in.Details["ancestry"].([]any)
	firstID := anc[0].(map[string]any)["snapshot_id"].(string)
	loc.Options = map[string]any{"snapshot": firstID}
	if _, rows := read(t, loc); len(rows) != sourcetest.FixtureRows/2 {
		t.Errorf("snapshot %s: %d rows", firstID, len(rows))
	}
	// as_of the first snapshot's time: the snapshot current then (when the
	// second was not committed in the same millisecond).
	if t1, t2 := anc[0].(map[string]any)["timestamp"].(string), anc[1].(map[string]any)["timestamp"].(string); t1 != t2 {
		loc.Options = map[string]any{"as_of": t1}
		if in, rows := read(t, loc); len(rows) != sourcetest.FixtureRows/2 || in.Details["snapshot_id"] != firstID {
			t.Errorf("as_of %s: %d rows, snapshot %v", t1, len(rows), in.Details["snapshot_id"])
		}
	}
	// ref: main is the current snapshot.
	loc.Options = map[string]any{"ref": "main"}
	if in, rows := read(t, loc); len(rows) != sourcetest.FixtureRows || !strings.HasPrefix(fmt.Sprint(in.Details["snapshot_selected_by"]), "ref: main (branch)") {
		t.Errorf("ref main: %d rows, %v", len(rows), in.Details["snapshot_selected_by"])
	}
	// A metadata file named.
	loc.Options = nil
	loc.URI = "iceberg:wh/db/ledger/metadata/v2.metadata.json"
	if in, rows := read(t, loc); len(rows) != sourcetest.FixtureRows/2 || in.Details["metadata_found_by"] != "the metadata file given" {
		t.Errorf("v2.metadata.json: %d rows, %v", len(rows), in.Details["metadata_found_by"])
	}
	for _, c := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"snapshot": "x"}, "not a snapshot id"},
		{map[string]any{"snapshot": "1", "ref": "main"}, "at most one"},
		{map[string]any{"as_of": "yesterday"}, "not an instant"},
		{map[string]any{"branch": "main"}, "unknown option(s) branch"},
	} {
		_, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg:wh/db/ledger", BaseDir: dir, Options: c.opts})
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want ErrInvalidLocation with %q", c.opts, err, c.want)
		}
	}
	for _, c := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"snapshot": "42"}, "snapshot 42 is not in the table's metadata"},
		{map[string]any{"ref": "nope"}, `ref "nope": the table has no such branch or tag (it has: main)`},
		{map[string]any{"as_of": "2000-01-01T00:00:00Z"}, "no snapshot was current then"},
	} {
		src, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg:wh/db/ledger", BaseDir: dir, Options: c.opts})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = src.Read(context.Background())
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want ErrInvalidLocation with %q", c.opts, err, c.want)
		}
	}
	// No metadata folder.
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := sources.Open(sources.Location{Role: "sink", URI: "iceberg:empty", BaseDir: dir})
	if _, _, err := src.Read(context.Background()); !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("a folder with no metadata: %v", err)
	}
}

// TestSQLCatalog reads a table that iceberg-go's SQL catalog names on the
// local PostgreSQL server (skipped like every PostgreSQL test when it does
// not answer, unless RECONCILE_REQUIRE_PG=1).
func TestSQLCatalog(t *testing.T) {
	pgtest.Connect(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	name := fmt.Sprintf("reconcile_test_%d", time.Now().UnixNano())
	cat, err := sqlcat.NewCatalog(name, db, sqlcat.Postgres, iceberg.Properties{"warehouse": "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tb, err := icebergtest.Create(ctx, cat, "db", "ledger", ledger(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cat.DropTable(ctx, tb.Ident)
		_ = cat.DropNamespace(ctx, table.Identifier{"db"})
	})
	id, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op-1", 3), records(t, tb, fixtureRows(0, 10)...))
	if err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(pgtest.URL(), "?") {
		sep = "&"
	}
	in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg+sql:" + pgtest.URL() + sep + "table=db.ledger&catalog=" + name})
	if len(rows) != 10 || in.Kind != ice.KindSQL || in.Details["snapshot_id"] != fmt.Sprint(id) || in.Details["catalog"] != name || rows[9][ice.CheckpointColumn] != "3" {
		t.Errorf("%d rows, kind %s, details %v", len(rows), in.Kind, in.Details)
	}
	// The table: option, and a table the catalog does not have.
	in, rows = read(t, sources.Location{Role: "sink", URI: "iceberg+sql:" + pgtest.URL(), Options: map[string]any{"table": "db.ledger", "catalog": name}})
	if len(rows) != 10 {
		t.Errorf("table: option: %d rows", len(rows))
	}
	src, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg+sql:" + pgtest.URL() + sep + "table=db.nope&catalog=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.Read(ctx); !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("a table the catalog lacks: %v", err)
	}
}

// URIs of the SQL catalog kind that cannot work are refused by Open.
func TestSQLCatalogURIs(t *testing.T) {
	for uri, want := range map[string]string{
		"iceberg+sql:sqlite:catalog.db?table=db.t&x=1":      "SQLite takes no parameters",
		"iceberg+sql:sqlite:?table=db.t":                    "no SQLite database file",
		"iceberg+sql:postgres://u@h/db":                     "want the table as namespace.name",
		"iceberg+sql:postgres://u@h/db?table=t":             "want the table as namespace.name",
		"iceberg+sql:mysql://u@h/db?table=db.t":             "unknown kind",
		"iceberg+sql:postgres://u:secret@h/db?table=db.t&x": "",
	} {
		_, err := sources.Open(sources.Location{Role: "sink", URI: uri})
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", uri, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: err = %v, want %q", uri, err, want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the password shows: %v", uri, err)
		}
	}
}

// TestSQLiteCatalog reads a table a SQLite catalog names, the catalog
// file given relative to the spec's folder.
func TestSQLiteCatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sql.Open("sqlite3", filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat, err := sqlcat.NewCatalog("local", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dir, "wh")})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tb, err := icebergtest.Create(ctx, cat, "db", "ledger", ledger(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op-1", 4), records(t, tb, fixtureRows(0, 7)...)); err != nil {
		t.Fatal(err)
	}
	in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg+sql:sqlite:catalog.db?table=db.ledger&catalog=local", BaseDir: dir})
	if len(rows) != 7 || in.Details["catalog_database"] != "sqlite" || rows[6][ice.CheckpointColumn] != "4" {
		t.Errorf("%d rows, details %v", len(rows), in.Details)
	}
	// A catalog file that is not there is not created.
	src, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg+sql:sqlite:nope.db?table=db.ledger", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.Read(ctx); !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("a missing catalog file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.db")); err == nil {
		t.Error("reading a missing SQLite catalog created it")
	}
}
