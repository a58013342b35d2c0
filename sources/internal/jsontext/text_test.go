package jsontext

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The text a nested JSON value is compared by: white space between tokens
// dropped and strings written with the fewest escapes (spellings of the same
// value), keys in their order and numbers as written (kept), a key given
// twice at any depth refused.
func TestAppendText(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{`{"b": 1}`, `{"b":1}`, ""},
		{" [ \"x\" ,\t{\"k\" :\n\"v\"} ] ", `["x",{"k":"v"}]`, ""},
		{`{"a": 1, "b": 2}`, `{"a":1,"b":2}`, ""},
		{`{"b": 2, "a": 1}`, `{"b":2,"a":1}`, ""},
		{`[1.50, 1.5, 1e2, 100, -0, 0.0]`, `[1.50,1.5,1e2,100,-0,0.0]`, ""},
		{`{"c":"\u00e9t\u00e9","p":"a\/b"}`, `{"c":"été","p":"a/b"}`, ""},
		{`["tab\u0009here","nl\n","q\"","bs\\","\u0001","\u001F","\uD83D\uDE00","\u2028"]`, "[\"tab\\there\",\"nl\\n\",\"q\\\"\",\"bs\\\\\",\"\\u0001\",\"\\u001f\",\"😀\",\"\u2028\"]", ""},
		{`{"s": "with space", "t": true, "n": null}`, `{"s":"with space","t":true,"n":null}`, ""},
		{`{"a":1,"a":2}`, "", `key "a" appears twice`},
		{`{"m":{"x":{"a":1,"b":2,"a":3}}}`, "", `key "a" appears twice`},
		{`[{"a":1},{"a":1,"\u0061":2}]`, "", `key "a" appears twice`},
		{`{"a":{"a":1},"b":{"a":2}}`, `{"a":{"a":1},"b":{"a":2}}`, ""},
		{`["a","a"]`, `["a","a"]`, ""},
		{`["\ud800"]`, "", "half of a UTF-16 surrogate pair"},
	} {
		got, err := AppendText(nil, []byte(c.in))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %q, %v; want an error %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("%s: %s, %v; want %s", c.in, got, err, c.want)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%s: %s is not JSON", c.in, got)
		}
	}
	// Many keys (a set past the first 16): a repeat is still found.
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"k7":0}`)
	if _, err := AppendText(nil, []byte(b.String())); err == nil || !strings.Contains(err.Error(), `"k7"`) {
		t.Errorf("100 keys and k7 again: %v", err)
	}
}

// Every string, escaped or not, comes out as the one text encoding/json
// reads back as the same string.
func TestAppendTextRoundTrip(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		for _, in := range []string{fmt.Sprintf(`"\u%04x"`, r), string(mustMarshal(t, string(r)))} {
			if r >= 0xD800 && r <= 0xDFFF {
				continue
			}
			got, err := AppendText(nil, []byte(in))
			var back string
			if err != nil || json.Unmarshal(got, &back) != nil || back != string(r) {
				t.Fatalf("%U %s: %s, %v", r, in, got, err)
			}
			if again, _ := AppendText(nil, got); string(again) != string(got) {
				t.Fatalf("%U: %s then %s: not one text", r, got, again)
			}
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
