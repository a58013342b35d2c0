package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// FirstRows is how many exception rows of each check the view carries for
// the reports' tables (the workbook streams every row instead).
const FirstRows = 20

// chartRowLimit caps the exception rows of one check a chart reads.
const chartRowLimit = 200_000

// View is the one typed view of a run's result: what summary.json states,
// with the exceptions read from the evidence folder once and typed by their
// columns' DuckDB types and roles. Markdown, HTML and the workbook only lay
// it out; none of them computes a figure, reads a CSV or decides a type of
// its own.
type View struct {
	// Summary is the run as summary.json states it.
	Summary *evidence.Summary
	// Windowed is true for a re-performed windowed sink (Summary.Replay).
	Windowed bool
	// Population is the population table: source, sink and difference
	// (sink − source) per row, the same in every report.
	Population []PopulationRow
	// Checks are the checks in run order.
	Checks []*CheckView
	// Parameters is the effective spec as (dotted key, value) pairs in key
	// order; lists of scalars are joined with ", ".
	Parameters [][2]string
	// Replay is the re-performance of a windowed sink, nil otherwise.
	Replay *ReplayView
	// Charts is what the pictures of report.html draw.
	Charts Charts
	// SinceLastRun is the comparison with the control's previous run in
	// the run history; nil without a history.
	SinceLastRun *SinceLastRunView
	// Compared are the columns compared on every matched id and
	// Uncompared those of either input left out (none for a windowed
	// sink, or a summary written before they were recorded).
	Compared   []ComparedRow
	Uncompared []UncomparedRow

	evidence fs.FS
}

// ComparedRow is one compared column as the reports state it.
type ComparedRow struct {
	Column, SourceType, SinkType string
	// How is the comparison in words: "text, byte for byte", "exact
	// value", "instants (sink: zone-less, read in Asia/Shanghai)", …
	How string
	// Normalize ("trim, casefold") and Tolerance ("0.01", "0.01 (default)",
	// "none (default tolerance 0.01 does not apply to VARCHAR)") are ""
	// when none.
	Normalize, Tolerance string
}

// UncomparedRow is one column left uncompared: the input(s) it is in
// ("source", "sink", "both") and why.
type UncomparedRow struct {
	Column, Input, Reason string
}

// PopulationRow is one row of the population table. A Cell that is Null
// does not apply (events and window rows are not the same unit) and is
// shown as "–".
type PopulationRow struct {
	Label                    string
	Source, Sink, Difference Cell
}

// CheckView is one check with its typed exceptions.
type CheckView struct {
	*evidence.Check
	// Typed are the exception columns, typed (nil when skipped).
	Typed []Column
	// First are the first FirstRows exception rows.
	First [][]Cell
	// SQL is the query the check ran, as saved in QueryFile ("" when
	// skipped).
	SQL       string
	QueryFile string
	// Profile describes each column's values over every row (for layout).
	Profile []Profile

	rows     [][]Cell // up to chartRowLimit rows, for the charts
	complete bool     // rows holds every exception row
}

// Column is an exception column: name, DuckDB type, role and measure (as
// the check file declares them, evidence.Column) and how its values are
// read.
type Column struct {
	Name, Type, Role, Measure string
	Kind                      Kind
}

// Cell is one value. Text is exactly as the exceptions CSV (or
// summary.json) holds it. Kind is the column's kind when the value reads as
// one — a plain decimal for KindNumber, a date or timestamp for KindTime
// (then Time is the instant in UTC) — and KindText otherwise, so a value is
// never changed to fit its column.
type Cell struct {
	Null bool
	Text string
	Kind Kind
	Time time.Time
}

// Profile is what one pass over every row of a column found.
type Profile struct {
	// Width is the longest value, in runes (the header not counted).
	Width int
	// NonEmpty is true when some value is neither NULL nor empty.
	NonEmpty bool
	// TimeOfDay and Fraction are true when some time value has a time of
	// day, or a fraction of a second.
	TimeOfDay, Fraction bool
	// Decimals are the numbers of decimal places the column's number
	// values are written with, sorted, each once (the workbook makes the
	// number style of each before it writes a row, so that its styles are
	// numbered the same in every run).
	Decimals []int
}

// ReplayView is the re-performance of a windowed sink, as the reports
// state it (the population figures are in View.Population).
type ReplayView struct {
	Window, EventTime, TimeZone, Emission string
	// RestartFiles are the restart history files; none when no history
	// was given (then findings are not correlated with restarts).
	RestartFiles []string
	Restarts     []RestartView
	Notes        []string
	// Unexplained are the findings no restart explains, per check.
	Unexplained     []Count
	UnexplainedKeys int64
}

// RestartView is one restart. At and Barrier are UTC "2006-01-02
// 15:04:05"; Checkpoint is "unknown" when the restored checkpoint is not
// known, Barrier "–" when its time is not.
type RestartView struct {
	No                      int
	Time                    time.Time
	At, Checkpoint, Barrier string
	// RestoredKnown is false when the restored checkpoint is unknown.
	RestoredKnown bool
	Keys          int64
	Findings      []Count
}

// Count is a number of findings of one check.
type Count struct {
	Check string
	N     int64
}

// NewView builds the view of run s from its evidence folder ev (paths as in
// evidence.ExceptionsFile, forward slashes): every exceptions CSV is read
// once, its header checked against the check's columns and its rows
// counted against the check's exception count; the SQL of each check that
// ran is read from its query file. A missing file, or an exceptions file
// that disagrees with summary.json, is an error: the reports would state
// something the evidence does not hold.
func NewView(ctx context.Context, s *evidence.Summary, ev fs.FS) (*View, error) {
	v := &View{Summary: s, Windowed: s.Replay != nil, evidence: ev}
	for _, c := range s.Checks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cv, err := v.check(c)
		if err != nil {
			return nil, err
		}
		v.Checks = append(v.Checks, cv)
	}
	v.Population = population(s)
	v.Compared, v.Uncompared = comparison(s.Comparison)
	v.Replay = replayView(s.Replay)
	var err error
	if v.Parameters, err = flatten(s.Parameters); err != nil {
		return nil, err
	}
	if v.SinceLastRun, err = v.sinceLastRun(); err != nil {
		return nil, err
	}
	v.Charts = charts(v)
	for _, c := range v.Checks {
		c.rows = nil // the charts are drawn
	}
	return v, nil
}

// check reads the exceptions and query of one check.
func (v *View) check(c *evidence.Check) (*CheckView, error) {
	cv := &CheckView{Check: c, complete: true}
	if c.Status == evidence.Skipped || c.File == "" {
		return cv, nil
	}
	cv.QueryFile = evidence.QueryFile(c.ID)
	sql, err := fs.ReadFile(v.evidence, cv.QueryFile)
	if err != nil {
		return nil, fmt.Errorf("report: the query of %s: %w", c.ID, err)
	}
	cv.SQL = string(sql)

	f, err := v.evidence.Open(c.File)
	if err != nil {
		return nil, fmt.Errorf("report: exceptions of %s: %w", c.ID, err)
	}
	defer f.Close()
	rd := newCSVRows(c.File, f)
	header, err := rd.header()
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	cols := c.Columns
	if len(cols) == 0 { // a summary written before it listed columns: all text
		for _, h := range header {
			cols = append(cols, evidence.Column{Name: h})
		}
	}
	if len(cols) != len(header) {
		return nil, fmt.Errorf("report: %s has columns %s, but summary.json lists %d columns for %s", c.File, strings.Join(header, ","), len(cols), c.ID)
	}
	for i, col := range cols {
		if col.Name != header[i] {
			return nil, fmt.Errorf("report: %s column %d is %q, but summary.json says %q", c.File, i+1, header[i], col.Name)
		}
		cv.Typed = append(cv.Typed, Column{Name: col.Name, Type: col.Type, Role: col.Role, Measure: col.Measure, Kind: kindOf(col.Type, col.Role)})
		cv.Profile = append(cv.Profile, Profile{})
	}
	// Only a failed check that feeds a chart, or whose rows name a window
	// (the timeline), keeps rows beyond the first ones.
	keep := c.Status == evidence.Fail && (cv.Chart != "" || cv.col(evidence.RoleWindowStart, "") >= 0 || cv.col(evidence.RoleWindowEnd, "") >= 0)
	var n int64
	for {
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		n++
		row := cv.typeRow(rec)
		for i, cell := range row {
			p := &cv.Profile[i]
			p.Width = max(p.Width, utf8.RuneCountInString(cell.Text))
			if cell.Text == "" {
				continue
			}
			p.NonEmpty = true
			if cell.Kind == KindTime {
				p.TimeOfDay = p.TimeOfDay || len(cell.Text) > 10
				p.Fraction = p.Fraction || cell.Time.Nanosecond() != 0
			}
			if cell.Kind == KindNumber {
				d := decimalsOf(cell.Text)
				if i, found := slices.BinarySearch(p.Decimals, d); !found {
					p.Decimals = slices.Insert(p.Decimals, i, d)
				}
			}
		}
		if len(cv.First) < FirstRows {
			cv.First = append(cv.First, row)
		}
		if keep {
			if len(cv.rows) < chartRowLimit {
				cv.rows = append(cv.rows, row)
			} else {
				cv.complete = false
			}
		}
	}
	if n != c.Rows() {
		return nil, fmt.Errorf("report: %s holds %d rows, but the check counted %d exceptions and %d rows within tolerance", c.File, n, c.Exceptions, c.Rows()-c.Exceptions)
	}
	return cv, nil
}

// Failed returns the checks that found exceptions, in run order.
func (v *View) Failed() []*CheckView {
	var out []*CheckView
	for _, c := range v.Checks {
		if c.Status == evidence.Fail {
			out = append(out, c)
		}
	}
	return out
}

// Listed returns the checks whose exceptions file holds rows — exceptions
// of a failed check, the rows of an informational one, rows within a
// declared tolerance of a check that passed — in run order.
func (v *View) Listed() []*CheckView {
	var out []*CheckView
	for _, c := range v.Checks {
		if c.Status != evidence.Skipped && c.Rows() > 0 {
			out = append(out, c)
		}
	}
	return out
}

// ExceptionsText is the check's exception count for a verdict table: "–"
// when it was skipped; with a declared tolerance, the count followed by
// ToleranceText ("1; 1 within tolerance (amount 0.01)").
func (c *CheckView) ExceptionsText() string {
	if c.Status == evidence.Skipped {
		return "–"
	}
	if t := c.ToleranceText(); t != "" {
		return fmt.Sprintf("%d; %s", c.Exceptions, t)
	}
	return fmt.Sprint(c.Exceptions)
}

// ToleranceText says what the declared tolerances did to the check's
// verdict: "1 within tolerance (amount 0.01, settled_at 2s)"; "" when
// none applied.
func (c *CheckView) ToleranceText() string {
	if len(c.Tolerances) == 0 {
		return ""
	}
	ts := make([]string, len(c.Tolerances))
	for i, t := range c.Tolerances {
		ts[i] = t.Column + " " + t.Tolerance
	}
	return fmt.Sprintf("%d within tolerance (%s)", c.Rows()-c.Exceptions, strings.Join(ts, ", "))
}

// Header is the exception table's column names.
func (c *CheckView) Header() []string {
	out := make([]string, len(c.Typed))
	for i, col := range c.Typed {
		out[i] = col.Name
	}
	return out
}

// col is the index of the first column with role, or -1.
func (c *CheckView) col(role, measure string) int {
	for i, col := range c.Typed {
		if col.Role == role && col.Measure == measure {
			return i
		}
	}
	return -1
}

// cols are the indexes of every column with role.
func (c *CheckView) cols(role string) []int {
	var out []int
	for i, col := range c.Typed {
		if col.Role == role {
			out = append(out, i)
		}
	}
	return out
}

// Conclusion is the control's verdict in words: how many checks ran, how
// many found exceptions, how many were skipped. onFail is added after the
// verdict when the control failed (to say where the exceptions are).
func (v *View) Conclusion(onFail string) string {
	failed, ran, info, skipped := 0, 0, 0, 0
	for _, c := range v.Summary.Checks {
		switch c.Status {
		case evidence.Fail:
			failed++
			ran++
		case evidence.Pass:
			ran++
		case evidence.Info:
			info++
		default:
			skipped++
		}
	}
	text := fmt.Sprintf("Every check that ran (%d) found no exceptions: the sink reconciles to the source.", ran)
	if v.Summary.Status == evidence.Fail {
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
