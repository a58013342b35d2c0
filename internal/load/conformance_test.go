package load_test

import (
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
)

// csvConformance are inputs (ASCII bytes) on which DuckDB's read_csv and
// the Go encoding/csv reader once gave different answers. Each is loaded
// plain (DuckDB's reader) and with encoding: latin-1 (the Go reader, on
// the same bytes): both must give the same rows, or both refuse naming the
// file and the physical line (want: the rows, or "error:" and what the
// message must hold).
var csvConformance = []struct {
	name, body, want string
	// gap, when set, is a known difference still open: DuckDB's path
	// (enc "") gives another answer, and the case is skipped there.
	gap string
}{
	{"trailing delimiter", "id,amount\n1,1.00,\n", "error:a.csv:2: 3 fields, the header has 2", "read_csv drops an empty field after the last column without an error"},
	{"extra field", "id,amount\n1,1.00,x\n", "error:a.csv:2: 3 fields, the header has 2", ""},
	{"mixed line endings", "id,amount\r\n1,a\n2,b\r\n", "[1 a 2] [2 b 3]", ""},
	{"bare quote", "id,note\n3,a\"b\n", "error:a.csv:2: bare \" in non-quoted-field", "read_csv takes a quote inside an unquoted field as text"},
	{"CR only", "id,amount\r1,a\r2,b\r", "error:a.csv: the line endings are CR only", ""},
	{"doubled BOM", "\ufeff\ufeffid,amount\n1,a\n", "byte-order mark", ""},
	{"empty lines before the header", "\n\r\nid,amount\n1,a\n", "error:a.csv:3: the header is on line 3, after 2 empty line(s)", ""},
	{"one column, empty line before the header", "\nid\n1\n", "error:a.csv:2: the header is on line 2", ""},
	{"white space before the header", "   \nid,amount\n1,a\n", "error:a.csv:1: the first line holds no header", ""},
	{"plain", "id,amount\n1,a\n\n2,\"b\"\"c\"\n", "[1 a 2] [2 b\"c 4]", ""},
	{"CRLF inside a quoted field", "id,note\r\n1,\"a\r\nb\"\r\n2,c\r\n", "[1 a\r\nb 2] [2 c 4]", ""},
	{"LF inside a quoted field of a CRLF file", "id,note\r\n1,\"a\nb\"\r\n2,c\r\n", "[1 a\nb 2] [2 c 4]", ""},
	{"CRLF and LF inside one quoted field", "id,note,x\n1,\"a\r\nb\nc\r\nd\",\"\r\n\"\n2,\"\n\",\"e\rf\"\n", "[1 a\r\nb\nc\r\nd \r\n 2] [2 \n e\rf 7]", ""},
	{"CR before a CRLF, and empty lines, inside quoted fields", "id,note\n1,\"a\r\r\nb\"\n2,\"\r\"\r\n3,\"x\r\n\r\ny\"\n", "[1 a\r\r\nb 2] [2 \r 4] [3 x\r\n\r\ny 5]", ""},
}

// Before, the plain reads of "extra field" and "mixed line endings" gave
// DuckDB's raw messages (no physical line; "state machine reached an
// invalid state"), "CR only" read an empty table under latin-1 (the
// records swallowed into the header's names), "doubled BOM" loaded a
// column named "\ufeffid", and a file with empty lines before its header
// was read by DuckDB with the header as a record (a missing id "id") and
// by the Go reader without it.
func TestCSVReadersAgree(t *testing.T) {
	for _, c := range csvConformance {
		for _, enc := range []string{"", "latin-1"} {
			t.Run(c.name+"/"+enc, func(t *testing.T) {
				if c.gap != "" && enc == "" {
					t.Skipf("known difference, not yet fixed: %s", c.gap)
				}
				dir := t.TempDir()
				loc := sources.Location{Role: "sink", URI: write(t, dir, "a.csv", "", c.body), BaseDir: dir}
				if enc != "" {
					loc.Options = map[string]any{"encoding": enc}
				}
				db, _, err := loadInto(t, loc)
				got := ""
				if err != nil {
					got = "error:" + err.Error()
				} else {
					got = rowsOf(t, db, "SELECT * EXCLUDE (__file, __row) FROM t ORDER BY __row")
				}
				t.Logf("%s", got)
				if !strings.Contains(got, c.want) {
					t.Errorf("got %q, want %q", got, c.want)
				}
			})
		}
	}
}

// A first line that is a UTF-8 byte-order mark alone is no header line (read
// as UTF-8: under latin-1 the mark itself is refused, TestCSVReadersAgree):
// the mark is dropped before parsing, so the line is empty and the header
// follows it, as in a file without the mark; before, the refusal said
// "header column 1 has no name", then "a.csv:1: the first line holds no
// header".
func TestCSVMarkThenEmptyLine(t *testing.T) {
	dir := t.TempDir()
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: write(t, dir, "a.csv", "", "\ufeff\nid,amount\n1,a\n"), BaseDir: dir})
	if err == nil || !strings.Contains(err.Error(), "a.csv:2: the header is on line 2, after 1 empty line(s)") {
		t.Errorf("got %v, want a.csv:2: the header is on line 2, after 1 empty line(s)", err)
	}
}

// A UTF-16 file read as UTF-8 (no encoding:) is refused with the hint
// encoding: utf-16, from its byte-order mark or its NUL bytes; before, the
// hint was latin-1.
func TestCSVUTF16Hint(t *testing.T) {
	for name, body := range map[string]string{
		"bom-le": "\xff\xfei\x00d\x00\n\x001\x00\n\x00",
		"bom-be": "\xfe\xff\x00i\x00d\x00\n\x001\x00\n",
		"no-bom": "i\x00d\x00\n\x001\x00\n\x00",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, _, err := loadInto(t, sources.Location{Role: "sink", URI: write(t, dir, "a.csv", "", body), BaseDir: dir})
			if err == nil || !strings.Contains(err.Error(), "a.csv: ") || !strings.Contains(err.Error(), "encoding: utf-16") {
				t.Errorf("got %v, want an error naming a.csv and encoding: utf-16", err)
			}
		})
	}
}

// A CRLF inside a quoted field is kept by every reader of a CSV file:
// encoding/csv turned it into LF, while DuckDB's read_csv keeps it, so a
// sink value "a\r\nb" matched a source's "a\nb" (exit 0) when the Go reader
// read the sink — under a declared encoding, for a name holding a glob
// character or for a part cut by a valid length — and not when read_csv
// did (found by a tester). Each way of reading gives the same bytes.
func TestCSVQuotedCRLFEveryReader(t *testing.T) {
	body := "id,amount,status\r\n1,10,\"a\r\nb\"\r\n2,20,\"c\nd\"\r\n"
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"plain.csv":                    []byte(body),
		"k[1].csv":                     []byte(body),
		"cut/part-0.csv":               []byte(body + "3,30,x\r\n"),
		"cut/_part-0.csv.valid-length": utf(itoa(len(body))),
	})
	for _, loc := range []sources.Location{
		{URI: "plain.csv"},
		{URI: "plain.csv", Options: map[string]any{"encoding": "latin-1"}},
		{URI: "k[1].csv"},
		{URI: "cut", Options: map[string]any{"kind": "csv"}},
	} {
		loc.Role, loc.BaseDir = "sink", dir
		db, _, err := loadInto(t, loc)
		if err != nil {
			t.Fatalf("%s %v: %v", loc.URI, loc.Options, err)
		}
		if got, want := rowsOf(t, db, `SELECT id, status, __line FROM t ORDER BY __row`), "[1 a\r\nb 2] [2 c\nd 4]"; got != want {
			t.Errorf("%s %v: %q, want %q", loc.URI, loc.Options, got, want)
		}
	}
}
