package trino

import (
	"errors"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

func TestParseURI(t *testing.T) {
	for _, c := range []struct{ uri, server, err string }{
		{"trino://reconcile@127.0.0.1:18080", "http://reconcile@127.0.0.1:18080", ""},
		{"trinos://ana:secret@trino.internal:443", "https://ana:secret@trino.internal:443", ""},
		{"trino://ana:secret@trino.internal:8080", "", "only over HTTPS"},
		{"trino://127.0.0.1:8080", "", "the user Trino runs the queries as"},
		{"http://reconcile@127.0.0.1:8080", "", "want trino://"},
		{"trino://reconcile@127.0.0.1:8080/iceberg", "", "no path or parameters"},
		{"trino://reconcile@127.0.0.1", "", "give the coordinator's port"},
	} {
		got, err := ParseURI(c.uri)
		if c.err == "" {
			if err != nil || got != c.server {
				t.Errorf("ParseURI(%q) = %q, %v; want %q", c.uri, got, err, c.server)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrEngine) {
			t.Errorf("ParseURI(%q) = %v; want an ErrEngine saying %q", c.uri, err, c.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseURI(%q): the error shows the password: %v", c.uri, err)
		}
	}
}

func TestParseInput(t *testing.T) {
	in, err := ParseInput("sink", `trino:Iceberg.ledger."Postings"?snapshot=42`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Catalog != "iceberg" || in.Schema != "ledger" || in.Table != "Postings" || in.Snapshot != "42" || in.SnapshotBy != "snapshot:" {
		t.Errorf("got %+v", in)
	}
	if got, want := in.Relation(), `"iceberg"."ledger"."Postings" FOR VERSION AS OF 42`; got != want {
		t.Errorf("Relation() = %s, want %s", got, want)
	}
	in, err = ParseInput("source", "trino:?query=SELECT a FROM t WHERE b = 'x&y'", nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Query != "SELECT a FROM t WHERE b = 'x&y'" || in.Relation() != "(SELECT a FROM t WHERE b = 'x&y'\n)" || in.Pinned() {
		t.Errorf("got %+v", in)
	}
	in, err = ParseInput("source", "trino:postgresql.public.ledger", map[string]any{"uri": "x", "snapshot": 7})
	if err != nil || in.Snapshot != "7" {
		t.Errorf("long form snapshot: %+v, %v", in, err)
	}
	for _, bad := range []struct {
		uri  string
		opts map[string]any
		want string
	}{
		{"ledger.csv", nil, "not a Trino table"},
		{"trino:public.ledger", nil, "want trino:catalog.schema.table"},
		{"trino:a.b.c?snapshot=latest", nil, "not a snapshot id"},
		{"trino:a.b.c?as_of=2026-01-01", nil, "parameter as_of"},
		{"trino:a.b.c", map[string]any{"delimiter": ";"}, "option delimiter"},
		{"trino:a.b.c?query=SELECT 1", nil, "a table or a query, not both"},
	} {
		_, err := ParseInput("sink", bad.uri, bad.opts)
		if err == nil || !strings.Contains(err.Error(), bad.want) || fault.Of(err) != fault.Usage {
			t.Errorf("ParseInput(%q, %v) = %v; want a usage error saying %q", bad.uri, bad.opts, err, bad.want)
		}
	}
}

// TestTypes: every Trino type an input may have maps to the DuckDB type an
// embedded run loads it as and to an Arrow type DuckDB loads as that type;
// a type with no exact form maps to none.
func TestTypes(t *testing.T) {
	for _, c := range []struct{ trino, duck, arrow string }{
		{"boolean", "BOOLEAN", "bool"},
		{"integer", "INTEGER", "int32"},
		{"bigint", "BIGINT", "int64"},
		{"decimal(12,2)", "DECIMAL(12,2)", "decimal(12, 2)"},
		{"decimal(38,0)", "DECIMAL(38,0)", "decimal(38, 0)"},
		{"varchar", "VARCHAR", "utf8"},
		{"varchar(10)", "VARCHAR", "utf8"},
		{"date", "DATE", "date32"},
		{"timestamp(6)", "TIMESTAMP", "timestamp[us]"},
		{"timestamp(3) with time zone", "TIMESTAMP WITH TIME ZONE", "timestamp[us, tz=UTC]"},
		{"timestamp(9)", "", ""},
		{"time(3) with time zone", "", ""},
		{"array(varchar)", "", ""},
		{"double", "DOUBLE", "float64"},
	} {
		if got := duckType(c.trino); got != c.duck {
			t.Errorf("duckType(%s) = %q, want %q", c.trino, got, c.duck)
		}
		at, err := arrowType(c.trino)
		switch {
		case c.arrow == "" && err == nil:
			t.Errorf("arrowType(%s) = %s, want an error", c.trino, at)
		case c.arrow != "" && (err != nil || at.String() != c.arrow):
			t.Errorf("arrowType(%s) = %v, %v; want %s", c.trino, at, err, c.arrow)
		}
	}
}

// TestWithInputs: the inputs' definitions become the first common table
// expressions of every statement, merged into a statement's own WITH.
func TestWithInputs(t *testing.T) {
	e := &Engine{inputs: []*Input{{Role: "source", Definition: "SELECT 1 AS a"}, {Role: "sink", Definition: "SELECT 2 AS a"}}}
	got := e.withInputs("-- a comment\nWITH x AS (SELECT * FROM source)\nSELECT * FROM x")
	want := "-- a comment\nWITH \"source\" AS (\n    SELECT 1 AS a\n), \"sink\" AS (\n    SELECT 2 AS a\n),\nx AS (SELECT * FROM source)\nSELECT * FROM x"
	if got != want {
		t.Errorf("merged WITH:\n%s\nwant\n%s", got, want)
	}
	got = e.withInputs("SELECT count(*) FROM sink")
	if !strings.HasPrefix(got, "WITH \"source\" AS (") || !strings.HasSuffix(got, "\nSELECT count(*) FROM sink") {
		t.Errorf("no WITH of its own:\n%s", got)
	}
	if got := (&Engine{}).withInputs("SELECT 1"); got != "SELECT 1" {
		t.Errorf("before SetInputs: %s", got)
	}
}

// TestMatch: a join on keys is an equality Trino hashes (with a NULL flag,
// so NULL matches NULL as IS NOT DISTINCT FROM does), never IS NOT
// DISTINCT FROM, which Trino plans as a cross join.
func TestMatch(t *testing.T) {
	d := &renderData{nullAs: map[string]string{"id": "''", "n": "0"}}
	got := d.Match("s", "k", []string{"id", "n"})
	want := `(coalesce(s."id", '') = coalesce(k."id", '') AND (s."id" IS NULL) = (k."id" IS NULL) AND coalesce(s."n", 0) = coalesce(k."n", 0) AND (s."n" IS NULL) = (k."n" IS NULL))`
	if got != want {
		t.Errorf("Match = %s\nwant %s", got, want)
	}
	if got := d.Match("s", "k", nil); got != "TRUE" {
		t.Errorf("Match of no columns = %s", got)
	}
	// A text column whose empty text is read as NULL: '' stands for NULL
	// alone, so the equality needs no NULL flag.
	d.emptyNull = map[string]bool{"id": true}
	got = d.Match("s", "k", []string{"id", "n"})
	want = `(coalesce(s."id", '') = coalesce(k."id", '') AND coalesce(s."n", 0) = coalesce(k."n", 0) AND (s."n" IS NULL) = (k."n" IS NULL))`
	if got != want {
		t.Errorf("Match with emptyNull id = %s\nwant %s", got, want)
	}
	if got, want := d.MatchKeys("s", []string{"id", "n"}), `coalesce(s."id", '') AS __key0, coalesce(s."n", 0) AS __key1, (s."n" IS NULL) AS __null1`; got != want {
		t.Errorf("MatchKeys = %s\nwant %s", got, want)
	}
	if got, want := d.KeysMatch("a", "b", []string{"id", "n"}), `(a.__key0 = b.__key0 AND a.__key1 = b.__key1 AND a.__null1 = b.__null1)`; got != want {
		t.Errorf("KeysMatch = %s\nwant %s", got, want)
	}
}

// TestRefuse: every key with no exact Trino form is named, with the reason;
// a plain record-level spec is not refused, nor one with duplicates:
// (duplicate_postings has a Trino statement).
func TestRefuse(t *testing.T) {
	if err := Refuse(&spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}, TimeZone: "UTC", Duplicates: []string{"txn"}}); err != nil {
		t.Errorf("a plain spec refused: %v", err)
	}
	tol, _ := spec.ParseTolerance("0.01")
	err := Refuse(&spec.Spec{Reperform: &spec.Reperform{}, Normalize: map[string][]string{"name": {"trim"}},
		Tolerance: map[string]spec.Tolerance{"amount": tol}, History: "h.duckdb", Sink: spec.Input{TimeZone: "Europe/Berlin"},
		Duplicates: []string{"txn"}, Opening: &spec.Input{URI: "opening.csv"}, Grain: &spec.Grain{Sink: spec.GrainBalance},
		GroupBy: []string{"account"}, Measures: []string{"amount"}})
	if err == nil || fault.Of(err) != fault.Usage || !errors.Is(err, ErrRefused) {
		t.Fatalf("Refuse = %v, want a usage error wrapping ErrRefused", err)
	}
	for _, key := range []string{"reperform:", "normalize:", "tolerance:", "history:", "sink.time_zone:", "opening:", "grain:"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("%s not named in %v", key, err)
		}
	}
}

// TestRefuseBalanceControl: a balance control (group_by: and measures:,
// no id:) is refused on Trino, not run as a record control without ids.
func TestRefuseBalanceControl(t *testing.T) {
	err := Refuse(&spec.Spec{GroupBy: []string{"account"}, Measures: []string{"amount"}})
	if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "without id:") {
		t.Fatalf("Refuse = %v, want ErrRefused naming the balance control", err)
	}
}

// TestStatements: every file of queries/trino parses with Funcs, and each
// file named by a check id is that check's statement (HasRendering) and
// names a check of queries/.
func TestStatements(t *testing.T) {
	if err := statements().ParseAll(); err != nil {
		t.Fatal(err)
	}
	all, err := checks.Load(queries.FS)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range all {
		ids[c.ID] = true
	}
	rendered := 0
	for _, id := range statements().IDs() {
		f, _ := statements().File(id)
		if strings.HasPrefix(f.Value("description"), "Check ") {
			if !ids[id] || !HasRendering(id) {
				t.Errorf("%s reads as a check's statement but names no check of queries/ (or HasRendering is false)", f.Name)
			}
			rendered++
		} else if ids[id] {
			t.Errorf("%s has a check's id but does not say it is that check's statement", f.Name)
		}
	}
	if rendered < 9 {
		t.Errorf("%d checks have a Trino statement, want at least 9", rendered)
	}
}

// TestRender renders every check's Trino statement for a spec with a
// composite id, measures, a group, a checkpoint and compared columns of
// each method Trino runs: no statement joins with IS NOT DISTINCT FROM on a
// key, none reads DuckDB's input order (__row) or uses DuckDB's syntax.
func TestRender(t *testing.T) {
	e := &Engine{nullAs: map[string]string{"id": "''", "part": "0", "account": "''", "cp": "0"}}
	cmp := func(name string, m checks.Method, dec string) *checks.Compared {
		return &checks.Compared{ComparedColumn: checks.ComparedColumn{Name: name, Method: m}, Decimal: dec}
	}
	p := &checks.Params{ID: []string{"id", "part"}, Measures: []string{"amount"}, GroupBy: []string{"account"}, Checkpoint: "cp", LogicalKey: []string{"id", "part"},
		MeasureTypes: map[string]string{"amount": "DECIMAL(38,2)"}, AllowEmpty: []string{"sink"},
		Compared:        []*checks.Compared{cmp("amount", checks.MethodNumber, "DECIMAL(38,2)"), cmp("status", checks.MethodText, ""), cmp("booked", checks.MethodDate, "")},
		SourceValueCols: []string{"amount", "status", "booked"}, SinkValueCols: []string{"amount", "status", "booked"},
		Duplicates: []string{"account", "amount", "booked"}}
	for _, side := range []string{checks.SourceTable, checks.SinkTable} {
		p.Postings = append(p.Postings, checks.PostingInput{Table: side, Columns: []checks.PostingColumn{
			{Name: "account", Type: "VARCHAR", Text: true}, {Name: "amount", Type: "DECIMAL(18,2)"}, {Name: "booked", Type: "DATE"}}})
	}
	all, err := checks.Load(queries.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		if !c.Applies(p) || len(c.Missing(p)) > 0 {
			continue
		}
		q, err := e.Render(c, p)
		if !HasRendering(c.ID) {
			if !errors.Is(err, checks.ErrNoRendering) {
				t.Errorf("%s: %v, want ErrNoRendering", c.ID, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.ID, err)
			continue
		}
		for _, bad := range []string{"DISTINCT FROM k.", "DISTINCT FROM r.", "__row", "SEMI JOIN", "ANTI JOIN", "string_agg", "struct_pack", "list(", "::"} {
			if strings.Contains(q, bad) {
				t.Errorf("%s renders %q:\n%s", c.ID, bad, q)
			}
		}
	}
}

// TestPreparePostings: duplicates: is planned as the embedded engine plans
// it — each input with every column, text compared as written, a measure
// as its storage DECIMAL, a column typed differently in the two inputs
// written as text — and a column Trino would not compare or write as the
// embedded engine does is refused, naming it.
func TestPreparePostings(t *testing.T) {
	cols := func(types ...string) []sources.Column {
		var out []sources.Column
		for i, n := range []string{"account", "amount", "at"} {
			if i < len(types) {
				out = append(out, sources.Column{Name: n, Type: types[i]})
			}
		}
		return out
	}
	p := &checks.Params{}
	note, err := preparePostings(p, []string{"account", "amount"}, [][]sources.Column{cols("VARCHAR", "DECIMAL(12,2)"), cols("VARCHAR", "INTEGER")}, map[string]string{})
	if err != nil || note != "" || len(p.Postings) != 2 {
		t.Fatalf("preparePostings = %q, %v; %+v", note, err, p.Postings)
	}
	if s, k := p.Postings[0].Columns, p.Postings[1].Columns; !s[0].Text || s[0].AsText || !s[1].AsText || !k[1].AsText || k[1].Type != "INTEGER" {
		t.Errorf("posting columns %+v, %+v", s, k)
	}
	p = &checks.Params{}
	if _, err := preparePostings(p, []string{"amount"}, [][]sources.Column{cols("VARCHAR", "DECIMAL(12,2)"), cols("VARCHAR", "DECIMAL(10,2)")}, map[string]string{"amount": "DECIMAL(18,2)"}); err != nil || p.Postings[0].Columns[0].Type != "DECIMAL(18,2)" || p.Postings[0].Columns[0].AsText {
		t.Errorf("a measure: %v, %+v", err, p.Postings)
	}
	p = &checks.Params{}
	note, err = preparePostings(p, []string{"account", "at"}, [][]sources.Column{cols("VARCHAR"), cols("VARCHAR", "INTEGER", "TIMESTAMP")}, map[string]string{})
	if err != nil || len(p.Postings) != 1 || p.Postings[0].Table != checks.SinkTable || !strings.Contains(note, "sink only") {
		t.Errorf("an input lacking a column: %q, %v, %+v", note, err, p.Postings)
	}
	for _, c := range []struct {
		src, sink []sources.Column
		want      string
	}{
		{cols("VARCHAR", "DOUBLE"), cols("VARCHAR", "DOUBLE"), "column amount is DOUBLE in the source"},
		{cols("VARCHAR", "INTEGER", "TIMESTAMP"), cols("VARCHAR", "INTEGER", "TIMESTAMP WITH TIME ZONE"), "column at is TIMESTAMP in the source and TIMESTAMP WITH TIME ZONE in the sink"},
		{cols("VARCHAR", "INTEGER", "UNSUPPORTED INTERVAL"), cols("VARCHAR", "INTEGER", "UNSUPPORTED INTERVAL"), "column at is UNSUPPORTED INTERVAL"},
	} {
		_, err := preparePostings(&checks.Params{}, []string{"amount", "at"}[:len(c.src)-1], [][]sources.Column{c.src, c.sink}, map[string]string{})
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v / %v: %v, want ErrRefused saying %q", c.src, c.sink, err, c.want)
		}
	}
}
