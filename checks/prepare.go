package checks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// Table names every check reads.
const (
	SourceTable = "source"
	SinkTable   = "sink"
	// SinkUncommittedTable holds the ids of the sink's uncommitted rows
	// (Params.Uncommitted).
	SinkUncommittedTable = "sink_uncommitted"
	// OpeningTable holds a roll-forward's opening balances (Params.Opening).
	OpeningTable = "opening"
)

// ErrColumn is returned by Prepare when the spec names a column an input
// does not have, or a measure that cannot be an exact decimal type. It is a
// usage error (exit code 2): the spec, not the data, must change.
var ErrColumn = fault.Usage.New("checks: bad column")

// ErrValue is returned by Prepare when a measure holds a value that is not a
// decimal number. The message names file, line, column and value.
var ErrValue = fault.Runtime.New("checks: bad value")

// Columns is what the spec says about columns, before Prepare.
type Columns struct {
	ID, Measures, GroupBy []string
	Checkpoint            string
	LogicalKey            []string
	// Duplicates are the columns that make a posting unique (the spec's
	// duplicates:; see PlanDuplicates).
	Duplicates []string
	// Compare, Ignore, Normalize, Tolerance and BalanceTolerance are the
	// spec's keys of the same names (see PlanComparison); AllowEmpty its
	// allow_empty: (the inputs that may hold no records).
	Compare, Ignore  []string
	Normalize        map[string][]string
	Tolerance        map[string]Tolerance
	BalanceTolerance map[string]Tolerance
	AllowEmpty       []string
	// SourceZone and SinkZone are the IANA zones each input's zone-less
	// timestamps are read in (spec.Spec.ZoneOf; "" is UTC).
	SourceZone, SinkZone string
	// SourceLocation and SinkLocation are the inputs' location forms
	// (Params); SourceProvenance and SinkProvenance their kinds' own
	// provenance columns (sources.Input.Provenance), never compared as
	// values; BadRecords: table bad_records exists (Params).
	SourceLocation, SinkLocation     string
	SourceProvenance, SinkProvenance []string
	BadRecords                       bool
	// CommitHistory: table commit_history exists (Params).
	CommitHistory bool
	// SourceDecimalSeparator and SinkDecimalSeparator are the inputs'
	// decimal_separator: ("" when not set; sources.ValueFormats), for the
	// hint of a number that does not read.
	SourceDecimalSeparator, SinkDecimalSeparator string
	// Balance says the control is a balance control (group_by and
	// measures, no id, no reperform): its group columns are matched
	// (PlanComparison's Keys) and nothing is compared. SourceGrain and
	// SinkGrain are its inputs' grains (Params).
	Balance                bool
	SourceGrain, SinkGrain string
	// Opening says table opening (OpeningTable) is loaded: a
	// roll-forward's opening balances. OpeningZone is the zone of its
	// zone-less timestamps ("" is UTC), OpeningLocation its location form.
	Opening                      bool
	OpeningZone, OpeningLocation string
}

// maxPrecision is DuckDB's widest DECIMAL (a 128-bit integer).
const maxPrecision = 38

// decimalType names DuckDB's exact decimal type of precision p and scale s.
func decimalType(p, s int) string { return fmt.Sprintf("DECIMAL(%d,%d)", p, s) }

// Prepare checks that every column the spec names exists, decides what is
// compared and how (PlanComparison, over the loaded types), makes the id
// and group columns of the two inputs comparable, and converts every
// measure, in both tables, to DECIMAL(18,s) or DECIMAL(38,s) where s is the
// largest scale either input needs — so no value is rounded and sums are
// exact (never float64). It returns the Params the check templates see and
// notes for the report: how each column was compared where it is not plain
// (zones, text read as a type, empty text as NULL).
//
// With an opening (Columns.Opening), its measures are sized and converted
// with the source's and the sink's, and its group columns must have the
// sink's types as loaded (or, where the sink's are not rewritten, be
// numbers matched by exact value): they are rewritten as the sink's are
// (prepareOpening).
//
// The id and group columns are rewritten in place where their types differ
// (Comparison, with a number against text matched as text): timestamps to
// instants (TIMESTAMP WITH TIME ZONE, a zone-less value read in its
// input's zone), text read as the other input's BOOLEAN, DATE, TIME or UUID,
// an empty text id as NULL; an INTERVAL (or text against one) is rewritten
// as its text in both, whatever the types (intervalKeyConversion). A text
// id or group column with normalize: is rewritten normalised in both, its
// values as written kept first in table key_spellings where they differ
// (Params.KeyNormalize, KeySpellingsTable). The compared columns are left as
// loaded; the checks compare them through the helpers of Compared.
//
// The columns of duplicates: are planned last, over the prepared types
// (PlanDuplicates: p.Postings).
//
// Errors: ErrColumn (a column is missing, a measure is not numeric text or a
// number type, two columns have incomparable types (ErrIncomparable), a
// compare:, normalize: or tolerance: that does not fit — a normalize: of
// an id or group column that is not text names the column and its types
// —, no input has every column of duplicates:; floating-point
// measures are refused), ErrValue (a value is not what its comparison
// needs: a measure or a text compared with a number that is not a decimal,
// a text compared with a timestamp, boolean or date that does not read as
// one, a nanosecond a microsecond instant would drop; the message names
// file:line, column and value), or a DuckDB error.
func Prepare(ctx context.Context, db *duck.DB, c Columns) (*Params, []string, error) {
	tc, err := readColumns(ctx, db, c.Opening)
	if err != nil {
		return nil, nil, err
	}
	for _, side := range []string{"source", "sink"} {
		tc.need(side, "id", c.ID...)
		tc.need(side, "measures", c.Measures...)
		tc.need(side, "group_by", c.GroupBy...)
	}
	if c.Opening {
		tc.need("opening", "measures", c.Measures...)
		tc.need("opening", "group_by", c.GroupBy...)
	}
	tc.need("sink", "checkpoint", c.Checkpoint)
	tc.need("sink", "logical_key", c.LogicalKey...)
	if err := tc.err(); err != nil {
		return nil, nil, err
	}
	// Measures first: a floating-point or non-numeric measure is refused
	// as such (measureType), before its comparison is.
	src, sink := tc.types["source"], tc.types["sink"]
	storage := map[string]string{}
	p := &Params{ID: c.ID, Measures: c.Measures, GroupBy: c.GroupBy, Checkpoint: c.Checkpoint, LogicalKey: c.LogicalKey,
		MeasureTypes: map[string]string{}, AllowEmpty: c.AllowEmpty,
		SourceLocation: c.SourceLocation, SinkLocation: c.SinkLocation, BadRecords: c.BadRecords,
		CommitHistory: c.CommitHistory, SourceGrain: c.SourceGrain, SinkGrain: c.SinkGrain,
		Opening: c.Opening, OpeningLocation: c.OpeningLocation}
	for _, m := range c.Measures {
		st, arith, err := measureType(ctx, db, m, src[m], sink[m], tc.types["opening"][m])
		if err != nil {
			return nil, nil, c.decimalHint(err)
		}
		storage[m], p.MeasureTypes[m] = st, arith
	}
	plan, err := PlanComparison(c, asColumns(tc.source), asColumns(tc.sink))
	if err != nil {
		return nil, nil, err
	}
	p.Uncompared = plan.Uncompared
	if err := keysNormalized(c, plan); err != nil {
		return nil, nil, err
	}
	zones := map[string]string{SourceTable: zoneOr(c.SourceZone), SinkTable: zoneOr(c.SinkZone)}
	empty, err := emptyIDs(ctx, db, plan.Keys)
	if err != nil {
		return nil, nil, err
	}
	if err := p.keySpellings(ctx, db, plan.Keys); err != nil {
		return nil, nil, err
	}
	notes, err := convertKeysAndMeasures(ctx, db, c, plan, tc, zones, empty, storage, p.MeasureTypes)
	if err != nil {
		return nil, nil, err
	}
	if err := p.balanceTolerances(c); err != nil {
		return nil, nil, err
	}
	cn, err := p.prepareComparedColumns(ctx, db, c, zones, empty)
	if err != nil {
		return nil, nil, err
	}
	notes = append(notes, cn...)
	if len(c.Duplicates) > 0 {
		// Over the prepared types: a measure is its exact DECIMAL now.
		tc, err := readColumns(ctx, db, c.Opening)
		if err != nil {
			return nil, nil, err
		}
		note, err := p.prepareDuplicates(c.Duplicates, tc)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	// Last: a row refused as a bad record on the way is not counted.
	if n, err := p.keyNormalizeNote(ctx, db); err != nil {
		return nil, nil, err
	} else if n != "" {
		notes = append(notes, n)
	}
	return p, notes, nil
}

// convertKeysAndMeasures rewrites each table once (prepare/convert.sql)
// with the conversions its id and group columns need to be matched
// (keyConversion; empty: the number of empty text ids of each column) and its
// measures to their storage types (a measure already of its type is left
// as it is), and returns a note for each conversion and measure.
func convertKeysAndMeasures(ctx context.Context, db *duck.DB, c Columns, plan *Plan, tc *tableColumns, zones map[string]string, empty map[string]int64, storage, arith map[string]string) ([]string, error) {
	var notes []string
	convert := map[string][]conversion{}
	for _, k := range plan.Keys {
		kn, conv, err := keyConversion(ctx, db, k, zones, empty[k.Name])
		if err != nil {
			return nil, err
		}
		notes = append(notes, kn...)
		if len(k.Normalize) > 0 {
			// Normalised in the same rewrite as the key's other
			// conversions: the empty text and a number's text first.
			for _, t := range []string{SourceTable, SinkTable} {
				cv := conv[t]
				cv.Name, cv.Normalize = k.Name, k.Normalize
				if conv == nil {
					conv = map[string]conversion{}
				}
				conv[t] = cv
			}
		}
		for t, cv := range conv {
			convert[t] = append(convert[t], cv)
		}
	}
	if c.Opening {
		oc, on, err := prepareOpening(c, plan, tc, zones, convert[SinkTable], storage)
		if err != nil {
			return nil, err
		}
		convert[OpeningTable] = oc
		notes = append(notes, on...)
	}
	side := map[string]string{SourceTable: "source", SinkTable: "sink"}
	for _, m := range c.Measures {
		for _, t := range []string{SourceTable, SinkTable} {
			// A measure already of its storage type is not rewritten (the
			// cast would change nothing and copy the whole table).
			if strings.EqualFold(tc.types[side[t]][m], storage[m]) {
				continue
			}
			convert[t] = append(convert[t], conversion{Name: m, Decimal: storage[m]})
		}
		notes = append(notes, fmt.Sprintf("measure %s compared as %s, summed as %s (scale from the data; no value rounded)", m, storage[m], arith[m]))
	}
	for _, t := range []string{SourceTable, SinkTable, OpeningTable} {
		if len(convert[t]) == 0 {
			continue
		}
		types := tc.types[side[t]]
		if t == OpeningTable {
			types = tc.types["opening"]
		}
		if err := convertTable(ctx, db, t, convert[t], types); err != nil {
			return nil, fmt.Errorf("convert the %s's ids and measures to exact types: %w", t, err)
		}
	}
	return notes, nil
}

// balanceTolerances renders the balance_tolerance: of each measure as the
// SQL the balance checks apply (p.BalanceTolerance; nil when none): its
// own, else balance_tolerance:'s default (spec.ToleranceDefault), which
// applies to every measure not named.
func (p *Params) balanceTolerances(c Columns) error {
	named, def := spec.TolerancesOf(c.BalanceTolerance)
	for _, m := range c.Measures {
		t, ok := named[m]
		switch {
		case ok:
		case def != nil:
			t = *def
		default:
			continue
		}
		tol, err := toleranceSQL(t, MethodNumber, p.MeasureTypes[m])
		if err != nil {
			return fmt.Errorf("balance_tolerance.%s: %w", m, err)
		}
		if p.BalanceTolerance == nil {
			p.BalanceTolerance = map[string]*ToleranceSQL{}
		}
		p.BalanceTolerance[m] = tol
	}
	return nil
}

// prepareComparedColumns plans the compared columns again over the
// prepared types (a measure is DECIMAL now, a converted id or group column
// typed), prepares each (prepareCompared) into p.Compared and the value
// columns, and returns their notes, the note of what was compared, and
// those of names that differ only in case.
func (p *Params) prepareComparedColumns(ctx context.Context, db *duck.DB, c Columns, zones map[string]string, empty map[string]int64) ([]string, error) {
	tc, err := readColumns(ctx, db, false)
	if err != nil {
		return nil, err
	}
	plan, err := PlanComparison(c, asColumns(tc.source), asColumns(tc.sink))
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, cc := range plan.Compared {
		_, keyed := p.KeyNormalize[cc.Name]
		cmp, cn, err := prepareCompared(ctx, db, cc, zones, c.Measures, empty, keyed)
		if err != nil {
			return nil, c.decimalHint(err)
		}
		p.Compared = append(p.Compared, &cmp)
		notes = append(notes, cn...)
		p.SourceValueCols = append(p.SourceValueCols, cc.Name)
	}
	p.SinkValueCols = p.SourceValueCols
	if len(c.ID) > 0 {
		notes = append(notes, comparedNote(p))
		taken := map[string]bool{}
		for _, c := range p.Compared {
			taken[strings.ToLower(c.Name)] = true
		}
		for _, u := range p.Uncompared {
			taken[strings.ToLower(u.Name)] = true
		}
		notes = append(notes, caseOnlyNotes(p.Uncompared, taken)...)
	}
	return notes, nil
}

// caseOnlyNotes warns of a source column and a sink column whose names
// differ only in case (Status, status) or in white space around them
// (" amount", "amount": a CSV header written "id, amount"): names are
// matched exactly, so each is a column of one input only and neither is
// compared — a PostgreSQL table's lower-cased names against camelCase
// JSON, say. Without compare: PlanComparison refuses such a pair
// (lookAlikeErrors), so the note is seen with compare: only. rename: makes them one column, under a name neither input
// has (taken: every column name of both, lower-cased, as DuckDB matches
// them).
func caseOnlyNotes(un []UncomparedColumn, taken map[string]bool) []string {
	var notes []string
	for _, s := range un {
		if s.Reason != ReasonOnlySource {
			continue
		}
		for _, k := range un {
			if k.Reason != ReasonOnlySink {
				continue
			}
			if !strings.EqualFold(strings.TrimSpace(s.Name), strings.TrimSpace(k.Name)) {
				if strings.EqualFold(visibleName(s.Name), visibleName(k.Name)) {
					notes = append(notes, fmt.Sprintf("WARNING: column %+q of the source and %+q of the sink look alike but differ in invisible characters (zero-width, byte-order mark) or in Unicode normalisation (é as one code point or as e and a combining accent), so neither is compared (names are matched exactly, code point by code point); to compare them, rename: %s", s.Name, k.Name, paddedRename(s.Name, k.Name, taken, "%+q")))
				}
				continue
			}
			if strings.EqualFold(s.Name, k.Name) {
				to := freeName(k.Name+"_value", taken)
				notes = append(notes, fmt.Sprintf("WARNING: column %s of the source and %s of the sink differ only in case, so neither is compared (names are matched exactly); to compare them, rename: both to one new name (source: {rename: {%s: %s}}, sink: {rename: {%s: %s}})", s.Name, k.Name, s.Name, to, k.Name, to))
				continue
			}
			notes = append(notes, fmt.Sprintf("WARNING: column %q of the source and %q of the sink differ only in white space around the name%s, so neither is compared (names are matched exactly); to compare them, rename: %s", s.Name, k.Name, alsoCase(s.Name, k.Name), paddedRename(s.Name, k.Name, taken, "%q")))
		}
	}
	return notes
}

// visibleName is a column name as a reader sees it: in Unicode
// normalisation form C, without format characters (Unicode category Cf:
// zero-width space and joiners, the byte-order mark, the word joiner) and
// without white space around it. Two names whose visible names are equal
// but for case look alike (caseOnlyNotes).
func visibleName(name string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, norm.NFC.String(name)))
}

// freeName is name, or name with the first of _2, _3, … that makes it a
// name taken (lower-cased) does not hold.
func freeName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[strings.ToLower(out)]; i++ {
		out = fmt.Sprintf("%s_%d", name, i)
	}
	return out
}

// alsoCase is " and in case" when the trimmed names a and b differ in
// case too.
func alsoCase(a, b string) string {
	if strings.TrimSpace(a) != strings.TrimSpace(b) {
		return " and in case"
	}
	return ""
}

// paddedRename is the rename: that makes a source column src and a sink
// column snk, names that look alike, one column: each name renamed to the
// sink's visible one (trimmed, without invisible characters, in NFC) when
// the two are equal so and no other column has it, else both to one new
// name (freeName). verb quotes the names renamed: %q, or %+q to show
// every code point beyond ASCII as an escape (valid in YAML's double
// quotes too).
func paddedRename(src, snk string, taken map[string]bool, verb string) string {
	to := visibleName(snk)
	if visibleName(src) != to || (taken[strings.ToLower(to)] && src != to && snk != to) {
		to = freeName(to+"_value", taken)
	}
	toText := to
	if verb != "%q" {
		toText = fmt.Sprintf(verb, to)
	}
	var parts []string
	if src != to {
		parts = append(parts, fmt.Sprintf("source: {rename: {"+verb+": %s}}", src, toText))
	}
	if snk != to {
		parts = append(parts, fmt.Sprintf("sink: {rename: {"+verb+": %s}}", snk, toText))
	}
	return strings.Join(parts, ", ")
}

// zoneOr is zone, or UTC when zone is "".
func zoneOr(zone string) string {
	if zone == "" {
		return "UTC"
	}
	return zone
}

func asColumns(cols []duck.Column) []sources.Column {
	out := make([]sources.Column, len(cols))
	for i, c := range cols {
		out[i] = sources.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

var decimalTypeName = regexp.MustCompile(`^DECIMAL\((\d+),(\d+)\)$`)

// measureDigits returns the fraction and integer digits a measure column
// needs in one table.
func measureDigits(ctx context.Context, db *duck.DB, table, m, typ string) (scale, intDigits int, err error) {
	side := map[string]string{SourceTable: "source", SinkTable: "sink", OpeningTable: "opening"}[table]
	if mm := decimalTypeName.FindStringSubmatch(typ); mm != nil {
		p, _ := strconv.Atoi(mm[1])
		s, _ := strconv.Atoi(mm[2])
		return s, p - s, nil
	}
	if d := ducktype.IntegerDigits(typ); d > 20 {
		// HUGEINT, UHUGEINT: 39 digits, one more than a DECIMAL holds, so
		// the digits come from the values (numberType), each checked.
		return 0, d, nil
	} else if d > 0 {
		return 0, 20, nil
	}
	switch typ {
	case "FLOAT", "DOUBLE", "REAL":
		return 0, 0, fmt.Errorf("%w: measure %s is %s (binary floating point) in the %s: its values are not exact decimals, so sums could not be exact; store amounts as DECIMAL/NUMERIC or text", ErrColumn, m, typ, side)
	case "VARCHAR":
	default:
		return 0, 0, fmt.Errorf("%w: measure %s is %s in the %s; a measure must be a decimal number (text, integer or DECIMAL)", ErrColumn, m, typ, side)
	}
	data := struct{ Table, Col string }{table, m}
	// Values written plainly (the common case) are measured exactly by the
	// cheaper plain_digits.sql; any other value, or leading zeros it cannot
	// bound, sends the column to measure_digits.sql.
	if scale, intDigits, ok, err := plainDigits(ctx, db, data); err != nil || ok {
		return scale, intDigits, err
	}
	cond, err := prepareSQL.SQL(queries.PrepareNotDecimal, data)
	if err != nil {
		return 0, 0, err
	}
	// One pass finds the digits and whether any value is bad; only a bad
	// one costs a second pass, to name it.
	_, digits, err := db.StringsFile(ctx, prepareSQL, queries.PrepareMeasureDigits, struct{ Table, Col, Cond string }{table, m, cond})
	if err != nil {
		return 0, 0, err
	}
	if *digits[0][2] == "true" {
		// An input with bad_records: report lists such rows as bad records
		// instead (load.Refuse); the digits are then those of the rest.
		const reason = "is not a decimal number (expected digits with an optional sign and decimal point, such as -1234.50)"
		n, err := load.Refuse(ctx, db, table, side, m, cond, reason, func(msg string, value *string) error {
			nd := &notDecimal{err: fmt.Errorf("%w: %s in the %s %s", ErrValue, msg, side, reason), col: m, side: side}
			if value != nil && strings.Contains(*value, ",") {
				nd.value = *value
			}
			return nd
		})
		if err != nil {
			return 0, 0, err
		}
		if n > 0 {
			return measureDigits(ctx, db, table, m, typ)
		}
	}
	scale, _ = strconv.Atoi(*digits[0][0])
	intDigits, _ = strconv.Atoi(*digits[0][1])
	return scale, intDigits, nil
}

// plainDigits measures a text measure with prepare/plain_digits.sql; ok is
// false when that cannot give the exact digits (a value not written
// plainly, or leading zeros), and the caller measures with
// measure_digits.sql.
func plainDigits(ctx context.Context, db *duck.DB, data struct{ Table, Col string }) (scale, intDigits int, ok bool, err error) {
	_, r, err := db.StringsFile(ctx, prepareSQL, queries.PreparePlainDigits, data)
	if err != nil {
		return 0, 0, false, err
	}
	if *r[0][3] != "false" {
		return 0, 0, false, nil
	}
	num := func(v *string) int {
		if v == nil {
			return 0
		}
		n, _ := strconv.Atoi(*v)
		return n
	}
	scale, v, w := num(r[0][0]), num(r[0][1]), num(r[0][2])
	if r[0][2] != nil && w > v {
		return 0, 0, false, nil
	}
	return scale, v, true, nil
}

// conversion is one column of prepare/convert.sql: an id or group column
// compared as text and/or with empty text as NULL or read as another type
// (Typed), or a measure cast to its exact Decimal type.
type conversion struct {
	Name                string
	AsText, EmptyAsNull bool
	Decimal             string
	// Typed is a rendered expression of the column's new value (an instant,
	// text read as a type), when it is not one of the above.
	Typed string
	// Normalize are the normalize: of an id or group column matched as
	// text: its text (AsText, empty text as NULL) normalised by
	// rules/normalized_text.sql.
	Normalize []string
}

// emptyIDs counts, for every key column compared as text (or as text
// because its types differ), the source and sink rows holding empty text in
// it: one pass over each table for all of them (prepare/empty_ids.sql).
func emptyIDs(ctx context.Context, db *duck.DB, keys []KeyColumn) (map[string]int64, error) {
	var cols []string
	for _, k := range keys {
		if k.Method == MethodText || k.AsText {
			cols = append(cols, k.Name)
		}
	}
	out := map[string]int64{}
	if len(cols) == 0 {
		return out, nil
	}
	_, r, err := db.StringsFile(ctx, prepareSQL, queries.PrepareEmptyIDs, struct{ Cols []string }{cols})
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		n, err := strconv.ParseInt(*r[0][i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("empty ids of %s: %w", c, err)
		}
		out[c] = n
	}
	return out, nil
}

// convertTable applies the conversions of one table: column by column in
// place (prepare/alter_column.sql) when each is a measure's DECIMAL, text
// or empty text as NULL of a text column; else in one rewrite of the table
// (prepare/convert.sql), the same expressions. types are the table's column
// types before. A view (duck.DB.ViewOver, or an input read where it lies) is
// converted in the table it reads, or copied into a table first.
func convertTable(ctx context.Context, db *duck.DB, table string, cols []conversion, types map[string]string) error {
	inPlace := true
	for _, c := range cols {
		if c.Typed != "" || (c.Decimal == "" && !c.AsText && types[c.Name] != "VARCHAR") {
			inPlace = false
		}
	}
	if !inPlace {
		// One rewrite of the whole table: a view becomes a table first.
		if err := db.Materialize(ctx, table); err != nil {
			return err
		}
		return db.ExecFile(ctx, prepareSQL, queries.PrepareConvert, struct {
			Table   string
			Columns []conversion
		}{table, cols})
	}
	// In place: in the table itself, or in the raw rows a view of the
	// loader adds provenance to (then made again over the new types); any
	// other view (an input read where it lies) becomes a table first.
	target := db.AlterTarget(table)
	if target == table {
		if err := db.Materialize(ctx, table); err != nil {
			return err
		}
	}
	for _, c := range cols {
		if err := db.ExecFile(ctx, prepareSQL, queries.PrepareAlterColumn, struct {
			Table string
			Col   conversion
		}{target, c}); err != nil {
			return err
		}
	}
	return db.Refresh(ctx, table)
}

func typeMap(cols []duck.Column) map[string]string {
	m := make(map[string]string, len(cols))
	for _, c := range cols {
		m[c.Name] = c.Type
	}
	return m
}

func names(cols []duck.Column) string {
	var ns []string
	for _, c := range cols {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// suggest points at a column that differs only in case or surrounding
// spaces, the usual cause of a "not found".
func suggest(col string, cols []duck.Column) string {
	if len(cols) == 1 {
		for _, d := range []string{";", "\t", "|"} {
			if strings.Contains(cols[0].Name, d) {
				return fmt.Sprintf(" (the input has one column, named %q: is it delimited by %q? set delimiter: in the spec's long form)", cols[0].Name, d)
			}
		}
	}
	for _, c := range cols {
		if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(col)) {
			return fmt.Sprintf(" (did you mean %q? names are compared exactly)", c.Name)
		}
	}
	return ""
}

// tableColumns are the columns of the loaded source and sink (and
// opening), for checking that a spec names only columns they have.
type tableColumns struct {
	source, sink, opening []duck.Column
	types                 map[string]map[string]string // "source"/"sink"/"opening" → column → type
	errs                  []string
}

// readColumns reads the columns of tables source and sink, and of table
// opening when opening is set.
func readColumns(ctx context.Context, db *duck.DB, opening bool) (*tableColumns, error) {
	src, err := load.UserColumns(ctx, db, SourceTable)
	if err != nil {
		return nil, err
	}
	sink, err := load.UserColumns(ctx, db, SinkTable)
	if err != nil {
		return nil, err
	}
	tc := &tableColumns{source: src, sink: sink, types: map[string]map[string]string{"source": typeMap(src), "sink": typeMap(sink)}}
	if opening {
		if tc.opening, err = load.UserColumns(ctx, db, OpeningTable); err != nil {
			return nil, err
		}
		tc.types["opening"] = typeMap(tc.opening)
	}
	return tc, nil
}

// need records an error for each of cols (named by spec field) that side
// ("source", "sink" or "opening") does not have; "" and "*" are not
// columns.
func (tc *tableColumns) need(side, field string, cols ...string) {
	all := tc.source
	switch side {
	case "sink":
		all = tc.sink
	case "opening":
		all = tc.opening
	}
	for _, col := range cols {
		if col == "" || col == "*" {
			continue
		}
		if _, ok := tc.types[side][col]; !ok {
			hint := suggest(col, all)
			if !slices.ContainsFunc(all, func(c duck.Column) bool { return !strings.HasPrefix(c.Name, "__") }) {
				// provenance only: a kind that learns its columns from its
				// records (Kafka, kcat, NDJSON) read none
				hint = fmt.Sprintf(" (the %s has provenance columns only: an input whose columns come from its records — a Kafka topic or offset range, a kcat dump, NDJSON — read no record)", side)
			}
			tc.errs = append(tc.errs, fmt.Sprintf("column %q (from %s) not found in the %s; its columns are: %s%s",
				col, field, side, names(all), hint))
		}
	}
}

// err is every missing column at once, wrapped in ErrColumn.
func (tc *tableColumns) err() error {
	if len(tc.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrColumn, strings.Join(tc.errs, "; "))
}
