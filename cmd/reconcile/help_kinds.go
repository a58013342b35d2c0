package main

import (
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// inputKindsHelp is the paragraph of run --help on inputs, its list of
// kinds generated from the sources registry (every kind sources/all
// registers, with its aliases; those holding a ":" are scheme forms of a
// prefixed kind, iceberg+sql:postgres, and left out), wrapped at 76
// columns.
func inputKindsHelp() string {
	var files, servers []string
	for _, k := range sources.Kinds() {
		name := k
		var as []string
		for _, a := range sources.Aliases(k) {
			if !strings.Contains(a, ":") {
				as = append(as, a)
			}
		}
		if len(as) > 0 {
			name += " (" + strings.Join(as, ", ") + ")"
		}
		if sources.IsFileKind(k) {
			files = append(files, name)
		} else {
			servers = append(servers, name)
		}
	}
	text := `Inputs (--source, --sink) are a file, a folder or a glob of files (names
and folders starting with "." or "_" are skipped), or a URI. Kinds of files: ` + strings.Join(files, ", ") +
		`. Kinds of servers and catalogs: ` + strings.Join(servers, ", ") + `. A kind is taken from the spec's kind: option,
a scheme (postgres://…?table=schema.name or ?query=SELECT…), a kind: prefix
(csv:exports/part-*) or the file extension (also .gz or .zst after it); a
folder without one is read as the kind its files' extensions agree on
(docs/inputs.md).`
	return wrap(text, 76)
}

// wrap fills text's words into lines of at most width columns (a longer
// word stands on a line of its own).
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		l := len([]rune(w))
		switch {
		case n == 0:
		case n+1+l > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
