package checks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// TestIDCountsAgree runs the id checks both ways over the same inputs — from
// table id_counts (one pass over both inputs) and with their own anti-joins
// and GROUP BYs — and wants every exceptions file byte for byte the same.
// testdata/idcounts has every kind of id the two forms could treat
// differently: a composite id with an empty part (on two sink rows that
// conflict), a null id (both parts empty) written twice under two
// checkpoints — a logical key that id_counts leaves out, so
// key_checkpoint_conflicts must find it another way — a duplicate in the
// source, a missing and an unexpected id, and a logical key that is the id
// in another order.
func TestIDCountsAgree(t *testing.T) {
	dir := filepath.Join("testdata", "idcounts")
	s := spec.Spec{ID: []string{"region", "sub"}, Measures: []string{"amount"}, Checkpoint: "checkpoint_id", LogicalKey: []string{"sub", "region"}}
	with, withDir := reconcile(t, filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv"), s)
	var without *evidence.Summary
	var withoutDir string
	checks.WithoutIDCounts(func() {
		without, withoutDir = reconcile(t, filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv"), s)
	})
	if _, err := os.Stat(filepath.Join(withDir, "queries", "_id_counts.sql")); err != nil {
		t.Fatalf("the run with id_counts kept no queries/_id_counts.sql: %v", err)
	}
	if _, err := os.Stat(filepath.Join(withoutDir, "queries", "_id_counts.sql")); err == nil {
		t.Fatal("the run without id_counts kept queries/_id_counts.sql")
	}
	want := map[string]string{"missing_ids": "fail 1", "unexpected_ids": "fail 1", "duplicate_ids": "fail 3", "key_checkpoint_conflicts": "fail 3"}
	agree(t, want, with, without, withDir, withoutDir)
	// The null logical key written under checkpoints 1 and 2 is a conflict
	// both ways: it is not in id_counts.
	if kcc := exceptions(t, withDir, "key_checkpoint_conflicts"); !strings.Contains(kcc, "\n,,2,1;2,") {
		t.Errorf("key_checkpoint_conflicts has no row for the null key:\n%s", kcc)
	}
}

// agree wants both runs — with id_counts and without — to give the statuses
// want and every exceptions file of a check that ran byte for byte the same.
func agree(t *testing.T, want map[string]string, with, without *evidence.Summary, withDir, withoutDir string) {
	t.Helper()
	wantStatuses(t, with, want)
	wantStatuses(t, without, want)
	for _, c := range with.Checks {
		if c.Status == evidence.Skipped {
			continue
		}
		if a, b := exceptions(t, withDir, c.ID), exceptions(t, withoutDir, c.ID); a != b {
			t.Errorf("%s: with id_counts\n%s\nwithout\n%s", c.ID, a, b)
		}
	}
}

// TestIDCountsTypesDiffer: an id that is INTEGER in the source and BIGINT in
// the sink (ids 1–5 against 2–6) is matched by the checks' own joins, which
// compare the two types by value; id_counts, which groups the ids as
// stored, is not built.
func TestIDCountsTypesDiffer(t *testing.T) {
	dir := filepath.Join("testdata", "idcounts")
	s := spec.Spec{ID: []string{"entry_id"}, Measures: []string{"amount"}}
	res, out := reconcile(t, filepath.Join(dir, "int_source.parquet"), filepath.Join(dir, "bigint_sink.parquet"), s)
	if _, err := os.Stat(filepath.Join(out, "queries", "_id_counts.sql")); err == nil {
		t.Error("id_counts was built for id columns of two types")
	}
	wantStatuses(t, res, map[string]string{"missing_ids": "fail 1", "unexpected_ids": "fail 1", "duplicate_ids": "pass 0"})
	if got := exceptions(t, out, "missing_ids"); !strings.HasPrefix(strings.SplitN(got, "\n", 2)[1], "1,") {
		t.Errorf("missing_ids:\n%s", got)
	}
}

// TestIDCountsOnlyWhenRead: with a check folder whose id checks do not say
// "-- reads: id_counts" (a folder written before the table existed),
// id_counts is not built and the checks join the tables themselves.
func TestIDCountsOnlyWhenRead(t *testing.T) {
	dir := filepath.Join("testdata", "idcounts")
	b, err := os.ReadFile(filepath.Join("..", "queries", "020_missing_ids.sql"))
	if err != nil {
		t.Fatal(err)
	}
	folder := t.TempDir()
	text := strings.Replace(string(b), "-- reads: id_counts\n", "", 1)
	if text == string(b) {
		t.Fatal("020_missing_ids.sql does not say it reads id_counts")
	}
	if err := os.WriteFile(filepath.Join(folder, "020_missing_ids.sql"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "evidence")
	s := spec.Spec{ID: []string{"region", "sub"}, Measures: []string{"amount"}, Source: spec.Input{URI: filepath.Join(dir, "source.csv")}, Sink: spec.Input{URI: filepath.Join(dir, "sink.csv")}, Out: out}
	s.Dir, _ = os.Getwd()
	res, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json"}, Queries: os.DirFS(folder)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "queries", "_id_counts.sql")); err == nil {
		t.Error("id_counts was built for checks that do not read it")
	}
	wantStatuses(t, res, map[string]string{"missing_ids": "fail 1"})
}

// TestIDCountsColumnNames: an id column named as id_counts' own columns
// (__Sink_Rows, in any case) gets no id_counts (DuckDB would otherwise have
// renamed the count without a word, so the checks filtered on the id: every
// check passed). Source ids 1, 2, 3 against sink 1, 1, 2: id 3 missing and
// id 1 twice in the sink, both ways. An id named as a check's own output
// column (sink_rows, which unexpected_ids writes) is refused before any
// evidence is written, with or without id_counts: the evidence would
// label the id column as the count (ErrNameClash).
func TestIDCountsColumnNames(t *testing.T) {
	t.Run("sink_rows.yaml", func(t *testing.T) {
		for _, without := range []bool{false, true} {
			s, err := spec.Load(filepath.Join("testdata", "idcounts", "names", "sink_rows.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			s.Out = filepath.Join(t.TempDir(), "evidence")
			run := func() { _, err = control.Run(context.Background(), s, control.Options{Formats: []string{"json"}}) }
			if without {
				checks.WithoutIDCounts(run)
			} else {
				run()
			}
			if !errors.Is(err, checks.ErrNameClash) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), `"sink_rows"`) {
				t.Errorf("without id_counts %v: err = %v, want checks.ErrNameClash naming sink_rows", without, err)
			}
			if _, err := os.Stat(s.Out); !os.IsNotExist(err) {
				t.Errorf("an evidence folder was left: %v", err)
			}
		}
	})
	for _, tc := range []struct {
		spec  string
		built bool
	}{{"prefixed.yaml", false}} {
		t.Run(tc.spec, func(t *testing.T) {
			run := func() (*evidence.Summary, string) {
				s, err := spec.Load(filepath.Join("testdata", "idcounts", "names", tc.spec))
				if err != nil {
					t.Fatal(err)
				}
				s.Out = filepath.Join(t.TempDir(), "evidence")
				res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
				if err != nil {
					t.Fatal(err)
				}
				return res, s.Out
			}
			with, withDir := run()
			var without *evidence.Summary
			var withoutDir string
			checks.WithoutIDCounts(func() { without, withoutDir = run() })
			if _, err := os.Stat(filepath.Join(withDir, "queries", "_id_counts.sql")); (err == nil) != tc.built {
				t.Errorf("id_counts built: %v, want %v", err == nil, tc.built)
			}
			agree(t, map[string]string{"missing_ids": "fail 1", "unexpected_ids": "pass 0", "duplicate_ids": "fail 1"}, with, without, withDir, withoutDir)
		})
	}
}

// TestIDNamedAsAnAlias: an id column named c, the alias value_mismatches
// and normalized_matches once gave each unnested compared column (their
// SQL failed with a binder error), is compared like any other: the one
// differing value of v is the one exception.
func TestIDNamedAsAnAlias(t *testing.T) {
	dir := filepath.Join("testdata", "idcounts", "names")
	res, out := reconcile(t, filepath.Join(dir, "c_source.csv"), filepath.Join(dir, "c_sink.csv"), spec.Spec{ID: []string{"c"}, Measures: []string{"amount"}})
	wantStatuses(t, res, map[string]string{"value_mismatches": "fail 1", "missing_ids": "pass 0"})
	if got := exceptions(t, out, "value_mismatches"); !strings.Contains(got, "\n2,v,y,z,,") {
		t.Errorf("value_mismatches:\n%s", got)
	}
}
