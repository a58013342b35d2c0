package trino

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// Refuse returns an error wrapping ErrRefused for every key of s that has
// no exact form in Trino yet, each named with the reason (nil when none):
// a windowed sink's re-performance (reperform:, restarts:, watermark:,
// emission:), normalize:, tolerance: and balance_tolerance:, a run history
// (history:), and a zone other than UTC for zone-less timestamps
// (time_zone:). The embedded engine runs them all.
func Refuse(s *spec.Spec) error {
	var why []string
	add := func(cond bool, key, reason string) {
		if cond {
			why = append(why, key+" ("+reason+")")
		}
	}
	add(s.Reperform != nil, "reperform:", "the re-performance of a windowed sink has no Trino statements yet")
	add(s.Restarts != "", "restarts:", "the attribution of findings to restarts has no Trino statements yet")
	add(s.Watermark != "", "watermark:", "early_writes needs reperform:")
	add(s.Emission != nil, "emission:", "needs reperform:")
	add(len(s.Normalize) > 0, "normalize:", "trimmed and case-folded comparison has no Trino statement yet")
	add(len(s.Tolerance) > 0, "tolerance:", "the within-tolerance rules have no Trino statement yet")
	add(len(s.BalanceTolerance) > 0, "balance_tolerance:", "the within-tolerance rules have no Trino statement yet")
	add(s.Opening != nil, "opening:", "the roll-forward (roll_forward, roll_forward_changes) has no Trino statements yet")
	add(s.Grain != nil, "grain:", "a balance-grain input's checks (duplicate_balance_rows, sum_balance of balances) have no Trino statements yet")
	add(s.BalanceControl(), "group_by: and measures: without id:", "the balance control without ids has no Trino statements yet; give id: for a record control")
	add(s.History != "", "history:", "the run history classifies a run's exceptions against the previous run's in the embedded session; not yet for a Trino run")
	for _, z := range []struct{ key, zone string }{{"time_zone:", s.TimeZone}, {"source.time_zone:", s.Source.TimeZone}, {"sink.time_zone:", s.Sink.TimeZone}} {
		add(z.zone != "" && z.zone != "UTC", z.key, "zone-less timestamps are read in UTC on Trino; reading them in "+z.zone+" has no Trino statement yet")
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: the spec has no exact form on the Trino engine: %s; run it on the embedded engine (without --engine), or remove the key", ErrRefused, strings.Join(why, "; "))
}

// keyNull is, by the family of a key column's DuckDB type, the literal
// that stands for NULL in Match's equality (any value of the type will do:
// the NULL flag beside it tells the two apart).
func keyNull(duckType string) (string, bool) {
	t := strings.ToUpper(duckType)
	switch {
	case t == "VARCHAR":
		return "''", true
	case ducktype.IsIntegerName(t) || strings.HasPrefix(t, "DECIMAL("):
		return "0", true
	case t == "BOOLEAN":
		return "FALSE", true
	case t == "DATE":
		return "DATE '1970-01-01'", true
	case t == "TIMESTAMP":
		return "TIMESTAMP '1970-01-01 00:00:00'", true
	case t == "TIMESTAMP WITH TIME ZONE":
		return "TIMESTAMP '1970-01-01 00:00:00 UTC'", true
	}
	return "", false
}

// decimalArgs reads DECIMAL(p,s).
var decimalArgs = regexp.MustCompile(`^DECIMAL\((\d+),(\d+)\)$`)

// numberDigits is the integer and fraction digits a column of DuckDB type t
// needs (as the embedded engine counts them from the declared types: a
// DECIMAL(p,s) p-s and s, an integer 20 and 0), and whether t is a number
// type Trino reads exactly.
func numberDigits(t string) (intDigits, scale int, ok bool) {
	if m := decimalArgs.FindStringSubmatch(t); m != nil {
		p, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		return p - s, s, true
	}
	if ducktype.IsIntegerName(t) {
		return 20, 0, true
	}
	return 0, 0, false
}

// numberTypes are the storage type (DECIMAL(18,s) when 18 digits hold the
// values, else DECIMAL(38,s)) and the arithmetic type DECIMAL(38,s) of a
// number column of DuckDB types src and sink, s the larger scale, as the
// embedded engine chooses them from declared types (checks.Prepare). Types
// that do not fit one DECIMAL(38,s) together (the embedded engine then
// sizes them from the values) are refused.
func numberTypes(what, col, src, sink string) (storage, arith string, err error) {
	si, ss, ok1 := numberDigits(src)
	ki, ks, ok2 := numberDigits(sink)
	if !ok1 || !ok2 {
		t, side := src, "source"
		if ok1 {
			t, side = sink, "sink"
		}
		if t == "FLOAT" || t == "DOUBLE" {
			return "", "", fmt.Errorf("%w: %s %s is %s (binary floating point) in the %s: its values are not exact decimals, so sums could not be exact; store amounts as DECIMAL", checks.ErrColumn, what, col, t, side)
		}
		return "", "", fmt.Errorf("%w: %s %s is %s in the %s: on Trino a %s must be an integer or a DECIMAL on both sides (text read as a number is the embedded engine's)", ErrRefused, what, col, t, side, what)
	}
	intDigits, scale := max(si, ki), max(ss, ks)
	if intDigits+scale > 38 {
		return "", "", fmt.Errorf("%w: %s %s is %s in the source and %s in the sink: together they need %d integer and %d fraction digits, more than DECIMAL(38) holds; the embedded engine sizes such a column from its values, Trino cannot", ErrRefused, what, col, src, sink, intDigits, scale)
	}
	arith = fmt.Sprintf("DECIMAL(38,%d)", scale)
	storage = arith
	if intDigits+scale <= 18 {
		storage = fmt.Sprintf("DECIMAL(18,%d)", scale)
	}
	return storage, arith, nil
}

// Prepare decides, from the spec's columns c and the inputs' columns as
// Trino reads them, the Params the checks are rendered with (p.Postings for
// duplicates: among them) — as
// checks.Prepare does on loaded tables, for what Trino compares exactly —
// and the definitions of source and sink (Input.Definition, with each
// measure cast to its exact storage type and empty text of an id or group
// column read as NULL, as the embedded engine converts them), and sets them
// on e (SetInputs). It returns notes for the evidence.
//
// Refused (ErrRefused, exit 2), each naming the column and the reason:
// a column the connector hides or misreads (Input.Hidden) that the checks
// would read (refuseHidden); a column whose Trino type has no exact DuckDB form (time with time zone,
// timestamp(9), nested types) where the checks read it; an id or group
// column whose types differ in kind (a number against text); a compared
// column compared otherwise than as text, a number, a boolean, a date or
// two values of one other type (timestamps, text read as another type,
// floating point, intervals); a measure that is not an integer or a
// DECIMAL on both sides; a duplicates: column Trino does not compare or
// write as the embedded engine does (preparePostings). A missing or floating-point column is
// checks.ErrColumn, as on the embedded engine.
func (e *Engine) Prepare(c checks.Columns, src, sink *Input) (*checks.Params, []string, error) {
	sides := []*Input{src, sink}
	cols := make([][]sources.Column, 2)
	types := []map[string]string{{}, {}}
	for i, in := range sides {
		for _, col := range in.Columns {
			name := in.nameOf(col.Name)
			t := col.DuckDB
			if t == "" {
				t = "UNSUPPORTED " + strings.ToUpper(col.Trino)
			}
			cols[i] = append(cols[i], sources.Column{Name: name, Type: t})
			types[i][name] = t
		}
	}
	hiddenNotes, left, err := refuseHidden(c, src, sink)
	if err != nil {
		return nil, nil, err
	}
	// ignore: of a column hidden in both inputs names no column Trino
	// shows: it has done its work (refuseHidden).
	c.Ignore = slices.DeleteFunc(slices.Clone(c.Ignore), func(n string) bool {
		_, s := types[0][n]
		_, k := types[1][n]
		return left[n] && !s && !k
	})
	var missing []string
	need := func(side int, field string, names ...string) {
		for _, n := range names {
			if _, ok := types[side][n]; !ok && n != "" {
				missing = append(missing, fmt.Sprintf("%s column %s is not a column of the %s %s", field, n, sides[side].Role, sides[side].Location))
			}
		}
	}
	for i := range sides {
		need(i, "id", c.ID...)
		need(i, "measures", c.Measures...)
		need(i, "group_by", c.GroupBy...)
	}
	need(1, "checkpoint", c.Checkpoint)
	need(1, "logical_key", c.LogicalKey...)
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", checks.ErrColumn, strings.Join(missing, "; "))
	}
	p := &checks.Params{ID: c.ID, Measures: c.Measures, GroupBy: c.GroupBy, Checkpoint: c.Checkpoint, LogicalKey: c.LogicalKey,
		MeasureTypes: map[string]string{}, AllowEmpty: c.AllowEmpty}
	storage := map[string]string{}
	notes := hiddenNotes
	for _, m := range c.Measures {
		st, arith, err := numberTypes("measure", m, types[0][m], types[1][m])
		if err != nil {
			return nil, nil, err
		}
		storage[m], p.MeasureTypes[m] = st, arith
		notes = append(notes, fmt.Sprintf("measure %s compared as %s, summed as %s (scale from the declared types; no value rounded)", m, st, arith))
	}
	dupNote, err := preparePostings(p, c.Duplicates, cols, storage)
	if err != nil {
		return nil, nil, err
	}
	if dupNote != "" {
		notes = append(notes, dupNote)
	}
	plan, err := checks.PlanComparison(c, cols[0], cols[1])
	if err != nil {
		return nil, nil, err
	}
	p.Uncompared = plan.Uncompared
	// The key columns: matched by equality, with a NULL flag (Match).
	nullAs := map[string]string{}
	textKeys := map[string]bool{}
	keys := slices.Clone(plan.Keys)
	for _, n := range append(slices.Clone(c.LogicalKey), c.Checkpoint) {
		if n != "" && !slices.ContainsFunc(keys, func(k checks.KeyColumn) bool { return k.Name == n }) {
			keys = append(keys, checks.KeyColumn{Name: n, SourceType: types[1][n], SinkType: types[1][n]})
		}
	}
	for _, k := range keys {
		s, t := k.SourceType, k.SinkType
		ls, okS := keyNull(s)
		lt, okT := keyNull(t)
		sameKind := okS && okT && ls == lt
		if !sameKind {
			return nil, nil, fmt.Errorf("%w: column %s is %s in the source and %s in the sink: on Trino an id, group or key column must be text, an integer or DECIMAL, a boolean, a date or a timestamp of one kind on both sides (the embedded engine converts the others)", ErrRefused, k.Name, s, t)
		}
		nullAs[k.Name] = ls
		if ls == "''" && (slices.Contains(c.ID, k.Name) || slices.Contains(c.GroupBy, k.Name)) {
			textKeys[k.Name] = true
		}
	}
	// The compared columns: the methods Trino renders exactly.
	for _, cc := range plan.Compared {
		cmp := &checks.Compared{ComparedColumn: cc,
			Source: checks.Operand{Type: cc.SourceType, Kind: "typed"}, Sink: checks.Operand{Type: cc.SinkType, Kind: "typed"}}
		switch cc.Method {
		case checks.MethodText:
			if cc.SourceType != "VARCHAR" || cc.SinkType != "VARCHAR" {
				return nil, nil, refusedColumn(cc, "text compared with another type")
			}
			cmp.Source.Kind, cmp.Sink.Kind = "text", "text"
		case checks.MethodNumber:
			_, arith, err := numberTypes("compared column", cc.Name, cc.SourceType, cc.SinkType)
			if err != nil {
				return nil, nil, err
			}
			cmp.Decimal = arith
		case checks.MethodBoolean, checks.MethodDate:
			if cc.SourceType != cc.SinkType {
				return nil, nil, refusedColumn(cc, "text read as a "+strings.ToLower(string(cc.Method)))
			}
		case checks.MethodTimestamp:
			return nil, nil, refusedColumn(cc, "timestamps are written as text and subtracted as DuckDB writes them only by the embedded engine")
		default:
			return nil, nil, refusedColumn(cc, "compared by method "+string(cc.Method))
		}
		p.Compared = append(p.Compared, cmp)
		p.SourceValueCols = append(p.SourceValueCols, cc.Name)
	}
	p.SinkValueCols = p.SourceValueCols
	if err := e.SetInputs(src, sink, storage, textKeys); err != nil {
		return nil, nil, err
	}
	e.nullAs, e.emptyNull = nullAs, textKeys
	return p, notes, nil
}

// preparePostings sets p.Duplicates and p.Postings for the spec's
// duplicates: dups as checks.Prepare does (checks.PlanDuplicates: every
// input that has all of the columns, source first; a column typed
// differently in the two inputs written as text), each column typed as the
// input's definition gives it (a measure its storage DECIMAL, storage) and
// compared as trino/posting_key.sql takes it. It returns PlanDuplicates'
// note ("" when both inputs are checked).
//
// Refused (ErrRefused): a column that is not text, an integer or DECIMAL,
// a boolean, a date or a timestamp (an interval, floating point, a type
// with no exact DuckDB form: the embedded engine compares those); a column
// typed differently in the two inputs unless both types are text,
// numbers, booleans or dates, whose text Trino writes as DuckDB does. A
// column in neither input is PlanDuplicates' checks.ErrColumn.
func preparePostings(p *checks.Params, dups []string, cols [][]sources.Column, storage map[string]string) (string, error) {
	inputs, note, err := checks.PlanDuplicates(dups, cols[0], cols[1])
	if err != nil || len(inputs) == 0 {
		return "", err
	}
	typeOf := func(side int, name string) string {
		if st := storage[name]; st != "" {
			return st
		}
		for _, c := range cols[side] {
			if c.Name == name {
				return c.Type
			}
		}
		return ""
	}
	p.Duplicates = dups
	for _, t := range inputs {
		side := 0
		if t == checks.SinkTable {
			side = 1
		}
		in := checks.PostingInput{Table: t}
		for _, n := range dups {
			typ := typeOf(side, n)
			if _, ok := keyNull(typ); !ok {
				return "", fmt.Errorf("%w: duplicates: column %s is %s in the %s: on Trino a posting column must be text, an integer or DECIMAL, a boolean, a date or a timestamp (the embedded engine compares the others)", ErrRefused, n, typ, t)
			}
			in.Columns = append(in.Columns, checks.PostingColumn{Name: n, Type: typ, Text: typ == "VARCHAR"})
		}
		p.Postings = append(p.Postings, in)
	}
	if len(p.Postings) == 2 {
		for i, n := range dups {
			s, k := &p.Postings[0].Columns[i], &p.Postings[1].Columns[i]
			if strings.EqualFold(s.Type, k.Type) {
				continue
			}
			if !textAlike(s.Type) || !textAlike(k.Type) {
				return "", fmt.Errorf("%w: duplicates: column %s is %s in the source and %s in the sink: a column typed differently in the two inputs is written as text, and Trino writes the text of a timestamp (or of a type it does not read exactly) otherwise than DuckDB; give it one type in both inputs or run on the embedded engine", ErrRefused, n, s.Type, k.Type)
			}
			s.AsText, k.AsText = true, true
		}
	}
	return note, nil
}

// textAlike reports whether Trino's CAST … AS VARCHAR of a value of DuckDB
// type t is the text DuckDB writes for it: text, integers, DECIMALs,
// booleans and dates (not timestamps, which Trino writes with every
// fraction digit of the type).
func textAlike(t string) bool {
	return t == "VARCHAR" || ducktype.IsIntegerName(t) || strings.HasPrefix(t, "DECIMAL(") || t == "BOOLEAN" || t == "DATE"
}

func refusedColumn(cc checks.ComparedColumn, why string) error {
	return fmt.Errorf("%w: compared column %s is %s in the source and %s in the sink (%s): not compared exactly on Trino yet; leave it out (ignore: [%s]) or run on the embedded engine", ErrRefused, cc.Name, cc.SourceType, cc.SinkType, why, cc.Name)
}

// SetInputs renders the definitions of source and sink (trino/input.sql)
// that every later statement reads: each measure (by the control's name)
// cast to its storage type, each text id or group column in textKeys with
// empty text read as NULL, the provenance __file and __line.
func (e *Engine) SetInputs(src, sink *Input, storage map[string]string, textKeys map[string]bool) error {
	type column struct{ Expr, As string }
	for _, in := range []*Input{src, sink} {
		var cs []column
		for _, col := range in.Columns {
			name := in.nameOf(col.Name)
			expr := ident(col.Name)
			switch {
			case storage[name] != "":
				expr = "CAST(" + expr + " AS " + storage[name] + ")"
			case textKeys[name]:
				expr = "NULLIF(" + expr + ", '')"
			}
			cs = append(cs, column{Expr: expr, As: name})
		}
		base := ""
		if loc := in.SnapshotFacts["table_location"]; loc != "" {
			base = strings.TrimSuffix(loc, "/") + "/"
		}
		def, err := statements().SQL(queries.TrinoInput, struct {
			Columns              []column
			HasPath              bool
			Base, Name, Relation string
		}{cs, in.Connector == "iceberg" || in.Connector == "hive" || in.Connector == "delta_lake", base, in.Name(), in.Relation()})
		if err != nil {
			return err
		}
		in.Definition = def
	}
	e.inputs = []*Input{src, sink}
	return nil
}

// Unsupported lists, sorted, the checks of all that apply to p but have
// no statement in Trino's dialect: RunOn lists them as not run.
func Unsupported(all []*checks.Check, p *checks.Params) []string {
	var out []string
	for _, c := range all {
		if c.Applies(p) && len(c.Missing(p)) == 0 && !HasRendering(c.ID) {
			out = append(out, c.ID)
		}
	}
	sort.Strings(out)
	return out
}
