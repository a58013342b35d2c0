package checks

import (
	"errors"
	"fmt"
)

// notDecimal is measureDigits' error for a text value that is not a plain
// decimal number (ErrValue), with the hint for a value holding a comma,
// which depends on whether the input declares a decimal comma
// (Columns.decimalHint).
type notDecimal struct {
	err       error
	comma     bool   // the value holds a ','
	col, side string // the column, "source" or "sink"
	separator string // the input's decimal_separator: ("" when not set)
	// prefix comes before the message ("compared column rate: "): the
	// message is rendered only once separator is known, so the error is
	// not wrapped by fmt.Errorf, which would render it at once.
	prefix string
}

func (e *notDecimal) Unwrap() error { return e.err }

// Error is the message with its hint: where the input declares
// decimal_separator: ",", that it applies to measures and columns declared
// a number type only (package load), so this column needs a declared type;
// else that a decimal comma is read only when declared.
func (e *notDecimal) Error() string {
	switch {
	case !e.comma:
		return e.prefix + e.err.Error()
	case e.separator == ",":
		return fmt.Sprintf(`%s%s; decimal_separator: "," on the %s applies only to measures and to columns declared a number type: declare %s's type on the %s, such as types: {%s: DECIMAL(18,2)} (--%s-option 'types=%s:DECIMAL(18,2)')`,
			e.prefix, e.err, e.side, e.col, e.side, e.col, e.side, e.col)
	}
	return e.prefix + e.err.Error() + `; a decimal comma is read only when declared: decimal_separator: "," on the input (and thousands: "." if 1.234,50 is grouped)`
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
