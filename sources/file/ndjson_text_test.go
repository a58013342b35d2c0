package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
)

// An NDJSON line holds one object and nothing after it but JSON white
// space: a } or ] after the object was read as the object
// ({"id":"1","amount":5}} and {"id":"2","amount":6}] in a sink reconciled
// with exit 0), as json.Decoder.More is false before a closing bracket.
// Found by FuzzNDJSON.
func TestNDJSONNothingAfterTheObject(t *testing.T) {
	for _, tt := range []struct{ name, line, want string }{
		{"brace", `{"id":"1","amount":5}}`, `a.ndjson:2: "}" after the object; expected the end of the line`},
		{"bracket", `{"id":"2","amount":6}]`, `a.ndjson:2: "]" after the object; expected the end of the line`},
		{"bracket after spaces", "{\"id\":\"2\"} \t ]", `a.ndjson:2: "]" after the object`},
		{"a second value", `{"id":"2"} {"id":"3"}`, `a.ndjson:2: more than one JSON value on the line`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.ndjson"), []byte("{\"id\":\"0\"}\n"+tt.line+"\n"), 0o644)
			_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.ndjson")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// Only JSON's white space (space, tab, CR, LF; RFC 8259 section 2) may
// stand around an NDJSON line's object: other white space, which
// bytes.TrimSpace trimmed (a line of \v alone was skipped as blank,
// U+00A0{"id":"1"} read as the object), is an error naming file, line,
// column and the character. Found by FuzzNDJSON.
func TestNDJSONOnlyJSONWhiteSpace(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"a line of \\v", "{\"id\":\"0\"}\n\v\n", "a.ndjson:2:1: U+000B is white space JSON does not allow"},
		{"U+00A0 before", "{\"id\":\"0\"}\n\u00a0{\"id\":\"1\"}\n", "a.ndjson:2:1: U+00A0 is white space JSON does not allow"},
		{"\\f after", "{\"id\":\"0\"}\r\n {\"id\":\"1\"}\f \r\n", "a.ndjson:2:12: U+000C is white space"},
		{"U+2028 after spaces", "{\"id\":\"0\"}\n{\"id\":\"1\"}  \u2028\n", "a.ndjson:2:13: U+2028 is white space"},
		{"U+0085 after a mark", "\xef\xbb\xbf\u0085{\"id\":\"0\"}\n", "a.ndjson:1:4: U+0085 is white space"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.ndjson"), []byte(tt.body), 0o644)
			_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.ndjson")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// JSON's white space around an object, blank lines of it and a first
	// line's mark are read as before.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.ndjson"), []byte("\xef\xbb\xbf \t{\"id\":\"1\"} \t\r\n \t\r\n\n{\"id\":\"2\"}"), 0o644)
	db, in, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "ok.ndjson")})
	if err != nil || in.Rows != 2 {
		t.Fatalf("err %v, want 2 rows", err)
	}
	_, rows, err := db.Strings(context.Background(), `SELECT id || ':' || __line FROM t ORDER BY __row`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(deref(rows[0]), deref(rows[1])); got != "[1:1] [2:4]" {
		t.Errorf("rows %s, want [1:1] [2:4]", got)
	}
}
