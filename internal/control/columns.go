package control

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// checkColumns refuses, before any row is read, a spec that names columns
// an input does not have. Each input whose kind can tell its columns
// without reading a record (sources.Schemer: a CSV header, a Parquet
// footer, a database catalog) is asked for them; the input's rename: is
// checked against them (a column it lacks, a new name it already has) and
// applied, its declared types (types:, the control's names) laid over
// them, and every column the spec names for that input must then exist:
// id, measures and group_by in both; checkpoint, logical_key, watermark,
// the window column and emission's last_by in the sink; the event time and
// the aggregates' arguments in the source; reperform.group_by in both;
// measures and group_by in an opening (a roll-forward's third input).
// When both source and sink can tell their columns, the comparison is
// planned too (checks.PlanComparison; a balance control's group columns),
// so that compare:, ignore:, normalize:, tolerance: and two id or group
// columns of incomparable types are refused now rather than after the
// loads, and so is duplicates: when no input has every column of it
// (checks.PlanDuplicates). An input that cannot tell its columns
// (Kafka) is checked once loaded, as before.
//
// Errors: the kind's own (those Read would return for the listing or the
// header), spec.ErrInvalid for rename:, sources.ErrInvalidLocation for types:, checks.ErrColumn
// for a missing column or an incomparable pair (all exit 2 but the
// kind's).
func checkColumns(ctx context.Context, s *spec.Spec, p *pair) error {
	type side struct {
		role string
		src  sources.Source
		in   spec.Input
		cols []sources.Column
	}
	sides := []*side{{role: "source", src: p.source, in: s.Source}, {role: "sink", src: p.sink, in: s.Sink}}
	if p.opening != nil {
		sides = append(sides, &side{role: spec.RoleOpening, src: p.opening, in: *s.Opening})
	}
	known := 0
	for _, sd := range sides {
		sc, ok := sd.src.(sources.Schemer)
		if !ok {
			continue
		}
		cols, err := sc.Schema(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", sd.role, err)
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		if err := load.CheckRename(sd.role, names, sd.in.Rename); err != nil {
			return fmt.Errorf("%w (found before any row was read)", err)
		}
		declared, err := sources.DeclaredTypes(sd.in.Options)
		if err != nil {
			return fmt.Errorf("%s: %w", sd.role, err)
		}
		typeOf := map[string]string{}
		for _, d := range declared {
			typeOf[d.Name] = d.Type
		}
		have := map[string]bool{}
		for i := range cols {
			if to, ok := sd.in.Rename[cols[i].Name]; ok {
				cols[i].Name = to
			}
			if t, ok := typeOf[cols[i].Name]; ok {
				cols[i].Type = t
			}
			have[cols[i].Name] = true
		}
		for _, d := range declared {
			if !have[d.Name] {
				if to, ok := sd.in.Rename[d.Name]; ok {
					return fmt.Errorf("%s: %w: option types names column %s, which rename: calls %s: types: names the control's columns", sd.role, sources.ErrInvalidLocation, d.Name, to)
				}
				return fmt.Errorf("%s: %w: option types names column %s, which the input does not have", sd.role, sources.ErrInvalidLocation, d.Name)
			}
		}
		sd.cols = cols
		// The comparison is planned before the load only when the kind
		// names every column's type as the load will make it; a type it
		// leaves unnamed (a Parquet TIMESTAMP, say) is planned once loaded.
		if !slices.ContainsFunc(cols, func(c sources.Column) bool { return c.Type == "" }) && sd.role != spec.RoleOpening {
			known++
		}
	}
	var errs []string
	for _, sd := range sides {
		if sd.cols == nil {
			continue
		}
		have := map[string]bool{}
		var names []string
		for _, c := range sd.cols {
			have[c.Name] = true
			names = append(names, c.Name)
		}
		for _, f := range namedColumns(s, sd.role) {
			for _, c := range f.cols {
				if c == "" || c == "*" || have[c] {
					continue
				}
				errs = append(errs, fmt.Sprintf("column %q (from %s) not found in the %s; its columns are: %s%s",
					c, f.field, sd.role, strings.Join(names, ", "), suggestColumn(sd.role, c, names, sd.in.Rename)))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s (found before any row was read)", checks.ErrColumn, strings.Join(errs, "; "))
	}
	if known == 2 && (len(s.ID) > 0 || s.BalanceControl()) {
		if _, err := checks.PlanComparison(columnsOf(s), sides[0].cols, sides[1].cols); err != nil {
			return err
		}
	}
	if sides[0].cols != nil && sides[1].cols != nil {
		if _, _, err := checks.PlanDuplicates(s.Duplicates, sides[0].cols, sides[1].cols); err != nil {
			return fmt.Errorf("%w (found before any row was read)", err)
		}
	}
	return nil
}

// checkTypes refuses, before any row is read and before the comparison is
// planned with them, the declared types (types:) of either input that
// DuckDB does not have or refuses (FOO, DECIMAL(5,10)), and a
// timestampformat: or dateformat: reading a zone or offset for a column
// declared a zone-less TIMESTAMP or DATE (load.CheckDeclared), each asked
// of a DuckDB session of its own that reads nothing. Errors are
// spec.ErrInvalid (exit 2) naming the input, column and type, or a
// malformed option's sources.ErrInvalidLocation.
func checkTypes(ctx context.Context, s *spec.Spec) error {
	var db *duck.DB
	for _, in := range specInputs(s) {
		declared, err := sources.DeclaredTypes(in.in.Options)
		if err != nil {
			return fmt.Errorf("%s: %w", in.role, err)
		}
		if len(declared) == 0 {
			continue
		}
		formats, err := sources.DeclaredFormats(in.in.Options)
		if err != nil {
			return fmt.Errorf("%s: %w", in.role, err)
		}
		if db == nil {
			if db, err = duck.Open(ctx, ""); err != nil {
				return err
			}
			defer db.Close()
		}
		if err := load.CheckDeclared(ctx, db, in.role, declared, formats); err != nil {
			return fmt.Errorf("%w (found before any row was read)", err)
		}
	}
	return nil
}

// fieldColumns are the columns one field of the spec names.
type fieldColumns struct {
	field string
	cols  []string
}

// namedColumns are the columns the spec names that input role must have
// (an opening: the measures and group_by).
func namedColumns(s *spec.Spec, role string) []fieldColumns {
	if role == spec.RoleOpening {
		return []fieldColumns{{"measures", s.Measures}, {"group_by", s.GroupBy}}
	}
	out := []fieldColumns{{"id", s.ID}, {"measures", s.Measures}, {"group_by", s.GroupBy}}
	r := s.Reperform
	if r != nil {
		out = append(out, fieldColumns{"reperform.group_by", r.GroupBy})
	}
	if role == "sink" {
		out = append(out, fieldColumns{"checkpoint", []string{s.Checkpoint}}, fieldColumns{"logical_key", s.LogicalKey},
			fieldColumns{"watermark", []string{s.Watermark}}, fieldColumns{"emission.last_by", []string{s.LastByColumn()}})
		if r != nil {
			out = append(out, fieldColumns{"reperform.window_end", []string{r.WindowEnd}}, fieldColumns{"reperform.window_start", []string{r.WindowStart}})
			for _, a := range r.Aggregates {
				out = append(out, fieldColumns{"reperform.aggregates", []string{a.Column}})
			}
		}
	}
	if role == "source" && r != nil {
		out = append(out, fieldColumns{"reperform.event_time", []string{r.EventTime}})
		for _, a := range r.Aggregates {
			out = append(out, fieldColumns{"reperform.aggregates." + a.Column, []string{a.Arg}})
		}
	}
	return out
}

// suggestColumn points at a column that differs only in case or spaces, or
// at the rename: that renamed the name away.
func suggestColumn(role, col string, names []string, rename map[string]string) string {
	if to, ok := rename[col]; ok {
		return fmt.Sprintf(" (rename: calls it %s; the spec uses the control's names)", to)
	}
	if len(names) == 1 {
		for _, d := range []string{";", "\t", "|"} {
			if strings.Contains(names[0], d) {
				return fmt.Sprintf(" (the input has one column, named %q: is it delimited by %q? set delimiter: in the spec's long form, or --%s-option delimiter=…)", names[0], d, role)
			}
		}
	}
	for _, n := range names {
		if strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(col)) {
			return fmt.Sprintf(" (did you mean %q? names are compared exactly)", n)
		}
	}
	return ""
}

// checkLocations refuses, before any input is read, a file input whose
// location (a path, a folder or a glob's fixed part) lies inside the
// evidence folder, which this run would replace (checkInputFiles refuses
// every file read from there once listed, as well).
func checkLocations(s *spec.Spec) error {
	out, err := filepath.Abs(s.Out)
	if err != nil {
		return err
	}
	for _, in := range specInputs(s) {
		if strings.Contains(in.in.URI, "://") {
			continue
		}
		_, p := sources.KindOf(sources.Location{URI: in.in.URI, Options: in.in.Options})
		if i := strings.IndexAny(p, "*?[{"); i >= 0 {
			p = filepath.Dir(p[:i] + "x")
		}
		if !filepath.IsAbs(p) {
			dir, err := s.InputDir(in.role)
			if err != nil {
				return err
			}
			p = filepath.Join(dir, p)
		}
		if inside(out, p) || inside(RealPath(out), RealPath(p)) { // a link in either path too
			return fmt.Errorf("%w: the %s file %s lies inside the evidence folder %s, which this run would replace", spec.ErrInvalid, in.role, in.in.URI, s.Out)
		}
	}
	return nil
}

// roleInput is one input of the spec by its role.
type roleInput struct {
	role string
	in   spec.Input
}

// specInputs are the inputs of s: source, sink and, when it has one, the
// opening.
func specInputs(s *spec.Spec) []roleInput {
	out := []roleInput{{"source", s.Source}, {"sink", s.Sink}}
	if s.Opening != nil {
		out = append(out, roleInput{spec.RoleOpening, *s.Opening})
	}
	return out
}

// inside reports whether path p (absolute) is dir or lies below it.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RealPath is path made absolute with the symbolic links of its longest
// existing prefix resolved (the rest, not yet made, as written), so that
// two spellings of one place (a relative path, a link) compare equal.
func RealPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
