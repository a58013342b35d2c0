package trino

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/trinotest"
)

// TestPinnedSnapshot: an Iceberg input is pinned to the snapshot current
// when it is described, so a commit that lands afterwards is not read —
// not by the fingerprint, not by a statement over the input; the nodes
// list the coordinator and an active worker.
func TestPinnedSnapshot(t *testing.T) {
	schema, db := trinotest.Schema(t, "iceberg")
	ctx := context.Background()
	table := "iceberg." + schema + ".t"
	trinotest.Exec(t, db, "CREATE TABLE "+table+" AS SELECT x AS id, CAST(x AS decimal(10,2)) AS amount FROM UNNEST(sequence(1, 10)) AS u(x)")
	e, err := Open(ctx, trinotest.EngineURI())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	nodes, err := e.Nodes(ctx)
	if err != nil || len(nodes) < 2 || !nodes[0].Coordinator || nodes[1].Coordinator || nodes[1].State != "active" {
		t.Fatalf("nodes %+v, %v", nodes, err)
	}
	in, err := ParseInput("sink", "trino:"+table, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Describe(ctx, in); err != nil {
		t.Fatal(err)
	}
	if !in.Pinned() || in.SnapshotBy != "current (main branch)" || in.Connector != "iceberg" || len(in.Columns) != 2 || in.Columns[1].DuckDB != "DECIMAL(10,2)" {
		t.Fatalf("described %+v", in)
	}
	before, err := e.Fingerprint(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	trinotest.Exec(t, db, "INSERT INTO "+table+" VALUES (11, 11.00)")
	after, err := e.Fingerprint(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if before.Rows != 10 || !after.Same(before) || before.QueryID == "" || len(before.Checksums) != 2 {
		t.Errorf("fingerprints of the pinned snapshot: %+v then %+v", before, after)
	}
	if err := e.SetInputs(in, &Input{Role: "source", Query: "SELECT 1 AS id", Connector: ""}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Count(ctx, "SELECT count(*) FROM sink"); err != nil || n != 10 {
		t.Errorf("rows of the pinned sink after a commit: %d, %v", n, err)
	}
	// Unpinned, the same table reads the commit: the fingerprint differs.
	cur := &Input{Role: "sink", Catalog: "iceberg", Schema: schema, Table: "t", Columns: in.Columns}
	now, err := e.Fingerprint(ctx, cur)
	if err != nil || now.Rows != 11 || now.Same(before) {
		t.Errorf("fingerprint of the table as it is now: %+v, %v", now, err)
	}
}

// TestQueryArrow: a result streams as Arrow with each type exact — a
// DECIMAL(38,2) of 20 integer digits stays that decimal, a zone-less
// timestamp its wall-clock time, NULL stays NULL — and its query id is
// recorded; a sum beyond DECIMAL(38) is Trino's overflow, a runtime error,
// never a rounded total.
func TestQueryArrow(t *testing.T) {
	trinotest.Connect(t)
	ctx := context.Background()
	e, err := Open(ctx, trinotest.EngineURI())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := `SELECT * FROM (VALUES
		(BIGINT '1', DECIMAL '12345678901234567890.12', 'a', TRUE, DATE '2026-11-30', TIMESTAMP '2026-11-30 23:59:59.123456', TIMESTAMP '2026-11-30 10:00:00 Europe/Berlin'),
		(NULL, NULL, NULL, NULL, NULL, NULL, NULL)) AS t(n, d, s, b, day, ts, tz)`
	rr, err := e.QueryArrow(ctx, "SELECT n, CAST(d AS decimal(38,2)) AS d, s, b, day, ts, tz FROM ("+q+")")
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i, col := range rec.Columns() {
			got = append(got, rec.Schema().Field(i).Type.String()+" "+col.ValueStr(0)+" "+col.ValueStr(1))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"int64 1 (null)",
		"decimal(38, 2) 12345678901234567890.12 (null)",
		"utf8 a (null)",
		"bool true (null)",
		"date32 2026-11-30 (null)",
		"timestamp[us] 2026-11-30T23:59:59.123456 (null)",
		"timestamp[us, tz=UTC] 2026-11-30T09:00:00Z (null)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if id := e.LastQueryID(); id == "" {
		t.Error("no query id recorded")
	}
	_, _, err = e.Strings(ctx, "SELECT CAST(sum(x) AS decimal(38,0)) FROM (VALUES DECIMAL '99999999999999999999999999999999999999', DECIMAL '1') AS t(x)")
	if !errors.Is(err, ErrOverflow) || fault.Of(err) != fault.Runtime {
		t.Errorf("a sum beyond DECIMAL(38): %v, want ErrOverflow (runtime)", err)
	}
	var _ array.RecordReader = rr
}

// TestPercentOf: trino/percent_of.sql over trino/unscaled.sql gives a
// difference as a percentage of a sum exactly as rules/percent_of.sql does
// embedded — 100 × part / whole rounded half away from zero to 6 places,
// NULL over a zero whole — here against exact rational arithmetic,
// halves and negative values included.
func TestPercentOf(t *testing.T) {
	db := trinotest.Connect(t)
	f := Funcs()
	unscaled := f["unscaled"].(func(string) (string, error))
	percentOf := f["percentof"].(func(string, string) (string, error))
	for _, tt := range [][2]string{
		{"7052.00", "299735.57"}, {"-3.30", "3.30"}, {"3.30", "0.00"}, {"1.00", "3.00"}, {"2.00", "3.00"},
		{"-2.00", "3.00"}, {"2.00", "-3.00"}, {"0.01", "2000000.00"}, {"-0.01", "2000000.00"}, {"0.03", "2000000.00"},
		{"99999999999999999999.99", "0.01"},
	} {
		lit := func(v string) string { return "CAST(DECIMAL '" + v + "' AS DECIMAL(38,2))" }
		p, err := unscaled(lit(tt[0]))
		if err != nil {
			t.Fatal(err)
		}
		w, err := unscaled(lit(tt[1]))
		if err != nil {
			t.Fatal(err)
		}
		expr, err := percentOf(p, w)
		if err != nil {
			t.Fatal(err)
		}
		var got sql.NullString
		if err := db.QueryRowContext(context.Background(), "SELECT CAST("+expr+" AS VARCHAR)").Scan(&got); err != nil {
			t.Fatalf("%s of %s: %v", tt[0], tt[1], err)
		}
		want := ""
		part, _ := new(big.Rat).SetString(tt[0])
		whole, _ := new(big.Rat).SetString(tt[1])
		if whole.Sign() != 0 {
			// Round half away from zero: the magnitude's 6-place rounding, signed.
			r := new(big.Rat).Quo(new(big.Rat).Mul(part, big.NewRat(100, 1)), whole)
			micro := new(big.Rat).Mul(new(big.Rat).Abs(r), big.NewRat(1000000, 1))
			n := new(big.Int).Quo(new(big.Int).Add(new(big.Int).Mul(micro.Num(), big.NewInt(2)), micro.Denom()), new(big.Int).Mul(micro.Denom(), big.NewInt(2)))
			if r.Sign() < 0 {
				n.Neg(n)
			}
			want = new(big.Rat).SetFrac(n, big.NewInt(1000000)).FloatString(6)
		}
		if got.String != want || got.Valid != (want != "") {
			t.Errorf("%s as a percentage of %s: %q (valid %v), want %q", tt[0], tt[1], got.String, got.Valid, want)
		}
	}
}

// TestFingerprintMovedValues: two relations that differ only in which row
// holds which amount (and in which rows hold NULL and the empty text) have
// the same rows and the same checksum() of every column, but not the same
// fingerprint: the row checksum tells them apart, so such a change to an
// unpinned input during a run is not taken for no change.
func TestFingerprintMovedValues(t *testing.T) {
	trinotest.Connect(t) // skips without the cluster
	ctx := context.Background()
	e, err := Open(ctx, trinotest.EngineURI())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fingerprint := func(values string) *Fingerprint {
		t.Helper()
		in, err := ParseInput("source", "trino:?query=SELECT * FROM (VALUES "+values+") AS t(id, amount, note)", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Describe(ctx, in); err != nil {
			t.Fatal(err)
		}
		f, err := e.Fingerprint(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a := fingerprint("(11, DECIMAL '0.12', ''), (12, DECIMAL '0.11', CAST(NULL AS varchar))")
	b := fingerprint("(11, DECIMAL '0.11', CAST(NULL AS varchar)), (12, DECIMAL '0.12', '')")
	if a.Rows != 2 || len(a.Checksums) != 3 || a.RowChecksum == "" {
		t.Fatalf("fingerprint %+v", a)
	}
	for col, sum := range a.Checksums {
		if b.Checksums[col] != sum {
			t.Errorf("column %s: checksum %s and %s; the test wants relations whose every column sums alike", col, sum, b.Checksums[col])
		}
	}
	if a.Same(b) || a.RowChecksum == b.RowChecksum {
		t.Errorf("values moved between rows: the same fingerprint %+v and %+v", a, b)
	}
	if got := a.Changed(b); len(got) != 1 || !strings.Contains(got[0], "moved between rows") {
		t.Errorf("Changed = %q, want the values moved between rows", got)
	}
	if got := a.Changed(fingerprint("(11, DECIMAL '0.12', 'x'), (12, DECIMAL '0.11', CAST(NULL AS varchar))")); !slices.Equal(got, []string{"column note"}) {
		t.Errorf("Changed = %q, want column note", got)
	}
	if again := fingerprint("(12, DECIMAL '0.11', CAST(NULL AS varchar)), (11, DECIMAL '0.12', '')"); !again.Same(a) {
		t.Errorf("the same rows in another order: %+v and %+v", again, a)
	}
}

// TestSortedList: sorted_list.sql gives DuckDB's sortedlist — integers in
// numeric order before other text, NULLs left out — and NULL, not the
// empty text, for a group of NULLs only (duplicate_ids' checkpoint_ids of
// a control without a checkpoint column).
func TestSortedList(t *testing.T) {
	db := trinotest.Connect(t)
	sortedList := Funcs()["sortedlist"].(func(string) (string, error))
	expr, err := sortedList("x")
	if err != nil {
		t.Fatal(err)
	}
	for values, want := range map[string]sql.NullString{
		"('10'), ('9'), (NULL), ('b'), ('9')":        {String: "9;10;b", Valid: true},
		"(CAST(NULL AS varchar)), (NULL)":            {},
		"(''), (CAST(NULL AS varchar))":              {String: "", Valid: true},
		"('-3'), ('12345678901234567890123'), ('2')": {String: "-3;2;12345678901234567890123", Valid: true},
	} {
		var got sql.NullString
		if err := db.QueryRowContext(context.Background(), "SELECT "+expr+" FROM (VALUES "+values+") AS t(x)").Scan(&got); err != nil {
			t.Fatalf("%s: %v", values, err)
		}
		if got != want {
			t.Errorf("sorted list of %s: %+v, want %+v", values, got, want)
		}
	}
}

// TestQueryInputEnds: a ?query= input that ends as statements are often
// written — with a semicolon, or a -- comment — is read as the query, not
// refused by Trino for the parenthesis reconcile closes it with.
func TestQueryInputEnds(t *testing.T) {
	trinotest.Connect(t) // skips without the cluster
	ctx := context.Background()
	e, err := Open(ctx, trinotest.EngineURI())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{"SELECT 1 AS id;", "SELECT 1 AS id ; \n", "SELECT 1 AS id -- one row", "SELECT 1 AS id -- one row;"} {
		in, err := ParseInput("source", "trino:?query="+q, nil)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if strings.HasSuffix(in.Query, ";") && !strings.Contains(in.Query, "--") {
			t.Errorf("%q: the query kept its semicolon: %q", q, in.Query)
		}
		if err := e.Describe(ctx, in); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		f, err := e.Fingerprint(ctx, in)
		if err != nil || f.Rows != 1 {
			t.Errorf("%q: fingerprint %+v, %v", q, f, err)
		}
	}
}
