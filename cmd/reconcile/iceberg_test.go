package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
)

// An Iceberg sink whose restored job committed checkpoint 7's files again
// under a new job id gives the exceptions the same rows give in Parquet
// files (the table's data files copied, the twice-committed one twice),
// and with checkpoint: __checkpoint the checkpoint of every copy; verify
// passes on its evidence, and a second run against the same snapshot id
// writes byte-identical exception files.
func TestIcebergSinkAsParquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)})
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "postings", schema, 2)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tb.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(js string) []arrowRecord { return []arrowRecord{jsonBatch(t, sc, js)} }
	var parquet []string
	addParquet := func(files []iceberg.DataFile) {
		for _, f := range files {
			p := strings.TrimPrefix(f.FilePath(), "file://")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, "parquet", "part-"+string(rune('a'+len(parquet)))+".parquet")
			writeFile(t, name, string(data))
			parquet = append(parquet, name)
		}
	}
	_, f6, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 6), mk(`[{"id":"p1","amount":"1.00"}]`)...)
	if err != nil {
		t.Fatal(err)
	}
	addParquet(f6)
	s7, f7, err := tb.Append(ctx, icebergtest.Flink("job-a", "op", 7), mk(`[{"id":"p2","amount":"2.00"},{"id":"p3","amount":"3.00"}]`)...)
	if err != nil {
		t.Fatal(err)
	}
	addParquet(f7)
	s7b, err := tb.AddFiles(ctx, icebergtest.Flink("job-b", "op", 7), f7...)
	if err != nil {
		t.Fatal(err)
	}
	addParquet(f7)
	_, f8, err := tb.Append(ctx, icebergtest.Flink("job-b", "op", 8), mk(`[{"id":"p4","amount":"4.00"}]`)...)
	if err != nil {
		t.Fatal(err)
	}
	addParquet(f8)
	writeFile(t, filepath.Join(dir, "source.csv"), "id,amount\np1,1.00\np2,2.00\np3,3.00\np4,4.00\np5,5.00\n")
	spec := func(name, sink, extra string) string {
		return writeFile(t, filepath.Join(dir, name+".yaml"), "source: source.csv\nsink: "+sink+"\nid: [id]\nmeasures: [amount]\n"+extra)
	}
	run := func(spec string) (string, map[string]int) {
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--format", "json")
		if code != exitFailed {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", spec, code, exitFailed, stdout, stderr)
		}
		var sum struct {
			Checks []struct {
				ID         string `json:"id"`
				Exceptions int    `json:"exceptions"`
			} `json:"checks"`
		}
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, c := range sum.Checks {
			got[c.ID] = c.Exceptions
		}
		return out, got
	}
	iceOut, iceChecks := run(spec("iceberg", "iceberg:wh/db/postings", ""))
	pqOut, pqChecks := run(spec("parquet", "parquet/*.parquet", ""))
	// The Iceberg sink has the checks of its commit history besides: the
	// data file added twice fails, checkpoint 7 under two job ids is
	// listed.
	if len(iceChecks) != len(pqChecks)+2 || iceChecks["duplicate_ids"] != 2 || iceChecks["missing_ids"] != 1 ||
		iceChecks["commit_history"] != 1 || iceChecks["commit_history_info"] != 1 {
		t.Errorf("Iceberg sink %v, Parquet sink %v", iceChecks, pqChecks)
	}
	hist := readCSV(t, filepath.Join(iceOut, "exceptions", "commit_history.csv"))
	if len(hist) != 2 || strings.Join(hist[0], ",") != "side,finding,commit,other_commit,detail" || hist[1][1] != "data_file_added_twice" ||
		hist[1][2] != snapID(s7b) || hist[1][3] != snapID(s7) || !strings.Contains(hist[1][4], "checkpoint 7 of job job-a") || !strings.Contains(hist[1][4], "checkpoint 7 of job job-b") {
		t.Errorf("commit_history: %q", hist)
	}
	for id, n := range pqChecks {
		if iceChecks[id] != n {
			t.Errorf("%s: %d exceptions over Iceberg, %d over Parquet", id, iceChecks[id], n)
		}
	}
	// The same exceptions, but for where the rows lie.
	for _, check := range []string{"duplicate_ids", "missing_ids", "row_count_balance", "sum_balance"} {
		a, b := exceptionRows(t, iceOut, check), exceptionRows(t, pqOut, check)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("%s:\nIceberg %q\nParquet %q", check, a, b)
		}
	}
	// With the checkpoint provenance, each copy's checkpoint.
	cpOut, _ := run(spec("checkpoint", "iceberg:wh/db/postings", "checkpoint: __checkpoint\n"))
	dup := readCSV(t, filepath.Join(cpOut, "exceptions", "duplicate_ids.csv"))
	// Each copy's location names the snapshot that added its file.
	locs := strings.Split(dup[1][5], ";")
	if len(dup) != 3 || dup[0][4] != "checkpoint_ids" || dup[1][4] != "7" || len(locs) != 2 ||
		!strings.HasSuffix(locs[0], ":1@"+snapID(s7)) || !strings.HasSuffix(locs[1], ":1@"+snapID(s7b)) ||
		strings.TrimSuffix(locs[0], "@"+snapID(s7)) != strings.TrimSuffix(locs[1], "@"+snapID(s7b)) {
		t.Errorf("duplicate_ids with checkpoints: %q, want the one file's line 1 at snapshots %d and %d", dup, s7, s7b)
	}
	if code, stdout, stderr := runCLI(t, "verify", cpOut); code != exitOK {
		t.Errorf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// Re-run against the snapshot read: byte-identical exception files.
	var sum struct {
		Inputs []struct {
			Details map[string]any `json:"details"`
		} `json:"inputs"`
	}
	data, err := os.ReadFile(filepath.Join(cpOut, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	snap, _ := sum.Inputs[1].Details["snapshot_id"].(string)
	if snap == "" {
		t.Fatalf("the evidence names no snapshot: %v", sum.Inputs[1].Details)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job-b", "op", 9), mk(`[{"id":"p9","amount":"9.00"}]`)...); err != nil {
		t.Fatal(err)
	}
	again, _ := run(spec("again", "{uri: \"iceberg:wh/db/postings\", snapshot: \""+snap+"\"}", "checkpoint: __checkpoint\n"))
	for _, check := range []string{"duplicate_ids", "missing_ids", "unexpected_ids", "sum_balance"} {
		a, err := os.ReadFile(filepath.Join(cpOut, "exceptions", check+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(again, "exceptions", check+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs when snapshot %s is read again:\n%s\n%s", check, snap, a, b)
		}
	}
}

type arrowRecord = arrow.RecordBatch

func snapID(v int64) string { return strconv.FormatInt(v, 10) }

// exceptionRows are a check's exception rows without their location
// columns.
func exceptionRows(t *testing.T, out, check string) []string {
	t.Helper()
	rows := readCSV(t, filepath.Join(out, "exceptions", check+".csv"))
	var keep []int
	for i, h := range rows[0] {
		if !strings.Contains(h, "location") {
			keep = append(keep, i)
		}
	}
	var lines []string
	for _, r := range rows {
		var l []string
		for _, i := range keep {
			l = append(l, r[i])
		}
		lines = append(lines, strings.Join(l, ","))
	}
	return lines
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// An upsert sink: checkpoint 2's row delta deletes p2 by equality and
// writes its new amount. Read as a reader of the table sees it (deletes
// applied) the sink passes against the source of final amounts; the same
// data files read as plain Parquet (the deletes ignored) would fail with p2
// twice. A snapshot rolled back is never read: the run passes with it in
// the table, and lists it.
func TestIcebergUpsertAndRollback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)})
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "balances", schema, 2)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tb.ArrowSchema()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(js string) arrow.RecordBatch { return jsonBatch(t, sc, js) }
	s1, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), mk(`[{"id":"p1","amount":"10.00"},{"id":"p2","amount":"100.00"},{"id":"p3","amount":"30.00"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job", "op", 2), []int{tb.MustID("id")}, mk(`[{"id":"p2","amount":"0"}]`), mk(`[{"id":"p2","amount":"25.00"}]`)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "source.csv"), "id,amount\np1,10.00\np2,25.00\np3,30.00\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "source: source.csv\nsink: iceberg:wh/db/balances\nid: [id]\nmeasures: [amount]\ncheckpoint: __checkpoint\n")
	out := filepath.Join(t.TempDir(), "ev")
	if code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out); code != exitOK {
		t.Fatalf("the upsert sink, deletes applied: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	// The data files alone, as a reader that ignores the deletes sees them.
	var parts []string
	for _, id := range []int64{s1, tb.T.CurrentSnapshot().SnapshotID} {
		files, err := tb.AddedFiles(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(strings.TrimPrefix(f.FilePath(), "file://"))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, writeFile(t, filepath.Join(dir, "ignored", "part-"+strconv.Itoa(len(parts))+".parquet"), string(data)))
		}
	}
	ignored := writeFile(t, filepath.Join(dir, "ignored.yaml"), "source: source.csv\nsink: ignored/*.parquet\nid: [id]\nmeasures: [amount]\n")
	if code, _, _ := runCLI(t, "run", "--config", ignored, "--out", filepath.Join(t.TempDir(), "ev")); code != exitFailed || len(parts) != 2 {
		t.Errorf("the data files without their deletes (%d files): exit %d, want 1", len(parts), code)
	}
	// A commit rolled back: its rows are not read, the run still passes,
	// and commit_history_info lists it.
	bad, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 3), mk(`[{"id":"p9","amount":"99.00"}]`))
	if err != nil {
		t.Fatal(err)
	}
	parent := *tb.T.SnapshotByID(bad).ParentSnapshotID
	if err := tb.Rollback(ctx, parent); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "ev")
	if code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out); code != exitOK {
		t.Fatalf("after the rollback: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	info := readCSV(t, filepath.Join(out, "exceptions", "commit_history_info.csv"))
	if len(info) != 2 || info[1][1] != "not_in_ancestry" || info[1][2] != snapID(bad) {
		t.Errorf("commit_history_info %q, want snapshot %d not in the ancestry", info, bad)
	}
}

// jsonBatch is the record batch of schema sc that the JSON array js
// writes (array.RecordFromJSON), released when the test ends.
func jsonBatch(t *testing.T, sc *arrow.Schema, js string) arrow.RecordBatch {
	t.Helper()
	r, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Release)
	return r
}
