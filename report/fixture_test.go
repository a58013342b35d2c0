package report

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The fixtures' evidence folders: the exceptions CSVs and query files their
// checks point at.
const (
	fixtureDir  = "testdata/evidence"
	windowedDir = "testdata/windowed"
)

// fixture is a failed run over a sink of records (testdata/evidence):
// exceptions with values that trip spreadsheets (formula-like text,
// 20-digit ids, amounts beyond 15 digits, negative amounts), a passed and
// a skipped check.
func fixture(t testing.TB) *evidence.Summary {
	t.Helper()
	ev := os.DirFS(fixtureDir)
	return &evidence.Summary{
		SchemaVersion: evidence.SchemaVersion,
		Status:        evidence.Fail,
		Control:       evidence.Control{Name: "ledger-daily", Description: "Every source ledger entry is posted to the ledger exactly once."},
		Run:           fixtureRun(),
		Parameters: &evidence.Parameters{
			Name: "ledger-daily", Description: "Every source ledger entry is posted to the ledger exactly once.",
			Source: evidence.InputSpec{URI: "source.csv"},
			Sink:   evidence.InputSpec{URI: "postgres://reconcile@db.internal/ledger", Options: map[string]any{"table": "postings", "password": "xxxxx"}},
			ID:     []string{"entry_id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
			Checkpoint: "checkpoint_id", LogicalKey: []string{"entry_id"}, Out: "evidence/ledger-daily",
		},
		Inputs: []*evidence.Input{
			{Role: "source", Kind: "csv", Location: "source.csv", Rows: 3000,
				Files: []evidence.File{{Path: "source.csv", Bytes: 133832, SHA256: "589cb52736bbd8f789e7044dee11c65ebf156e67910c5482c252a59461e1d0b4",
					ValidLength: &evidence.ValidLength{SideFile: "_source.csv.valid-length", SideSHA256: "4f0a9b9ad5c2b2cf1c1a4a3e9e0e4f2d8e1b8c3a2d1e0f9a8b7c6d5e4f3a2b1c", Length: 133000}}},
				Skipped: []evidence.SkippedFile{
					{Path: ".source.csv.inprogress.1b2c", Reason: "Flink FileSink in-progress or pending part file", Uncommitted: true, Bytes: 120, SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Rows: rowsOf(2)},
					{Path: "_SUCCESS", Reason: "commit marker _SUCCESS (Hadoop FileOutputCommitter; Spark): no records"},
				},
				Ignored: []string{".source.csv.inprogress.1b2c", "_SUCCESS"},
				Columns: []evidence.Column{{Name: "entry_id", Type: "VARCHAR"}, {Name: "account", Type: "VARCHAR"}, {Name: "amount", Type: "VARCHAR"}}},
			{Role: "sink", Kind: "postgres", Location: "postgres://reconcile@db.internal/ledger", Rows: 3130,
				Details: map[string]any{"snapshot": "00000003-0000001B-1", "query": "SELECT * FROM postings", "shared_snapshot": false,
					"shared_snapshot_reason": "no earlier input of the run was read in this database of this server",
					"columns":                []map[string]string{{"name": "entry_id", "pg_type": "text", "arrow_type": "utf8"}, {"name": "amount", "pg_type": "numeric(18,2)", "arrow_type": "decimal(18, 2)"}}},
				Columns: []evidence.Column{{Name: "entry_id", Type: "VARCHAR"}, {Name: "amount", Type: "DECIMAL(18,2)"}, {Name: "checkpoint_id", Type: "BIGINT"}}},
		},
		Checks: []*evidence.Check{
			{ID: "null_ids", Assertion: "accuracy", Description: "Rows whose id is NULL or empty.", Status: evidence.Skipped, SkipReason: "not configured: needs id"},
			checkFrom(t, ev, "missing_ids", "completeness", "Source records whose id has no row in the sink.", []evidence.Column{
				{Type: "VARCHAR", Role: evidence.RoleID}, {Type: "BIGINT"}, {Type: "DECIMAL(38,2)", Role: evidence.RoleSource, Measure: "amount"}, {Type: "VARCHAR", Role: evidence.RoleLocation}}),
			withTolerances(checkFrom(t, ev, "value_mismatches", "accuracy", "Matched rows whose values differ in a compared column, one row per id and column.", []evidence.Column{
				{Type: "VARCHAR", Role: evidence.RoleID}, {Type: "VARCHAR", Role: evidence.RoleColumn}, {Type: "VARCHAR"}, {Type: "VARCHAR"},
				{Type: "VARCHAR", Role: evidence.RoleDifference}, {Type: "VARCHAR", Role: evidence.RoleTolerance}, {Type: "BOOLEAN", Role: evidence.RoleWithinTolerance},
				{Type: "VARCHAR", Role: evidence.RoleLocation}, {Type: "VARCHAR", Role: evidence.RoleLocation}}), evidence.Tolerance{Column: "amount", Tolerance: "0.01"}),
			withChart(checkFrom(t, ev, "sum_balance", "completeness, accuracy", "Exact sums per group; an exception is a group whose sums differ.", []evidence.Column{
				{Type: "VARCHAR", Role: evidence.RoleGroup}, {Type: "DECIMAL(38,2)", Role: evidence.RoleSource, Measure: "amount"},
				{Type: "DECIMAL(38,2)", Role: evidence.RoleSink, Measure: "amount"}, {Type: "DECIMAL(38,2)", Role: evidence.RoleDifference, Measure: "amount"}}), evidence.ChartBalance),
			withChart(checkFrom(t, ev, "key_checkpoint_conflicts", "accuracy", "Sink logical keys written under more than one checkpoint id.", []evidence.Column{
				{Type: "VARCHAR", Role: evidence.RoleKey}, {Type: "BIGINT"}, {Type: "VARCHAR", Role: evidence.RoleCheckpoints}, {Type: "BIGINT"}, {Type: "VARCHAR", Role: evidence.RoleLocation}}), evidence.ChartReplayedKeys),
		},
		Totals: &evidence.Totals{SourceRows: 3000, SinkRows: 3130, SourceDistinctIDs: 3000, SinkDistinctIDs: 3000,
			Measures: []evidence.MeasureTotal{{Name: "amount", Type: "DECIMAL(38,2)", SourceSum: "3375343.63", SinkSum: "3527966.40", Difference: "152622.77"}}},
		Notes: []string{"measure amount compared as DECIMAL(38,2) (scale from the data; no value rounded)"},
		Comparison: &evidence.Comparison{
			Compared: []evidence.ComparedColumn{
				{Column: "account", SourceType: "VARCHAR", SinkType: "VARCHAR", Method: "text", Normalize: []string{"trim"}},
				{Column: "amount", SourceType: "DECIMAL(18,2)", SinkType: "DECIMAL(18,2)", Method: "number", Tolerance: "0.01"},
				{Column: "settled_at", SourceType: "TIMESTAMP WITH TIME ZONE", SinkType: "TIMESTAMP", Method: "timestamp", SinkZone: "UTC"},
			},
			Uncompared: []evidence.UncomparedColumn{{Column: "entry_id", Input: "both", Reason: "id: matched, not compared"}, {Column: "checkpoint_id", Input: "sink", Reason: "checkpoint id"}},
		},
	}
}

// windowedFixture is a failed run over a re-performed windowed sink
// (testdata/windowed), shaped like samples/hourly-report: hourly windows
// per account, written twice after restarts, one restart with an unknown
// checkpoint and findings no restart explains.
func windowedFixture(t testing.TB) *evidence.Summary {
	t.Helper()
	ev := os.DirFS(windowedDir)
	tz := "TIMESTAMP WITH TIME ZONE"
	win := []evidence.Column{{Type: tz, Role: evidence.RoleWindowStart}, {Type: tz, Role: evidence.RoleWindowEnd}, {Type: "VARCHAR", Role: evidence.RoleGroup}}
	cols := func(more ...evidence.Column) []evidence.Column {
		return append(append([]evidence.Column(nil), win...), more...)
	}
	barrier := time.Date(2026, 3, 1, 3, 12, 0, 0, time.UTC)
	return &evidence.Summary{
		SchemaVersion: evidence.SchemaVersion,
		Status:        evidence.Fail,
		Control:       evidence.Control{Name: "hourly-revenue", Description: "Every hour of the revenue report equals the hour re-performed from the raw events, written once."},
		Run:           fixtureRun(),
		Parameters: &evidence.Parameters{
			Name: "hourly-revenue", Source: evidence.InputSpec{URI: "events.csv"}, Sink: evidence.InputSpec{URI: "report.csv"},
			Checkpoint: "checkpoint_id", Out: "evidence/hourly-revenue",
			Reperform: &evidence.Reperform{EventTime: "event_time", Window: evidence.Window{Size: "1h"}, WindowEnd: "window_end", GroupBy: []string{"account"},
				Aggregates: []evidence.Aggregate{{Column: "revenue", Func: "sum", Arg: "amount"}, {Column: "events", Func: "count", Arg: "*"}}},
			Watermark: "watermark", Emission: &evidence.Emission{}, Restarts: "flink",
		},
		Inputs: []*evidence.Input{
			{Role: "source", Kind: "csv", Location: "events.csv", Rows: 1955,
				Files:   []evidence.File{{Path: "events.csv", Bytes: 85500, SHA256: "63364a0dc969605756a5767a65786a4a23d610080b4c3c38b524b5e8214a18d2"}},
				Columns: []evidence.Column{{Name: "event_id", Type: "VARCHAR"}, {Name: "account", Type: "VARCHAR"}, {Name: "amount", Type: "VARCHAR"}, {Name: "event_time", Type: "VARCHAR"}}},
			{Role: "sink", Kind: "csv", Location: "report.csv", Rows: 26,
				Files:   []evidence.File{{Path: "report.csv", Bytes: 2670, SHA256: "da32ac8c940999f26be25f14eab552e7dc7814b1d81ae0dd21305e4fcc9fa5d1"}},
				Columns: []evidence.Column{{Name: "window_end", Type: "VARCHAR"}, {Name: "account", Type: "VARCHAR"}, {Name: "revenue", Type: "VARCHAR"}, {Name: "events", Type: "VARCHAR"}, {Name: "checkpoint_id", Type: "VARCHAR"}, {Name: "watermark", Type: "VARCHAR"}}},
		},
		Checks: []*evidence.Check{
			{ID: "sum_balance", Assertion: "completeness, accuracy", Description: "Exact sums per group.", Status: evidence.Skipped, SkipReason: "not configured: needs measures", Chart: evidence.ChartBalance},
			withChart(checkFrom(t, ev, "key_checkpoint_conflicts", "accuracy", "Sink logical keys written under more than one checkpoint id.",
				cols(evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleCheckpoints}, evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleLocation})), evidence.ChartReplayedKeys),
			withChart(checkFrom(t, ev, "duplicate_keys", "accuracy", "Window keys on more than one sink row.",
				cols(evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleCheckpoints}, evidence.Column{Type: tz, Role: evidence.RoleRestart})), evidence.ChartReplayedKeys),
			withChart(checkFrom(t, ev, "reperformance_mismatches", "accuracy", "Windows whose sink value differs from the value re-performed from the source.",
				cols(evidence.Column{Type: "VARCHAR", Role: evidence.RoleMeasure}, evidence.Column{Type: "VARCHAR"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleSource},
					evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "VARCHAR"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleSink}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleDifference},
					evidence.Column{Type: "VARCHAR", Role: evidence.RoleFinding}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleCheckpoints}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleRestart})), evidence.ChartReperformance),
			checkFrom(t, ev, "missing_keys", "completeness", "Windows with source events but no sink row.",
				cols(evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "DECIMAL(38,2)", Role: evidence.RoleSource, Measure: "revenue"}, evidence.Column{Type: "DECIMAL(38,0)", Role: evidence.RoleSource, Measure: "events"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleLocation})),
			checkFrom(t, ev, "unexpected_keys", "accuracy", "Sink windows with no source event behind them.",
				cols(evidence.Column{Type: "BIGINT"}, evidence.Column{Type: "BOOLEAN"}, evidence.Column{Type: "VARCHAR", Role: evidence.RoleCheckpoints}, evidence.Column{Type: "VARCHAR"})),
			{ID: "early_writes", Assertion: "completeness, accuracy", Description: "Rows written before their window was complete.", Status: evidence.Skipped, SkipReason: "not configured: needs watermark"},
		},
		Totals: &evidence.Totals{SourceRows: 1955, SinkRows: 26},
		Notes:  []string{"windows: tumbling 1h, assigned on UTC instants; zone-less timestamps are read in UTC"},
		Replay: &evidence.Replay{
			EventTime: "event_time", Window: "tumbling 1h", WindowColumn: "window_end", TimeZone: "UTC", Emission: "all",
			SourceEvents: 1955, ExpectedKeys: 24, SinkRows: 26, SinkDistinctKeys: 24, SinkRowsPerKey: 1.0833,
			Restarts: []evidence.Restart{
				{No: 1, Time: time.Date(2026, 3, 1, 3, 14, 0, 0, time.UTC), RestoredCheckpoint: 7, RestoredCheckpointTime: &barrier, OpenEpoch: 9, From: "exceptions.json",
					Label: "restart 1 at 2026-03-01T03:14:00Z from checkpoint 7", Findings: map[string]int64{"duplicate_keys": 1, "key_checkpoint_conflicts": 1, "reperformance_mismatches": 1}, Keys: 1},
				{No: 2, Time: time.Date(2026, 3, 1, 5, 40, 0, 250e6, time.UTC), RestoredCheckpoint: -1, OpenEpoch: 12, From: "restarts.csv",
					Label: "restart 2 at 2026-03-01T05:40:00.25Z from an unknown checkpoint", Findings: map[string]int64{"duplicate_keys": 1, "key_checkpoint_conflicts": 1}, Keys: 1},
			},
			RestartFiles: []string{"flink/exceptions.json", "restarts.csv"},
			Unexplained:  map[string]int64{"key_checkpoint_conflicts": 1, "reperformance_mismatches": 1}, UnexplainedKeys: 2,
		},
	}
}

func fixtureRun() evidence.Run {
	return evidence.Run{
		ID: "20260301T060000Z-1a2b3c4d", StartedAt: "2026-03-01T06:00:00Z", FinishedAt: "2026-03-01T06:00:07Z",
		User: "ci", Host: "build-7", ToolVersion: "v0.9.0 0123abcd", DuckDBVersion: "v1.5.6",
		Spec: "ledger.yaml", SpecSHA256: strings.Repeat("5e", 32),
	}
}

// normaliseRun replaces what differs between runs — run id, times, user,
// host, versions — with fixed values, so renderings can be compared.
func normaliseRun(s *evidence.Summary) {
	s.Run.ID = "RUN-ID"
	s.Run.StartedAt, s.Run.FinishedAt = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"
	s.Run.User, s.Run.Host = "USER", "HOST"
	s.Run.ToolVersion, s.Run.DuckDBVersion = "TOOL-VERSION", "DUCKDB-VERSION"
}

func withTolerances(c *evidence.Check, ts ...evidence.Tolerance) *evidence.Check {
	c.Tolerances = ts
	return c
}

func withChart(c *evidence.Check, chart string) *evidence.Check {
	c.Chart = chart
	return c
}

// checkFrom builds the outcome of check id from exceptions/<id>.csv in
// fsys, as control does: every row counted, the columns named by the CSV's
// header and typed (and given roles) by cols, in order.
func checkFrom(t testing.TB, fsys fs.FS, id, assertion, desc string, cols []evidence.Column) *evidence.Check {
	t.Helper()
	file := path.Join("exceptions", id+".csv")
	f, err := fsys.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := newCSVRows(file, f)
	header, err := rd.header()
	if err != nil {
		t.Fatal(err)
	}
	if len(header) != len(cols) {
		t.Fatalf("%s has %d columns, the fixture types %d", file, len(header), len(cols))
	}
	c := &evidence.Check{ID: id, Assertion: assertion, Description: desc, File: file, Status: evidence.Pass}
	for i, h := range header {
		col := cols[i]
		col.Name = h
		c.Columns = append(c.Columns, col)
	}
	within := slices.IndexFunc(c.Columns, func(col evidence.Column) bool { return col.Role == evidence.RoleWithinTolerance })
	if within >= 0 {
		c.WithinTolerance = new(int64)
	}
	for {
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if within >= 0 && rec[within].text == "true" {
			*c.WithinTolerance++
			continue
		}
		c.Exceptions++
	}
	if c.Exceptions > 0 {
		c.Status = evidence.Fail
	}
	return c
}

// newTestView builds the view of s over the evidence folder dir.
func newTestView(t testing.TB, s *evidence.Summary, ev fs.FS) *View {
	t.Helper()
	v, err := NewView(context.Background(), s, ev)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func rowsOf(n int64) *int64 { return &n }
