package sqlserver

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
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
// type a Schemer reports as Column.Type), for the types the server kinds
// map; another type is named as Arrow names it.
//
// It is one of the two Arrow-to-DuckDB type maps under sources/ (the other
// is the Parquet kind's, sources/file, which its messages need): package
// internal/load names the loaded columns' types itself, from DuckDB.
func EngineType(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE"
		}
		return "TIMESTAMP"
	}
	switch t.ID() {
	case arrow.INT8:
		return "TINYINT"
	case arrow.UINT8:
		return "UTINYINT"
	case arrow.INT16:
		return "SMALLINT"
	case arrow.UINT16:
		return "USMALLINT"
	case arrow.INT32:
		return "INTEGER"
	case arrow.UINT32:
		return "UINTEGER"
	case arrow.INT64:
		return "BIGINT"
	case arrow.UINT64:
		return "UBIGINT"
	case arrow.FLOAT32:
		return "FLOAT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.STRING:
		return "VARCHAR"
	case arrow.BINARY:
		return "BLOB"
	case arrow.DATE32:
		return "DATE"
	case arrow.DURATION:
		return "INTERVAL"
	case arrow.BOOL:
		return "BOOLEAN"
	}
	return t.String()
}

// QuoteCut quotes the first 64 bytes of v for a message, saying so when v
// is longer (1234… is not the number 1234).
func QuoteCut(v []byte) string {
	if len(v) > 64 {
		return strconv.Quote(string(v[:64])) + fmt.Sprintf("… (%d bytes)", len(v))
	}
	return strconv.Quote(string(v))
}
