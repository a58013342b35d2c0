package sources

import (
	"fmt"
	"strings"
)

// tableNameRules are how one database writes a table name of at most two
// parts: its identifier quote (doubled inside a quoted part to stand for
// itself), what it does to an unquoted part (fold), and the words of the
// errors (qualified: "schema.name"; quoteHint: how to quote a part with a
// dot; tooMany: what to write instead of three parts).
type tableNameRules struct {
	quote                         byte
	fold                          func(string) string
	qualified, quoteHint, tooMany string
}

// splitTableName splits s into its one or two parts by r: each unquoted
// (trimmed, then folded) or quoted (kept exactly). Errors wrap
// ErrInvalidLocation: an unterminated quote, an empty part, text after a
// part that is not a dot, more than two parts.
func splitTableName(s string, r tableNameRules) ([]string, error) {
	var parts []string
	rest := strings.TrimSpace(s)
	for {
		var part string
		if rest != "" && rest[0] == r.quote {
			var b strings.Builder
			i := 1
			for ; i < len(rest); i++ {
				if rest[i] == r.quote {
					if i+1 < len(rest) && rest[i+1] == r.quote {
						b.WriteByte(r.quote)
						i++
						continue
					}
					break
				}
				b.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return nil, fmt.Errorf("%w: table %q: unterminated quoted name", ErrInvalidLocation, s)
			}
			part, rest = b.String(), rest[i+1:]
		} else {
			end := strings.IndexAny(rest, "."+string(r.quote))
			if end < 0 {
				end = len(rest)
			}
			part, rest = r.fold(strings.TrimSpace(rest[:end])), rest[end:]
		}
		if part == "" {
			return nil, fmt.Errorf("%w: table %q: empty name part (want %s or name)", ErrInvalidLocation, s, r.qualified)
		}
		parts = append(parts, part)
		if rest == "" {
			break
		}
		if rest[0] != '.' {
			return nil, fmt.Errorf("%w: table %q: unexpected %q after %q (want %s; %s)", ErrInvalidLocation, s, rest, part, r.qualified, r.quoteHint)
		}
		rest = rest[1:]
	}
	if len(parts) > 2 {
		return nil, fmt.Errorf("%w: table %q: %s", ErrInvalidLocation, s, r.tooMany)
	}
	return parts, nil
}

// tableOrQuery merges the table and query a database location gives in its
// URI (uTable, uQuery) with those of its options, each trimmed. A table or
// a query given in both places is an error wrapping ErrInvalidLocation.
func tableOrQuery(table, query, uTable, uQuery string) (string, string, error) {
	if uTable != "" {
		if table != "" {
			return "", "", fmt.Errorf("%w: the table is given twice (URI parameter and table: option)", ErrInvalidLocation)
		}
		table = uTable
	}
	if uQuery != "" {
		if query != "" {
			return "", "", fmt.Errorf("%w: the query is given twice (URI parameter and query: option)", ErrInvalidLocation)
		}
		query = uQuery
	}
	return strings.TrimSpace(table), strings.TrimSpace(query), nil
}
