// Package metrics writes the outcome of a run of controls as Prometheus
// metrics in the text exposition format (github.com/prometheus/common/expfmt),
// for node_exporter's textfile collector: the file is written to a
// temporary file in the same folder and renamed into place, so the
// collector never reads half a file. Samples carry no timestamps (the
// textfile collector refuses them).
//
// The metrics, all gauges, labelled by control (and check):
//
//	reconcile_last_run_timestamp_seconds   when the control's run ended (Unix seconds)
//	reconcile_run_status                   the run's exit code: 0 pass, 1 fail, 2 usage or spec error, 3 input or runtime error
//	reconcile_source_rows, reconcile_sink_rows   the populations compared
//	reconcile_check_exceptions             exception rows per check that ran
//	reconcile_check_new_exceptions, reconcile_check_recurring_exceptions,
//	reconcile_check_resolved_exceptions    with a run history: keys new, recurring and resolved since the previous run
//	reconcile_sink_rows_per_key            a re-performed windowed sink's rows per distinct key: 1 when each window is written once
//	reconcile_restarts                     the restarts in the job's restart history read for the run
//
// A control that could not run has only the first two. The rows-per-key
// ratio and the restart counter are the detection seed 000 asks for: a
// ratio that leaves 1.0 and a restart counter, on the same dashboard as
// the business numbers.
package metrics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// Control is one control's run.
type Control struct {
	// Name is the control's name (label control).
	Name string
	// Code is the run's exit code.
	Code int
	// Finished is when the run ended.
	Finished time.Time
	// Summary is the run's result; nil when it could not run.
	Summary *evidence.Summary
}

type family struct {
	name, help string
	metrics    []*dto.Metric
}

func gauge(v float64, labels ...string) *dto.Metric {
	m := &dto.Metric{Gauge: &dto.Gauge{Value: &v}}
	for i := 0; i+1 < len(labels); i += 2 {
		name, value := labels[i], labels[i+1]
		m.Label = append(m.Label, &dto.LabelPair{Name: &name, Value: &value})
	}
	return m
}

// Families returns the metric families of controls, sorted by name, each
// with its samples in control (then check) order.
func Families(controls []Control) []*dto.MetricFamily {
	fams := map[string]*family{}
	add := func(name, help string, m *dto.Metric) {
		f := fams[name]
		if f == nil {
			f = &family{name: name, help: help}
			fams[name] = f
		}
		f.metrics = append(f.metrics, m)
	}
	sorted := append([]Control(nil), controls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, c := range sorted {
		add("reconcile_last_run_timestamp_seconds", "When the control's last run ended, in Unix seconds.", gauge(float64(c.Finished.Unix()), "control", c.Name))
		add("reconcile_run_status", "Exit code of the control's last run: 0 pass, 1 fail (exceptions), 2 usage or spec error, 3 input or runtime error.", gauge(float64(c.Code), "control", c.Name))
		s := c.Summary
		if s == nil {
			continue
		}
		if t := s.Totals; t != nil {
			add("reconcile_source_rows", "Source records loaded by the control's last run.", gauge(float64(t.SourceRows), "control", c.Name))
			add("reconcile_sink_rows", "Sink rows loaded by the control's last run.", gauge(float64(t.SinkRows), "control", c.Name))
		}
		checks := append([]*evidence.Check(nil), s.Checks...)
		sort.SliceStable(checks, func(i, j int) bool { return checks[i].ID < checks[j].ID })
		for _, ch := range checks {
			if ch.Status == evidence.Skipped {
				continue
			}
			add("reconcile_check_exceptions", "Exception rows of a check in the control's last run.", gauge(float64(ch.Exceptions), "control", c.Name, "check", ch.ID))
			if sl := ch.SinceLastRun; sl != nil {
				add("reconcile_check_new_exceptions", "Exception keys of a check that were not exceptions in the previous run.", gauge(float64(sl.New), "control", c.Name, "check", ch.ID))
				add("reconcile_check_recurring_exceptions", "Exception keys of a check that were exceptions in the previous run too.", gauge(float64(sl.Recurring), "control", c.Name, "check", ch.ID))
				add("reconcile_check_resolved_exceptions", "Exception keys of the previous run that the last run no longer finds.", gauge(float64(sl.Resolved), "control", c.Name, "check", ch.ID))
			}
		}
		if r := s.Replay; r != nil {
			add("reconcile_sink_rows_per_key", "Sink rows per distinct window key of a re-performed windowed sink: 1 when each window is written once.", gauge(r.SinkRowsPerKey, "control", c.Name))
			add("reconcile_restarts", "Restarts of the stream job in the restart history read by the control's last run.", gauge(float64(len(r.Restarts)), "control", c.Name))
		}
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*dto.MetricFamily, 0, len(names))
	typ := dto.MetricType_GAUGE
	for _, n := range names {
		f := fams[n]
		out = append(out, &dto.MetricFamily{Name: &f.name, Help: &f.help, Type: &typ, Metric: f.metrics})
	}
	return out
}

// Write writes the metrics of controls to path, atomically: a temporary
// file beside it, renamed into place (mode 0644, for the collector).
func Write(path string, controls []Control) error {
	var buf bytes.Buffer
	for _, f := range Families(controls) {
		if _, err := expfmt.MetricFamilyToText(&buf, f); err != nil {
			return fmt.Errorf("metrics: %s: %w", f.GetName(), err)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("metrics: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("metrics: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}
