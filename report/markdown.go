package report

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
)

// markdownWriter writes report.md: a readable account of what was compared,
// the verdict per check and the first exceptions of each.
type markdownWriter struct{}

func (markdownWriter) Format() string { return "md" }
func (markdownWriter) File() string   { return "report.md" }

func (markdownWriter) Write(_ context.Context, w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reconciliation %s: %s\n\n", r.Control.Name, strings.ToUpper(string(r.Status)))
	if r.Control.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Control.Description)
	}
	fmt.Fprintf(&b, "**%s**\n\n", r.Conclusion("Every exception is listed in `exceptions/`."))
	fmt.Fprintf(&b, "Run `%s`, %s to %s (UTC), reconcile %s, DuckDB %s.\n\n", r.Run.ID, r.Run.StartedAt, r.Run.FinishedAt, r.Run.ToolVersion, r.Run.DuckDBVersion)

	b.WriteString("## What was compared\n\n")
	for _, in := range r.Inputs {
		fmt.Fprintf(&b, "- **%s** (%s) `%s`: %d rows", in.Role, in.Kind, in.Location, in.Rows)
		if len(in.Files) > 0 {
			fmt.Fprintf(&b, " from %d file(s)", len(in.Files))
		}
		b.WriteString("\n")
		for _, f := range in.Files {
			fmt.Fprintf(&b, "  - `%s`, %d bytes, SHA-256 `%s`\n", f.Path, f.Bytes, f.SHA256)
		}
		for _, f := range in.Ignored {
			fmt.Fprintf(&b, "  - not read (hidden or temporary file): `%s`\n", f)
		}
		writeAsOf(&b, in.Details)
	}
	p := r.Parameters
	fmt.Fprintf(&b, "\n%s", idPhrase(p))
	if len(p.Measures) > 0 {
		fmt.Fprintf(&b, "; measures: %s", codeList(p.Measures))
	}
	if len(p.GroupBy) > 0 {
		fmt.Fprintf(&b, "; balanced per %s", codeList(p.GroupBy))
	}
	if p.Checkpoint != "" {
		fmt.Fprintf(&b, "; checkpoint id: `%s`", p.Checkpoint)
	}
	if len(p.LogicalKey) > 0 {
		fmt.Fprintf(&b, "; logical key: %s", codeList(p.LogicalKey))
	}
	b.WriteString(".\n\n")

	if t := r.Totals; t != nil {
		b.WriteString("| population | source | sink | difference (sink − source) |\n|---|---:|---:|---:|\n")
		if r.Replay == nil {
			fmt.Fprintf(&b, "| rows | %d | %d | %d |\n", t.SourceRows, t.SinkRows, t.SinkRows-t.SourceRows)
			fmt.Fprintf(&b, "| distinct ids | %d | %d | %d |\n", t.SourceDistinctIDs, t.SinkDistinctIDs, t.SinkDistinctIDs-t.SourceDistinctIDs)
		} else {
			// Events and window rows are different units: no difference.
			fmt.Fprintf(&b, "| rows (source events, sink window rows) | %d | %d | – |\n", t.SourceRows, t.SinkRows)
		}
		for _, m := range t.Measures {
			fmt.Fprintf(&b, "| sum of %s | %s | %s | %s |\n", m.Name, m.SourceSum, m.SinkSum, m.Difference)
		}
		b.WriteString("\n")
	}

	writeReplay(&b, r.Replay)
	b.WriteString("## Verdict per check\n\n| check | assertion | status | exceptions |\n|---|---|---|---:|\n")
	for _, c := range r.Checks {
		ex := fmt.Sprint(c.Exceptions)
		if c.Status == checks.Skipped {
			ex = "–"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.ID, c.Assertion, strings.ToUpper(string(c.Status)), ex)
	}
	b.WriteString("\n")

	for _, c := range r.Checks {
		fmt.Fprintf(&b, "### %s — %s\n\n%s\n\n", c.ID, strings.ToUpper(string(c.Status)), c.Description)
		switch {
		case c.Status == checks.Skipped:
			fmt.Fprintf(&b, "Skipped: %s.\n\n", c.SkipReason)
		case c.Exceptions == 0:
			fmt.Fprintf(&b, "No exceptions (`%s` has the header only).\n\n", c.File)
		default:
			fmt.Fprintf(&b, "%d exception(s); all of them are in `%s`.", c.Exceptions, c.File)
			if int64(len(c.FirstRows)) < c.Exceptions {
				fmt.Fprintf(&b, " The first %d:", len(c.FirstRows))
			}
			b.WriteString("\n\n")
			writeTable(&b, c.ColumnNames(), c.FirstRows)
			b.WriteString("\n")
		}
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "Note: %s.\n\n", n)
		}
	}

	if len(r.Notes) > 0 {
		b.WriteString("## How values were compared\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Re-performance\n\n")
	b.WriteString("Each check is one SQL query over two tables, `source` and `sink`, holding the inputs as loaded " +
		"(plus provenance columns `__file`, `__line`, `__row`). The exact queries run are in `queries/`, the effective " +
		"spec is under `parameters` in `summary.json`, and every exception row is in `exceptions/`. " +
		"Running `reconcile run` again with the same spec on files with the same SHA-256 gives byte-identical exception files.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func codeList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = "`" + c + "`"
	}
	return strings.Join(q, ", ")
}

func writeTable(b *strings.Builder, cols []string, rows [][]*string) {
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
			if v != nil {
				s = mdCell(*v)
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
