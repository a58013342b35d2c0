// Package report writes the evidence of a reconciliation: the machine-readable
// summary.json, the readable report.md and, through the Writer interface,
// any further format. Writers never open files themselves; Folder creates the
// evidence folder so that it appears only when complete.
package report

import (
	"fmt"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// SchemaVersion is the version of the summary.json layout. It changes when a
// field is removed or changes meaning; adding a field does not change it.
const SchemaVersion = 1

// Status is the overall verdict: pass when every check that ran passed.
type Status string

// The verdicts.
const (
	Pass Status = "pass"
	Fail Status = "fail"
)

// Result is everything a reconciliation established: what summary.json
// holds and every report is rendered from.
type Result struct {
	SchemaVersion int    `json:"schema_version"`
	Status        Status `json:"status"`
	// Control names and describes the control (from the spec).
	Control Control `json:"control"`
	// Run says when, where and with what the control ran.
	Run RunInfo `json:"run"`
	// Parameters is the effective spec, secrets removed.
	Parameters *spec.Spec `json:"parameters"`
	// Inputs are the source and sink as read, with row counts and
	// fingerprints.
	Inputs []*sources.Input `json:"inputs"`
	// Checks are the outcomes, in check-id order.
	Checks []*checks.Outcome `json:"checks"`
	// Totals are the population figures.
	Totals *checks.Totals `json:"totals"`
	// Notes are facts about how values were compared (types, NULL-safe ids).
	Notes []string `json:"notes,omitempty"`
	// Replay is the re-performance of a windowed sink: sink rows per
	// logical key, restarts seen and the findings each explains (nil
	// unless the spec has reperform:).
	Replay *checks.ReplaySummary `json:"replay,omitempty"`
}

// Control is the control's identity.
type Control struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// RunInfo is the metadata of one run. Times are UTC, RFC 3339.
type RunInfo struct {
	ID            string `json:"id"`
	StartedAt     string `json:"started_at"`
	FinishedAt    string `json:"finished_at"`
	User          string `json:"user,omitempty"`
	Host          string `json:"host,omitempty"`
	ToolVersion   string `json:"tool_version"`
	DuckDBVersion string `json:"duckdb_version"`
	Spec          string `json:"spec_file,omitempty"`
	SpecSHA256    string `json:"spec_sha256,omitempty"`
}

// Failed returns the checks that found exceptions.
func (r *Result) Failed() []*checks.Outcome {
	var out []*checks.Outcome
	for _, c := range r.Checks {
		if c.Status == checks.Fail {
			out = append(out, c)
		}
	}
	return out
}

// Conclusion is the control's verdict in words, for the reports: how many
// checks ran, how many found exceptions, how many were skipped. onFail is
// added after the verdict when the control failed (say where the
// exceptions are).
func (r *Result) Conclusion(onFail string) string {
	failed, ran, info, skipped := 0, 0, 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case checks.Fail:
			failed++
			ran++
		case checks.Pass:
			ran++
		case checks.Info:
			info++
		default:
			skipped++
		}
	}
	text := fmt.Sprintf("Every check that ran (%d) found no exceptions: the sink reconciles to the source.", ran)
	if r.Status == Fail {
		text = fmt.Sprintf("%d of %d checks that ran found exceptions: the sink does not reconcile to the source.", failed, ran)
		if onFail != "" {
			text += " " + onFail
		}
	}
	if info > 0 {
		text += fmt.Sprintf(" %d informational check(s) reported rows that do not count against the control.", info)
	}
	if skipped > 0 {
		text += fmt.Sprintf(" %d check(s) were skipped (not configured) and count neither way.", skipped)
	}
	return text
}
