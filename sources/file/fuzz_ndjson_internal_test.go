package file

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// FuzzNDJSON reads arbitrary bytes as an NDJSON file the way the ndjson
// kind does (fileset.Lines with the text check ndjsonCheck, then
// ndjsonObject on each line) and checks the result against encoding/json
// and an independent scan of the JSON strings:
//
//   - the file is read without error exactly when every line that is not
//     blank (JSON white space only; a UTF-8 byte-order mark dropped from
//     the first) is valid UTF-8 (RFC 8259 section 8.1) with no \uXXXX
//     escape in a string that is half of a surrogate pair (section 8.2),
//     is valid JSON (json.Valid), is an object and names no key twice, in
//     it or in any object nested in it;
//   - each such line is handed on with its physical line number, and its
//     keys come in order with their values as NDJSON text: a string
//     unquoted as encoding/json decodes it, null as nil, a nested object
//     or array as its compact text (compactJSON: no white space between
//     tokens, strings with the fewest escapes, keys in order, numbers as
//     written), anything else as its JSON text exactly as written.
//
// Seeds: testdata/fuzz/FuzzNDJSON, with the failures it found, each fixed
// and a unit test of its own (TestNDJSONNothingAfterTheObject,
// TestNDJSONOnlyJSONWhiteSpace): a line with a } or ] after its object,
// {"id":"1"}}, was read as the object (json.Decoder.More is false before a
// closing bracket; brace-after-object, bracket-after-object); a line of
// white space that is not JSON white space (\v, \f, U+0085, U+00A0, …;
// bytes.TrimSpace trims it) was skipped as blank (vertical-tab-line), and
// around an object dropped (nbsp-before-object).
//
//	go test -tags duckdb_arrow -run '^$' -fuzz '^FuzzNDJSON$' -fuzztime 60s ./sources/file/
func FuzzNDJSON(f *testing.F) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.ndjson")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		type line struct {
			N    int64
			Keys []string
			Vals []*string
		}
		var got []line
		err := fileset.Lines(context.Background(), sources.ScanFile{Path: path, Name: "fuzz.ndjson", Size: int64(len(data))}, ndjsonCheck("fuzz.ndjson", func(err error) error { return err }), func(l []byte, n int64) error {
			keys, vals, err := ndjsonObject(l, "fuzz.ndjson", n)
			if err == nil {
				got = append(got, line{n, keys, vals})
			}
			return err
		})

		var want []line
		why := ""
		for i, raw := range bytes.SplitAfter(data, []byte("\n")) {
			if len(raw) == 0 {
				continue
			}
			n := int64(i + 1)
			l := raw
			if n == 1 {
				l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf"))
			}
			if len(bytes.Trim(l, " \t\r\n")) == 0 {
				continue // blank
			}
			keys, vals, reason := ndjsonOracle(raw, l)
			if reason != "" {
				why = "line " + strconv.FormatInt(n, 10) + ": " + reason
				break
			}
			want = append(want, line{n, keys, vals})
		}
		switch {
		case why != "" && err == nil:
			t.Fatalf("%q read without error, want one: %s", data, why)
		case why == "" && err != nil:
			t.Fatalf("%q: %v, want its lines read", data, err)
		case why == "" && !reflect.DeepEqual(got, want):
			t.Fatalf("%q read as\n%s\nwant\n%s", data, showLines(got), showLines(want))
		}
	})
}

// ndjsonOracle reads one line (raw as in the file; l without a first
// line's byte-order mark) as the ndjson kind must, or says why it must be
// refused.
func ndjsonOracle(raw, l []byte) (keys []string, vals []*string, why string) {
	if !utf8.Valid(raw) {
		return nil, nil, "not UTF-8"
	}
	if !json.Valid(l) {
		return nil, nil, "not valid JSON"
	}
	if loneSurrogateInStrings(l) {
		return nil, nil, "a lone surrogate escape"
	}
	dec := json.NewDecoder(bytes.NewReader(l))
	dec.UseNumber()
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, nil, "not an object"
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, "json.Decoder: " + err.Error() // json.Valid said it is valid
		}
		k := tok.(string)
		if seen[k] {
			return nil, nil, "key " + strconv.Quote(k) + " twice"
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, "json.Decoder: " + err.Error()
		}
		keys = append(keys, k)
		switch {
		case string(v) == "null":
			vals = append(vals, nil)
		case v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, nil, "json.Unmarshal: " + err.Error()
			}
			vals = append(vals, &s)
		case v[0] == '{' || v[0] == '[':
			var b strings.Builder
			vd := json.NewDecoder(bytes.NewReader(v))
			vd.UseNumber()
			if why := compactJSON(vd, &b); why != "" {
				return nil, nil, "key " + strconv.Quote(k) + ": " + why
			}
			s := b.String()
			vals = append(vals, &s)
		default:
			s := string(v)
			vals = append(vals, &s)
		}
	}
	return keys, vals, ""
}

// compactJSON writes the next value dec reads (valid JSON, no lone
// surrogate; dec with UseNumber) to b as the ndjson kind's text of a nested
// value: no white space between tokens, every string with the fewest
// escapes (\" \\ \b \f \n \r \t, other control characters \u00xx,
// anything else as itself), keys in order and numbers as written; or says
// why it cannot (an object that names a key twice, at any depth).
func compactJSON(dec *json.Decoder, b *strings.Builder) (why string) {
	tok, err := dec.Token()
	if err != nil {
		return "json.Decoder: " + err.Error()
	}
	switch t := tok.(type) {
	case json.Delim:
		b.WriteRune(rune(t))
		seen := map[string]bool{}
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return "json.Decoder: " + err.Error()
				}
				k := kt.(string)
				if seen[k] {
					return "key " + strconv.Quote(k) + " twice in a nested object"
				}
				seen[k] = true
				fewestEscapes(b, k)
				b.WriteByte(':')
			}
			if why := compactJSON(dec, b); why != "" {
				return why
			}
		}
		end, err := dec.Token()
		if err != nil {
			return "json.Decoder: " + err.Error()
		}
		b.WriteRune(rune(end.(json.Delim)))
	case string:
		fewestEscapes(b, t)
	case json.Number:
		b.WriteString(string(t))
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return ""
}

// fewestEscapes writes s as a JSON string with the fewest escapes.
func fewestEscapes(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// loneSurrogateInStrings says a string of the valid JSON text b holds a
// \uXXXX escape of a UTF-16 surrogate that is not half of a high-low pair.
func loneSurrogateInStrings(b []byte) bool {
	hex := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
		return rune(v), err == nil
	}
	in := false
	for i := 0; i < len(b); i++ {
		switch {
		case !in:
			in = b[i] == '"'
		case b[i] == '"':
			in = false
		case b[i] == '\\' && b[i+1] == 'u':
			r, _ := hex(i)
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if lo, ok := hex(i + 6); !ok || lo < 0xDC00 || lo > 0xDFFF {
					return true
				}
				i += 11
			case r >= 0xDC00 && r < 0xE000:
				return true
			default:
				i += 5
			}
		case b[i] == '\\':
			i++ // a two-byte escape
		}
	}
	return false
}

func showLines[L any](ls []L) string {
	var b strings.Builder
	for _, l := range ls {
		j, _ := json.Marshal(l)
		b.WriteString(string(j))
		b.WriteByte('\n')
	}
	return b.String()
}
