package sqlserver

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
)

// MaxDecimalDigits is the widest decimal Arrow's decimal128 and DuckDB's
// DECIMAL hold.
const MaxDecimalDigits = 38

// DecimalType is the decimal128 for a server's DECIMAL(p,s) or numeric(p,s):
// a negative scale (numeric(5,-2) holds multiples of 100) widens the
// integer part, a scale above the precision (numeric(3,5) holds 0.00xyz)
// widens the precision, and a precision above 38 is capped at 38, each
// value then being checked as it is read.
func DecimalType(p, s int32) *arrow.Decimal128Type {
	if s < 0 {
		p, s = p-s, 0
	}
	if s > p {
		p = s
	}
	if p > MaxDecimalDigits {
		p = MaxDecimalDigits
	}
	if p < 1 {
		p = 1
	}
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

// EngineType is the DuckDB type a column of Arrow type t loads as (the
// type a Schemer reports as Column.Type), as ducktype.FromArrow, the one
// Arrow-to-DuckDB map, gives it; a type it does not map is named as Arrow
// names it.
func EngineType(t arrow.DataType) string {
	name, _ := ducktype.FromArrow(t)
	return name
}

// QuoteCut quotes the first 64 bytes of v for a message, saying so when v
// is longer (1234… is not the number 1234).
func QuoteCut(v []byte) string {
	if len(v) > 64 {
		return strconv.Quote(string(v[:64])) + fmt.Sprintf("… (%d bytes)", len(v))
	}
	return strconv.Quote(string(v))
}
