package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// A PostgreSQL numeric without declared precision loads as DECIMAL(38,s),
// s its pre-scanned scale: two such columns of scales 1 and 2 (or one
// against a CSV of 1.50) are sized from the values they hold, not from the
// 37 + 2 digits the two declarations would need together, so they reconcile
// as a measure and as a compared column.
func TestPostgresNumericScalesFromValues(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, "CREATE TABLE "+schema+".fixnum_a1 (id text, amount numeric); INSERT INTO "+schema+".fixnum_a1 VALUES ('1', 1.5), ('2', 2.2);"+
		"CREATE TABLE "+schema+".fixnum_a2 (id text, amount numeric); INSERT INTO "+schema+".fixnum_a2 VALUES ('1', 1.50), ('2', 2.21)")
	src, sink := pgtest.TableURL(schema, "fixnum_a1"), pgtest.TableURL(schema, "fixnum_a2")
	csv := writeFile(t, filepath.Join(t.TempDir(), "sink.csv"), "id,amount\n1,1.50\n2,2.21\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"measure", []string{"--sink", sink, "--measure", "amount"}},
		{"compared column", []string{"--sink", sink}},
		{"csv sink", []string{"--sink", csv, "--measure", "amount"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			code, _, stderr := runCLI(t, append([]string{"run", "--source", src, "--id", "id", "--out", out, "--format", "json"}, c.args...)...)
			if code != exitFailed {
				t.Fatalf("exit %d, want %d (one value mismatch)\n%s", code, exitFailed, stderr)
			}
			s := readSummary(t, out)
			for _, ch := range s.Checks {
				if ch.ID == "value_mismatches" && ch.Exceptions != 1 {
					t.Errorf("value_mismatches: %d exceptions, want 1 (2.2 against 2.21)", ch.Exceptions)
				}
			}
			for _, m := range s.Totals.Measures {
				if m.SourceSum != "3.70" || m.SinkSum != "3.71" || m.Difference != "0.01" {
					t.Errorf("sums %+v, want 3.70, 3.71, 0.01", m)
				}
			}
		})
	}
}

// Values that need more than 38 digits together are refused (exit 3), the
// message naming both inputs' types and the first value that needs the
// integer digits and the one that needs the fraction digits, each with its
// location (a PostgreSQL table's row, a CSV's file and line); a measure is
// called a measure, a compared column a compared column.
func TestTooManyDigitsRefused(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, "CREATE TABLE "+schema+".fixnum_w1 (id text, amount numeric); INSERT INTO "+schema+".fixnum_w1 VALUES ('1', 1.5), ('2', 1234567890123456789012345678901234567.5);"+
		"CREATE TABLE "+schema+".fixnum_w2 (id text, amount numeric); INSERT INTO "+schema+".fixnum_w2 VALUES ('1', 1.50), ('2', 1.25)")
	src, sink := pgtest.TableURL(schema, "fixnum_w1"), pgtest.TableURL(schema, "fixnum_w2")
	dir := t.TempDir()
	big := writeFile(t, filepath.Join(dir, "big.csv"), "id,amount\n1,1.5\n2,1234567890123456789012345678901234567890\n")
	small := writeFile(t, filepath.Join(dir, "small.csv"), "id,amount\n1,1.5\n2,7\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"postgres measure", []string{"--source", src, "--sink", sink, "--measure", "amount"}, []string{
			"measure amount needs 37 integer and 2 fraction digits, more than the 38",
			"the source's amount is DECIMAL(38,1), the sink's DECIMAL(38,2)",
			`in the source, ` + schema + `.fixnum_w1:2: column amount: value "1234567890123456789012345678901234567.5" has more than 36 integer digits`,
			`in the sink, ` + schema + `.fixnum_w2:2: column amount: value "1.25" has more than 1 fraction digits`,
		}},
		{"postgres compared column", []string{"--source", src, "--sink", sink}, []string{
			"compared column amount needs 37 integer and 2 fraction digits",
		}},
		{"csv measure", []string{"--source", small, "--sink", big, "--measure", "amount"}, []string{
			"measure amount needs 40 integer and 1 fraction digits",
			`in the sink, ` + big + `:3: column amount: value "1234567890123456789012345678901234567890" has more than 37 integer digits`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"run", "--id", "id", "--out", filepath.Join(t.TempDir(), "ev")}, c.args...)...)
			if code != exitRuntime {
				t.Fatalf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "compared column amount: ") || (!strings.Contains(c.name, "measure") && strings.Contains(stderr, "measure amount")) {
				t.Errorf("stderr names the column twice or as a measure:\n%s", stderr)
			}
		})
	}
}

// A sum or difference beyond DECIMAL(38,s) is refused (exit 3) naming the
// measure, the input and that no total is rounded, without the SQL: two
// 38-digit amounts in one input overflow their sum; +9e37 against -9e37
// overflows the difference only.
func TestSumOverflowRefused(t *testing.T) {
	dir := t.TempDir()
	nines := strings.Repeat("9", 38)
	big := writeFile(t, filepath.Join(dir, "big.csv"), "id,amount\n1,"+nines+"\n2,"+nines+"\n")
	big2 := writeFile(t, filepath.Join(dir, "big2.csv"), "id,amount\n1,"+nines+"\n2,"+nines+"\n")
	pos := writeFile(t, filepath.Join(dir, "pos.csv"), "id,amount\n1,9"+strings.Repeat("0", 37)+"\n")
	neg := writeFile(t, filepath.Join(dir, "neg.csv"), "id,amount\n1,-9"+strings.Repeat("0", 37)+"\n")
	for _, c := range []struct {
		name, src, sink string
		want            []string
	}{
		{"sum", big, big2, []string{"checks: overflow: the sum of measure amount in the source (in total) is beyond DECIMAL(38,0), the widest exact decimal: no total is rounded to fit"}},
		{"difference", pos, neg, []string{"check sum_balance: checks: overflow: a difference (sink - source) is beyond its exact decimal type (measure amount DECIMAL(38,0)): no total or difference is rounded to fit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "run", "--source", c.src, "--sink", c.sink, "--id", "id", "--measure", "amount", "--out", filepath.Join(t.TempDir(), "ev"))
			if code != exitRuntime {
				t.Fatalf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "SELECT") || strings.Contains(stderr, "duckdb: ") {
				t.Errorf("stderr shows the statement:\n%s", stderr)
			}
		})
	}
}

// A decimal comma in a column that is neither a measure nor declared a
// number type: with decimal_separator: "," given on that input, the hint
// is to declare the column's type there (the option applies to measures
// and declared number columns only); without it, to declare the option.
func TestDecimalCommaHint(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "dcs.csv"), "id;rate\n1;1,50\n")
	sink := writeFile(t, filepath.Join(dir, "dcs2.csv"), "id,rate\n1,1.50\n")
	base := []string{"run", "--source", src, "--sink", sink, "--id", "id", "--source-option", "delimiter=;", "--sink-option", "types=rate:DECIMAL(10,2)"}
	for _, c := range []struct {
		name      string
		args      []string
		want, not string
	}{
		{"declared", []string{"--source-option", "decimal_separator=,"},
			`decimal_separator: "," on the source applies only to measures and to columns declared a number type: declare rate's type on the source, such as types: {rate: DECIMAL(18,2)}`,
			"read only when declared"},
		{"not declared", nil, `a decimal comma is read only when declared: decimal_separator: ","`, "applies only to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(append(base, "--out", filepath.Join(t.TempDir(), "ev")), c.args...)...)
			if code != exitRuntime {
				t.Fatalf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			if !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) {
				t.Errorf("stderr lacks %q or has %q:\n%s", c.want, c.not, stderr)
			}
			if !strings.Contains(stderr, "compared column rate: ") || !strings.Contains(stderr, `dcs.csv:2: column rate: value "1,50"`) {
				t.Errorf("stderr lacks the column or the location:\n%s", stderr)
			}
		})
	}
	// The advice works: with the type declared the comma is read.
	code, _, stderr := runCLI(t, append(base, "--source-option", "decimal_separator=,", "--source-option", "types=rate:DECIMAL(18,2)", "--out", filepath.Join(dir, "ev"))...)
	if code != exitOK {
		t.Errorf("with the type declared: exit %d\n%s", code, stderr)
	}
}

// A tolerance on a column that is text in both inputs names the type to
// declare for its kind: a timestamp type for a duration, DECIMAL for an
// amount or a share; declaring the suggested type makes the tolerance apply.
func TestToleranceTypeHint(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "t1.csv"), "id,ts,amt\n1,2024-01-01 10:00:00,1.5\n")
	writeFile(t, filepath.Join(dir, "t2.csv"), "id,ts,amt\n1,2024-01-01 10:00:01,1.51\n")
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "source: t1.csv\nsink: t2.csv\nid: [id]\ntolerance: {ts: 2s, amt: \"1%\"}\n")
	code, _, stderr := runCLI(t, "run", "--config", spec, "--out", filepath.Join(dir, "ev1"))
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	for _, w := range []string{
		"tolerance.ts: the column is text in both inputs, compared byte for byte; to compare it as an instant within 2s, declare its type (types: {ts: TIMESTAMPTZ}, or TIMESTAMP",
		"tolerance.amt: the column is text in both inputs, compared byte for byte; to compare it as a number, make it a measure (measures:) or declare its type (types: {amt: DECIMAL(18,2)})",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "ts: DECIMAL") {
		t.Errorf("a duration tolerance suggests a DECIMAL:\n%s", stderr)
	}
	code, _, stderr = runCLI(t, "run", "--config", spec, "--out", filepath.Join(dir, "ev2"),
		"--source-option", "types=ts:TIMESTAMPTZ,amt:DECIMAL(18,2)")
	if code != exitOK {
		t.Errorf("with the types declared: exit %d, want %d (both within tolerance)\n%s", code, exitOK, stderr)
	}
}
