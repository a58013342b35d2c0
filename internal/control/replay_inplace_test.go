package control_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// toParquet writes the CSV file csv as the Parquet file out with DuckDB:
// every column text (as the CSV kind reads it) except those of typed,
// cast to the type given.
func toParquet(t *testing.T, csv, out string, typed map[string]string) {
	t.Helper()
	ctx := context.Background()
	db := sourcetest.DB(t)
	var casts []string
	for _, c := range []string{"event_time", "amount", "shop"} {
		if typ, ok := typed[c]; ok {
			casts = append(casts, "CAST("+duck.Ident(c)+" AS "+typ+") AS "+duck.Ident(c))
		}
	}
	sel := "*"
	if len(casts) > 0 {
		sel = "* REPLACE (" + strings.Join(casts, ", ") + ")"
	}
	q := "COPY (SELECT " + sel + " FROM read_csv(" + duck.Literal(csv) + ", all_varchar = true)) TO " + duck.Literal(out) + " (FORMAT parquet)"
	if err := db.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
}

// runReplay runs the spec file's control with its source replaced by
// source, its evidence in a folder of its own.
func runReplay(t *testing.T, specFile, source string, edit func(*spec.Spec)) (*evidence.Summary, string) {
	t.Helper()
	s, err := spec.Load(specFile)
	if err != nil {
		t.Fatal(err)
	}
	s.Source = spec.Input{URI: source}
	s.Out = filepath.Join(t.TempDir(), "evidence")
	if edit != nil {
		edit(s)
	}
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json", "md"}})
	if err != nil {
		t.Fatalf("%s: %v", specFile, err)
	}
	return res, s.Out
}

// folderFiles reads the exceptions CSVs of an evidence folder by name.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(filepath.Join(dir, "exceptions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, "exceptions", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// A re-performance reads Parquet events where they lie (a view over the
// files, not a copy in DuckDB) and answers exactly as over the loaded
// table: the bundled samples (restarts, watermarks, late firings, sliding
// windows, NULL event times, DST) with typed and with text amounts give the
// same exceptions byte for byte, the same replay summary, totals and
// verdicts. Both runs say how the events were read.
func TestReplayReadInPlaceSameAnswers(t *testing.T) {
	root := "../../samples/"
	cases := []struct {
		name, spec string
		typed      map[string]string
	}{
		{"hourly typed", root + "hourly-report/spec.yaml", map[string]string{"event_time": "TIMESTAMPTZ", "amount": "DECIMAL(12,2)"}},
		{"hourly text", root + "hourly-report/spec.yaml", nil},
		{"sessions", root + "session-counts/spec.yaml", map[string]string{"event_time": "TIMESTAMPTZ"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Dir(c.spec)
			events := filepath.Join(t.TempDir(), "events.parquet")
			toParquet(t, filepath.Join(dir, "source.csv"), events, c.typed)
			view, viewOut := runReplay(t, c.spec, events, nil)
			var table *evidence.Summary
			var tableOut string
			control.WithoutReadInPlace(func() { table, tableOut = runReplay(t, c.spec, events, nil) })
			if !view.Inputs[0].ReadInPlace || table.Inputs[0].ReadInPlace || view.Inputs[1].ReadInPlace {
				t.Fatalf("read in place: view run %v/%v, table run %v", view.Inputs[0].ReadInPlace, view.Inputs[1].ReadInPlace, table.Inputs[0].ReadInPlace)
			}
			if !reflect.DeepEqual(folderFiles(t, viewOut), folderFiles(t, tableOut)) {
				t.Errorf("the exceptions differ:\nin place %v\ntable    %v", folderFiles(t, viewOut), folderFiles(t, tableOut))
			}
			if !reflect.DeepEqual(view.Replay, table.Replay) || !reflect.DeepEqual(view.Totals, table.Totals) {
				t.Errorf("replay or totals differ:\nin place %+v %+v\ntable    %+v %+v", view.Replay, view.Totals, table.Replay, table.Totals)
			}
			if a, b := statuses(view), statuses(table); !reflect.DeepEqual(a, b) || view.Status != evidence.Fail {
				t.Errorf("verdicts differ or pass: in place %v, table %v", a, b)
			}
			if view.Inputs[0].Rows != table.Inputs[0].Rows || view.Inputs[0].Rows == 0 {
				t.Errorf("rows: in place %d, table %d", view.Inputs[0].Rows, table.Inputs[0].Rows)
			}
		})
	}
}

// statuses maps each check to its status and exception count.
func statuses(res *evidence.Summary) map[string]string {
	out := map[string]string{}
	for _, c := range res.Checks {
		out[c.ID] = fmt.Sprintf("%s %d", c.Status, c.Exceptions)
	}
	return out
}

// Events read in place with a group column of another type than the
// sink's (an INTEGER shop against text) and a DECIMAL(9,2) amount against
// text sums: the groups compared as text, the sums as exact decimals, the
// same answers as the loaded table, and the one cent found.
func TestReplayReadInPlaceTypesDiffer(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csv, []byte("event_time,shop,amount\n"+
		"2026-11-26T00:10:00Z,1,1.50\n2026-11-26T00:20:00Z,1,2.25\n2026-11-26T00:30:00Z,2,4.00\n"+
		"2026-11-26T01:05:00Z,1,0.10\n2026-11-26T01:15:00Z,2,0.20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := filepath.Join(dir, "sink.csv")
	if err := os.WriteFile(sink, []byte("window_end,shop,total\n"+
		"2026-11-26T01:00:00Z,1,3.75\n2026-11-26T01:00:00Z,2,4.00\n2026-11-26T02:00:00Z,1,0.10\n2026-11-26T02:00:00Z,2,0.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events.parquet")
	toParquet(t, csv, events, map[string]string{"event_time": "TIMESTAMPTZ", "shop": "INTEGER", "amount": "DECIMAL(9,2)"})
	specFile := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(specFile, []byte("name: types\nsource: events.parquet\nsink: sink.csv\n"+
		"reperform:\n  event_time: event_time\n  window: {size: 1h}\n  window_end: window_end\n  group_by: [shop]\n  aggregates: {total: sum(amount)}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	view, viewOut := runReplay(t, specFile, events, nil)
	var tableOut string
	control.WithoutReadInPlace(func() { _, tableOut = runReplay(t, specFile, events, nil) })
	if !view.Inputs[0].ReadInPlace {
		t.Fatal("the events were not read in place")
	}
	got := folderFiles(t, viewOut)
	if !reflect.DeepEqual(got, folderFiles(t, tableOut)) {
		t.Errorf("the exceptions differ:\nin place %v\ntable    %v", got, folderFiles(t, tableOut))
	}
	if m := got["reperformance_mismatches.csv"]; strings.Count(m, "\n") != 2 || !strings.Contains(m, "2026-11-26 02:00:00+00,2,total,sum(amount),0.20,") {
		t.Errorf("want the one mismatch of shop 2 at 02:00 (0.20 against 0.21):\n%s", m)
	}
}

// Events read in place are read by every statement, so a file that
// changes during the run fails it (exit 3) and publishes no evidence: here
// the events file is rewritten (a new modification time) once the load has
// listed and hashed it.
func TestReplayReadInPlaceFileChanged(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "events.parquet")
	toParquet(t, "../../samples/hourly-report/source.csv", events, map[string]string{"event_time": "TIMESTAMPTZ", "amount": "DECIMAL(12,2)"})
	s, err := spec.Load("../../samples/hourly-report/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.Source = spec.Input{URI: events}
	s.Out = filepath.Join(dir, "evidence")
	log := watchLog(func(line string) {
		if strings.HasPrefix(line, "loaded source") {
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(events, later, later); err != nil {
				t.Error(err)
			}
		}
	})
	_, err = control.Run(context.Background(), s, control.Options{Formats: []string{"json"}, Log: log})
	if !errors.Is(err, sources.ErrChanged) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "events.parquet") {
		t.Fatalf("err = %v, want sources.ErrChanged naming the file (a runtime error)", err)
	}
	if _, err := os.Stat(s.Out); !os.IsNotExist(err) {
		t.Errorf("an evidence folder was published: %v", err)
	}
}

// An event time of infinity is no point in time (its epoch is NULL, so it
// would fall in no window and the event would be dropped without a word):
// the run stops naming file, line (or row) and value, for text events and for
// Parquet TIMESTAMPTZ events read where they lie alike.
func TestReplayInfiniteEventTime(t *testing.T) {
	// The Parquet events are found in the aggregation (a window without a
	// start), tumbling and sliding alike; the text ones beforehand.
	for _, inf := range []string{"infinity", "-infinity"} {
		for _, window := range []string{"{size: 1h}", "{size: 1h, slide: 30m}"} {
			dir := t.TempDir()
			csv := filepath.Join(dir, "events.csv")
			if err := os.WriteFile(csv, []byte("event_time,shop,amount\n2026-11-26T00:10:00Z,1,1.50\n"+inf+",1,2.25\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sink := filepath.Join(dir, "sink.csv")
			if err := os.WriteFile(sink, []byte("window_end,shop,total\n2026-11-26T01:00:00Z,1,1.50\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			events := filepath.Join(dir, "events.parquet")
			toParquet(t, csv, events, map[string]string{"event_time": "TIMESTAMPTZ"})
			// The CSV file's line 3 (after the header), the Parquet file's row 2.
			for _, c := range []struct{ source, at string }{{csv, "events.csv:3"}, {events, "events.parquet:2"}} {
				s := replaySpecIn(t, dir, c.source, window)
				_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
				if !errors.Is(err, checks.ErrTime) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), c.at+": column event_time") || !strings.Contains(err.Error(), `"`+inf+`"`) {
					t.Errorf("%s, window %s: err = %v, want checks.ErrTime naming %s and %s", inf, window, err, c.at, inf)
				}
				if _, err := os.Stat(s.Out); !os.IsNotExist(err) {
					t.Errorf("%s, window %s: an evidence folder was published: %v", inf, window, err)
				}
			}
		}
	}
}

// Events read where they lie are first read by the re-performance, so a
// page DuckDB cannot decode (here the event times' first page header
// overwritten) fails
// there: the error still names the input and its file, and the run exits 3
// with no evidence.
func TestReplayReadInPlaceCorruptFile(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "events.parquet")
	toParquet(t, "../../samples/hourly-report/source.csv", events, map[string]string{"event_time": "TIMESTAMPTZ", "amount": "DECIMAL(12,2)"})
	at, err := sourcetest.DB(t).Count(context.Background(), "SELECT CAST(data_page_offset AS BIGINT) FROM parquet_metadata("+duck.Literal(events)+") WHERE path_in_schema = 'event_time'")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	for i := at; i < at+36; i++ { // the event time column's first page header
		b[i] = 0xFF
	}
	if err := os.WriteFile(events, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load("../../samples/hourly-report/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.Source = spec.Input{URI: events}
	s.Out = filepath.Join(dir, "evidence")
	_, err = control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if err == nil || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "read where it lies ("+events+")") || !strings.Contains(err.Error(), "don't know what type") {
		t.Fatalf("err = %v, want a runtime error naming the source's file", err)
	}
	if _, err := os.Stat(s.Out); !os.IsNotExist(err) {
		t.Errorf("an evidence folder was published: %v", err)
	}
}

// A bad timestamp of the sink in a run whose events are read where they lie
// is named as the sink's, without the events' files put before it (the
// prefix that names them is for the engine's errors reading them).
func TestReplayReadInPlaceSinkErrorNamesSink(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "events.csv")
	if err := os.WriteFile(csv, []byte("event_time,shop,amount\n2026-11-26T00:10:00Z,1,1.50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(dir, "events.parquet")
	toParquet(t, csv, events, map[string]string{"event_time": "TIMESTAMPTZ"})
	if err := os.WriteFile(filepath.Join(dir, "sink.csv"), []byte("window_end,shop,total\nnot-a-time,1,1.50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := replaySpecIn(t, dir, "events.parquet", "{size: 1h}")
	_, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if !errors.Is(err, checks.ErrTime) || !strings.Contains(err.Error(), "sink.csv:2: column window_end") || strings.Contains(err.Error(), "read where it lies") {
		t.Errorf("err = %v, want checks.ErrTime naming sink.csv:2 and not the events' files", err)
	}
}

// A blank event time (spaces, written as text) is no timestamp: the run
// stops naming file, line and value (it stopped on DuckDB's conversion
// error, naming no row); an empty field is no event time (NULL), noted.
func TestReplayBlankEventTime(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sink.csv"), []byte("window_end,shop,total\n2026-11-26T01:00:00Z,1,1.50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, want string }{{`"  "`, `events.csv:3: column event_time: value "  "`}, {"", ""}} {
		if err := os.WriteFile(filepath.Join(dir, "events.csv"), []byte("event_time,shop,amount\n2026-11-26T00:10:00Z,1,1.50\n"+c.field+",1,2.25\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := replaySpecIn(t, dir, "events.csv", "{size: 1h}")
		res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
		if c.want != "" {
			if !errors.Is(err, checks.ErrTime) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: err = %v, want checks.ErrTime naming %s", c.field, err, c.want)
			}
			continue
		}
		if err != nil || res.Status != "pass" || !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "1 source row(s) have no event time") }) {
			t.Errorf("empty field: err = %v, want a pass noting the row without an event time", err)
		}
	}
}

// replaySpecIn writes dir/spec.yaml — events from source (a path), sink
// sink.csv, windows window (a YAML flow map) over event_time, per shop,
// total = sum(amount) ending at window_end — and loads it, its evidence
// going to a new temporary folder.
func replaySpecIn(t *testing.T, dir, source, window string) *spec.Spec {
	t.Helper()
	specFile := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(specFile, []byte("name: replay\nsource: "+source+"\nsink: sink.csv\n"+
		"reperform:\n  event_time: event_time\n  window: "+window+"\n  window_end: window_end\n  group_by: [shop]\n  aggregates: {total: sum(amount)}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(specFile)
	if err != nil {
		t.Fatal(err)
	}
	s.Out = filepath.Join(t.TempDir(), "evidence")
	return s
}
