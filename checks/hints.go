package checks

import (
	"errors"
	"fmt"

	"github.com/reconcile-dev/reconcile/internal/load"
)

// notDecimal is measureDigits' error for a text value that is not a plain
// decimal number (ErrValue), with the hint for a value holding a comma,
// which depends on whether the input declares a decimal comma
// (Columns.decimalHint).
type notDecimal struct {
	err       error
	value     string // the value, when it holds a ',' ("" otherwise)
	col, side string // the column, "source" or "sink"
	separator string // the input's decimal_separator: ("" when not set)
	// prefix comes before the message ("compared column rate: "): the
	// message is rendered only once separator is known, so the error is
	// not wrapped by fmt.Errorf, which would render it at once.
	prefix string
}

func (e *notDecimal) Unwrap() error { return e.err }

// Error is the message with its hint for a value holding a comma: where
// the input declares decimal_separator: ",", that it applies to measures
// and columns declared a number type only (package load), so this column
// needs a declared type; else the option that reads the value as written
// (load.CommaHint: thousands: "," for 1,000.00, decimal_separator: ","
// for 12,50, both named for 1,000).
func (e *notDecimal) Error() string {
	switch {
	case e.value == "":
		return e.prefix + e.err.Error()
	case e.separator == ",":
		return fmt.Sprintf(`%s%s; decimal_separator: "," on the %s applies only to measures and to columns declared a number type: declare %s's type on the %s, such as types: {%s: DECIMAL(18,2)} (--%s-option 'types=%s:DECIMAL(18,2)')`,
			e.prefix, e.err, e.side, e.col, e.side, e.col, e.side, e.col)
	}
	return e.prefix + e.err.Error() + load.CommaHint(e.value, " on the input")
}

// decimalHint is err with the inputs' decimal separators set on a
// notDecimal in its chain, so its hint fits what the input declares.
func (c Columns) decimalHint(err error) error {
	var nd *notDecimal
	if errors.As(err, &nd) {
		nd.separator = map[string]string{"source": c.SourceDecimalSeparator, "sink": c.SinkDecimalSeparator}[nd.side]
	}
	return err
}
