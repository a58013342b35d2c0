package postgres

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// splitPGKeywords removes the table and query settings from a libpq
// key=value connection string ("host=h dbname=d query='SELECT 1 AS id'")
// and returns them unquoted; the other settings are kept as written, for
// pgx. The syntax is libpq's (PostgreSQL docs, "Connection Strings",
// Keyword/Value): settings separated by white space, each keyword = value
// with optional spaces around the '=', a value in single quotes when it is
// empty or holds spaces, and a backslash escaping the next character (\'
// and \\) in a quoted or unquoted value.
//
// Errors wrap ErrInvalidLocation: a setting without '=', or a quoted value
// without its closing quote (the message names the keyword, never a
// value, which may be a password).
func splitPGKeywords(s string) (conn, table, query string, err error) {
	var keep []string
	found := false
	i := 0
	for {
		for i < len(s) && isPGSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			break
		}
		start := i
		for i < len(s) && s[i] != '=' && !isPGSpace(s[i]) {
			i++
		}
		key := s[start:i]
		for i < len(s) && isPGSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return "", "", "", fmt.Errorf("%w: connection string: setting %q has no '=' (want keyword=value; a value with spaces is quoted 'like this', with \\' for a quote and \\\\ for a backslash)", sources.ErrInvalidLocation, key)
		}
		i++
		for i < len(s) && isPGSpace(s[i]) {
			i++
		}
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					val.WriteByte(s[i+1])
					i += 2
					continue
				}
				i++
				if c == '\'' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return "", "", "", fmt.Errorf("%w: connection string: the value of %s has no closing quote", sources.ErrInvalidLocation, key)
			}
		} else {
			for i < len(s) && !isPGSpace(s[i]) {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
		}
		switch key {
		case "table":
			table, found = val.String(), true
		case "query":
			query, found = val.String(), true
		default:
			keep = append(keep, s[start:i])
		}
	}
	if !found {
		return s, "", "", nil
	}
	return strings.Join(keep, " "), table, query, nil
}

// isPGSpace is white space as libpq's connection string parser reads it
// (isspace in the C locale).
func isPGSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
