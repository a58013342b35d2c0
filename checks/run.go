package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// Status of one check: the statuses of the evidence (pass, fail, skipped,
// info).
type Status = evidence.Status

// The statuses a check can end in.
const (
	Pass    = evidence.Pass
	Fail    = evidence.Fail
	Skipped = evidence.Skipped
	Info    = evidence.Info
)

// Column is one column of a check's exception table.
type Column struct {
	Name    string // as the check's query returns it
	Type    string // DuckDB type in the exception table (DECIMAL(38,2), VARCHAR, BIGINT, TIMESTAMP WITH TIME ZONE, …)
	Role    string // "" or RoleID, RoleGroup, RoleKey, RoleCheckpoints, RoleRestart, RoleWindowStart, RoleWindowEnd, RoleSource, RoleSink, RoleDifference, RoleLocation
	Measure string // for RoleSource/RoleSink/RoleDifference: the measure or aggregate ("" for row counts)
}

// The roles of exception columns.
const (
	RoleID          = "id"
	RoleGroup       = "group"
	RoleKey         = "key"
	RoleCheckpoints = "checkpoints"
	RoleRestart     = "restart"
	RoleWindowStart = "window_start"
	RoleWindowEnd   = "window_end"
	RoleSource      = "source"
	RoleSink        = "sink"
	RoleDifference  = "difference"
	RoleLocation    = "location"
)

func hasColumn(o *Outcome, name string) bool {
	for _, c := range o.Columns {
		if c.Name == name {
			return true
		}
	}
	return false
}

// ErrFailed is returned (wrapped) by callers when at least one check found
// exceptions: the control ran and its answer is "no". It is not a failure
// to run (exit code 1, not 3).
var ErrFailed = errors.New("checks: exceptions found")

// RunError is a check whose SQL failed: the control could not conclude.
type RunError struct {
	Check string
	Err   error
}

func (e *RunError) Error() string { return "check " + e.Check + ": " + e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// Outcome is the result of one check.
type Outcome struct {
	ID          string `json:"id"`
	Assertion   string `json:"assertion"`
	Description string `json:"description"`
	Status      Status `json:"status"`
	// Exceptions is the number of exception rows: all of them, never a
	// sample.
	Exceptions int64 `json:"exceptions"`
	// File is the exceptions CSV, relative to the evidence folder ("" when
	// skipped).
	File string `json:"exceptions_file,omitempty"`
	// SkipReason says which spec fields a skipped check needed.
	SkipReason string   `json:"skip_reason,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Columns and FirstRows are the exception table's header and its first
	// rows (values as DuckDB renders them, NULL as nil), for reports.
	Columns   []Column    `json:"-"`
	FirstRows [][]*string `json:"-"`
	// Chart is "" | "balance" | "replayed_keys" | "window_timeline" | "reperformance";
	// Finding is "" | "replay".
	Chart, Finding string `json:"-"`
	// SQL is the exact query run, for re-performance.
	SQL string `json:"-"`
	// Table is the DuckDB table holding every exception row, ordered, while
	// the session is open.
	Table string `json:"-"`
}

// FirstRowsLimit is how many exception rows an Outcome carries for reports.
const FirstRowsLimit = 20

// Run runs every check against the prepared source and sink tables. For each
// check that runs it writes all exception rows, sorted on every column (so
// two runs give identical files), to dir/exceptions/<id>.csv, with a header
// even when there are none. A check whose requirements p does not meet is
// Skipped. A check made for the other kind of sink (a window check on a
// record-level sink, a record check on a windowed one) does not apply and
// is left out. A check whose SQL fails is reported as a *RunError, the other
// checks still run, and the errors are returned joined.
//
// log receives one progress line per check (nil: none).
func Run(ctx context.Context, db *duck.DB, all []*Check, p *Params, dir string, log io.Writer) ([]*Outcome, error) {
	if log == nil {
		log = io.Discard
	}
	excDir := filepath.Join(dir, "exceptions")
	if err := os.MkdirAll(excDir, 0o755); err != nil {
		return nil, err
	}
	var outs []*Outcome
	var errs []error
	for _, c := range all {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !c.Applies(p) {
			continue
		}
		o := &Outcome{ID: c.ID, Assertion: strings.Join(c.Assertion, ", "), Description: c.Description}
		outs = append(outs, o)
		if miss := c.Missing(p); len(miss) > 0 {
			o.Status = Skipped
			ms := make([]string, len(miss))
			for i, m := range miss {
				ms[i] = string(m)
			}
			o.SkipReason = "not configured: needs " + strings.Join(ms, ", ")
			continue
		}
		t0 := time.Now()
		if err := runOne(ctx, db, c, p, o, excDir); err != nil {
			errs = append(errs, &RunError{Check: c.ID, Err: err})
			continue
		}
		fmt.Fprintf(log, "check %s: %d exceptions in %s\n", c.ID, o.Exceptions, time.Since(t0).Round(time.Millisecond))
	}
	if len(errs) > 0 {
		return outs, errors.Join(errs...)
	}
	if len(p.ID) > 1 { // only a composite id can be partly NULL
		if err := notePartialNulls(ctx, db, p, outs); err != nil {
			return outs, err
		}
	}
	return outs, nil
}

func runOne(ctx context.Context, db *duck.DB, c *Check, p *Params, o *Outcome, excDir string) error {
	q, err := c.Render(p)
	if err != nil {
		return err
	}
	o.SQL = q
	o.Table = "exceptions__" + c.ID
	t := duck.Ident(o.Table)
	if err := db.Exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT * FROM (\n%s\n) ORDER BY ALL", t, q)); err != nil {
		return err
	}
	o.File = filepath.ToSlash(filepath.Join("exceptions", c.ID+".csv"))
	n, err := db.ExecCount(ctx, fmt.Sprintf("COPY (SELECT * FROM %s ORDER BY ALL) TO %s (FORMAT csv, HEADER true)", t, duck.Literal(filepath.Join(excDir, c.ID+".csv"))))
	if err != nil {
		return err
	}
	o.Exceptions = n
	o.Status = Pass
	if n > 0 {
		o.Status = Fail
		if c.Info {
			o.Status = Info
		}
	}
	_, o.FirstRows, err = db.Strings(ctx, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL LIMIT %d", t, FirstRowsLimit))
	if err != nil {
		return err
	}
	cols, err := db.Columns(ctx, o.Table)
	if err != nil {
		return err
	}
	for _, col := range cols {
		o.Columns = append(o.Columns, Column{Name: col.Name, Type: col.Type})
	}
	return nil
}

// notePartialNulls counts rows whose composite id has some, but not all,
// parts NULL: they are matched NULL-safely (a NULL part equals a NULL part),
// and the report must say so.
func notePartialNulls(ctx context.Context, db *duck.DB, p *Params, outs []*Outcome) error {
	parts := make([]string, len(p.ID))
	for i, id := range p.ID {
		parts[i] = duck.Ident(id) + " IS NULL"
	}
	cond := fmt.Sprintf("(%s) AND NOT (%s)", strings.Join(parts, " OR "), strings.Join(parts, " AND "))
	var counts []int64
	for _, t := range []string{SourceTable, SinkTable} {
		n, err := db.Count(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", duck.Ident(t), cond))
		if err != nil {
			return err
		}
		counts = append(counts, n)
	}
	if counts[0]+counts[1] == 0 {
		return nil
	}
	note := fmt.Sprintf("%d source and %d sink rows have a composite id with some NULL parts; they are compared NULL-safely (a NULL part equals a NULL part)", counts[0], counts[1])
	for _, o := range outs {
		if o.Status != Skipped {
			switch o.ID {
			case "missing_ids", "unexpected_ids", "duplicate_ids", "null_ids", "value_mismatches":
				o.Notes = append(o.Notes, note)
			}
		}
	}
	return nil
}

// Totals are the population figures of the two inputs.
type Totals struct {
	SourceRows        int64          `json:"source_rows"`
	SinkRows          int64          `json:"sink_rows"`
	SourceDistinctIDs int64          `json:"source_distinct_ids"`
	SinkDistinctIDs   int64          `json:"sink_distinct_ids"`
	Measures          []MeasureTotal `json:"measures,omitempty"`
}

// MeasureTotal is the exact sum of one measure on both sides, as decimal
// text at the measure's scale.
type MeasureTotal struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	SourceSum  string `json:"source_sum"`
	SinkSum    string `json:"sink_sum"`
	Difference string `json:"difference"`
}

// ComputeTotals returns the population totals. Distinct ids exclude null ids
// and count composite ids NULL-safely.
func ComputeTotals(ctx context.Context, db *duck.DB, p *Params) (*Totals, error) {
	t := &Totals{}
	ids := make([]string, len(p.ID))
	for i, id := range p.ID {
		ids[i] = duck.Ident(id)
	}
	nullid := nullID("", p.ID)
	for _, side := range []struct {
		table         string
		rows, distinc *int64
	}{{SourceTable, &t.SourceRows, &t.SourceDistinctIDs}, {SinkTable, &t.SinkRows, &t.SinkDistinctIDs}} {
		var err error
		if *side.rows, err = db.Count(ctx, "SELECT count(*) FROM "+duck.Ident(side.table)); err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			continue // a windowed sink (reperform): no record id
		}
		q := fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM %s WHERE NOT %s)", strings.Join(ids, ", "), duck.Ident(side.table), nullid)
		if *side.distinc, err = db.Count(ctx, q); err != nil {
			return nil, err
		}
	}
	for _, m := range p.Measures {
		typ := p.MeasureTypes[m]
		c := duck.Ident(m)
		q := fmt.Sprintf(`WITH s AS (SELECT CAST(coalesce(sum(%[1]s), 0) AS %[2]s) AS v FROM source),
		     k AS (SELECT CAST(coalesce(sum(%[1]s), 0) AS %[2]s) AS v FROM sink)
		SELECT s.v, k.v, CAST(k.v - s.v AS %[2]s) FROM s, k`, c, typ)
		_, rows, err := db.Strings(ctx, q)
		if err != nil {
			return nil, err
		}
		r := rows[0]
		t.Measures = append(t.Measures, MeasureTotal{Name: m, Type: typ, SourceSum: *r[0], SinkSum: *r[1], Difference: *r[2]})
	}
	return t, nil
}
