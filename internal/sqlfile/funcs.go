package sqlfile

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"text/template"
)

// Ident quotes name as a DuckDB identifier ("a""b").
func Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Literal quotes s as a DuckDB string literal, doubling each single quote.
func Literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// List renders ss as a DuckDB list of string literals (['a', 'b']).
func List(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = Literal(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Qual qualifies a quoted column name with a table alias ("" for none).
func Qual(alias, name string) string {
	if alias == "" {
		return Ident(name)
	}
	return alias + "." + Ident(name)
}

// NullID renders the condition that every id part of alias is NULL or
// empty text, for every part. Emptiness is tested as a length: DuckDB
// rewrites the comparison of CAST(c AS VARCHAR) with the empty string, for a
// TIMESTAMP WITH TIME ZONE c, into a comparison of c with the empty string
// cast to a timestamp, which is NULL, so such an id
// would be neither NULL nor not NULL and drop out of every check.
func NullID(alias string, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		c := Qual(alias, n)
		out[i] = fmt.Sprintf("(%s IS NULL OR length(CAST(%s AS VARCHAR)) = 0)", c, c)
	}
	return "(" + strings.Join(out, " AND ") + ")"
}

// typeName is a SQL type name: a word (or words) with an optional
// (precision[, scale]), such as VARCHAR, TIMESTAMP WITH TIME ZONE or
// DECIMAL(18,2).
var typeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// TypeName renders t as a SQL type name, or fails when t is anything else
// (so a type taken from a spec can never inject SQL).
func TypeName(t string) (string, error) {
	if !typeName.MatchString(t) {
		return "", fmt.Errorf("sqlfile: %q is not a type name such as VARCHAR or DECIMAL(18,2)", t)
	}
	return t, nil
}

// base are the helpers every SQL file may use. Each returns a SQL fragment
// with every identifier and literal quoted.
var base = template.FuncMap{
	// q quotes one identifier: {{q "amount"}} → "amount".
	"q": Ident,
	// sqltype renders a SQL type name, refusing anything else:
	// {{sqltype "DECIMAL(18,2)"}} → DECIMAL(18,2).
	"sqltype": TypeName,
	// lit quotes a string literal: {{lit "a'b"}} → 'a''b'.
	"lit": Literal,
	// litlist renders a DuckDB list of string literals: ['a', 'b'].
	"litlist": List,
	// cols lists qualified columns: {{cols "s" .ID}} → s."a", s."b".
	"cols": func(alias string, names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = Qual(alias, n)
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
			out[i] = Qual(a, n) + " IS NOT DISTINCT FROM " + Qual(b, n)
		}
		return "(" + strings.Join(out, " AND ") + ")"
	},
	// differ is TRUE when any of names differs between a and b, NULL-safely.
	"differ": func(a, b string, names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = Qual(a, n) + " IS DISTINCT FROM " + Qual(b, n)
		}
		return "(" + strings.Join(out, " OR ") + ")"
	},
	// nullid is TRUE when every id part is NULL or empty text.
	"nullid": NullID,
	// valuekey renders names as one comparable text value (a struct cast to
	// VARCHAR); '' when names is empty.
	"valuekey": func(alias string, names []string) string {
		if len(names) == 0 {
			return "''"
		}
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = Ident(n) + " := " + Qual(alias, n)
		}
		return "CAST(struct_pack(" + strings.Join(out, ", ") + ") AS VARCHAR)"
	},
	// loc renders a row's provenance as 'file:line', or in the location
	// form of its table when given: {{loc "k" $.SinkLocation}} is
	// 'topic[partition]@offset' for a Kafka sink, 'file:line@snapshot' for
	// an Iceberg table (see LocSep).
	"loc": func(alias string, form ...string) (string, error) {
		sep, err := LocSep(form...)
		if err != nil {
			return "", err
		}
		if len(form) == 1 && form[0] == LocationSnapshot {
			return fmt.Sprintf("(%s || %s || %s || '@' || %s)", Qual(alias, "__file"), sep, Qual(alias, "__line"), Qual(alias, "__snapshot")), nil
		}
		return fmt.Sprintf("(%s || %s || %s)", Qual(alias, "__file"), sep, Qual(alias, "__line")), nil
	},
	// locsep renders the literal between __file and __line of a location
	// form: {{locsep $.SinkLocation}} → ':' (files, databases) or '@' (Kafka).
	"locsep": func(form string) (string, error) { return LocSep(form) },
	// coalesced merges the group columns of a full outer join:
	// coalesce(a."g", b."g") AS "g", … (with a trailing comma when non-empty).
	"coalesced": func(a, b string, names []string) string {
		var sb strings.Builder
		for _, n := range names {
			fmt.Fprintf(&sb, "coalesce(%s, %s) AS %s, ", Qual(a, n), Qual(b, n), Ident(n))
		}
		return sb.String()
	},
	// name builds an output column name: {{name "src_" .}} → "src_amount".
	"name": func(prefix, n string) string { return Ident(prefix + n) },
	// cpid renders a sink row's checkpoint id as text, a missing one as
	// 'NULL', so a row written with no checkpoint id counts as a checkpoint
	// of its own rather than vanishing from counts and lists:
	// {{cpid "k" .Checkpoint}}.
	"cpid": func(alias, col string) string {
		return fmt.Sprintf("coalesce(CAST(%s AS VARCHAR), 'NULL')", Qual(alias, col))
	},
	// sortedlist aggregates distinct values as 'a;b;c', numerically when they
	// are integers, else as text.
	"sortedlist": func(expr string) string {
		v := "CAST(" + expr + " AS VARCHAR)"
		return fmt.Sprintf("array_to_string(list(DISTINCT %s ORDER BY TRY_CAST(%s AS HUGEINT) NULLS LAST, %s), ';')", v, v, v)
	},
	// replaykey selects a replay table's logical key as output columns:
	// window_start, window_end and the group columns.
	"replaykey": func(alias string, groups []string) string {
		out := []string{alias + ".__window_start AS window_start", alias + ".__window_end AS window_end"}
		for _, g := range groups {
			out = append(out, Qual(alias, g))
		}
		return strings.Join(out, ", ")
	},
	// replaygroup lists a replay table's key columns for GROUP BY.
	"replaygroup": func(alias string, groups []string) string {
		out := []string{alias + ".__window_start", alias + ".__window_end"}
		for _, g := range groups {
			out = append(out, Qual(alias, g))
		}
		return strings.Join(out, ", ")
	},
	// replaysame joins two replay tables on the key they are grouped by
	// (replaygroup: window start and end, the group columns), every part
	// NULL-safely: the rows GROUP BY puts in one group.
	"replaysame": func(a, b string, groups []string) string {
		out := []string{a + ".__window_start IS NOT DISTINCT FROM " + b + ".__window_start", a + ".__window_end IS NOT DISTINCT FROM " + b + ".__window_end"}
		for _, g := range groups {
			out = append(out, Qual(a, g)+" IS NOT DISTINCT FROM "+Qual(b, g))
		}
		return "(" + strings.Join(out, " AND ") + ")"
	},
	// replaymatch joins two replay tables on the logical key, NULL-safely.
	"replaymatch": func(a, b string, groups []string) string {
		out := []string{a + ".__window_end = " + b + ".__window_end"}
		for _, g := range groups {
			out = append(out, Qual(a, g)+" IS NOT DISTINCT FROM "+Qual(b, g))
		}
		return "(" + strings.Join(out, " AND ") + ")"
	},
}

// LocSep is the SQL literal between __file and __line in a location of
// form (sources.Input.LocationForm): ':' for "" (file:line, every file and
// database kind), '@' for "topic[partition]@offset" (Kafka, whose __file is
// topic[partition] and __line the offset). So a run whose inputs are files
// or tables renders exactly the SQL it did before Kafka inputs existed.
//
// LocationSnapshot, "file:line@snapshot" (an Iceberg table, whose data
// file may be read twice when two snapshots added it), is file:line as
// locsep renders it and, through loc, followed by '@' and the snapshot
// that added the file (column __snapshot).
func LocSep(form ...string) (string, error) {
	f := ""
	switch len(form) {
	case 0:
	case 1:
		f = form[0]
	default:
		return "", fmt.Errorf("loc: one location form at most, got %q", form)
	}
	switch f {
	case "", "file:line", LocationSnapshot:
		return "':'", nil
	case "topic[partition]@offset":
		return "'@'", nil
	}
	return "", fmt.Errorf("loc: unknown location form %q", f)
}

// LocationSnapshot is the location form (sources.Input.LocationForm) of an
// Iceberg table's rows: file:line@snapshot.
const LocationSnapshot = "file:line@snapshot"

// Funcs returns the helpers every SQL file may use (a fresh map: callers
// add their own helpers to it). Each helper returns a SQL fragment with
// every identifier and literal quoted.
func Funcs() template.FuncMap { return maps.Clone(base) }
