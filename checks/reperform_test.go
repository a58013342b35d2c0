package checks_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

func window(size, slide, offset string) spec.Window {
	d := func(s string) spec.Duration {
		if s == "" {
			return 0
		}
		v, err := spec.ParseDuration(s)
		if err != nil {
			panic(err)
		}
		return v
	}
	return spec.Window{Size: d(size), Slide: d(slide), Offset: d(offset)}
}

func aggs(t *testing.T, kv ...string) spec.Aggregates {
	t.Helper()
	var out spec.Aggregates
	for i := 0; i+1 < len(kv); i += 2 {
		a, err := spec.ParseAggregate(kv[i], kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// Sliding windows of 10 minutes every 5: each event is in two windows. A
// tool that assigns each event to one (tumbling) window finds half the sink's
// windows unexpected and every value wrong; the one inflated window is the
// only exception. Amounts written with different scales (2.5, 4, 1.250)
// compare exactly as decimals.
func TestReplaySlidingWindows(t *testing.T) {
	dir := "testdata/replay/sliding/"
	res, out := reconcile(t, dir+"source.csv", dir+"sink.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("10m", "5m", ""), WindowStart: "window_start", GroupBy: []string{"shop"},
		Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)"),
	}})
	wantStatuses(t, res, map[string]string{
		"duplicate_keys": "pass 0", "reperformance_mismatches": "fail 1", "missing_keys": "pass 0", "unexpected_keys": "pass 0",
		"early_writes": "skipped 0", "superseded_emissions": "skipped 0", "row_count_balance": "" /* a record check: not listed for a windowed sink */, "key_checkpoint_conflicts": "skipped 0",
	})
	got := exceptions(t, out, "reperformance_mismatches")
	if !strings.Contains(got, "2026-11-26 00:05:00+00,2026-11-26 00:15:00+00,S1,total,sum(amount),7.000,1,7.500,7.500,0.500,false,false,one_row_inflated") {
		t.Errorf("reperformance_mismatches:\n%s", got)
	}
	if r := res.Replay; r.ExpectedKeys != 6 || r.SinkRowsPerKey != 1 || r.SourceEvents != 5 {
		t.Errorf("replay summary: %+v", r)
	}
}

// A late event updates a window after its on-time firing: with emission
// last_by the earlier emission is superseded (reported for information) and
// the last one is compared, so the control passes. Comparing every emission
// (emission: all, what a naive check does) calls the update a duplicate
// whose rows differ.
func TestReplayLateFiringLastBy(t *testing.T) {
	dir := "testdata/replay/late/"
	s := spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end", GroupBy: []string{"region"},
		Aggregates: aggs(t, "total", "sum(amount)"),
	}, Watermark: "watermark", Emission: &spec.Emission{LastBy: "emit_seq"}}
	res, out := reconcile(t, dir+"source.csv", dir+"sink.csv", s)
	wantStatuses(t, res, map[string]string{
		"duplicate_keys": "pass 0", "reperformance_mismatches": "pass 0", "missing_keys": "pass 0", "unexpected_keys": "pass 0",
		"early_writes": "pass 0", "superseded_emissions": "info 1", "key_checkpoint_conflicts": "skipped 0",
	})
	if res.Status != "pass" {
		t.Errorf("status %s, want pass: a superseded emission is information, not an exception", res.Status)
	}
	if got := exceptions(t, out, "superseded_emissions"); !strings.Contains(got, ",A,1,2,total=10.00 emission=1 at ") {
		t.Errorf("superseded_emissions:\n%s", got)
	}

	s.Emission = nil
	res, out = reconcile(t, dir+"source.csv", dir+"sink.csv", s)
	wantStatuses(t, res, map[string]string{"duplicate_keys": "fail 1", "reperformance_mismatches": "fail 1", "superseded_emissions": "skipped 0"})
	if got := exceptions(t, out, "reperformance_mismatches"); !strings.Contains(got, ",rows_differ,") {
		t.Errorf("emission all: reperformance_mismatches:\n%s", got)
	}
}

// The last emission was written before the watermark reached the window's
// end: early_writes flags it, and it holds a partial value.
func TestReplayEarlyWrite(t *testing.T) {
	dir := "testdata/replay/late/"
	res, out := reconcile(t, dir+"source.csv", dir+"sink-early.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end", GroupBy: []string{"region"},
		Aggregates: aggs(t, "total", "sum(amount)"),
	}, Watermark: "watermark", Emission: &spec.Emission{LastBy: "emit_seq"}})
	wantStatuses(t, res, map[string]string{"early_writes": "fail 1", "reperformance_mismatches": "fail 1", "superseded_emissions": "info 1"})
	if got := exceptions(t, out, "early_writes"); !strings.Contains(got, ",A,2026-11-26 00:59:59+00,00:00:01,total=10.00 emission=2 at ") {
		t.Errorf("early_writes:\n%s", got)
	}
	if got := exceptions(t, out, "reperformance_mismatches"); !strings.Contains(got, ",one_row_short,") {
		t.Errorf("reperformance_mismatches:\n%s", got)
	}
}

// Daily windows in Europe/Berlin over the spring DST change, timestamps
// written without a zone. Flink's windows are fixed UTC spans (size 1d,
// offset -1h: 23:00Z to 23:00Z, 01:00 to 01:00 local in summer); the
// event at local 2026-03-30 00:30 CEST (22:30Z on the 29th) belongs to the
// window that ends 2026-03-30 01:00 local. A tool that truncates local times
// to calendar days moves it to the next day, and one in the session's or
// process's zone shifts every window; reconcile matches the sink exactly,
// whatever TZ says.
func TestReplayWindowAcrossDST(t *testing.T) {
	t.Setenv("TZ", "America/New_York")
	dir := "testdata/replay/dst/"
	res, _ := reconcile(t, dir+"source.csv", dir+"sink.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1d", "", "-1h"), WindowEnd: "window_end",
		Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)"),
	}, TimeZone: "Europe/Berlin"})
	wantStatuses(t, res, map[string]string{"reperformance_mismatches": "pass 0", "missing_keys": "pass 0", "unexpected_keys": "pass 0"})
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"source event_time: 4 value(s) written without a zone, read as wall-clock time in Europe/Berlin",
		"sink window_end: 2 value(s) written without a zone"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if res.Replay.TimeZone != "Europe/Berlin" {
		t.Errorf("summary time zone %q", res.Replay.TimeZone)
	}
}

// Hourly windows over the autumn DST change: 02:30+02:00 and 02:30+01:00
// are the same local hour but an hour apart. Assigning windows by local
// clock hour merges them into one window of three events; on UTC instants
// they are two windows, as the sink has them.
func TestReplayWindowAcrossDSTFallBack(t *testing.T) {
	dir := "testdata/replay/dst-fallback/"
	res, _ := reconcile(t, dir+"source.csv", dir+"sink.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end",
		Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)"),
	}, TimeZone: "Europe/Berlin"})
	wantStatuses(t, res, map[string]string{"reperformance_mismatches": "pass 0", "missing_keys": "pass 0", "unexpected_keys": "pass 0", "duplicate_keys": "pass 0"})
	if res.Replay.ExpectedKeys != 2 {
		t.Errorf("expected keys %d, want 2 windows", res.Replay.ExpectedKeys)
	}
}

// Several aggregates over one column — counted first, then summed and
// maximised — plus a distinct count: each compared exactly at its own
// scale (3 = 3.000).
func TestReplaySeveralAggregatesOneColumn(t *testing.T) {
	dir := "testdata/replay/multi/"
	res, out := reconcile(t, dir+"source.csv", dir+"sink.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end",
		Aggregates: aggs(t, "n", "count(amount)", "total", "sum(amount)", "top", "max(amount)", "users", "count(distinct user_id)"),
	}})
	wantStatuses(t, res, map[string]string{"reperformance_mismatches": "pass 0", "missing_keys": "pass 0", "unexpected_keys": "pass 0"})
	if t.Failed() {
		t.Log(exceptions(t, out, "reperformance_mismatches"))
	}
}

// Aggregates over typed columns are exact beyond their stored width: two
// DECIMAL(18,1) amounts of 99999999999999999.9 sum to
// 199999999999999999.8 (19 digits, past DECIMAL(18) and past float64's
// 15–17), two BIGINT maxima to 18446744073709551614 (past BIGINT), each
// compared with a sink at another scale; 0.1 + 0.2 is 0.3, so the second
// window's 0.31 is the one mismatch. Parquet keeps the source's types, so
// the columns are aggregated as stored (replay_events.sql), not read as
// text.
func TestReplayTypedAggregatesExact(t *testing.T) {
	dir := "testdata/replay/typed/"
	res, out := reconcile(t, dir+"source.parquet", dir+"sink.csv", spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end", GroupBy: []string{"shop"},
		Aggregates: aggs(t, "total", "sum(amount)", "top", "max(amount)", "units", "sum(qty)"),
	}})
	wantStatuses(t, res, map[string]string{"reperformance_mismatches": "fail 1", "missing_keys": "pass 0", "unexpected_keys": "pass 0"})
	got := exceptions(t, out, "reperformance_mismatches")
	if lines := strings.Count(got, "\n"); lines != 2 || !strings.Contains(got, "2026-11-26 02:00:00+00,S1,total,sum(amount),0.30,") {
		t.Errorf("reperformance_mismatches: want the one row of window 02:00 (0.30 against 0.31):\n%s", got)
	}
}

// A re-performance reads only the events' columns it uses — the event
// time, the group and the aggregated column — and says which it left out,
// with their types (summary.json inputs[].columns_not_read and a note): the
// events of full/ (with event_id, memo, score, d and region) and of narrow/
// (without) give the same exceptions. A column the spec names elsewhere
// (a top-level group_by) is read. With a record id every column is read:
// the record checks compare them.
func TestReplayReadsOnlyItsColumns(t *testing.T) {
	dir := "testdata/replay/projection/"
	s := spec.Spec{Reperform: &spec.Reperform{
		EventTime: "event_time", Window: window("10m", "5m", ""), WindowStart: "window_start", GroupBy: []string{"shop"},
		Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)"),
	}}
	full, fullOut := reconcile(t, dir+"full/events.parquet", dir+"sink.csv", s)
	narrow, narrowOut := reconcile(t, dir+"narrow/events.parquet", dir+"sink.csv", s)
	var left []string
	for _, c := range full.Inputs[0].NotRead {
		left = append(left, c.Name+" "+c.Type)
	}
	if got := strings.Join(left, ", "); got != "event_id BIGINT, memo VARCHAR, score DOUBLE, d DATE, region VARCHAR" {
		t.Errorf("columns not read: %s", got)
	}
	if len(narrow.Inputs[0].NotRead) != 0 || len(full.Inputs[0].Columns) != 3 {
		t.Errorf("narrow not read %v; full columns %v", narrow.Inputs[0].NotRead, full.Inputs[0].Columns)
	}
	if !slices.ContainsFunc(full.Notes, func(n string) bool { return strings.Contains(n, "event_id, memo, score, d, region were not read") }) {
		t.Errorf("no note of the columns not read: %q", full.Notes)
	}
	wantStatuses(t, full, map[string]string{"reperformance_mismatches": "fail 1"})
	for _, c := range full.Checks {
		if c.Status == evidence.Skipped {
			continue
		}
		a := strings.ReplaceAll(exceptions(t, fullOut, c.ID), "/full/", "/narrow/")
		if b := exceptions(t, narrowOut, c.ID); a != b {
			t.Errorf("%s: full\n%s\nnarrow\n%s", c.ID, a, b)
		}
	}
	grouped := s
	grouped.GroupBy = []string{"region"}
	g, _ := reconcile(t, dir+"full/events.parquet", dir+"sink.csv", grouped)
	if slices.ContainsFunc(g.Inputs[0].NotRead, func(c evidence.Column) bool { return c.Name == "region" }) {
		t.Errorf("group_by region not read: %v", g.Inputs[0].NotRead)
	}
	s.ID = []string{"shop"}
	s.Reperform = nil
	rec, _ := reconcile(t, dir+"full/events.parquet", dir+"sink.csv", s)
	if len(rec.Inputs[0].NotRead) != 0 || len(rec.Inputs[0].Columns) != 8 {
		t.Errorf("a record control read %v, left %v", rec.Inputs[0].Columns, rec.Inputs[0].NotRead)
	}
}

// The same autumn night written without offsets: 02:30 in Europe/Berlin
// happened twice, so which hour's window the event is in cannot be told;
// it is refused (ErrTime, naming file, line and value) instead of DuckDB's
// reading (one of the two offsets, without a word). 02:30 on the spring
// night never happened: refused too. 01:30 that night is one instant.
func TestReplayZonelessEventTimeInDSTChange(t *testing.T) {
	dir := t.TempDir()
	sink := filepath.Join(dir, "sink.csv")
	if err := os.WriteFile(sink, []byte("window_end,total,n\n2026-10-25T03:00:00+02:00,1.00,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(eventTime string) error {
		src := filepath.Join(dir, "source.csv")
		if err := os.WriteFile(src, []byte("event_id,amount,event_time\n1,1.00,"+eventTime+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := spec.Spec{Source: spec.Input{URI: src}, Sink: spec.Input{URI: sink}, Out: filepath.Join(t.TempDir(), "ev"), Dir: dir,
			TimeZone: "Europe/Berlin", Reperform: &spec.Reperform{EventTime: "event_time", Window: window("1h", "", ""), WindowEnd: "window_end",
				Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)")}}
		_, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json"}})
		return err
	}
	for _, tt := range []struct{ at, msg string }{
		{"2026-10-25 02:30:00", "occurs twice in Europe/Berlin"},
		{"2026-03-29T02:30:00", "does not exist in Europe/Berlin"},
	} {
		err := run(tt.at)
		if !errors.Is(err, checks.ErrTime) || !strings.Contains(err.Error(), "source.csv:2: column event_time") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want checks.ErrTime naming source.csv:2 and %q", tt.at, err, tt.msg)
		}
	}
	if err := run("2026-10-25 01:30:00"); err != nil {
		t.Errorf("01:30, one instant: %v", err)
	}
}

// A window and group with source events and no sink row is missing, with
// the re-performed values and the location of its first event (found for
// the missing keys alone): for sliding windows, where an event is in two
// windows, and for tumbling ones.
func TestReplayMissingKeys(t *testing.T) {
	dir := "testdata/replay/sliding/"
	for _, c := range []struct {
		name   string
		window spec.Window
		sink   string
		want   []string
	}{
		{"sliding", window("10m", "5m", ""), "window_start,shop,total,n\n" +
			"2026-11-25T23:55:00Z,S1,1.00,1\n2026-11-26T00:00:00Z,S1,4.00,3\n2026-11-26T00:10:00Z,S1,4,1\n2026-11-26T00:00:00Z,S2,1.250,1\n",
			[]string{"2026-11-25 23:55:00+00,2026-11-26 00:05:00+00,S2,1,1.250,1," + dir + "source.csv:4",
				"2026-11-26 00:05:00+00,2026-11-26 00:15:00+00,S1,3,7.000,3," + dir + "source.csv:3"}},
		{"tumbling", window("10m", "", ""), "window_start,shop,total,n\n2026-11-26T00:00:00Z,S1,4.00,3\n",
			[]string{"2026-11-26 00:00:00+00,2026-11-26 00:10:00+00,S2,1,1.25,1," + dir + "source.csv:4",
				"2026-11-26 00:10:00+00,2026-11-26 00:20:00+00,S1,1,4.00,1," + dir + "source.csv:6"}},
	} {
		sink := filepath.Join(t.TempDir(), "sink.csv")
		if err := os.WriteFile(sink, []byte(c.sink), 0o644); err != nil {
			t.Fatal(err)
		}
		res, out := reconcile(t, dir+"source.csv", sink, spec.Spec{Reperform: &spec.Reperform{
			EventTime: "event_time", Window: c.window, WindowStart: "window_start", GroupBy: []string{"shop"},
			Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)"),
		}})
		wantStatuses(t, res, map[string]string{"missing_keys": "fail 2", "unexpected_keys": "pass 0", "reperformance_mismatches": "pass 0"})
		want := "window_start,window_end,shop,source_events,expected_total,expected_n,first_source_location\n" + strings.Join(c.want, "\n") + "\n"
		if got := exceptions(t, out, "missing_keys"); got != want {
			t.Errorf("%s: missing_keys:\n%s\nwant:\n%s", c.name, got, want)
		}
	}
}

// A group column named like a column of the replay tables
// (__window_start_us) was taken for it: its values replaced by the
// window's start, and every key reported missing and unexpected. Such
// names are refused for every column the re-performance reads, naming the
// spec field; renamed, the same inputs reconcile, and so do other names
// starting with __ (a Kafka topic's __partition, a CSV's __day).
func TestReplayReservedColumnNames(t *testing.T) {
	dir := t.TempDir()
	src, sink := filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv")
	if err := os.WriteFile(src, []byte("amount,et,__window_start_us\n1.50,2026-01-01T00:10:00Z,7\n2.00,2026-01-01T00:20:00Z,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sink, []byte("window_end,__window_start_us,revenue\n2026-01-01T01:00:00Z,7,1.50\n2026-01-01T01:00:00Z,8,2.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := spec.Spec{Source: spec.Input{URI: src}, Sink: spec.Input{URI: sink}, Out: filepath.Join(dir, "ev"), Dir: dir,
		Reperform: &spec.Reperform{EventTime: "et", Window: window("1h", "", ""), WindowEnd: "window_end",
			GroupBy: []string{"__window_start_us"}, Aggregates: aggs(t, "revenue", "sum(amount)")}}
	_, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json"}})
	if !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), `reperform.group_by: column "__window_start_us"`) || !strings.Contains(err.Error(), "rename:") {
		t.Fatalf("err = %v, want checks.ErrColumn naming reperform.group_by and the column", err)
	}
	rn := map[string]string{"__window_start_us": "shop"}
	s.Source.Rename, s.Sink.Rename = rn, rn
	s.Reperform.GroupBy = []string{"shop"}
	s.Out = filepath.Join(dir, "ev2")
	res, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json"}})
	if err != nil || res.Status != "pass" {
		t.Fatalf("renamed: err = %v, want a run that passes", err)
	}
	for _, name := range []string{"__partition", "__day"} {
		if err := os.WriteFile(src, []byte("amount,et,"+name+"\n1.50,2026-01-01T00:10:00Z,7\n2.00,2026-01-01T00:20:00Z,8\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sink, []byte("window_end,"+name+",revenue\n2026-01-01T01:00:00Z,7,1.50\n2026-01-01T01:00:00Z,8,2.00\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.Source.Rename, s.Sink.Rename = nil, nil
		s.Reperform.GroupBy = []string{name}
		s.Out = filepath.Join(dir, "ev-"+name)
		res, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json"}})
		if err != nil || res.Status != "pass" {
			t.Fatalf("group %s: err = %v, want a run that passes", name, err)
		}
	}
}

// Windows before the Unix epoch: Flink's start is ts - ((ts - offset) mod
// slide) with a non-negative remainder (TimeWindow.getWindowStartWithOffset),
// so an event at 1969-12-31 22:40 with hourly windows offset by 15 minutes
// is in [22:15, 23:15), and one at 23:59 in [23:15, 00:15). A remainder
// taken as the CPU gives it (negative before the offset) puts both an hour
// late. Tumbling (offset 15m) and sliding (10m every 5m, offset 1m) windows
// around the epoch reconcile clean.
func TestReplayWindowsBeforeEpoch(t *testing.T) {
	dir := "testdata/replay/epoch/"
	for _, tc := range []struct {
		name, windowCol string
		window          spec.Window
	}{
		{"tumbling", "window_end", window("1h", "", "15m")},
		{"sliding", "window_start", window("10m", "5m", "1m")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &spec.Reperform{EventTime: "event_time", Window: tc.window, GroupBy: []string{"shop"},
				Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)")}
			if tc.windowCol == "window_end" {
				r.WindowEnd = tc.windowCol
			} else {
				r.WindowStart = tc.windowCol
			}
			res, out := reconcile(t, dir+tc.name+"-source.csv", dir+tc.name+"-sink.csv", spec.Spec{Reperform: r})
			wantStatuses(t, res, map[string]string{
				"duplicate_keys": "pass 0", "reperformance_mismatches": "pass 0", "missing_keys": "pass 0", "unexpected_keys": "pass 0",
			})
			if t.Failed() {
				t.Log(exceptions(t, out, "reperformance_mismatches"), exceptions(t, out, "missing_keys"), exceptions(t, out, "unexpected_keys"))
			}
		})
	}
}
