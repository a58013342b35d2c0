package report

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// SinceLastRunView is the run history's part of the view: each check's
// exceptions against the control's previous run, the keys resolved since,
// and the recent runs (summary.json history and checks[].since_last_run,
// and the resolved files of the evidence folder).
type SinceLastRunView struct {
	// File is the run history database.
	File string
	// Previous is the run compared with; nil for the control's first run.
	Previous *evidence.HistoryRun
	// Checks are the checks that ran, in run order.
	Checks []SinceCheck
	// Resolved are the keys resolved since the previous run, check by
	// check, each file in its order.
	Resolved []ResolvedKey
	// Runs are the control's recent runs, oldest first, this one last.
	Runs []evidence.HistoryRun
}

// SinceCheck is one check's comparison with the previous run.
type SinceCheck struct {
	ID         string
	Exceptions int64
	evidence.SinceLastRun
}

// ResolvedKey is one key resolved since the previous run.
type ResolvedKey struct {
	Check string
	// Key renders the key columns as col=value, comma-separated (NULL for
	// a NULL value).
	Key                         string
	FirstSeenRun, FirstSeenDate string
	OpenRuns                    Cell
	LastSeenRun                 string
}

// sinceLastRun builds the history part of the view, reading each resolved
// file and checking its rows against the count summary.json states.
func (v *View) sinceLastRun() (*SinceLastRunView, error) {
	h := v.Summary.History
	if h == nil {
		return nil, nil
	}
	out := &SinceLastRunView{File: h.File, Previous: h.PreviousRun, Runs: h.Runs}
	for _, c := range v.Summary.Checks {
		if c.SinceLastRun == nil {
			continue
		}
		out.Checks = append(out.Checks, SinceCheck{ID: c.ID, Exceptions: c.Exceptions, SinceLastRun: *c.SinceLastRun})
		if c.SinceLastRun.ResolvedFile == "" {
			if c.SinceLastRun.Resolved != 0 {
				return nil, fmt.Errorf("report: %s: %d keys resolved but no resolved file named", c.ID, c.SinceLastRun.Resolved)
			}
			continue
		}
		rows, err := v.resolvedRows(c.ID, c.SinceLastRun)
		if err != nil {
			return nil, err
		}
		out.Resolved = append(out.Resolved, rows...)
	}
	return out, nil
}

// resolvedRows reads one resolved file: the key columns, then the four
// columns evidence.ResolvedFileOf names.
func (v *View) resolvedRows(check string, sl *evidence.SinceLastRun) ([]ResolvedKey, error) {
	f, err := v.evidence.Open(sl.ResolvedFile)
	if err != nil {
		return nil, fmt.Errorf("report: resolved keys of %s: %w", check, err)
	}
	defer f.Close()
	rd := newCSVRows(sl.ResolvedFile, f)
	header, err := rd.header()
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	tail := []string{evidence.ColumnFirstSeenRun, evidence.ColumnFirstSeenDate, evidence.ColumnOpenRuns, evidence.ColumnLastSeenRun}
	want := append(append([]string{}, sl.KeyColumns...), tail...)
	if strings.Join(header, "\x00") != strings.Join(want, "\x00") {
		return nil, fmt.Errorf("report: %s has columns %s, want %s", sl.ResolvedFile, strings.Join(header, ","), strings.Join(want, ","))
	}
	n := len(sl.KeyColumns)
	var out []ResolvedKey
	for {
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if len(rec) != len(want) {
			return nil, fmt.Errorf("report: %s row %d has %d fields, want %d", sl.ResolvedFile, len(out)+1, len(rec), len(want))
		}
		parts := make([]string, n)
		for i := range n {
			val := "NULL"
			if !rec[i].null {
				val = rec[i].text
			}
			parts[i] = sl.KeyColumns[i] + "=" + val
		}
		key := strings.Join(parts, ", ")
		if n == 0 {
			key = "(the check's one key)"
		}
		out = append(out, ResolvedKey{Check: check, Key: key, FirstSeenRun: rec[n].text, FirstSeenDate: rec[n+1].text,
			OpenRuns: typed(rec[n+2], KindNumber), LastSeenRun: rec[n+3].text})
	}
	if int64(len(out)) != sl.Resolved {
		return nil, fmt.Errorf("report: %s holds %d rows, but summary.json counts %d resolved keys of %s", sl.ResolvedFile, len(out), sl.Resolved, check)
	}
	return out, nil
}

// runLabel names a run by its parameters (day=2026-11-29), else its start
// date.
func runLabel(r evidence.HistoryRun) string {
	if len(r.Params) > 0 {
		keys := make([]string, 0, len(r.Params))
		for k := range r.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if r.Params[k] != envValue {
				parts = append(parts, k+"="+r.Params[k])
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
	}
	if len(r.StartedAt) >= 10 {
		return r.StartedAt[:10]
	}
	return r.ID
}

// envValue is what the evidence records for an ${env:NAME} parameter
// (spec.EnvValue); it names no run.
const envValue = "(from the environment; not recorded)"

// paramList renders parameters as name=value, sorted ("" for none).
func paramList(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, " ")
}
