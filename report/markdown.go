package report

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// markdownWriter writes report.md: a readable account of what was compared,
// the verdict per check and the first exceptions of each.
type markdownWriter struct{}

func (markdownWriter) Format() string { return "md" }
func (markdownWriter) File() string   { return evidence.MarkdownFile }

// Write writes report.md of v to w, section by section: the verdict and
// run, what was compared, the population, the replay, the replay
// episodes, the verdict per
// check, the comparison with the last run, each check with its first
// exceptions, and how to re-perform the run.
func (markdownWriter) Write(_ context.Context, w io.Writer, v *View) error {
	var b strings.Builder
	writeHead(&b, v)
	writeInputs(&b, v.Summary)
	writeCompared(&b, v)
	writePopulation(&b, v.Population)
	writeReplay(&b, v.Replay)
	writeEpisodes(&b, v.Summary)
	writeVerdicts(&b, v.Checks)
	writeSinceLastRun(&b, v.SinceLastRun)
	writeChecks(&b, v.Checks)
	writeReperformance(&b, v.Summary)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes the title with the run's status, the control's
// description, the conclusion and the run's id, times and versions.
func writeHead(b *strings.Builder, v *View) {
	r := v.Summary
	fmt.Fprintf(b, "# Reconciliation %s: %s\n\n", r.Control.Name, strings.ToUpper(string(r.Status)))
	if r.Control.Description != "" {
		fmt.Fprintf(b, "%s\n\n", r.Control.Description)
	}
	fmt.Fprintf(b, "**%s**\n\n", v.Conclusion("Every exception is listed in `exceptions/`."))
	fmt.Fprintf(b, "Run `%s`, %s to %s (UTC), reconcile %s, DuckDB %s.\n\n", r.Run.ID, r.Run.StartedAt, r.Run.FinishedAt, r.Run.ToolVersion, r.Run.DuckDBVersion)
}

// writeInputs writes "What was compared": each input with its files,
// partitions, renamed columns, files not read and database details, then
// the record id (or window key), measures, groups, checkpoint and
// logical key.
func writeInputs(b *strings.Builder, r *evidence.Summary) {
	b.WriteString("## What was compared\n\n")
	for _, in := range r.Inputs {
		fmt.Fprintf(b, "- **%s** (%s) `%s`: %d rows", in.Role, in.Kind, in.Location, in.Rows)
		if len(in.Files) > 0 {
			fmt.Fprintf(b, " from %d file(s)", len(in.Files))
		}
		b.WriteString("\n")
		for _, f := range in.Files {
			fmt.Fprintf(b, "  - `%s`, %d bytes, SHA-256 `%s`", f.Path, f.Bytes, f.SHA256)
			if t := validLengthText(f); t != "" {
				fmt.Fprintf(b, "; %s", t)
			}
			b.WriteString("\n")
		}
		if len(in.Partitions) > 0 {
			fmt.Fprintf(b, "  - partition columns from the folder names: %s\n", codeList(in.Partitions))
		}
		if r := renamedText(in.Columns); r != "" {
			fmt.Fprintf(b, "  - columns renamed (rename:): %s\n", r)
		}
		for _, s := range in.Skipped {
			fmt.Fprintf(b, "  - not read as records: `%s`: %s\n", s.Path, skippedText(s))
		}
		writeAsOf(b, in.Details)
	}
	if p := r.Parameters; p != nil {
		fmt.Fprintf(b, "\n%s", idPhrase(p))
		if len(p.Measures) > 0 {
			fmt.Fprintf(b, "; measures: %s", codeList(p.Measures))
		}
		if len(p.GroupBy) > 0 {
			fmt.Fprintf(b, "; balanced per %s", codeList(p.GroupBy))
		}
		if p.Checkpoint != "" {
			fmt.Fprintf(b, "; checkpoint id: `%s`", p.Checkpoint)
		}
		if len(p.LogicalKey) > 0 {
			fmt.Fprintf(b, "; logical key: %s", codeList(p.LogicalKey))
		}
		b.WriteString(".\n\n")
	}
}

// writeCompared writes the columns compared on every matched id and those
// left uncompared, when the view has any.
func writeCompared(b *strings.Builder, v *View) {
	if len(v.Compared) == 0 && len(v.Uncompared) == 0 {
		return
	}
	b.WriteString("Columns compared on every matched id:\n\n")
	if len(v.Compared) == 0 {
		b.WriteString("none: no column besides the id, checkpoint and logical key is in both inputs.\n\n")
	} else {
		b.WriteString("| column | source type | sink type | compared as | normalised | tolerance |\n|---|---|---|---|---|---|\n")
		for _, c := range v.Compared {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", mdCell(c.Column), c.SourceType, c.SinkType, c.How, dash(c.Normalize), dash(c.Tolerance))
		}
		b.WriteString("\n")
	}
	if len(v.Uncompared) > 0 {
		b.WriteString("Left uncompared: ")
		for i, u := range v.Uncompared {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "`%s` (%s: %s)", mdCell(u.Column), u.Input, u.Reason)
		}
		b.WriteString(".\n\n")
	}
}

// writePopulation writes the population table, when there is one.
func writePopulation(b *strings.Builder, rows []PopulationRow) {
	if len(rows) == 0 {
		return
	}
	b.WriteString("| population | source | sink | difference (sink − source) |\n|---|---:|---:|---:|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", row.Label, figure(row.Source), figure(row.Sink), figure(row.Difference))
	}
	b.WriteString("\n")
}

// writeVerdicts writes the table of every check's assertion, status and
// exceptions.
func writeVerdicts(b *strings.Builder, checks []*CheckView) {
	b.WriteString("## Verdict per check\n\n| check | assertion | status | exceptions |\n|---|---|---|---:|\n")
	for _, c := range checks {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.ID, c.Assertion, strings.ToUpper(string(c.Status)), c.ExceptionsText())
	}
	b.WriteString("\n")
}

// writeChecks writes a section per check: its description, why it was
// skipped or how many exceptions it found with the first of them, and its
// notes.
func writeChecks(b *strings.Builder, checks []*CheckView) {
	for _, c := range checks {
		fmt.Fprintf(b, "### %s — %s\n\n%s\n\n", c.ID, strings.ToUpper(string(c.Status)), c.Description)
		switch {
		case c.Status == evidence.Skipped:
			fmt.Fprintf(b, "Skipped: %s.\n\n", c.SkipReason)
		case c.Rows() == 0:
			fmt.Fprintf(b, "No exceptions (`%s` has the header only).", c.File)
			if t := c.ToleranceText(); t != "" {
				fmt.Fprintf(b, " Tolerance: %s.", t)
			}
			b.WriteString("\n\n")
		default:
			fmt.Fprintf(b, "%d exception(s)", c.Exceptions)
			if t := c.ToleranceText(); t != "" {
				fmt.Fprintf(b, " and %s, listed but not exceptions (`within_tolerance` true)", t)
			}
			fmt.Fprintf(b, "; all of them are in `%s`.", c.File)
			if int64(len(c.First)) < c.Rows() {
				fmt.Fprintf(b, " The first %d:", len(c.First))
			}
			b.WriteString("\n\n")
			writeTable(b, c.Header(), c.First)
			b.WriteString("\n")
		}
		for _, n := range c.Notes {
			fmt.Fprintf(b, "Note: %s.\n\n", n)
		}
	}
}

// writeReperformance writes the run's notes on how values were compared
// and how to re-perform the run from the evidence.
func writeReperformance(b *strings.Builder, r *evidence.Summary) {
	if len(r.Notes) > 0 {
		b.WriteString("## How values were compared\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Re-performance\n\n")
	b.WriteString("Each check is one SQL query over two tables, `source` and `sink`, holding the inputs as loaded " +
		"(plus provenance columns `__file`, `__line`, `__row`). The exact queries run are in `queries/`, the effective " +
		"spec is under `parameters` in `summary.json`, and every exception row is in `exceptions/`. " +
		"Running `reconcile run` again with the same spec on files with the same SHA-256 gives byte-identical exception files.\n")
}

// dash is s, or "–" when s is empty.
func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// figure is a population figure: its exact text, "–" when it does not
// apply.
func figure(c Cell) string {
	if c.Null {
		return "–"
	}
	return c.Text
}

// renamedText lists an input's renamed columns as "`txn_id` as
// `entry_id`", in column order ("" when none was renamed).
func renamedText(cols []evidence.Column) string {
	var parts []string
	for _, c := range cols {
		if c.RenamedFrom != "" {
			parts = append(parts, "`"+c.RenamedFrom+"` as `"+c.Name+"`")
		}
	}
	return strings.Join(parts, ", ")
}

func codeList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = "`" + c + "`"
	}
	return strings.Join(q, ", ")
}

func writeTable(b *strings.Builder, cols []string, rows [][]Cell) {
	b.WriteString("|")
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", mdCell(c))
	}
	b.WriteString("\n|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, v := range r {
			s := "NULL"
			if !v.Null {
				s = mdCell(v.Text)
				if s == "" {
					s = `""`
				}
			}
			fmt.Fprintf(b, " %s |", s)
		}
		b.WriteString("\n")
	}
}

// mdCell makes a value safe inside a Markdown table cell: pipes escaped,
// line breaks shown, leading/trailing spaces made visible.
func mdCell(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", `\n`, "\r", `\r`)
	s = r.Replace(s)
	if strings.TrimSpace(s) != s {
		s = "`" + s + "`"
	}
	return s
}

// asOfFacts are the input details that say "as of what" a database input was
// read, in the order the report lists them.
var asOfFacts = []struct{ key, label string }{
	{"server_version", "server version"}, {"database", "database"}, {"user", "user"},
	{"isolation", "isolation"}, {"snapshot", "snapshot"}, {"wal_lsn", "WAL position"},
	{"wal_lsn_unavailable", "WAL position unavailable"}, {"transaction_started_at", "transaction started"},
	{"sql", "SQL run"},
	{"brokers", "brokers"}, {"isolation_level", "isolation level"}, {"offsets_listed_at", "offsets listed at"},
	{"offsets", "offsets read [start, end)"},
}

// writeAsOf lists the as-of facts of a database input, if any.
func writeAsOf(b *strings.Builder, details map[string]any) {
	for _, k := range asOfFacts {
		v, ok := details[k.key]
		if !ok || v == nil || fmt.Sprint(v) == "" {
			continue
		}
		fmt.Fprintf(b, "  - %s: `%s`\n", k.label, strings.ReplaceAll(fmt.Sprint(v), "\n", " "))
	}
}

// writeSinceLastRun writes the comparison with the previous run of the
// control in the run history (nothing without one).
func writeSinceLastRun(b *strings.Builder, h *SinceLastRunView) {
	if h == nil {
		return
	}
	b.WriteString("## Since last run\n\n")
	if p := h.Previous; p != nil {
		fmt.Fprintf(b, "Compared with run `%s` of %s", p.ID, p.StartedAt)
		if ps := paramList(p.Params); ps != "" {
			fmt.Fprintf(b, " (%s)", ps)
		}
		fmt.Fprintf(b, ", %s, in the run history `%s`. Counts are of keys: a check's exception by its id, group, logical-key, window or measure columns.\n\n", strings.ToUpper(string(p.Status)), h.File)
	} else {
		fmt.Fprintf(b, "The control's first run in the run history `%s`: every exception is new.\n\n", h.File)
	}
	b.WriteString("| check | new | recurring | resolved | note |\n|---|---:|---:|---:|---|\n")
	for _, c := range h.Checks {
		resolved := fmt.Sprint(c.Resolved)
		if c.ResolvedFile != "" {
			resolved += fmt.Sprintf(" (`%s`)", c.ResolvedFile)
		}
		fmt.Fprintf(b, "| `%s` | %d | %d | %s | %s |\n", c.ID, c.New, c.Recurring, resolved, c.Note)
	}
	b.WriteString("\n")
}
