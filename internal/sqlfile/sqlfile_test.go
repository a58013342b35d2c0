package sqlfile

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

var keys = []string{"statement", "description"}

func TestParseHeader(t *testing.T) {
	f, err := Parse("prepare/010_measure_digits.sql", "-- statement: measure_digits\n-- description: One\n--\n-- description: two.\nSELECT {{q .Col}} FROM t\n-- not header\n", keys, Funcs())
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != "measure_digits" || f.Value("statement") != "measure_digits" {
		t.Errorf("id %q statement %q", f.ID, f.Value("statement"))
	}
	if got := f.Value("description"); got != "One two." {
		t.Errorf("description %q", got)
	}
	if f.Line("description") != 2 {
		t.Errorf("line %d", f.Line("description"))
	}
	sql, err := f.Render(map[string]string{"Col": `a"b`})
	if err != nil {
		t.Fatal(err)
	}
	if body := Body(sql); !strings.HasPrefix(body, `SELECT "a""b" FROM t`) {
		t.Errorf("body %q", body)
	}
}

// HeaderValue reads a key of the header only, whatever the other keys:
// not a key of the body's comments, nor a key that is absent.
func TestHeaderValue(t *testing.T) {
	text := "-- check: late_postings\n-- assertion: completeness\n--\n-- statement: x\nSELECT 1\n-- fragment: body\n"
	for key, want := range map[string]string{"check": "late_postings", "assertion": "completeness", "statement": "x", "fragment": "", "description": ""} {
		if got := HeaderValue(text, key); got != want {
			t.Errorf("HeaderValue(%s) = %q, want %q", key, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "-- statment: x\nSELECT 1", `x.sql:1: unknown header key "statment"`},
		{"not key value", "-- statement x\nSELECT 1", `x.sql:1: header line "-- statement x"`},
		{"bad template", "-- statement: x\nSELECT {{q}", "x.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.sql", tt.text, keys, Funcs())
			if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrParse containing %q", err, tt.want)
			}
		})
	}
}

func TestRenderMissingKey(t *testing.T) {
	f, err := Parse("x.sql", "SELECT {{.Nope}}", keys, Funcs())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Render(map[string]string{}); err == nil || !strings.Contains(err.Error(), "x.sql") {
		t.Fatalf("err = %v, want a render error naming the file", err)
	}
}

func TestSet(t *testing.T) {
	fsys := fstest.MapFS{
		"load/020_b.sql": {Data: []byte("-- statement: b\nSELECT 2")},
		"load/010_a.sql": {Data: []byte("-- statement: a\nSELECT {{lit .}}")},
		"load/sub/c.sql": {Data: []byte("SELECT 3")},
	}
	s, err := NewSet(fsys, "load", keys, Funcs())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.IDs(), ","); got != "a,b" {
		t.Errorf("ids %s", got)
	}
	if sql, err := s.Render("a", "it's"); err != nil || sql != "-- statement: a\nSELECT 'it''s'" {
		t.Errorf("render = %q, %v", sql, err)
	}
	if _, err := s.Get("c"); !errors.Is(err, ErrParse) {
		t.Errorf("get c: %v", err)
	}
	fsys["load/030_a.sql"] = &fstest.MapFile{Data: []byte("SELECT 1")}
	if _, err := NewSet(fsys, "load", keys, Funcs()); err == nil || !strings.Contains(err.Error(), "a second file with id a") {
		t.Errorf("duplicate id: %v", err)
	}
}

// TestEmbeddedSetParsesWhenRendered: NewEmbeddedSet checks headers now
// and a template when it is first rendered; NewSet and ParseAll find a
// broken template at once.
func TestEmbeddedSetParsesWhenRendered(t *testing.T) {
	fsys := fstest.MapFS{
		"run/a.sql":   {Data: []byte("-- statement: a\r\n-- description: fine\r\nSELECT {{lit .}}")},
		"run/bad.sql": {Data: []byte("-- statement: bad\nSELECT {{q}")},
	}
	if _, err := NewSet(fsys, "run", keys, Funcs()); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "run/bad.sql") {
		t.Fatalf("NewSet: %v, want ErrParse naming run/bad.sql", err)
	}
	s, err := NewEmbeddedSet(fsys, "run", keys, Funcs())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := s.Get("a")
	if got := f.Value("description"); got != "fine" {
		t.Errorf("description %q (a CRLF header)", got)
	}
	if sql, err := s.Render("a", "x"); err != nil || !strings.HasSuffix(sql, "SELECT 'x'") {
		t.Errorf("render a = %q, %v", sql, err)
	}
	_, err1 := s.Render("bad", nil)
	if !errors.Is(err1, ErrParse) || !strings.Contains(err1.Error(), "run/bad.sql") {
		t.Errorf("render bad: %v, want ErrParse naming run/bad.sql", err1)
	}
	if _, err2 := s.Render("bad", nil); err2 != err1 { // the same value: parsed once, the error kept
		t.Errorf("render bad again: %v (%p), want the first error (%p)", err2, err2, err1)
	}
	if err := s.ParseAll(); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "run/bad.sql") {
		t.Errorf("ParseAll: %v", err)
	}
	if _, err := NewEmbeddedSet(fsys, "run", []string{"statement"}, Funcs()); !errors.Is(err, ErrParse) {
		t.Errorf("an unknown header key is refused at once: %v", err)
	}
}

func TestHelpersQuote(t *testing.T) {
	f := Funcs()
	cols := f["cols"].(func(string, []string) string)
	if got := cols("s", []string{"a", `b"c`}); got != `s."a", s."b""c"` {
		t.Errorf("cols %s", got)
	}
	match := f["match"].(func(string, string, []string) string)
	if got := match("s", "k", nil); got != "TRUE" {
		t.Errorf("match of nothing %s", got)
	}
	if got := NullID("k", []string{"id"}); got != `((k."id" IS NULL OR length(CAST(k."id" AS VARCHAR)) = 0))` {
		t.Errorf("nullid %s", got)
	}
}

func TestWithoutKeys(t *testing.T) {
	in := "-- check: x\n-- chart: balance\n-- description: a\n--\n-- columns: a=b,\n-- columns: c=d\nSELECT 1 -- chart: not a header\n-- chart: not a header either\n"
	want := "-- check: x\n-- description: a\n--\nSELECT 1 -- chart: not a header\n-- chart: not a header either\n"
	if got := WithoutKeys(in, "chart", "columns"); got != want {
		t.Errorf("WithoutKeys:\n%q\nwant\n%q", got, want)
	}
}

// sqltype lets only a type name through.
func TestTypeName(t *testing.T) {
	for _, ok := range []string{"VARCHAR", "DECIMAL(18,2)", "decimal( 38 , 4 )", "TIMESTAMP WITH TIME ZONE", "numeric(18,2)"} {
		if got, err := TypeName(ok); err != nil || got != ok {
			t.Errorf("TypeName(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{"", "INT; DROP TABLE t", "VARCHAR)", "1NT", "DECIMAL(18,-2)"} {
		if _, err := TypeName(bad); err == nil {
			t.Errorf("TypeName(%q) accepted", bad)
		}
	}
}

// The location forms: file:line, topic[partition]@offset, and an Iceberg
// table's file:line@snapshot (locsep stays ':').
func TestLocationForms(t *testing.T) {
	loc := Funcs()["loc"].(func(string, ...string) (string, error))
	for form, want := range map[string]string{
		"":                        `(k."__file" || ':' || k."__line")`,
		"topic[partition]@offset": `(k."__file" || '@' || k."__line")`,
		LocationSnapshot:          `(k."__file" || ':' || k."__line" || '@' || k."__snapshot")`,
	} {
		if got, err := loc("k", form); err != nil || got != want {
			t.Errorf("loc %q: %s, %v; want %s", form, got, err, want)
		}
	}
	if sep, err := LocSep(LocationSnapshot); err != nil || sep != "':'" {
		t.Errorf("locsep %s: %s, %v", LocationSnapshot, sep, err)
	}
	if _, err := loc("k", "elsewhere"); err == nil {
		t.Error("an unknown form renders")
	}
}
