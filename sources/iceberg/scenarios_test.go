package iceberg_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	iceberg "github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
	ice "github.com/reconcile-dev/reconcile/sources/iceberg"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
)

// postings is the schema of the scenario tables: an id, an amount.
func postings() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)},
	)
}

func newTable(t *testing.T, dir string) *icebergtest.Table {
	t.Helper()
	tb, err := icebergtest.NewHadoop(context.Background(), filepath.Join(dir, "wh"), "db", "t", postings(), 2)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func rowsOf(kv ...string) []map[string]any {
	var out []map[string]any
	for i := 0; i < len(kv); i += 2 {
		out = append(out, map[string]any{"id": kv[i], "amount": kv[i+1]})
	}
	return out
}

func must[T any](t *testing.T, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// summary is id=amount@checkpoint per row, sorted, and the findings'
// kinds.
func summary(t *testing.T, dir string, opts map[string]any) ([]string, []string, *sources.Input, []map[string]string) {
	t.Helper()
	in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir, Options: opts})
	var got []string
	for _, r := range rows {
		got = append(got, r["id"]+"="+r["amount"]+"@"+r[ice.CheckpointColumn])
	}
	sort.Strings(got)
	var kinds []string
	if fs, ok := in.Details["commit_history"].([]ice.Finding); ok {
		for _, f := range fs {
			k := f.Kind
			if f.Exception {
				k += "!"
			}
			kinds = append(kinds, k)
		}
	}
	return got, kinds, in, rows
}

// A restored job commits checkpoint 7's files again under a new job id:
// their rows are read twice, attributed to both snapshots, and the history
// names the data file added twice (an exception) and the checkpoint id
// committed under two job ids.
func TestDoubleCommitNewJob(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	must(t, 0, func() error {
		_, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 6), records(t, tb, rowsOf("p1", "1.00")...))
		return err
	}())
	s7, files7, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 7), records(t, tb, rowsOf("p2", "2.00", "p3", "3.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s7b, err := tb.AddFiles(ctx, icebergtest.Flink("job-b", "op", 7), files7...)
	if err != nil {
		t.Fatal(err)
	}
	must(t, 0, func() error {
		_, _, err := tb.Append(ctx, icebergtest.Flink("job-b", "op", 8), records(t, tb, rowsOf("p4", "4.00")...))
		return err
	}())
	got, kinds, in, rows := summary(t, dir, nil)
	want := []string{"p1=1.00@6", "p2=2.00@7", "p2=2.00@7", "p3=3.00@7", "p3=3.00@7", "p4=4.00@8"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v", got, want)
	}
	if strings.Join(kinds, " ") != "checkpoint_committed_by_two_jobs data_file_added_twice!" {
		t.Errorf("findings %v", kinds)
	}
	fs := in.Details["commit_history"].([]ice.Finding)
	for _, f := range fs {
		if f.Kind == ice.FindingFileTwice && (f.Snapshot != itoa(s7b) || f.Other != itoa(s7) || !strings.Contains(f.Detail, "checkpoint 7 of job job-a") || !strings.Contains(f.Detail, "checkpoint 7 of job job-b")) {
			t.Errorf("finding %+v: want snapshots %d and %d, checkpoint 7 of both jobs", f, s7, s7b)
		}
	}
	// Each copy of p2 names its snapshot, job and the same file and line.
	var copies []string
	for _, r := range rows {
		if r["id"] == "p2" {
			copies = append(copies, r[ice.SnapshotColumn]+" "+r[ice.JobIDColumn]+" "+r[sources.FileColumn]+":"+r[sources.LineColumn]+" after "+r[ice.CheckpointAfterColumn])
		}
	}
	if len(copies) != 2 || !strings.HasPrefix(copies[0], itoa(s7)+" job-a data/") || !strings.HasPrefix(copies[1], itoa(s7b)+" job-b data/") ||
		copies[0][strings.Index(copies[0], "data/"):strings.Index(copies[0], " after")] != copies[1][strings.Index(copies[1], "data/"):strings.Index(copies[1], " after")] ||
		!strings.HasSuffix(copies[0], "after 6") || !strings.HasSuffix(copies[1], "after NULL") {
		t.Errorf("copies of p2: %q", copies)
	}
}

// The same job commits checkpoint 7 twice, then checkpoint 5: both are
// exceptions of the history.
func TestCheckpointRepeatedAndBackwards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	for i, ck := range []int64{6, 7, 7, 5} {
		if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", ck), records(t, tb, rowsOf("q"+itoa(int64(i)), "1.00")...)); err != nil {
			t.Fatal(err)
		}
	}
	_, kinds, _, _ := summary(t, dir, nil)
	if strings.Join(kinds, " ") != "checkpoint_committed_twice! checkpoint_not_increasing!" {
		t.Errorf("findings %v", kinds)
	}
}

// An upsert's row delta deletes keys by equality: the reader applies the
// deletes to the rows of earlier sequence numbers only. Read without them,
// p2 would be there twice (a duplicate id) and the sum 100.00 higher.
func TestEqualityDeletes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "10.00", "p2", "100.00", "p3", "30.00")...)); err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, rowsOf("p2", "0")...)
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job-a", "op", 2), []int{tb.MustID("id")}, keys, records(t, tb, rowsOf("p2", "25.00", "p4", "40.00")...)); err != nil {
		t.Fatal(err)
	}
	got, kinds, in, rows := summary(t, dir, nil)
	want := []string{"p1=10.00@1", "p2=25.00@2", "p3=30.00@1", "p4=40.00@2"}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(kinds) != 0 {
		t.Errorf("rows %v findings %v, want %v and none", got, kinds, want)
	}
	// __line is the row's position in its data file as written: p3 was
	// the third row of the first file, whatever was deleted before it.
	for _, r := range rows {
		if r["id"] == "p3" && r[sources.LineColumn] != "3" || r["id"] == "p1" && r[sources.LineColumn] != "1" {
			t.Errorf("%s at line %s", r["id"], r[sources.LineColumn])
		}
	}
	dels, _ := in.Details["delete_files"].([]any)
	if len(dels) != 1 || dels[0].(map[string]any)["content"] != "equality_deletes" {
		t.Errorf("delete files %v", dels)
	}
}

// A rolled-back snapshot's rows are never read; it is listed.
func TestRollback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	s1, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "1.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s2, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 2), records(t, tb, rowsOf("bad", "9.99")...))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Rollback(ctx, s1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 3), records(t, tb, rowsOf("p2", "2.00")...)); err != nil {
		t.Fatal(err)
	}
	got, kinds, in, _ := summary(t, dir, nil)
	if strings.Join(got, " ") != "p1=1.00@1 p2=2.00@3" || strings.Join(kinds, " ") != "not_in_ancestry" {
		t.Errorf("rows %v findings %v", got, kinds)
	}
	f := in.Details["commit_history"].([]ice.Finding)[0]
	if f.Snapshot != itoa(s2) || !strings.Contains(f.Detail, "rolled back") || !strings.Contains(f.Detail, "checkpoint 2 of job job-a") {
		t.Errorf("finding %+v", f)
	}
	// Read as of the rolled-back snapshot by its id, it is what it held.
	if got, _, _, _ := summary(t, dir, map[string]any{"snapshot": itoa(s2)}); strings.Join(got, " ") != "bad=9.99@2 p1=1.00@1" {
		t.Errorf("snapshot %d: %v", s2, got)
	}
}

// A compaction (replace) is listed: its rows are attributed to it.
func TestCompaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	_, f1, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "1.00")...))
	if err != nil {
		t.Fatal(err)
	}
	_, f2, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 2), records(t, tb, rowsOf("p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Replace(ctx, nil, append(f1, f2...), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00")...)); err != nil {
		t.Fatal(err)
	}
	got, kinds, _, _ := summary(t, dir, nil)
	if strings.Join(got, " ") != "p1=1.00@NULL p2=2.00@NULL" || strings.Join(kinds, " ") != "rewrite" {
		t.Errorf("rows %v findings %v", got, kinds)
	}
}

// A schema change: the current snapshot reads with its schema (a renamed
// column under its new name, an added one NULL in older files), an older
// snapshot with the schema it was written under.
func TestSchemaChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	s1, _, err := tb.Append(ctx, nil, records(t, tb, rowsOf("p1", "1.00")...))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.AddColumn(ctx, "note", iceberg.PrimitiveTypes.String); err != nil {
		t.Fatal(err)
	}
	if err := tb.RenameColumn(ctx, "amount", "value"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, nil, records(t, tb, map[string]any{"id": "p2", "value": "2.00", "note": "n"})); err != nil {
		t.Fatal(err)
	}
	_, rows := read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	if len(rows) != 2 || rows[0]["value"] != "1.00" || rows[0]["note"] != "NULL" || rows[1]["note"] != "n" {
		t.Errorf("current: %v", rows)
	}
	_, rows = read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir, Options: map[string]any{"snapshot": itoa(s1)}})
	if _, has := rows[0]["note"]; len(rows) != 1 || rows[0]["amount"] != "1.00" || has {
		t.Errorf("snapshot %d: %v", s1, rows)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// The double commit and a rollback in a table of a SQL catalog on the
// local PostgreSQL, read through the catalog: the same rows, attribution
// and findings as on the file system.
func TestScenariosSQLCatalog(t *testing.T) {
	pgtest.Connect(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	name := fmt.Sprintf("reconcile_scenarios_%d", time.Now().UnixNano())
	cat, err := sqlcat.NewCatalog(name, db, sqlcat.Postgres, iceberg.Properties{"warehouse": "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	tb, err := icebergtest.Create(ctx, cat, "db", "t", postings(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cat.DropTable(ctx, tb.Ident)
		_ = cat.DropNamespace(ctx, table.Identifier{"db"})
	})
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 6), records(t, tb, rowsOf("p1", "1.00")...)); err != nil {
		t.Fatal(err)
	}
	s7, files7, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 7), records(t, tb, rowsOf("p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s7b, err := tb.AddFiles(ctx, icebergtest.Flink("job-b", "op", 7), files7...)
	if err != nil {
		t.Fatal(err)
	}
	bad, _, err := tb.Append(ctx, icebergtest.Flink("job-b", "op", 8), records(t, tb, rowsOf("bad", "9.99")...))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Rollback(ctx, s7b); err != nil {
		t.Fatal(err)
	}
	in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg+sql:" + pgtest.URL(), Options: map[string]any{"table": "db.t", "catalog": name}})
	var got []string
	for _, r := range rows {
		got = append(got, r["id"]+"@"+r[ice.SnapshotColumn]+"/"+r[ice.JobIDColumn]+"/"+r[ice.CheckpointColumn])
	}
	sort.Strings(got)
	want := []string{"p1@" + rows[0][ice.SnapshotColumn] + "/job-a/6", "p2@" + itoa(s7b) + "/job-b/7", "p2@" + itoa(s7) + "/job-a/7"}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v", got, want)
	}
	var kinds []string
	for _, f := range in.CommitHistory {
		kinds = append(kinds, f.Finding+"@"+f.Commit)
	}
	if strings.Join(kinds, " ") != "checkpoint_committed_by_two_jobs@"+itoa(s7b)+" not_in_ancestry@"+itoa(bad)+" data_file_added_twice@"+itoa(s7b) {
		t.Errorf("findings %v", kinds)
	}
}

// An equality delete written under a partitioned spec applies to its own
// partition only: key p1 deleted in account A stays in account B. Applied
// to the whole table it would drop B's row (a wrong missing id).
func TestEqualityDeletesPartitioned(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchemaWithIdentifiers(0, []int{1, 2},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "account", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)})
	spec := iceberg.NewPartitionSpec(iceberg.PartitionField{SourceIDs: []int{2}, FieldID: 1000, Name: "account", Transform: iceberg.IdentityTransform{}})
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", schema, 2, spec)
	if err != nil {
		t.Fatal(err)
	}
	row := func(id, account, amount string) map[string]any {
		return map[string]any{"id": id, "account": account, "amount": amount}
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, row("p1", "A", "1.00"), row("p1", "B", "2.00"), row("p2", "A", "3.00"))); err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, row("p1", "A", "0"))
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job", "op", 2), []int{1}, keys, records(t, tb, row("p1", "A", "1.50"))); err != nil {
		t.Fatal(err)
	}
	_, rows := read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	var got []string
	for _, r := range rows {
		got = append(got, r["id"]+"/"+r["account"]+"="+r["amount"])
	}
	sort.Strings(got)
	if want := "p1/A=1.50 p1/B=2.00 p2/A=3.00"; strings.Join(got, " ") != want {
		t.Errorf("rows %v, want %s", got, want)
	}
}

// A format v1 table (no sequence numbers, no delete files) reads alike.
func TestFormatV1(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", postings(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for ck, kv := range [][]string{{"p1", "1.00", "p2", "2.00"}, {"p3", "3.00"}} {
		if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", int64(ck+1)), records(t, tb, rowsOf(kv...)...)); err != nil {
			t.Fatal(err)
		}
	}
	got, kinds, in, rows := summary(t, dir, nil)
	// In commit order (every sequence number is 0 in v1), each at its line.
	var order []string
	for _, r := range rows {
		order = append(order, r["id"]+":"+r[sources.LineColumn])
	}
	if strings.Join(got, " ") != "p1=1.00@1 p2=2.00@1 p3=3.00@2" || len(kinds) != 0 || in.Details["format_version"] != 1 || strings.Join(order, " ") != "p1:1 p2:2 p3:1" {
		t.Errorf("rows %v in order %v, findings %v, format %v", got, order, kinds, in.Details["format_version"])
	}
}

// Merge-on-read deletes — position deletes in format v2, a deletion vector
// in v3 — are applied, and the rows left keep their positions as written.
func TestPositionDeletesAndDeletionVectors(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", postings(), version)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00", "p3", "3.00")...)); err != nil {
				t.Fatal(err)
			}
			if _, err := tb.DeleteWhere(ctx, icebergtest.Flink("job", "op", 2), "id", "p2"); err != nil {
				t.Fatal(err)
			}
			in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
			var got []string
			for _, r := range rows {
				got = append(got, r["id"]+":"+r[sources.LineColumn])
			}
			dels, _ := in.Details["delete_files"].([]any)
			want := map[int]string{2: "position_deletes", 3: "deletion_vector"}[version]
			if strings.Join(got, " ") != "p1:1 p3:3" || len(dels) != 1 || dels[0].(map[string]any)["content"] != want {
				t.Errorf("rows %v, delete files %v; want p1:1 p3:3 and one %s", got, dels, want)
			}
		})
	}
}
