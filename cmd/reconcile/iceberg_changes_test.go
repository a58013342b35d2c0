package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
)

// An Iceberg sink read as its changes (changes: true), reconciled per
// checkpoint against the change events the job was to commit: job-b,
// restored from checkpoint 1 under a new job id, committed p3 again under
// its checkpoint 3. With the change in the id (id: [id, __change]) and
// checkpoint: __checkpoint, the existing checks show the replay —
// duplicate_ids lists p3's insert with the location of both copies, at
// both snapshots; key_checkpoint_conflicts lists it under checkpoints 2
// and 3 — and the commit history's key_inserted_twice names both
// snapshots. verify passes on the evidence.
func TestIcebergChangesReplay(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchemaWithIdentifiers(0, []int{1},
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
	mk := func(js string) arrow.RecordBatch { return jsonBatch(t, sc, js) }
	for _, c := range []struct {
		job  string
		ckpt int64
		rows string
	}{
		{"job-a", 1, `[{"id":"p1","amount":"1.00"},{"id":"p2","amount":"2.00"}]`},
		{"job-a", 2, `[{"id":"p3","amount":"3.00"}]`},
		{"job-b", 3, `[{"id":"p3","amount":"3.00"}]`},
		{"job-b", 4, `[{"id":"p4","amount":"4.00"}]`},
	} {
		if _, _, err := tb.Append(ctx, icebergtest.Flink(c.job, "op", c.ckpt), mk(c.rows)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "events.csv"), "id,amount,__change\np1,1.00,insert\np2,2.00,insert\np3,3.00,insert\np4,4.00,insert\n")
	spec := writeFile(t, filepath.Join(dir, "changes.yaml"), `source: events.csv
sink: {uri: "iceberg:wh/db/postings", changes: true}
id: [id, __change]
measures: [amount]
checkpoint: __checkpoint
logical_key: [id, __change]
`)
	out := filepath.Join(t.TempDir(), "ev")
	code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--format", "json")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	var sum struct {
		Checks []struct {
			ID         string `json:"id"`
			Exceptions int    `json:"exceptions"`
		} `json:"checks"`
		Inputs []struct {
			Details map[string]any `json:"details"`
		} `json:"inputs"`
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
	if got["duplicate_ids"] != 1 || got["key_checkpoint_conflicts"] != 1 || got["commit_history"] != 1 || got["missing_ids"] != 0 || got["unexpected_ids"] != 0 {
		t.Errorf("checks %v", got)
	}
	anc := sum.Inputs[1].Details["ancestry"].([]any)
	s2, s3 := anc[1].(map[string]any)["snapshot_id"].(string), anc[2].(map[string]any)["snapshot_id"].(string)
	dup := readCSV(t, filepath.Join(out, "exceptions", "duplicate_ids.csv"))
	locs := strings.Split(dup[1][6], ";")
	if len(dup) != 2 || dup[1][0] != "p3" || dup[1][1] != "insert" || dup[1][3] != "2" || dup[1][5] != "2;3" || len(locs) != 2 ||
		!strings.HasSuffix(locs[0], ":1@"+s2) || !strings.HasSuffix(locs[1], ":1@"+s3) {
		t.Errorf("duplicate_ids: %q", dup)
	}
	kcc := readCSV(t, filepath.Join(out, "exceptions", "key_checkpoint_conflicts.csv"))
	if len(kcc) != 2 || kcc[1][0] != "p3" || !strings.Contains(strings.Join(kcc[1], ","), "2;3") {
		t.Errorf("key_checkpoint_conflicts: %q", kcc)
	}
	hist := readCSV(t, filepath.Join(out, "exceptions", "commit_history.csv"))
	if len(hist) != 2 || hist[1][1] != "key_inserted_twice" || hist[1][2] != s3 || hist[1][3] != s2 || !strings.Contains(hist[1][4], "id = p3") {
		t.Errorf("commit_history: %q", hist)
	}
	if code, stdout, stderr := runCLI(t, "verify", out); code != exitOK {
		t.Errorf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// The sink's data files are read by DuckDB into a view over their rows
// (the provenance of each file joined to them): a provenance column the
// comparison converts in place — here __checkpoint, grouped by against a
// source's text column of that name — is converted once the view is made
// a table, and the control passes as over any other sink.
func TestIcebergGroupByProvenance(t *testing.T) {
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
	r := jsonBatch(t, sc, `[{"id":"p1","amount":"1.00"},{"id":"p2","amount":"2.00"}]`)
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 7), r); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "source.csv"), "id,amount,__checkpoint\np1,1.00,7\np2,2.00,7\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "source: source.csv\nsink: iceberg:wh/db/postings\nid: [id]\nmeasures: [amount]\ngroup_by: [__checkpoint]\n")
	if code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", filepath.Join(t.TempDir(), "ev")); code != exitOK {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
	}
}
