package duck

import (
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// Overflow reports whether err, anywhere in its chain, is DuckDB's
// out-of-range error of an arithmetic overflow (a sum or difference beyond
// its type, such as "Overflow in HUGEINT addition" of two DECIMAL(38,s)
// values), and returns DuckDB's message without the statement.
func Overflow(err error) (msg string, ok bool) {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfRange && strings.Contains(de.Msg, "Overflow") {
		return de.Msg, true
	}
	return "", false
}
