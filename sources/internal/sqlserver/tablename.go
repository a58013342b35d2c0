package sqlserver

import (
	"errors"
	"fmt"
	"strings"
)

// TableNameRules are how one database writes a table name of at most two
// parts: its identifier quote (doubled inside a quoted part to stand for
// itself), what it does to an unquoted part (Fold), and the words of the
// errors (Qualified: "schema.name"; QuoteHint: how to quote a part with a
// dot; TooMany: what to write instead of three parts).
type TableNameRules struct {
	Quote                         byte
	Fold                          func(string) string
	Qualified, QuoteHint, TooMany string
}

// SplitTableName splits s into its one or two parts by r: each unquoted
// (trimmed, then folded) or quoted (kept exactly). Errors — an
// unterminated quote, an empty part, text after a part that is not a dot,
// more than two parts — name the table; the caller wraps them in
// sources.ErrInvalidLocation ("%w: %w"), which this package does not
// import.
func SplitTableName(s string, r TableNameRules) ([]string, error) {
	var parts []string
	rest := strings.TrimSpace(s)
	for {
		var part string
		if rest != "" && rest[0] == r.Quote {
			var b strings.Builder
			i := 1
			for ; i < len(rest); i++ {
				if rest[i] == r.Quote {
					if i+1 < len(rest) && rest[i+1] == r.Quote {
						b.WriteByte(r.Quote)
						i++
						continue
					}
					break
				}
				b.WriteByte(rest[i])
			}
			if i >= len(rest) {
				return nil, fmt.Errorf("table %q: unterminated quoted name", s)
			}
			part, rest = b.String(), rest[i+1:]
		} else {
			end := strings.IndexAny(rest, "."+string(r.Quote))
			if end < 0 {
				end = len(rest)
			}
			part, rest = r.Fold(strings.TrimSpace(rest[:end])), rest[end:]
		}
		if part == "" {
			return nil, fmt.Errorf("table %q: empty name part (want %s or name)", s, r.Qualified)
		}
		parts = append(parts, part)
		if rest == "" {
			break
		}
		if rest[0] != '.' {
			return nil, fmt.Errorf("table %q: unexpected %q after %q (want %s; %s)", s, rest, part, r.Qualified, r.QuoteHint)
		}
		rest = rest[1:]
	}
	if len(parts) > 2 {
		return nil, fmt.Errorf("table %q: %s", s, r.TooMany)
	}
	return parts, nil
}

// TableOrQuery merges the table and query a database location gives in its
// URI (uTable, uQuery) with those of its options, each trimmed. A table or
// a query given in both places is an error, which the caller wraps in
// sources.ErrInvalidLocation as SplitTableName's.
func TableOrQuery(table, query, uTable, uQuery string) (string, string, error) {
	if uTable != "" {
		if table != "" {
			return "", "", errors.New("the table is given twice (URI parameter and table: option)")
		}
		table = uTable
	}
	if uQuery != "" {
		if query != "" {
			return "", "", errors.New("the query is given twice (URI parameter and query: option)")
		}
		query = uQuery
	}
	return strings.TrimSpace(table), strings.TrimSpace(query), nil
}
