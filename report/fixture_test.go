package report

import (
	"encoding/csv"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// fixtureDir holds the exceptions CSVs the fixture's outcomes point at.
const fixtureDir = "testdata/evidence"

// fixture is a failed run over testdata/evidence: exceptions with values
// that trip spreadsheets (formula-like text, 20-digit ids, amounts beyond
// 15 digits, negative amounts, timestamps), a passed and a skipped check,
// and window findings with restarts. Outcomes are built from the CSVs the
// way checks.Run builds them.
func fixture(t testing.TB) *Result {
	t.Helper()
	r := &Result{
		SchemaVersion: SchemaVersion,
		Status:        Fail,
		Control:       Control{Name: "ledger-daily", Description: "Every source ledger entry is posted to the ledger exactly once."},
		Run: RunInfo{
			ID: "20260301T060000Z-1a2b3c4d", StartedAt: "2026-03-01T06:00:00Z", FinishedAt: "2026-03-01T06:00:07Z",
			User: "ci", Host: "build-7", ToolVersion: "v0.9.0 0123abcd", DuckDBVersion: "v1.5.6",
			Spec: "ledger.yaml", SpecSHA256: strings.Repeat("5e", 32),
		},
		Parameters: &spec.Spec{
			Name: "ledger-daily", Description: "Every source ledger entry is posted to the ledger exactly once.",
			Source: spec.Input{URI: "source.csv"},
			Sink:   spec.Input{URI: "postgres://reconcile@db.internal/ledger", Options: map[string]any{"table": "postings", "password": "xxxxx"}},
			ID:     []string{"entry_id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
			Checkpoint: "checkpoint_id", LogicalKey: []string{"entry_id"}, Out: "evidence/ledger-daily",
		},
		Inputs: []*sources.Input{
			{Role: "source", Kind: "csv", Location: "source.csv", Rows: 3000,
				Files:   []sources.File{{Path: "source.csv", Bytes: 133832, SHA256: "589cb52736bbd8f789e7044dee11c65ebf156e67910c5482c252a59461e1d0b4"}},
				Ignored: []string{".source.csv.inprogress"},
				Columns: []sources.Column{{Name: "entry_id", Type: "VARCHAR"}, {Name: "account", Type: "VARCHAR"}, {Name: "amount", Type: "VARCHAR"}}},
			{Role: "sink", Kind: "postgres", Location: "postgres://reconcile@db.internal/ledger", Rows: 3130,
				Details: map[string]any{"snapshot": "00000003-0000001B-1", "query": "SELECT * FROM postings"},
				Columns: []sources.Column{{Name: "entry_id", Type: "VARCHAR"}, {Name: "amount", Type: "DECIMAL(18,2)"}, {Name: "checkpoint_id", Type: "BIGINT"}}},
		},
		Totals: &checks.Totals{SourceRows: 3000, SinkRows: 3130, SourceDistinctIDs: 3000, SinkDistinctIDs: 3000,
			Measures: []checks.MeasureTotal{{Name: "amount", Type: "DECIMAL(38,2)", SourceSum: "3375343.63", SinkSum: "3527966.40", Difference: "152622.77"}}},
		Notes: []string{"measure amount compared as DECIMAL(38,2) (scale from the data; no value rounded)"},
	}
	barrier := time.Date(2026, 3, 1, 3, 12, 0, 0, time.UTC)
	r.Replay = &checks.ReplaySummary{
		EventTime: "event_time", Window: "tumbling 1h", WindowColumn: "window_end", TimeZone: "UTC", Emission: "all",
		SourceEvents: 1955, ExpectedKeys: 24, SinkRows: 26, SinkDistinctKeys: 24, SinkRowsPerKey: 26.0 / 24,
		Restarts: []checks.RestartFindings{
			{Restart: restarts.Restart{No: 1, Time: time.Date(2026, 3, 1, 3, 14, 0, 0, time.UTC), RestoredCheckpoint: 7, RestoredCheckpointTime: &barrier, OpenEpoch: 9, From: "exceptions.json"},
				Label: "restart 1 at 2026-03-01T03:14:00Z from checkpoint 7", Findings: map[string]int64{"duplicate_keys": 1, "key_checkpoint_conflicts": 2}, Keys: 1},
			{Restart: restarts.Restart{No: 2, Time: time.Date(2026, 3, 1, 5, 40, 0, 250e6, time.UTC), RestoredCheckpoint: -1, OpenEpoch: 12, From: "restarts.csv"},
				Label: "restart 2 at 2026-03-01T05:40:00.25Z", Findings: map[string]int64{"duplicate_keys": 1}, Keys: 1},
		},
		RestartFiles: []string{"flink/exceptions.json", "restarts.csv"},
		Unexplained:  map[string]int64{"key_checkpoint_conflicts": 1}, UnexplainedKeys: 1,
	}
	r.Checks = []*checks.Outcome{
		{ID: "null_ids", Assertion: "accuracy", Description: "Rows whose id is NULL or empty.", Status: checks.Skipped, SkipReason: "not configured: needs id"},
		outcomeFrom(t, os.DirFS(fixtureDir), "missing_ids", "completeness", "Source records whose id has no row in the sink."),
		outcomeFrom(t, os.DirFS(fixtureDir), "value_mismatches", "accuracy", "Ids in both inputs whose measures differ."),
		outcomeFrom(t, os.DirFS(fixtureDir), "sum_balance", "completeness, accuracy", "Exact sums per group; an exception is a group whose sums differ."),
		outcomeFrom(t, os.DirFS(fixtureDir), "key_checkpoint_conflicts", "accuracy", "Sink logical keys written under more than one checkpoint id."),
		outcomeFrom(t, os.DirFS(fixtureDir), "duplicate_keys", "accuracy", "Window keys on more than one sink row."),
		outcomeFrom(t, os.DirFS(fixtureDir), "reperformance_mismatches", "accuracy", "Windows whose sink value differs from the value re-performed from the source."),
	}
	return r
}

// normaliseRun replaces what differs between runs — run id, times, user,
// host, versions — with fixed values, so renderings can be compared.
func normaliseRun(r *Result) {
	r.Run.ID = "RUN-ID"
	r.Run.StartedAt, r.Run.FinishedAt = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"
	r.Run.User, r.Run.Host = "USER", "HOST"
	r.Run.ToolVersion, r.Run.DuckDBVersion = "TOOL-VERSION", "DUCKDB-VERSION"
}

// outcomeFrom builds the outcome of check id from exceptions/<id>.csv in
// fsys, as checks.Run would: every row counted, the first
// checks.FirstRowsLimit kept, empty values as NULL.
func outcomeFrom(t testing.TB, fsys fs.FS, id, assertion, desc string) *checks.Outcome {
	t.Helper()
	file := path.Join("exceptions", id+".csv")
	f, err := fsys.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cols []checks.Column
	for _, name := range recs[0] {
		cols = append(cols, checks.Column{Name: name})
	}
	o := &checks.Outcome{ID: id, Assertion: assertion, Description: desc, File: file, Columns: cols,
		Exceptions: int64(len(recs) - 1), Status: checks.Pass, Table: "exceptions__" + id,
		SQL: "SELECT *\nFROM source\nWHERE false -- " + id}
	if o.Exceptions > 0 {
		o.Status = checks.Fail
	}
	for i, rec := range recs[1:] {
		if i == checks.FirstRowsLimit {
			break
		}
		row := make([]*string, len(rec))
		for j := range rec {
			if rec[j] != "" {
				row[j] = &rec[j]
			}
		}
		o.FirstRows = append(o.FirstRows, row)
	}
	return o
}
