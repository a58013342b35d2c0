package checks

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

// Params are the columns a check template sees, after Prepare. The tables
// are always named source and sink and carry the provenance columns of
// package sources (__file, __line, __row).
type Params struct {
	// ID are the record id columns, in both tables, in spec order.
	ID []string
	// Measures are the exact-decimal columns, in both tables.
	Measures []string
	// GroupBy are the grouping columns for the balances, in both tables.
	GroupBy []string
	// Checkpoint is the sink column holding the checkpoint id ("" if none).
	Checkpoint string
	// LogicalKey are the sink's deterministic output key columns.
	LogicalKey []string
	// SourceValueCols and SinkValueCols are the columns whose values decide
	// whether two rows of one id "conflict": the measures if any were given,
	// otherwise every column but the id, the checkpoint and provenance.
	SourceValueCols []string
	SinkValueCols   []string
	// MeasureTypes maps each measure to its DuckDB type, DECIMAL(38,s),
	// with s the largest scale either input needs.
	MeasureTypes map[string]string
	// Replay describes a windowed sink re-performed from the source (nil
	// unless the spec has reperform:); see PrepareReplay for its tables.
	Replay *Replay
}

// funcs are the template helpers available to check files. Each returns a
// SQL fragment with every identifier quoted.
var funcs = template.FuncMap{
	// q quotes one identifier: {{q "amount"}} → "amount".
	"q": duck.Ident,
	// cols lists qualified columns: {{cols "s" .ID}} → s."a", s."b".
	"cols": func(alias string, names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = qual(alias, n)
		}
		return strings.Join(out, ", ")
	},
	// match joins two aliases NULL-safely on names: a."x" IS NOT DISTINCT
	// FROM b."x" AND …; TRUE when names is empty.
	"match": func(a, b string, names []string) string {
		if len(names) == 0 {
			return "TRUE"
		}
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = qual(a, n) + " IS NOT DISTINCT FROM " + qual(b, n)
		}
		return "(" + strings.Join(out, " AND ") + ")"
	},
	// differ is TRUE when any of names differs between a and b, NULL-safely.
	"differ": func(a, b string, names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = qual(a, n) + " IS DISTINCT FROM " + qual(b, n)
		}
		return "(" + strings.Join(out, " OR ") + ")"
	},
	// nullid is TRUE when every id part is NULL or empty text.
	"nullid": nullID,
	// valuekey renders names as one comparable text value (a struct cast to
	// VARCHAR); '' when names is empty.
	"valuekey": func(alias string, names []string) string {
		if len(names) == 0 {
			return "''"
		}
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = duck.Ident(n) + " := " + qual(alias, n)
		}
		return "CAST(struct_pack(" + strings.Join(out, ", ") + ") AS VARCHAR)"
	},
	// loc renders a row's provenance as 'file:line'.
	"loc": func(alias string) string {
		return fmt.Sprintf("(%s || ':' || %s)", qual(alias, "__file"), qual(alias, "__line"))
	},
	// coalesced merges the group columns of a full outer join:
	// coalesce(a."g", b."g") AS "g", … (with a trailing comma when non-empty).
	"coalesced": func(a, b string, names []string) string {
		var sb strings.Builder
		for _, n := range names {
			fmt.Fprintf(&sb, "coalesce(%s, %s) AS %s, ", qual(a, n), qual(b, n), duck.Ident(n))
		}
		return sb.String()
	},
	// name builds an output column name: {{name "source_" .}} → "source_amount".
	"name": func(prefix, n string) string { return duck.Ident(prefix + n) },
	// cpid renders a sink row's checkpoint id as text, a missing one as
	// 'NULL', so a row written with no checkpoint id counts as a checkpoint
	// of its own rather than vanishing from counts and lists:
	// {{cpid "k" .Checkpoint}}.
	"cpid": func(alias, col string) string {
		return fmt.Sprintf("coalesce(CAST(%s AS VARCHAR), 'NULL')", qual(alias, col))
	},
	// sortedlist aggregates distinct values as 'a;b;c', numerically when they
	// are integers, else as text.
	"sortedlist": func(expr string) string {
		v := "CAST(" + expr + " AS VARCHAR)"
		return fmt.Sprintf("array_to_string(list(DISTINCT %s ORDER BY TRY_CAST(%s AS HUGEINT) NULLS LAST, %s), ';')", v, v, v)
	},
}

func qual(alias, name string) string {
	if alias == "" {
		return duck.Ident(name)
	}
	return alias + "." + duck.Ident(name)
}

// dec returns the template function that gives a measure's exact type.
func (p *Params) Dec(measure string) (string, error) {
	t, ok := p.MeasureTypes[measure]
	if !ok {
		return "", fmt.Errorf("no type for measure %s", measure)
	}
	return t, nil
}

// nullID renders the condition that every id part of alias is NULL or
// empty text: (a."x" IS NULL OR CAST(a."x" AS VARCHAR) = ”) AND ….
func nullID(alias string, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		c := qual(alias, n)
		out[i] = fmt.Sprintf("(%s IS NULL OR CAST(%s AS VARCHAR) = '')", c, c)
	}
	return "(" + strings.Join(out, " AND ") + ")"
}
