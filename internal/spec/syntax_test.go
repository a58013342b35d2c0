package spec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A YAML syntax error names the line that holds the error. yaml.v3 names
// the line before for its parser's errors (an unclosed "[" on line 4 said
// "line 3"), and the first key of the enclosing mapping for a stray token
// below it (a stray "]" on line 3 said "line 1"). Each spec marks its
// erroneous line with "<<"; the scanner's errors (an unclosed quote, a key
// indented under a scalar, a tab) were right and stay as they were.
func TestSyntaxErrorLine(t *testing.T) {
	for _, tt := range []struct{ name, spec, problem string }{
		{"unclosed [ mid-spec", "name: x\nsource: a.csv\nsink: b.csv\nid: [entry_id <<\nmeasures: amount\nout: ev\n", "did not find expected ',' or ']'"},
		{"unclosed [ on the last line", "name: x\nsource: a.csv\nid: [a, b <<\n", "did not find expected ',' or ']'"},
		{"unclosed [ on the first line", "id: [a <<\nsink: b.csv\n", "did not find expected ',' or ']'"},
		{"unclosed [ after a comment", "# the ledger\n\nname: x\nmeasures: [amount, <<\n  fee\nout: ev\n", "did not find expected ',' or ']'"},
		{"unclosed {", "name: x\nsource: {uri: a.csv <<\nsink: b.csv\n", "did not find expected ',' or '}'"},
		{"[ open at the end", "name: x\nsource: a.csv\nid: [a, <<\n", "did not find expected node content"},
		{"[ open before a comment", "id: [a, <<\n# the end\n", "did not find expected node content"},
		{"[ open after a closed one", "ids: [a,\n  b]\nx: [c, <<\n", "did not find expected node content"},
		{"stray ]", "# the ledger\nname: x\nid: [a, b]] <<\nsink: b\n", "did not find expected key"},
		{"key indented less", "# the ledger\nname: x\nsource:\n  uri: a.csv\n delimiter: \";\" <<\nsink: b.csv\n", "did not find expected key"},
		{"key in a list", "name: x\nmeasures:\n  - a\n  b: 1 <<\n", "did not find expected '-' indicator"},
		{"unclosed quote (scanner)", "name: x\nsource: \"a.csv <<\nsink: b.csv\n", "found unexpected end of stream"},
		{"key under a scalar (scanner)", "name: x\nsource: a.csv\n  sink: b.csv <<\nid: a\n", "mapping values are not allowed in this context"},
		{"tab (scanner)", "name: x\nsource:\n\turi: a.csv <<\n", "found character that cannot start any token"},
	} {
		var want int
		for i, l := range strings.Split(tt.spec, "\n") {
			if strings.HasSuffix(l, " <<") {
				want = i + 1
			}
		}
		spec := strings.ReplaceAll(tt.spec, " <<", "")
		_, err := Parse([]byte(spec))
		wantMsg := fmt.Sprintf("yaml: line %d: %s", want, tt.problem)
		if !errors.Is(err, ErrInvalid) || !strings.HasSuffix(err.Error(), wantMsg) {
			t.Errorf("%s: %v\nwant %q for\n%s", tt.name, err, wantMsg, spec)
		}
	}
}
