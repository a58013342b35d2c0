package metrics

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// parse reads a metrics file back with the library's own text parser.
func parse(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return fams
}

// value is the gauge of family name whose labels are labels, and whether
// there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if len(got) != len(labels) {
			continue
		}
		match := true
		for k, v := range labels {
			if got[k] != v {
				match = false
			}
		}
		if match {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func TestWriteParsesBack(t *testing.T) {
	end := time.Date(2026, 11, 30, 6, 0, 4, 0, time.UTC)
	ledger := &evidence.Summary{Status: evidence.Fail, Totals: &evidence.Totals{SourceRows: 2000, SinkRows: 2130},
		Checks: []*evidence.Check{
			{ID: "duplicate_ids", Status: evidence.Fail, Exceptions: 130, SinceLastRun: &evidence.SinceLastRun{Compared: true, New: 130}},
			{ID: "missing_ids", Status: evidence.Pass, SinceLastRun: &evidence.SinceLastRun{Compared: true, Resolved: 4}},
			{ID: "key_checkpoint_conflicts", Status: evidence.Skipped},
		}}
	hourly := &evidence.Summary{Status: evidence.Fail, Totals: &evidence.Totals{SourceRows: 1955, SinkRows: 26},
		Checks: []*evidence.Check{{ID: "duplicate_keys", Status: evidence.Fail, Exceptions: 2}},
		Replay: &evidence.Replay{SinkRowsPerKey: 1.0833, Restarts: []evidence.Restart{{No: 1}, {No: 2}}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "reconcile.prom")
	os.WriteFile(path, []byte("stale\n"), 0o644)
	err := Write(path, []Control{
		{Name: "ledger-nightly", Code: 1, Finished: end, Summary: ledger},
		{Name: "hourly-report", Code: 1, Finished: end, Summary: hourly},
		{Name: "broken", Code: 3, Finished: end},
	})
	if err != nil {
		t.Fatal(err)
	}
	fams := parse(t, path)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"reconcile_last_run_timestamp_seconds", map[string]string{"control": "ledger-nightly"}, float64(end.Unix())},
		{"reconcile_run_status", map[string]string{"control": "ledger-nightly"}, 1},
		{"reconcile_run_status", map[string]string{"control": "broken"}, 3},
		{"reconcile_source_rows", map[string]string{"control": "ledger-nightly"}, 2000},
		{"reconcile_sink_rows", map[string]string{"control": "ledger-nightly"}, 2130},
		{"reconcile_check_exceptions", map[string]string{"control": "ledger-nightly", "check": "duplicate_ids"}, 130},
		{"reconcile_check_exceptions", map[string]string{"control": "ledger-nightly", "check": "missing_ids"}, 0},
		{"reconcile_check_new_exceptions", map[string]string{"control": "ledger-nightly", "check": "duplicate_ids"}, 130},
		{"reconcile_check_resolved_exceptions", map[string]string{"control": "ledger-nightly", "check": "missing_ids"}, 4},
		{"reconcile_sink_rows_per_key", map[string]string{"control": "hourly-report"}, 1.0833},
		{"reconcile_restarts", map[string]string{"control": "hourly-report"}, 2},
	} {
		got, ok := value(fams, c.name, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// A skipped check has no sample; a control that could not run has no
	// check or population samples; a sink of records has no replay ones.
	for _, c := range []struct {
		name   string
		labels map[string]string
	}{
		{"reconcile_check_exceptions", map[string]string{"control": "ledger-nightly", "check": "key_checkpoint_conflicts"}},
		{"reconcile_source_rows", map[string]string{"control": "broken"}},
		{"reconcile_sink_rows_per_key", map[string]string{"control": "ledger-nightly"}},
	} {
		if _, ok := value(fams, c.name, c.labels); ok {
			t.Errorf("%s%v present", c.name, c.labels)
		}
	}
	for name, f := range fams {
		if f.GetType() != dto.MetricType_GAUGE || f.GetHelp() == "" {
			t.Errorf("%s: type %s, help %q", name, f.GetType(), f.GetHelp())
		}
		for _, m := range f.GetMetric() {
			if m.TimestampMs != nil {
				t.Errorf("%s has a timestamp; the textfile collector refuses them", name)
			}
		}
	}
	// Written by rename: nothing else is left in the folder.
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("folder holds %d entries, want only the metrics file", len(es))
	}
}
