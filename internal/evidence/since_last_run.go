package evidence

import "strings"

// The run history's part of the evidence: what a run with a history
// (package history) adds to summary.json, to the exceptions CSVs and to
// the folder.

// History is summary.json's history: the database the run was classified
// against and recorded in, the previous run and the recent runs of the
// control (for the trend chart).
type History struct {
	// File is the history database file, absolute.
	File string `json:"file"`
	// PreviousRun is the run this one's exceptions were classified against:
	// the last run of the same control recorded in File; null for the
	// control's first run there (then every exception is new).
	PreviousRun *HistoryRun `json:"previous_run"`
	// Runs are the control's last runs, at most TrendRuns, oldest first;
	// the last is this run.
	Runs []HistoryRun `json:"runs"`
}

// TrendRuns is how many runs History.Runs (the HTML report's trend chart)
// holds at most.
const TrendRuns = 30

// HistoryRun is one recorded run of a control.
type HistoryRun struct {
	// ID is the run's id (Run.ID) and StartedAt its start (RFC 3339, UTC).
	ID        string `json:"id"`
	StartedAt string `json:"started_at"`
	// Status is the control's verdict: pass or fail.
	Status Status `json:"status"`
	// Params are the run's parameters (Parameters.Params).
	Params map[string]string `json:"params,omitempty"`
	// Exceptions counts the exception rows of each check that ran, by
	// check id.
	Exceptions map[string]int64 `json:"exceptions"`
}

// SinceLastRun is a check's exceptions compared with those of the
// previous run, by key (see KeyColumns). Counts are of distinct keys:
// exception rows that share a key (the rows of every NULL id in a check of
// ids, say) are one exception for the history.
type SinceLastRun struct {
	// Compared is false when there is no previous run, or the previous run
	// did not run this check, or keyed it by other columns (Note says
	// which): then every key is new and none is resolved.
	Compared bool `json:"compared"`
	// KeyColumns are the exception columns the key is made of, in table
	// order (none: the check has one key, "it fails").
	KeyColumns []string `json:"key_columns"`
	// New keys were not exceptions in the previous run; Recurring ones
	// were (they carry the run and date they were first seen, and how many
	// runs in a row they have been open); Resolved ones were exceptions in
	// the previous run and are not any more.
	New       int64 `json:"new"`
	Recurring int64 `json:"recurring"`
	Resolved  int64 `json:"resolved"`
	// ResolvedFile lists the resolved keys (ResolvedFileOf); "" when none
	// was resolved.
	ResolvedFile string `json:"resolved_file,omitempty"`
	// NotFound counts the keys of the previous run this run does not find
	// and does not call resolved, because it may not look for them: its
	// settings differ from that run's (CheckScope), or the check compares
	// matched records and their ids are no longer in both inputs. Note says
	// which.
	NotFound int64 `json:"not_found,omitempty"`
	// Note says why the check was not compared; or, for a check compared,
	// why some keys of the previous run are NotFound rather than Resolved.
	Note string `json:"note,omitempty"`
}

// The columns a run with a history appends to every exceptions CSV, after
// the check's own (they have no role: nothing identifies an exception by
// them). A check whose own columns use one of these names is refused.
const (
	// ColumnSinceLastRun is LifecycleNew or LifecycleRecurring (VARCHAR).
	ColumnSinceLastRun = "since_last_run"
	// ColumnFirstSeenRun is the id of the run in which the key was first an
	// exception, in the current streak (VARCHAR); this run's id when new.
	ColumnFirstSeenRun = "first_seen_run"
	// ColumnFirstSeenDate is the UTC date that run started (DATE).
	ColumnFirstSeenDate = "first_seen_date"
	// ColumnOpenRuns is how many runs in a row, this one included, the key
	// has been an exception (INTEGER): 1 when new.
	ColumnOpenRuns = "open_runs"
	// ColumnLastSeenRun, in a resolved file only, is the previous run's id:
	// the last run in which the key was an exception.
	ColumnLastSeenRun = "last_seen_run"
)

// LifecycleColumns are the columns appended to the exceptions CSVs, in
// order.
var LifecycleColumns = []string{ColumnSinceLastRun, ColumnFirstSeenRun, ColumnFirstSeenDate, ColumnOpenRuns}

// The values of ColumnSinceLastRun.
const (
	LifecycleNew       = "new"
	LifecycleRecurring = "recurring"
)

// KeyRoles are the roles of the columns that identify an exception of a
// check: its record id, group, logical key, window and measure (or
// aggregate) columns, the compared column of a value mismatch (one row per
// id and column) and the grand-total flag of a balance. The history and
// `reconcile diff` key an exception by its check id and the values of these
// columns, never by column names.
var KeyRoles = []string{RoleID, RoleGroup, RoleKey, RoleWindowStart, RoleWindowEnd, RoleMeasure, RoleColumn, RoleTotal}

// KeyColumns returns the names of the columns of cols whose role is one of
// KeyRoles, in order. Their values, as text (as the exceptions CSV holds
// them; NULL stays NULL), make an exception's key. A check without such
// columns has one key: every row is the same exception, "the check
// fails" (a total out of balance, a check of one's own without roles).
func KeyColumns(cols []Column) []string {
	out := []string{}
	for _, c := range cols {
		for _, r := range KeyRoles {
			if c.Role == r {
				out = append(out, c.Name)
				break
			}
		}
	}
	return out
}

// KeyColumnsText names key columns in a sentence: joined by ", ", or "no
// key column" when there are none (a check keyed by no column).
func KeyColumnsText(cols []string) string {
	if len(cols) == 0 {
		return "no key column"
	}
	return strings.Join(cols, ", ")
}
