//go:build duckdb_arrow

package main

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests read inputs of every kind
)

// csvRows counts the records of a CSV file with a header.
func csvRows(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(recs) - 1)
}

// The generator plants what the issue describes, the hand-written anchor
// finds it, and reconcile finds the same exceptions on the same files: the
// two contenders of the benchmark do the same work. (A generator that
// planted nothing, or an anchor that skipped a check, would make the
// ratios meaningless.)
func TestAnchorAgreesWithReconcile(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir, genParams{Rows: 20_000, Events: 20_000, Seed: 15}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "anchor")
	if err := cmdAnchor([]string{"-suite", "records", "-source", filepath.Join(dir, "source.parquet"), "-sink", filepath.Join(dir, "sink.parquet"), "-out", out, "-memory-limit", "256MB"}); err != nil {
		t.Fatal(err)
	}
	// 1% dropped, 1% replayed under the next checkpoint, 0.1% altered.
	want := map[string]int64{"null_ids": 0, "missing_ids": 200, "unexpected_ids": 0, "duplicate_ids": 200,
		"value_mismatches": 20, "key_checkpoint_conflicts": 200}
	for check, n := range want {
		if got := csvRows(t, filepath.Join(out, check+".csv")); got != n {
			t.Errorf("anchor %s: %d rows, want %d", check, got, n)
		}
	}
	res, err := control.Run(context.Background(), &spec.Spec{
		Source: spec.Input{URI: filepath.Join(dir, "source.csv")}, Sink: spec.Input{URI: filepath.Join(dir, "sink.csv")},
		ID: []string{"entry_id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
		Checkpoint: "checkpoint_id", LogicalKey: []string{"entry_id"}, Out: filepath.Join(dir, "ev"), Dir: dir,
	}, control.Options{Formats: []string{"json"}, MemoryLimit: "1GB"})
	if err != nil && !errors.Is(err, checks.ErrFailed) {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		if c.ID == "row_count_balance" || c.ID == "sum_balance" {
			if got := csvRows(t, filepath.Join(out, c.ID+".csv")); got != c.Exceptions {
				t.Errorf("%s: anchor %d rows, reconcile %d", c.ID, got, c.Exceptions)
			}
			continue
		}
		if n, ok := want[c.ID]; ok && c.Exceptions != n {
			t.Errorf("reconcile %s: %d exceptions, want %d", c.ID, c.Exceptions, n)
		}
	}

	// Re-performance: two wrong aggregates and four replayed rows, in the
	// hourly and the sliding sink alike; the anchor lists the six keys.
	for _, w := range []struct{ sink, size, slide string }{{"hourly.parquet", "3600000000", "3600000000"}, {"sliding.parquet", "600000000", "300000000"}} {
		rout := filepath.Join(dir, "anchor-"+w.sink)
		if err := cmdAnchor([]string{"-suite", "reperform", "-events", filepath.Join(dir, "events.parquet"), "-sink", filepath.Join(dir, w.sink), "-size", w.size, "-slide", w.slide, "-out", rout, "-memory-limit", "256MB"}); err != nil {
			t.Fatal(err)
		}
		if got := csvRows(t, filepath.Join(rout, "reperformance.csv")); got != 6 {
			t.Errorf("anchor re-performance of %s: %d keys, want 6", w.sink, got)
		}
	}
}

// The before/after comparison of -baseline tells identical exception files
// from changed ones and from a file only one run wrote.
func TestSameExceptions(t *testing.T) {
	dir := t.TempDir()
	put := func(run, name, body string) {
		p := filepath.Join(dir, run, "exceptions")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "missing_ids.csv", "id\nE1\n")
	put("b", "missing_ids.csv", "id\nE1\n")
	put("a", "value_mismatches.csv", "id\n")
	put("b", "value_mismatches.csv", "id\n")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if got, err := sameExceptions(a, b); err != nil || got != "identical (2 files)" {
		t.Errorf("same files: %q, %v", got, err)
	}
	put("b", "value_mismatches.csv", "id\nE2\n")
	put("a", "unexpected_ids.csv", "id\n")
	if got, err := sameExceptions(a, b); err != nil || got != "DIFFERENT: unexpected_ids.csv, value_mismatches.csv" {
		t.Errorf("changed files: %q, %v", got, err)
	}
}

// Every statement of the benchmark's folders parses, the PostgreSQL ones
// included, which only a run with -pg renders.
func TestBenchStatementsParse(t *testing.T) {
	for _, dir := range []string{"bench/generate", "bench/records", "bench/reperform", "bench/pg_load", "bench/pg_records"} {
		set, err := queries.NewSet(dir, sqlfile.Funcs())
		if err == nil {
			err = set.ParseAll()
		}
		switch {
		case err != nil:
			t.Errorf("%s: %v", dir, err)
		case len(set.IDs()) == 0:
			t.Errorf("%s: no statements", dir)
		}
	}
}
