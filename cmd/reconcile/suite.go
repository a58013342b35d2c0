package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/lock"
	"github.com/reconcile-dev/reconcile/internal/metrics"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/report"
)

// nightly are the flags of `reconcile run` for unattended operation.
type nightly struct {
	params   []string // --param NAME=VALUE
	history  string
	metrics  string
	quiet    bool
	progress bool
}

func (n *nightly) flags(fl *pflag.FlagSet) {
	fl.StringArrayVar(&n.params, "param", nil, "NAME=VALUE for ${NAME} in the spec's strings (repeatable); ${run_date} and ${env:NAME} are built in")
	onceVar(fl, &n.history, "history", "run history database file to classify exceptions against and append the run to (the spec's history:)")
	onceVar(fl, &n.metrics, "metrics", "write Prometheus metrics (text format, atomically) to this file, for node_exporter's textfile collector")
	fl.BoolVar(&n.quiet, "quiet", false, "print only the verdict line, what was resolved since the last run, failed checks, warnings and the evidence path")
	fl.BoolVar(&n.progress, "progress", false, "print progress lines on stderr even when it is not a terminal")
}

// specFlags are the flags that set a field of one control; with a suite
// they would apply to every control, so they are refused.
var specFlags = []string{"source", "sink", "id", "measure", "group-by", "checkpoint", "logical-key", "duplicates", "out", "name"}

// planned is one control of a run: its spec file and the spec read (or the
// error reading it).
type planned struct {
	file string
	s    *spec.Spec
	err  error
	// label names a control whose spec did not load (err): the name: its
	// file declares when no other control of the run has that name, else
	// "" (the file names it). See labelFailed.
	label string
}

// outcome is what running one control gave.
type outcome struct {
	planned
	name string
	res  *evidence.Summary
	err  error
	code exitCode
	at   time.Time
}

// runSuite runs the controls named by o (one, or a suite) and returns the
// error that decides the exit code: the worst of the controls'.
func runSuite(ctx context.Context, o *runOptions, opt control.Options) error {
	params, err := paramsOf(o.params)
	if err != nil {
		return err
	}
	files, err := specFiles(o.configs)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		for _, f := range specFlags {
			if o.set(f) {
				return fault.Usage.Mark(fmt.Errorf("--%s sets one control's field; with %d controls, put it in their spec files", f, len(files)))
			}
		}
	}
	if len(files) == 0 {
		files = []string{""} // the control is all flags
	}
	// Every spec is read before any control runs, so a --param no spec
	// uses stops the run before it starts.
	var plan []planned
	for _, f := range files {
		s, err := specFrom(o, f, params)
		plan = append(plan, planned{file: f, s: s, err: err})
	}
	if unused := params.Unused(); len(unused) > 0 {
		return fmt.Errorf("%w: --param %s: no spec of this run uses ${%s}", spec.ErrInvalid, strings.Join(unused, ", --param "), strings.Join(unused, "}, ${"))
	}
	// A control's name keys its runs in a history: two specs of one suite
	// with the same name and history would be classified against each
	// other's runs (found by a reviewer). (Without a shared history a name
	// taken from out's last part, such as a day, may repeat.)
	named := map[string]string{}
	for _, p := range plan {
		if p.s == nil || p.s.History == "" && o.metrics == "" {
			continue
		}
		// --metrics keys its series by the name too: a repeated one
		// would write each series twice, a file the textfile collector
		// rejects whole
		key, why := control.Name(p.s), "with --metrics: each control's series are labelled with its name"
		if o.metrics == "" {
			key, why = key+"\x00"+control.RealPath(p.s.History), "and keep one history "+p.s.History+": a control's name keys its runs there"
		}
		if first, ok := named[key]; ok {
			return fmt.Errorf("%w: %s and %s both name the control %q %s, so each spec needs its own (name:)", spec.ErrInvalid, first, p.file, control.Name(p.s), why)
		}
		named[key] = p.file
	}
	labelFailed(plan)
	opt.Log = io.Discard
	if o.progress || isTerminal(o.f.stderr) {
		opt.Log = o.f.stderr
	}
	var outs []*outcome
	for i, p := range plan {
		if i > 0 && ctx.Err() != nil {
			break // cancelled: the controls not started yet are not run
		}
		oc := runOne(ctx, o, p, opt)
		outs = append(outs, oc)
		if len(plan) > 1 && oc.err != nil && oc.code != exitFailed {
			fmt.Fprintf(o.f.stderr, "reconcile: %s: %s\n", oc.name, oc.errText())
		}
	}
	for _, p := range plan[len(outs):] {
		err := fmt.Errorf("not run: %w", context.Cause(ctx))
		outs = append(outs, &outcome{planned: p, name: p.file, err: err, code: exitRuntime, at: time.Now()})
	}
	if o.metrics != "" {
		if err := writeMetrics(o.metrics, outs); err != nil {
			return err
		}
	}
	if len(plan) == 1 {
		return outs[0].err
	}
	return rollUp(o.f.stdout, outs)
}

// labelFailed sets the label of each control of plan whose spec did not
// load: the name: its file declares, so that its metrics series and
// messages say the control failed, as its runs are labelled — unless
// another control of the run has (or declares) that name, whose series
// would then be written twice, a file the textfile collector rejects whole
// (found by a reviewer: a broken copy of a spec keeping its name:).
func labelFailed(plan []planned) {
	uses := map[string]int{}
	declared := make([]string, len(plan))
	for i, p := range plan {
		switch {
		case p.s != nil:
			uses[control.Name(p.s)]++
		case p.err != nil:
			declared[i] = spec.DeclaredName(p.file)
			uses[declared[i]]++
		}
	}
	for i := range plan {
		if n := declared[i]; n != "" && uses[n] == 1 {
			plan[i].label = n
		}
	}
}

// errText is the outcome's error message without a leading "NAME: "
// naming the control again.
func (oc *outcome) errText() string {
	return strings.TrimPrefix(oc.err.Error(), oc.name+": ")
}

// runOne runs one control: it takes the control's lock, removes what dead
// runs left behind, runs the control and prints its summary.
func runOne(ctx context.Context, o *runOptions, p planned, opt control.Options) *outcome {
	oc := &outcome{planned: p, name: p.file}
	done := func(err error) *outcome {
		oc.err, oc.at = err, time.Now()
		oc.code = codeOf(ctx, err)
		return oc
	}
	if p.err != nil {
		if p.label != "" {
			oc.name = p.label
		}
		return done(p.err)
	}
	s := p.s
	oc.name = control.Name(s)
	if s.Out != "" && s.History != "" {
		if rel, err := filepath.Rel(filepath.Clean(s.Out), filepath.Clean(s.History)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return done(fmt.Errorf("%w: the history %s lies inside the evidence folder %s, which a run publishes whole and --force replaces: keep it beside the evidence folders (history:)", spec.ErrInvalid, s.History, s.Out))
		}
	}
	if s.Out != "" {
		l, stale, err := lock.Acquire(lock.Path(s.Out, oc.name), oc.name, time.Now())
		if err != nil {
			return done(lockError(s.Out, oc.name, err))
		}
		defer l.Release()
		if stale != nil {
			fmt.Fprintf(o.f.stderr, "reconcile: took over the lock of %s from a run that is gone (%s)\n", oc.name, stale.Describe())
		}
		// A history kept elsewhere is a control's too: a second run of it
		// with its evidence in another folder would classify against the
		// same previous run (found by a reviewer), so it takes the lock
		// beside the history as well.
		if s.History != "" {
			if hp := lock.Path(s.History, oc.name); control.RealPath(hp) != control.RealPath(lock.Path(s.Out, oc.name)) {
				hl, hstale, err := lock.Acquire(hp, oc.name, time.Now())
				if err != nil {
					if !errors.Is(err, lock.ErrHeld) && !errors.Is(err, lock.ErrForeign) {
						err = fmt.Errorf("the history %s: its lock file %s could not be made: %w", s.History, hp, err)
					}
					return done(err)
				}
				defer hl.Release()
				if hstale != nil {
					fmt.Fprintf(o.f.stderr, "reconcile: took over the history lock of %s from a run that is gone (%s)\n", oc.name, hstale.Describe())
				}
			}
		}
		var histories []string
		if s.History != "" {
			histories = []string{s.History}
		}
		removed, err := leftover.Sweep("", []string{filepath.Dir(filepath.Clean(s.Out))}, histories)
		for _, r := range removed {
			fmt.Fprintf(o.f.stderr, "reconcile: %s\n", r)
		}
		if err != nil {
			fmt.Fprintf(o.f.stderr, "reconcile: cleaning up after earlier runs: %v\n", err)
		}
	}
	res, err := control.Run(ctx, s, opt)
	oc.res = res
	if res != nil {
		printSummary(o.f, res, s.Out, o.quiet)
	}
	if err != nil {
		return done(err)
	}
	if res.Status == evidence.Fail {
		return done(fmt.Errorf("%w", checks.ErrFailed))
	}
	return done(nil)
}

// paramsOf reads --param NAME=VALUE values (a name given twice is an
// error) into the parameters of a run started now.
func paramsOf(kvs []string) (*spec.Params, error) {
	given := map[string]string{}
	for _, kv := range kvs {
		name, value, err := spec.ParseParam(kv)
		if err != nil {
			return nil, err
		}
		if _, dup := given[name]; dup {
			return nil, fmt.Errorf("%w: --param %s given twice", spec.ErrInvalid, name)
		}
		given[name] = value
	}
	return spec.NewParams(given, time.Now())
}

// specFiles expands the --config values and arguments: a folder stands
// for its *.yaml and *.yml files, in name order. A name given twice is
// run once.
func specFiles(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", spec.ErrInvalid, err)
		}
		files := []string{a}
		if st.IsDir() {
			files = nil
			for _, pat := range []string{"*.yaml", "*.yml"} {
				m, _ := filepath.Glob(filepath.Join(a, pat))
				files = append(files, m...)
			}
			sort.Strings(files)
			if len(files) == 0 {
				return nil, fmt.Errorf("%w: %s holds no spec (*.yaml, *.yml)", spec.ErrInvalid, a)
			}
		}
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if !seen[abs] {
				seen[abs] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// skippedLine says how many files an input's location matched and did not
// read as records, and how many of them hold uncommitted output ("" when
// none): an on-call engineer reading the summary of a file sink learns
// that a missing window may sit in a part file not committed yet, which
// summary.json's skipped_files lists.
func skippedLine(in *evidence.Input) string {
	if len(in.Skipped) == 0 {
		return ""
	}
	uncommitted, rows, counted := 0, int64(0), true
	for _, f := range in.Skipped {
		if f.Uncommitted {
			uncommitted++
			if f.Rows == nil {
				counted = false // not read (a source's, or unreadable)
			} else {
				rows += *f.Rows
			}
		}
	}
	line := fmt.Sprintf("%s: %d file%s skipped", in.Role, len(in.Skipped), plural(len(in.Skipped)))
	switch {
	case uncommitted > 0 && counted:
		line += fmt.Sprintf(", %d of them uncommitted (%d row%s not read as records: in-progress or pending output)", uncommitted, rows, plural(rows))
	case uncommitted > 0:
		line += fmt.Sprintf(", %d of them uncommitted (in-progress or pending output, not read as records)", uncommitted)
	}
	return line + "; summary.json skipped_files lists each with its reason"
}

// plural is "s" unless n is 1.
func plural[N int | int64](n N) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// printSummary writes what a cron mail keeps: the verdict line (status,
// control, start, run id, parameters, row and sum differences), with
// --quiet what was resolved since the last run (resolvedLine), one line per
// check (with --quiet only the failed ones), the replay figures, one line
// per replay episode, warnings, and the evidence folder as an absolute
// path.
func printSummary(f *factory, res *evidence.Summary, out string, quiet bool) {
	w := f.stdout
	fmt.Fprintln(w, verdictLine(res))
	if line := resolvedLine(res); quiet && line != "" {
		fmt.Fprintln(w, line)
	}
	for _, c := range res.Checks {
		if quiet && c.Status != evidence.Fail {
			continue
		}
		detail := fmt.Sprintf("%d exception%s", c.Exceptions, plural(c.Exceptions))
		if c.Status == evidence.Skipped {
			detail = c.SkipReason
		}
		detail += toleranceText(c)
		if sl := c.SinceLastRun; sl != nil && sl.New+sl.Recurring+sl.Resolved+sl.NotFound > 0 {
			detail += " " + lifecycleText(sl)
		}
		fmt.Fprintf(w, "  %-7s %-26s %-24s %s\n", strings.ToUpper(string(c.Status)), c.ID, c.Assertion, detail)
	}
	if r := res.Replay; r != nil {
		fmt.Fprintf(w, "replay: %.4f sink rows per window key; %d restart(s); unexplained findings: %d\n", r.SinkRowsPerKey, len(r.Restarts), sumValues(r.Unexplained))
	}
	for _, l := range report.EpisodeLines(res) {
		fmt.Fprintf(w, "replay: %s\n", l)
	}
	for _, in := range res.Inputs {
		if line := skippedLine(in); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "WARNING") {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	fmt.Fprintf(w, "evidence: %s\n", out)
}

// verdictLine is the first line of the summary:
//
//	FAIL  ledger-nightly  2026-11-30T06:00:04Z  run 20261130T060004Z-1a2b3c4d  day=2026-11-29  rows +130 (source 2000, sink 2130)  amount +126029.43 (source …, sink …)
//
// A balance control with an input at balance grain gives the rows without
// a difference (postings and balances are different units), and a
// roll-forward each measure's closing less opening plus postings.
func verdictLine(res *evidence.Summary) string {
	parts := []string{strings.ToUpper(string(res.Status)), res.Control.Name, res.Run.StartedAt, "run " + res.Run.ID}
	if res.Parameters != nil {
		for _, name := range slices.Sorted(maps.Keys(res.Parameters.Params)) {
			if v := res.Parameters.Params[name]; v != spec.EnvValue {
				parts = append(parts, name+"="+v)
			}
		}
	}
	t := res.Totals
	if res.Replay != nil {
		// Events and window rows are different units: no difference.
		parts = append(parts, fmt.Sprintf("source %d events, sink %d rows", t.SourceRows, t.SinkRows))
	} else {
		if p := res.Parameters; p != nil && p.Grain != nil && (p.Grain.Source == spec.GrainBalance || p.Grain.Sink == spec.GrainBalance) {
			// Balances against postings: rows of different units.
			parts = append(parts, fmt.Sprintf("source %d rows, sink %d rows", t.SourceRows, t.SinkRows))
		} else {
			parts = append(parts, fmt.Sprintf("rows %s (source %d, sink %d)", signed(fmt.Sprint(t.SinkRows-t.SourceRows)), t.SourceRows, t.SinkRows))
		}
		for _, m := range t.Measures {
			if m.ExpectedSum != "" { // a roll-forward
				parts = append(parts, fmt.Sprintf("%s %s (opening %s + postings %s, closing %s)", m.Name, signed(m.RollForwardDifference), m.OpeningSum, m.SourceSum, m.SinkSum))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s (source %s, sink %s)", m.Name, signed(m.Difference), m.SourceSum, m.SinkSum))
		}
	}
	return strings.Join(parts, "  ")
}

// resolvedLine is what a run with a history resolved since the last run,
// check by check in the summary's order: "resolved since last run: 3
// missing_ids, 2 duplicate_ids"; "" when nothing was (or there is no
// history, or no previous run). --quiet prints it below the verdict line,
// where the passed checks whose lines would say it are left out.
func resolvedLine(res *evidence.Summary) string {
	var parts []string
	for _, c := range res.Checks {
		if sl := c.SinceLastRun; sl != nil && sl.Resolved > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", sl.Resolved, c.ID))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "resolved since last run: " + strings.Join(parts, ", ")
}

// signed puts a + before a positive decimal text (a difference sink −
// source), so that a surplus reads as one.
func signed(d string) string {
	if strings.HasPrefix(d, "-") || strings.Trim(d, "0.") == "" {
		return d
	}
	return "+" + d
}

// rollUp prints one line per control of a suite and returns the error of
// the worst exit code (nil when every control passed).
func rollUp(w io.Writer, outs []*outcome) error {
	worst := exitOK
	fmt.Fprintf(w, "suite: %d controls\n", len(outs))
	for _, oc := range outs {
		worst = max(worst, oc.code)
		status := "ERROR"
		if oc.res != nil && (oc.err == nil || oc.code == exitFailed) {
			status = strings.ToUpper(string(oc.res.Status))
		}
		var detail []string
		if oc.res != nil {
			for _, c := range oc.res.Checks {
				if c.Status != evidence.Fail {
					continue
				}
				d := fmt.Sprintf("%s %d", c.ID, c.Exceptions)
				if sl := c.SinceLastRun; sl != nil {
					d += " " + lifecycleText(sl)
				}
				detail = append(detail, d)
			}
		}
		if oc.err != nil && oc.code != exitFailed {
			detail = append(detail, oc.errText())
		}
		line := fmt.Sprintf("  %-5s %-28s exit %d  %s", status, oc.name, oc.code, strings.Join(detail, ", "))
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if worst == exitOK {
		return nil
	}
	var bad []string
	for _, oc := range outs {
		if oc.code != exitOK {
			bad = append(bad, fmt.Sprintf("%s (exit %d)", oc.name, oc.code))
		}
	}
	msg := fmt.Sprintf("suite: %d of %d controls did not pass: %s", len(bad), len(outs), strings.Join(bad, ", "))
	if worst == exitFailed {
		return fmt.Errorf("%w: %s", checks.ErrFailed, msg)
	}
	return fault.Class(worst).Mark(errors.New(msg))
}

// writeMetrics writes the metrics file of the controls that ran.
func writeMetrics(path string, outs []*outcome) error {
	var ms []metrics.Control
	for _, oc := range outs {
		ms = append(ms, metrics.Control{Name: oc.name, Code: int(oc.code), Finished: oc.at, Summary: oc.res})
	}
	if err := metrics.Write(path, ms); err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	return nil
}

// lifecycleText is a check's keys against the previous run, as the cron
// lines print them: "(new 1, recurring 2, resolved 3)", with ", not found
// N" when some are neither found nor resolved (its note says why).
func lifecycleText(sl *evidence.SinceLastRun) string {
	t := fmt.Sprintf("(new %d, recurring %d, resolved %d", sl.New, sl.Recurring, sl.Resolved)
	if sl.NotFound > 0 {
		t += fmt.Sprintf(", not found %d", sl.NotFound)
	}
	return t + ")"
}
