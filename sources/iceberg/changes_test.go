package iceberg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	ice "github.com/reconcile-dev/reconcile/sources/iceberg"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// changeRows reads loc with changes: true (and opts) and renders each row
// as change[/kind] id=amount@checkpoint file:line@snapshot, in read order.
func changeRows(t *testing.T, dir string, opts map[string]any) (*sources.Input, []string, []map[string]string) {
	t.Helper()
	o := map[string]any{"changes": true}
	for k, v := range opts {
		o[k] = v
	}
	in, rows := read(t, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir, Options: o})
	var out []string
	for _, r := range rows {
		c := r[ice.ChangeColumn]
		if k := r[ice.DeleteKindColumn]; k != "NULL" {
			c += "/" + k
		}
		file := r[sources.FileColumn]
		if strings.HasPrefix(file, "data/") {
			file = "data"
		}
		out = append(out, fmt.Sprintf("%s %s=%s@%s %s:%s@%s", c, r["id"], r["amount"], r[ice.CheckpointColumn], file, r[sources.LineColumn], r[ice.SnapshotColumn]))
	}
	return in, out, rows
}

// An upsert's row delta deletes p2 by equality and inserts it again: read
// as of the snapshot (deletes applied), p2 is there once with its new
// amount; read as changes, p2's first insert, its delete by key (the key
// only, the delete file's row) and its new insert are all there, each
// with the snapshot and checkpoint that made it. Both are right: one is
// the table, the other what each commit did to it. from_snapshot: reads
// the changes after it only.
func TestChangesEqualityDeletes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	s1, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "10.00", "p2", "100.00", "p3", "30.00")...))
	if err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, rowsOf("p2", "0")...)
	s2, err := tb.Upsert(ctx, icebergtest.Flink("job-a", "op", 2), []int{tb.MustID("id")}, keys, records(t, tb, rowsOf("p2", "25.00", "p4", "40.00")...))
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, _ := summary(t, dir, nil)
	if want := "p1=10.00@1 p2=25.00@2 p3=30.00@1 p4=40.00@2"; strings.Join(got, " ") != want {
		t.Errorf("as of the snapshot: %v, want %s", got, want)
	}
	in, changes, rows := changeRows(t, dir, nil)
	a, b := itoa(s1), itoa(s2)
	want := []string{
		"insert p1=10.00@1 data:1@" + a, "insert p2=100.00@1 data:2@" + a, "insert p3=30.00@1 data:3@" + a,
		"delete/equality p2=NULL@2 data:1@" + b,
		"insert p2=25.00@2 data:1@" + b, "insert p4=40.00@2 data:2@" + b,
	}
	if strings.Join(changes, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant\n%s", strings.Join(changes, "\n"), strings.Join(want, "\n"))
	}
	// The equality delete's row is located in its delete file, the
	// inserts in their data files.
	if !strings.Contains(rows[3][sources.FileColumn], "delete") && rows[3][sources.FileColumn] == rows[4][sources.FileColumn] {
		t.Errorf("the delete at %s, the insert at %s", rows[3][sources.FileColumn], rows[4][sources.FileColumn])
	}
	d := in.Details["changes"].(map[string]any)
	snaps := d["snapshots"].([]any)
	if len(snaps) != 2 || d["range_starts"] != "at snapshot "+a+", the table's first" || fmt.Sprint(d["key"]) != "[id]" ||
		len(snaps[1].(map[string]any)["equality_delete_files"].([]any)) != 1 || in.Details["data_files"] != nil {
		t.Errorf("details.changes %v", d)
	}
	if in.ChangeLog == nil || strings.Join(in.ChangeLog.Key, ",") != "id" {
		t.Errorf("change log %+v", in.ChangeLog)
	}
	// After s1: s2's changes only.
	_, changes, _ = changeRows(t, dir, map[string]any{"from_snapshot": a})
	if strings.Join(changes, "\n") != strings.Join(want[3:], "\n") {
		t.Errorf("from_snapshot %s:\n%s", a, strings.Join(changes, "\n"))
	}
	// Up to s1 (snapshot:): s1's inserts only.
	_, changes, _ = changeRows(t, dir, map[string]any{"snapshot": a})
	if strings.Join(changes, "\n") != strings.Join(want[:3], "\n") {
		t.Errorf("snapshot %s:\n%s", a, strings.Join(changes, "\n"))
	}
}

// A delete by position (format v2) or by deletion vector (v3) is read as
// the deleted row — its data file and line, its values as the data file
// holds them — under the deleting snapshot.
func TestChangesPositionDeletes(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", postings(), version)
			if err != nil {
				t.Fatal(err)
			}
			s1, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00", "p3", "3.00")...))
			if err != nil {
				t.Fatal(err)
			}
			s2, err := tb.DeleteWhere(ctx, icebergtest.Flink("job", "op", 2), "id", "p2")
			if err != nil {
				t.Fatal(err)
			}
			_, changes, rows := changeRows(t, dir, nil)
			kind := map[int]string{2: "position", 3: "deletion_vector"}[version]
			want := []string{"insert p1=1.00@1 data:1@" + itoa(s1), "insert p2=2.00@1 data:2@" + itoa(s1), "insert p3=3.00@1 data:3@" + itoa(s1),
				"delete/" + kind + " p2=2.00@2 data:2@" + itoa(s2)}
			if strings.Join(changes, "\n") != strings.Join(want, "\n") || rows[3][sources.FileColumn] != rows[1][sources.FileColumn] {
				t.Errorf("changes:\n%s\nwant\n%s", strings.Join(changes, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A compaction (replace) in the range changes no row: it is skipped, named
// with the reason in details.changes; a later delete by position of a row
// of the compacted file reads that row's values from it.
func TestChangesCompactionSkipped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	_, f1, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "1.00")...))
	if err != nil {
		t.Fatal(err)
	}
	_, f2, err := tb.Append(ctx, icebergtest.Flink("job", "op", 2), records(t, tb, rowsOf("p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s3, err := tb.Rewrite(ctx, nil, append(f1, f2...), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s4, err := tb.DeleteWhere(ctx, icebergtest.Flink("job", "op", 3), "id", "p2")
	if err != nil {
		t.Fatal(err)
	}
	in, changes, _ := changeRows(t, dir, nil)
	var got []string
	for _, c := range changes {
		got = append(got, c[:strings.Index(c, " data")])
	}
	if strings.Join(got, " ") != "insert p1=1.00@1 insert p2=2.00@2 delete/position p2=2.00@3" || !strings.HasSuffix(changes[2], ":2@"+itoa(s4)) {
		t.Errorf("changes %q", changes)
	}
	snaps := in.Details["changes"].(map[string]any)["snapshots"].([]any)
	if s := snaps[2].(map[string]any); s["snapshot_id"] != itoa(s3) || !strings.Contains(fmt.Sprint(s["skipped"]), "a compaction (replace)") {
		t.Errorf("snapshot %d: %v", s3, s)
	}
}

// What cannot be read exactly is refused: a snapshot that removed data
// files (a copy-on-write delete); from_snapshot outside the ancestry, or
// without changes: true.
func TestChangesRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	s1, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 2), records(t, tb, rowsOf("p3", "3.00")...)); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, dir, map[string]any{"from_snapshot": itoa(s1)}); !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "only with changes: true") {
		t.Errorf("from_snapshot without changes: %v", err)
	}
	if _, _, err := readErr(t, dir, map[string]any{"changes": true, "from_snapshot": "42"}); !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "from_snapshot 42 is not in the ancestry") {
		t.Errorf("from_snapshot 42: %v", err)
	}
	// Copy-on-write: the data file holding p1 is rewritten without it.
	cow, err := tb.T.NewTransaction(), error(nil)
	if err = cow.Delete(ctx, iceberg.EqualTo(iceberg.Reference("id"), "p1"), nil); err != nil {
		t.Fatal(err)
	}
	if tb.T, err = cow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	_, _, err = readErr(t, dir, map[string]any{"changes": true})
	if !errors.Is(err, ice.ErrRead) || !strings.Contains(err.Error(), "removed data file") || !strings.Contains(err.Error(), "from_snapshot: "+itoa(tb.T.CurrentSnapshot().SnapshotID)) {
		t.Errorf("a copy-on-write delete: %v", err)
	}
	// From after it, the changes read.
	if _, _, err := readErr(t, dir, map[string]any{"changes": true, "from_snapshot": itoa(tb.T.CurrentSnapshot().SnapshotID)}); err != nil {
		t.Errorf("from after the copy-on-write delete: %v", err)
	}
}

func open(t *testing.T, dir string, opts map[string]any) (sources.Source, error) {
	t.Helper()
	return sources.Open(sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir, Options: opts})
}

// readErr reads the table with opts to its end and returns the first
// error.
func readErr(t *testing.T, dir string, opts map[string]any) (*sources.Input, int, error) {
	t.Helper()
	src, err := open(t, dir, opts)
	if err != nil {
		return nil, 0, err
	}
	defer src.Close()
	in, rr, err := src.Read(context.Background())
	if err != nil {
		return nil, 0, err
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		n += int(rr.RecordBatch().NumRows())
	}
	return in, n, rr.Err()
}

// A restored job re-inserts p2 (a new data file, no delete of the key)
// while the first insert of p2 is live; a later upsert of p2 deletes both
// copies by key, so the table read as of the snapshot holds p2 once and
// nothing shows the replay there. Its changes, loaded, show it: the
// loader adds a key_inserted_twice exception to the commit history,
// naming both snapshots, their checkpoints, the key and both rows.
func TestChangesKeyInsertedTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "1.00")...)); err != nil {
		t.Fatal(err)
	}
	s2, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 2), records(t, tb, rowsOf("p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	// job-b, restored from checkpoint 1, replays p2 under checkpoint 2.
	s3, _, err := tb.Append(ctx, icebergtest.Flink("job-b", "op", 2), records(t, tb, rowsOf("p2", "2.00")...))
	if err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, rowsOf("p2", "0")...)
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job-b", "op", 3), []int{tb.MustID("id")}, keys, records(t, tb, rowsOf("p2", "5.00")...)); err != nil {
		t.Fatal(err)
	}
	// A legitimate update later: deleted by key first, not a finding.
	keys = records(t, tb, rowsOf("p1", "0")...)
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job-b", "op", 4), []int{tb.MustID("id")}, keys, records(t, tb, rowsOf("p1", "1.50")...)); err != nil {
		t.Fatal(err)
	}
	got, _, _, _ := summary(t, dir, nil)
	if strings.Join(got, " ") != "p1=1.50@4 p2=5.00@3" {
		t.Errorf("as of the snapshot: %v", got)
	}
	db := sourcetest.DB(t)
	for _, c := range []struct {
		opts map[string]any
		want int
	}{{nil, 0}, {map[string]any{"changes": true}, 1}} {
		src, err := open(t, dir, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		in, err := load.Table(ctx, db, "t", src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		var found []sources.CommitFinding
		for _, f := range in.CommitHistory {
			if f.Finding == load.FindingKeyInsertedTwice {
				found = append(found, f)
			}
		}
		if len(found) != c.want {
			t.Errorf("%v: %d key_inserted_twice findings, want %d: %+v", c.opts, len(found), c.want, in.CommitHistory)
		}
		if c.want == 1 {
			f := found[0]
			if !f.Exception || f.Commit != itoa(s3) || f.Other != itoa(s2) || !strings.Contains(f.Detail, "inserted 1 key(s)") ||
				!strings.Contains(f.Detail, "id = p2 at data/") || !strings.Contains(f.Detail, "(checkpoint 2)") || !strings.HasSuffix(f.Detail, "@"+itoa(s2)+")") {
				t.Errorf("finding %+v", f)
			}
		}
		if err := dropInput(ctx, db, "t"); err != nil {
			t.Fatal(err)
		}
	}
}

// An equality delete file holds its key columns only: a required column
// outside the key is NULL in the delete's row, not a read error.
func TestChangesEqualityDeleteRequiredColumn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2), Required: true})
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", schema, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "10.00", "p2", "100.00")...)); err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, rowsOf("p2", "0")...)
	s2, err := tb.Upsert(ctx, icebergtest.Flink("job", "op", 2), []int{1}, keys, records(t, tb, rowsOf("p2", "25.00")...))
	if err != nil {
		t.Fatal(err)
	}
	_, changes, _ := changeRows(t, dir, nil)
	if len(changes) != 4 || changes[2] != "delete/equality p2=NULL@2 data:1@"+itoa(s2) {
		t.Errorf("changes %q", changes)
	}
}

// Read as changes, a data file committed twice (a restored job's committer
// adding checkpoint 2's file again) is the same finding of the commit
// history as read as of the snapshot, and its rows, inserted by both
// snapshots, are keys inserted twice.
func TestChangesFileAddedTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 1), records(t, tb, rowsOf("p1", "1.00")...)); err != nil {
		t.Fatal(err)
	}
	s2, files, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 2), records(t, tb, rowsOf("p2", "2.00", "p3", "3.00")...))
	if err != nil {
		t.Fatal(err)
	}
	s3, err := tb.AddFiles(ctx, icebergtest.Flink("job-b", "op", 2), files...)
	if err != nil {
		t.Fatal(err)
	}
	src, err := open(t, dir, map[string]any{"changes": true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	in, err := load.Table(ctx, sourcetest.DB(t), "t", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range in.CommitHistory {
		got = append(got, f.Finding+"@"+f.Commit+"/"+f.Other)
		if f.Finding == load.FindingKeyInsertedTwice && !strings.Contains(f.Detail, "inserted 2 key(s)") {
			t.Errorf("finding %+v", f)
		}
	}
	want := "checkpoint_committed_by_two_jobs@" + itoa(s3) + "/" + itoa(s2) + " data_file_added_twice@" + itoa(s3) + "/" + itoa(s2) + " key_inserted_twice@" + itoa(s3) + "/" + itoa(s2)
	if strings.Join(got, " ") != want {
		t.Errorf("commit history %v, want %s", got, want)
	}
}
