package checks

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// KeySpellingsTable is the session table of the id and group values as
// written where normalize: changed them (Params.KeyNormalize): columns
// __side ("source" or "sink"), __row (the row's provenance __row) and
// each normalised key column as written, as text
// (queries/prepare/key_spellings.sql).
const KeySpellingsTable = "key_spellings"

// keySpellingsColumns are the columns key_spellings names besides the
// keys'; a normalised key of one of these names (in any case) is refused.
var keySpellingsColumns = []string{"__side", "__row"}

// Normalised keys (normalize: of an id or group column; issue 31, item 4).
// The rule: a text id or group column with normalize: is rewritten
// normalised in both tables by Prepare (rules/normalized_text.sql: trim,
// then strip_leading_zeros, then casefold; an empty text is NULL), before
// any check runs, so that every check that matches or groups by ids or
// groups — missing_ids, unexpected_ids, duplicate_ids, value_mismatches,
// row_count_balance, sum_balance, key_checkpoint_conflicts, id_counts and
// the totals — sees one value and none can match or group otherwise. The
// values as written are kept where they differ (table key_spellings), so
// that nothing is merged silently: normalized_matches lists every id
// matched only after normalising with both spellings, and
// normalized_collisions (an exception) every id or group written more
// than one way within one input.

// keysNormalized refuses a normalize: of an id or group column that the
// plan does not normalise — a control the planner matches no keys of (no
// id: PlanComparison plans nothing) — rather than matching and grouping by
// the values as written while the spec says otherwise. Errors wrap
// ErrColumn.
func keysNormalized(c Columns, plan *Plan) error {
	var errs []string
	for _, col := range slices.Sorted(maps.Keys(c.Normalize)) {
		if !isKey(c, col) {
			continue
		}
		if !slices.ContainsFunc(plan.Keys, func(k KeyColumn) bool { return k.Name == col && len(k.Normalize) > 0 }) {
			errs = append(errs, fmt.Sprintf("normalize.%s: the %s column is not matched as a key in this control (no id:), so it cannot be normalised before grouping", col, keyKind(c, col)))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrColumn, strings.Join(errs, "; "))
	}
	return nil
}

// keySpellings records in table key_spellings, before the keys are
// normalised (convertKeysAndMeasures), every row whose normalised id or
// group columns (keys with Normalize) are written otherwise, and sets
// p.KeyNormalize and p.KeySpellingsSQL. Nothing is done when no key is
// normalised. Errors: ErrColumn for a normalised key named as a column of
// key_spellings (__side, __row), or a DuckDB error.
func (p *Params) keySpellings(ctx context.Context, db *duck.DB, keys []KeyColumn) error {
	type key struct {
		Name      string
		Normalize []string
	}
	var ks []key
	for _, k := range keys {
		if len(k.Normalize) == 0 {
			continue
		}
		if slices.ContainsFunc(keySpellingsColumns, func(c string) bool { return strings.EqualFold(c, k.Name) }) {
			return fmt.Errorf("%w: normalize.%s: a normalised id or group column cannot be named %s (table key_spellings, which keeps the values as written, has a column of that name): rename: it", ErrColumn, k.Name, k.Name)
		}
		ks = append(ks, key{k.Name, k.Normalize})
		if p.KeyNormalize == nil {
			p.KeyNormalize = map[string][]string{}
		}
		p.KeyNormalize[k.Name] = k.Normalize
	}
	if len(ks) == 0 {
		return nil
	}
	type table struct{ Side, Table string }
	q, err := prepareSQL.SQL(queries.PrepareKeySpellings, struct {
		Keys   []key
		Tables []table
	}{ks, []table{{"source", SourceTable}, {"sink", SinkTable}}})
	if err != nil {
		return err
	}
	if err := db.Exec(ctx, q); err != nil {
		return fmt.Errorf("checks: keep the ids and groups as written before normalising them: %w", err)
	}
	p.KeySpellingsSQL = q
	return nil
}

// keyNormalizeNote says which id and group columns were normalised and how
// many rows of each input were written otherwise ("" when none).
func (p *Params) keyNormalizeNote(ctx context.Context, db *duck.DB) (string, error) {
	if len(p.KeyNormalize) == 0 {
		return "", nil
	}
	_, r, err := db.StringsFile(ctx, prepareSQL, queries.PrepareKeySpellingCounts, nil)
	if err != nil {
		return "", err
	}
	n := func(v *string) int64 {
		if v == nil {
			return 0
		}
		x, _ := strconv.ParseInt(*v, 10, 64)
		return x
	}
	var cols []string
	for _, c := range append(p.NormalizedID(), p.NormalizedGroups()...) {
		if !slices.ContainsFunc(cols, func(s string) bool { return strings.HasPrefix(s, c+" (") }) {
			cols = append(cols, fmt.Sprintf("%s (%s: %s)", c, keyRole(p, c), strings.Join(orderedNormalizations(p.KeyNormalize[c]), ", ")))
		}
	}
	return fmt.Sprintf("matched and grouped after normalising, in every check: %s; %d source and %d sink row(s) were written otherwise (table key_spellings keeps them as written): normalized_matches lists every id matched only after normalising, normalized_collisions every id or group written more than one way within one input",
		strings.Join(cols, ", "), n(r[0][0]), n(r[0][1])), nil
}

// keyRole is "id" for an id column of p, else "group_by".
func keyRole(p *Params, col string) string {
	if slices.Contains(p.ID, col) {
		return "id"
	}
	return "group_by"
}

// orderedNormalizations are ns in the order they apply
// (spec.Normalizations).
func orderedNormalizations(ns []string) []string {
	var out []string
	for _, n := range spec.Normalizations {
		if slices.Contains(ns, n) {
			out = append(out, n)
		}
	}
	return out
}

// NormalizedID returns the id columns with normalize:, in id order, for
// templates: Prepare normalised them in place (KeyNormalize).
func (p *Params) NormalizedID() []string {
	var out []string
	for _, c := range p.ID {
		if _, ok := p.KeyNormalize[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// NormalizedGroups returns the group_by columns with normalize:, in
// group order, for templates: Prepare normalised them in place
// (KeyNormalize).
func (p *Params) NormalizedGroups() []string {
	var out []string
	for _, c := range p.GroupBy {
		if _, ok := p.KeyNormalize[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// CollisionColumns returns the key columns normalized_collisions writes,
// for templates: the id columns when an id column is normalised, then the
// group columns (each once) when a group column is.
func (p *Params) CollisionColumns() []string {
	var out []string
	if len(p.NormalizedID()) > 0 {
		out = append(out, p.ID...)
	}
	if len(p.NormalizedGroups()) > 0 {
		for _, g := range p.GroupBy {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// CollisionKey is one key normalized_collisions groups an input's rows
// by, for templates (CollisionKeys).
type CollisionKey struct {
	// KeyedBy is "id" (the record id) or "group_by" (the group).
	KeyedBy string
	// Columns are the key's columns; Normalized those with normalize:.
	Columns, Normalized []string
}

// CollisionKeys returns the keys with a normalised column, for
// templates: the id (when an id column is normalised), then the group
// (when a group column is).
func (p *Params) CollisionKeys() []CollisionKey {
	var out []CollisionKey
	if n := p.NormalizedID(); len(n) > 0 {
		out = append(out, CollisionKey{KeyedBy: "id", Columns: p.ID, Normalized: n})
	}
	if n := p.NormalizedGroups(); len(n) > 0 {
		out = append(out, CollisionKey{KeyedBy: "group_by", Columns: p.GroupBy, Normalized: n})
	}
	return out
}

// NormalizeKeys rewrites the normalised id and group columns
// (KeyNormalize) that table has, normalised as Prepare rewrote them in
// the source and the sink, so that a further table matched with them —
// the sink's uncommitted ids (SinkUncommittedTable), a third input — holds
// the same values. A table with none of them is left as it is. Errors are
// DuckDB's.
func (p *Params) NormalizeKeys(ctx context.Context, db *duck.DB, table string) error {
	if len(p.KeyNormalize) == 0 {
		return nil
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return err
	}
	types := typeMap(cols)
	var convert []conversion
	for _, c := range cols {
		if ns, ok := p.KeyNormalize[c.Name]; ok {
			convert = append(convert, conversion{Name: c.Name, Normalize: ns})
		}
	}
	if len(convert) == 0 {
		return nil
	}
	if err := convertTable(ctx, db, table, convert, types); err != nil {
		return fmt.Errorf("normalise the ids and groups of %s: %w", table, err)
	}
	return nil
}

// normalizedText renders text value (a VARCHAR expression) normalised as
// normalize lists (rules/normalized_text.sql): template helper normtext.
func normalizedText(value string, normalize []string) (string, error) {
	return rulesSQL.SQL(queries.RulesNormalizedText, struct {
		Value                 string
		Trim, Zeros, Casefold bool
	}{value, slices.Contains(normalize, spec.NormalizeTrim), slices.Contains(normalize, spec.NormalizeStripLeadingZeros), slices.Contains(normalize, spec.NormalizeCasefold)})
}

// writtenKey renders key column col of table alias alias as the input
// wrote it, as text, where alias w is the row's key_spellings row joined
// on __side and __row (NULL: the row is written as normalised): template
// helper written.
func writtenKey(alias, w, col string) string {
	return fmt.Sprintf("CASE WHEN %s.__row IS NULL THEN CAST(%s AS VARCHAR) ELSE %s END", w, sqlfile.Qual(alias, col), sqlfile.Qual(w, col))
}

// spellingOf renders the normalised columns cols of a row as written
// (writtenKey): the one text, or a struct of the texts for several
// columns — one value per way a key is written: template helper spelling.
func spellingOf(alias, w string, cols []string) string {
	if len(cols) == 1 {
		return writtenKey(alias, w, cols[0])
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = sqlfile.Ident(c) + " := " + writtenKey(alias, w, c)
	}
	return "struct_pack(" + strings.Join(out, ", ") + ")"
}
