package trino

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// Funcs are the template helpers of queries/trino: those of package sqlfile
// that render the same SQL in Trino's dialect (q, lit, cols, nullid,
// coalesced, name, cpid, sqltype), and these in Trino's:
//
//	litlist SS             an array(varchar) of string literals
//	inc N                  N + 1 (a 1-based position after N characters)
//	loc ALIAS              a row's location: its __file (the data file, or the table)
//	valuekey ALIAS NAMES   the values of NAMES as one ROW (NULL equal to NULL under DISTINCT)
//	sortedlist EXPR        the distinct values of EXPR as 'a;b;c' (trino/sorted_list.sql)
//	cmpvalue ALIAS SIDE C  one side of compared column C as compared (trino/compared_value.sql)
//	cmpdiffers A B C       C differs between A (source) and B (sink), NULL-safely
//	cmpdifference A B C    sink − source of C as text (trino/compared_difference.sql)
//	postingkey ALIAS C     posting column C as duplicate_postings compares it (trino/posting_key.sql)
//	unscaled X             an exact decimal as its unscaled DECIMAL(38,0) (trino/unscaled.sql)
//	percentof P W          unscaled P as a percentage of unscaled W, DECIMAL(38,6) (trino/percent_of.sql)
//
// match and differ, whose IS [NOT] DISTINCT FROM a join in Trino would plan
// as a cross join, are refused: the statements join with the method
// Match of the data they are rendered with (an equality on each key with a
// NULL flag), which knows the keys' types.
func Funcs() template.FuncMap {
	f := sqlfile.Funcs()
	for _, n := range []string{"match", "differ", "replaykey", "replaygroup", "replaysame", "replaymatch", "locsep"} {
		name := n
		f[name] = func(...any) (string, error) {
			return "", fmt.Errorf("%s has no Trino form in queries/trino", name)
		}
	}
	f["inc"] = func(n int) int { return n + 1 }
	f["litlist"] = func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = literal(s)
		}
		return "CAST(ARRAY[" + strings.Join(q, ", ") + "] AS array(varchar))"
	}
	f["loc"] = func(alias string, form ...string) string { return alias + ".__file" }
	f["valuekey"] = func(alias string, names []string) string {
		if len(names) == 0 {
			return "''"
		}
		return "ROW(" + f["cols"].(func(string, []string) string)(alias, names) + ")"
	}
	f["sortedlist"] = func(expr string) (string, error) {
		return statements().SQL(queries.TrinoSortedList, struct{ Expr string }{expr})
	}
	f["postingkey"] = postingKey
	f["unscaled"] = func(value string) (string, error) {
		return statements().SQL(queries.TrinoUnscaled, struct{ Value string }{value})
	}
	f["percentof"] = func(part, whole string) (string, error) {
		return statements().SQL(queries.TrinoPercentOf, struct{ Part, Whole string }{part, whole})
	}
	f["cmpvalue"] = func(alias, side string, c *checks.Compared) (string, error) { return comparedValue(alias, c) }
	f["cmpdiffers"] = func(a, b string, c *checks.Compared) (string, error) {
		s, k, err := comparedPair(a, b, c)
		if err != nil {
			return "", err
		}
		return "(" + s + " IS DISTINCT FROM " + k + ")", nil
	}
	f["cmpdifference"] = func(a, b string, c *checks.Compared) (string, error) {
		s, k, err := comparedPair(a, b, c)
		if err != nil {
			return "", err
		}
		return statements().SQL(queries.TrinoComparedDifference, struct {
			C            *checks.Compared
			Source, Sink string
		}{c, s, k})
	}
	return f
}

// comparedValue renders one side of compared column c under alias
// (trino/compared_value.sql).
func comparedValue(alias string, c *checks.Compared) (string, error) {
	return statements().SQL(queries.TrinoComparedValue, struct {
		Alias string
		C     *checks.Compared
	}{alias, c})
}

// postingKey renders posting column c of alias as duplicate_postings
// compares it (trino/posting_key.sql); an interval, which Prepare refuses,
// has no Trino form.
func postingKey(alias string, c checks.PostingColumn) (string, error) {
	if c.Interval {
		return "", fmt.Errorf("duplicates: column %s is an interval: no Trino form in queries/trino", c.Name)
	}
	return statements().SQL(queries.TrinoPostingKey, struct {
		Alias string
		C     checks.PostingColumn
	}{alias, c})
}

func comparedPair(a, b string, c *checks.Compared) (string, string, error) {
	s, err := comparedValue(a, c)
	if err != nil {
		return "", "", err
	}
	k, err := comparedValue(b, c)
	return s, k, err
}

// renderData is what a Trino check statement is rendered with: the
// checks' Params, and the keys' types for the NULL-safe equi-joins.
type renderData struct {
	*checks.Params
	// nullAs maps a key column (id, group, logical key, checkpoint) to a
	// literal of its type that stands for NULL in Match's equality.
	nullAs map[string]string
	// emptyNull are the text key columns whose empty text both inputs read
	// as NULL (SetInputs): '' is then no value's, so Match needs no NULL
	// flag beside coalesce(x, '').
	emptyNull map[string]bool
}

// Match joins aliases a and b on names, NULL-safely, as equalities Trino
// plans as a hash join: for each column, its values with NULL as a literal
// of its type are equal, and both are NULL or neither is (a text column
// whose empty text is read as NULL, emptyNull, needs only the first: no
// value is the empty text). TRUE for no names. A column whose type has no such literal
// is joined with IS NOT DISTINCT FROM.
func (d *renderData) Match(a, b string, names []string) string {
	if len(names) == 0 {
		return "TRUE"
	}
	out := make([]string, len(names))
	for i, n := range names {
		x, y := sqlfile.Qual(a, n), sqlfile.Qual(b, n)
		lit, ok := d.nullAs[n]
		if !ok {
			out[i] = x + " IS NOT DISTINCT FROM " + y
			continue
		}
		out[i] = nullSafeEqual(x, y, lit, !d.emptyNull[n])
	}
	return "(" + strings.Join(out, " AND ") + ")"
}

// nullSafeEqual is x equal to y, NULL equal to NULL, as an equality Trino
// hashes: both with NULL as literal lit (a value of their type) are equal
// and, with flag, both are NULL or neither is (without it, lit must be no
// value's: a text column whose empty text is read as NULL).
func nullSafeEqual(x, y, lit string, flag bool) string {
	eq := fmt.Sprintf("coalesce(%s, %s) = coalesce(%s, %s)", x, lit, y, lit)
	if flag {
		eq += fmt.Sprintf(" AND (%s IS NULL) = (%s IS NULL)", x, y)
	}
	return eq
}

// PostingMatch joins a row of alias a of input in (a PostingInput of
// duplicate_postings) to a repeated combination of alias b (its columns
// __k0, __k1, … as postingKey renders them), NULL-safely, as Match does: for
// each column, its values with NULL as a literal of its type are equal, and
// both are NULL or neither is.
func (d *renderData) PostingMatch(a, b string, in checks.PostingInput) (string, error) {
	out := make([]string, len(in.Columns))
	for j, c := range in.Columns {
		x, err := postingKey(a, c)
		if err != nil {
			return "", err
		}
		y := fmt.Sprintf("%s.__k%d", b, j)
		lit, ok := keyNull(c.Type)
		if c.Text {
			lit, ok = "''", true
		}
		if !ok {
			return "", fmt.Errorf("duplicates: column %s is %s: no Trino form in queries/trino", c.Name, c.Type)
		}
		out[j] = nullSafeEqual(x, y, lit, true)
	}
	return "(" + strings.Join(out, " AND ") + ")", nil
}

// MatchKeys selects, for a row of alias, Match's two sides of each of
// names as columns of their own — __key0 (the value, NULL as the literal
// of its type) and __null0 (whether it is NULL; none for an emptyNull
// column), __key1, … — which
// KeysMatch joins on: two joins on the same columns of a relation read the
// same symbols, so Trino partitions it once for both. A column whose type
// has no such literal is __key<i> as it is (KeysMatch: IS NOT DISTINCT
// FROM).
func (d *renderData) MatchKeys(alias string, names []string) string {
	out := make([]string, 0, 2*len(names))
	for i, n := range names {
		x := sqlfile.Qual(alias, n)
		lit, ok := d.nullAs[n]
		if !ok {
			out = append(out, fmt.Sprintf("%s AS __key%d", x, i))
			continue
		}
		out = append(out, fmt.Sprintf("coalesce(%s, %s) AS __key%d", x, lit, i))
		if !d.emptyNull[n] {
			out = append(out, fmt.Sprintf("(%s IS NULL) AS __null%d", x, i))
		}
	}
	return strings.Join(out, ", ")
}

// KeysMatch joins aliases a and b, each with MatchKeys' columns of names,
// as Match joins them. TRUE for no names.
func (d *renderData) KeysMatch(a, b string, names []string) string {
	if len(names) == 0 {
		return "TRUE"
	}
	out := make([]string, len(names))
	for i, n := range names {
		if _, ok := d.nullAs[n]; !ok {
			out[i] = fmt.Sprintf("%s.__key%d IS NOT DISTINCT FROM %s.__key%d", a, i, b, i)
			continue
		}
		out[i] = fmt.Sprintf("%s.__key%d = %s.__key%d", a, i, b, i)
		if !d.emptyNull[n] {
			out[i] += fmt.Sprintf(" AND %s.__null%d = %s.__null%d", a, i, b, i)
		}
	}
	return "(" + strings.Join(out, " AND ") + ")"
}

// SideValues selects, for a row of alias, each compared column's value as
// compared (cmpvalue) as __v0, __v1, … and as text (CAST … AS VARCHAR, as
// DuckDB writes the values of the types Trino compares) as __t0, __t1, ….
func (d *renderData) SideValues(alias string) (string, error) {
	var out []string
	for i, c := range d.Compared {
		v, err := comparedValue(alias, c)
		if err != nil {
			return "", err
		}
		out = append(out, fmt.Sprintf("%s AS __v%d, CAST(%s AS VARCHAR) AS __t%d", v, i, sqlfile.Qual(alias, c.Name), i))
	}
	return strings.Join(out, ", "), nil
}

// pairColumns are the columns of a row pair, in order: each compared
// column's value and text on each side, then both locations.
func (d *renderData) pairColumns(pick func(side int, col string) string) string {
	var out []string
	for i := range d.Compared {
		for side, p := range []string{"s", "k"} {
			out = append(out, fmt.Sprintf("%s AS __%s_v%d", pick(side, fmt.Sprintf("__v%d", i)), p, i))
		}
		for side, p := range []string{"s", "k"} {
			out = append(out, fmt.Sprintf("%s AS __%s_t%d", pick(side, fmt.Sprintf("__t%d", i)), p, i))
		}
	}
	for side, p := range []string{"s", "k"} {
		out = append(out, fmt.Sprintf("%s AS __%s_loc", pick(side, "__loc"), p))
	}
	return strings.Join(out, ", ")
}

// PairColumns selects a row pair's columns from a source row a and a sink
// row b (SideValues' columns and __loc of each).
func (d *renderData) PairColumns(a, b string) string {
	return d.pairColumns(func(side int, col string) string {
		return []string{a, b}[side] + "." + col
	})
}

// copyFields are the fields of a copy of a repeated id as CopyRow packs it
// and CopyFields unpacks it: each compared value and its text, then the
// location, the pairing's numbers and the input (__side: 0 source, 1 sink).
func (d *renderData) copyFields() (names, types []string) {
	for i, c := range d.Compared {
		t := "VARCHAR"
		switch c.Method {
		case checks.MethodNumber:
			t = c.Decimal
		case checks.MethodBoolean:
			t = "BOOLEAN"
		case checks.MethodDate:
			t = "DATE"
		}
		names = append(names, fmt.Sprintf("__v%d", i), fmt.Sprintf("__t%d", i))
		types = append(types, t, "VARCHAR")
	}
	names = append(names, "__loc", "__left", "__copy_left", "__left_s", "__left_k", "__same_s", "__same_k", "__side")
	types = append(types, "VARCHAR", "BOOLEAN", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "INTEGER")
	return names, types
}

// halfFields are the fields of one row of a row pair as HalfRow packs it and
// HalfFields unpacks it: the input (__side: 0 source, 1 sink), the other
// input's rows of the id (__other), each compared value and its text, and
// the location.
func (d *renderData) halfFields() (names, types []string) {
	names, types = []string{"__side", "__other"}, []string{"INTEGER", "BIGINT"}
	vn, vt := d.copyFields()
	n := 2 * len(d.Compared)
	names = append(append(names, vn[:n]...), "__loc")
	types = append(append(types, vt[:n]...), "VARCHAR")
	return names, types
}

// HalfRow packs row alias of a row pair (SideValues' columns and __loc),
// of input side (0 source, 1 sink), with other (an expression: the other
// input's rows of the id), as one typed ROW.
func (d *renderData) HalfRow(alias string, side int, other string) string {
	names, types := d.halfFields()
	vals := make([]string, len(names))
	fields := make([]string, len(names))
	for i, n := range names {
		switch n {
		case "__side":
			vals[i] = fmt.Sprint(side)
		case "__other":
			vals[i] = other
		default:
			vals[i] = alias + "." + n
		}
		fields[i] = n + " " + types[i]
	}
	return "CAST(ROW(" + strings.Join(vals, ", ") + ") AS ROW(" + strings.Join(fields, ", ") + "))"
}

// HalfFields is the column list an UNNEST of HalfRow's rows is aliased
// with: (__side, __other, __v0, __t0, …, __loc).
func (d *renderData) HalfFields() string {
	names, _ := d.halfFields()
	return "(" + strings.Join(names, ", ") + ")"
}

// ValueTexts lists the compared values and their text of alias: __v0,
// __t0, __v1, __t1, ….
func (d *renderData) ValueTexts(alias string) string {
	out := make([]string, 0, 2*len(d.Compared))
	for i := range d.Compared {
		out = append(out, fmt.Sprintf("%s.__v%d", alias, i), fmt.Sprintf("%s.__t%d", alias, i))
	}
	return strings.Join(out, ", ")
}

// CopyRow packs a copy of a repeated id (a row of alias) as one typed ROW.
func (d *renderData) CopyRow(alias string) string {
	names, types := d.copyFields()
	vals := make([]string, len(names))
	fields := make([]string, len(names))
	for i, n := range names {
		vals[i] = alias + "." + n
		fields[i] = n + " " + types[i]
	}
	return "CAST(ROW(" + strings.Join(vals, ", ") + ") AS ROW(" + strings.Join(fields, ", ") + "))"
}

// CopyFields is the column list an UNNEST of CopyRow's rows is aliased
// with: (__v0, __t0, …, __same_k, __side).
func (d *renderData) CopyFields() string {
	names, _ := d.copyFields()
	return "(" + strings.Join(names, ", ") + ")"
}

// Values lists the compared values __v0, __v1, … of alias.
func (d *renderData) Values(alias string) string {
	out := make([]string, len(d.Compared))
	for i := range d.Compared {
		out[i] = fmt.Sprintf("%s.__v%d", alias, i)
	}
	return strings.Join(out, ", ")
}

// ValuesOrder orders by the compared values of alias, NULL last (as
// DuckDB orders a STRUCT of them).
func (d *renderData) ValuesOrder(alias string) string {
	out := make([]string, len(d.Compared))
	for i := range d.Compared {
		out[i] = fmt.Sprintf("%s.__v%d ASC NULLS LAST", alias, i)
	}
	return strings.Join(out, ", ")
}

// DiffersOf is TRUE when a compared value of row a (source) differs from
// that of row b (sink), NULL-safely.
func (d *renderData) DiffersOf(a, b string) string {
	out := make([]string, len(d.Compared))
	for i := range d.Compared {
		out[i] = fmt.Sprintf("%s.__v%d IS DISTINCT FROM %s.__v%d", a, i, b, i)
	}
	return "(" + strings.Join(out, " OR ") + ")"
}

// Differs is TRUE when a compared value of row pair p differs, NULL-safely.
func (d *renderData) Differs(p string) string {
	out := make([]string, len(d.Compared))
	for i := range d.Compared {
		out[i] = fmt.Sprintf("%s.__s_v%d IS DISTINCT FROM %s.__k_v%d", p, i, p, i)
	}
	return "(" + strings.Join(out, " OR ") + ")"
}

// ComparedArray renders, for row pair p, an array with one row per
// compared column: its name, whether it differs, both values as text and
// the difference (trino/compared_difference.sql).
func (d *renderData) ComparedArray(p string) (string, error) {
	var rows []string
	for i, c := range d.Compared {
		src, sink := fmt.Sprintf("%s.__s_v%d", p, i), fmt.Sprintf("%s.__k_v%d", p, i)
		diff, err := statements().SQL(queries.TrinoComparedDifference, struct {
			C            *checks.Compared
			Source, Sink string
		}{c, src, sink})
		if err != nil {
			return "", err
		}
		rows = append(rows, fmt.Sprintf("CAST(ROW(%s, %s IS DISTINCT FROM %s, %s.__s_t%d, %s.__k_t%d, %s) AS ROW(\"column\" VARCHAR, differs BOOLEAN, source_value VARCHAR, sink_value VARCHAR, difference VARCHAR))",
			literal(c.Name), src, sink, p, i, p, i, diff))
	}
	return "ARRAY[" + strings.Join(rows, ",\n            ") + "]", nil
}

// Render is check c's statement for p in Trino's dialect: the file of
// queries/trino named by the check's id, rendered with p. A check without
// one is an error wrapping checks.ErrNoRendering. (checks.Remote)
func (e *Engine) Render(c *checks.Check, p *checks.Params) (string, error) {
	if !HasRendering(c.ID) {
		return "", fmt.Errorf("%w (queries/trino has none for check %s)", checks.ErrNoRendering, c.ID)
	}
	return statements().SQL(c.ID, &renderData{Params: p, nullAs: e.nullAs, emptyNull: e.emptyNull})
}

// HasRendering reports whether check id has a statement in Trino's dialect
// (a file of queries/trino named by the id).
func HasRendering(id string) bool {
	f, err := statements().File(id)
	return err == nil && strings.HasPrefix(f.Value("description"), "Check "+id+" ")
}

// InputColumns are the names of the columns of both inputs under the
// control's names (checks.Remote).
func (e *Engine) InputColumns(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	for _, in := range e.inputs {
		for _, c := range in.Columns {
			out[in.nameOf(c.Name)] = true
		}
	}
	return out, nil
}

// nameOf is the control's name for column name of the input (rename:).
func (in *Input) nameOf(name string) string {
	if to, ok := in.Rename[name]; ok {
		return to
	}
	return name
}

// leadingWith finds a statement's WITH keyword after its comments.
var leadingWith = regexp.MustCompile(`(?is)^((?:\s*--[^\n]*\n)*\s*)WITH\s`)

// withInputs prepends the definitions of source and sink (SetInputs) to
// query as common table expressions, merged into the statement's own
// WITH when it has one; a query when there are none (before SetInputs).
func (e *Engine) withInputs(query string) string {
	if len(e.inputs) == 0 {
		return query
	}
	var defs []string
	for _, in := range e.inputs {
		defs = append(defs, fmt.Sprintf("%s AS (\n%s\n)", ident(in.Role), indent(in.Definition)))
	}
	head := "WITH " + strings.Join(defs, ", ")
	if m := leadingWith.FindStringSubmatchIndex(query); m != nil {
		return query[:m[3]] + head + ",\n" + query[m[1]:]
	}
	return head + "\n" + query
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
