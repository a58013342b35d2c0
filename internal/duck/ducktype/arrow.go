package ducktype

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// FromArrow is the DuckDB type a column of Arrow type t loads as: the one
// Arrow-to-DuckDB type map of reconcile (the mapping of duckdb-go's Arrow
// interface, DuckDB documentation "Arrow Extension": integers keep their
// width and sign, decimal128(p,s) is DECIMAL(p,s), a timestamp with a time
// zone is TIMESTAMP WITH TIME ZONE and one without is TIMESTAMP, utf8 is
// VARCHAR, binary BLOB, date32 DATE, duration INTERVAL). For a type it does
// not map it returns t as Arrow names it ("large_utf8", "list<item: …>"),
// and ok false.
//
// The input kinds use it for the column types a Schemer reports before a
// row is read (sources.Column.Type) and for messages; what a loaded table
// holds, internal/load reads from DuckDB itself.
func FromArrow(t arrow.DataType) (name string, ok bool) {
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale), true
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE", true
		}
		return "TIMESTAMP", true
	}
	if n, ok := fromArrowID[t.ID()]; ok {
		return n, true
	}
	return t.String(), false
}

var fromArrowID = map[arrow.Type]string{
	arrow.INT8: "TINYINT", arrow.INT16: "SMALLINT", arrow.INT32: "INTEGER", arrow.INT64: "BIGINT",
	arrow.UINT8: "UTINYINT", arrow.UINT16: "USMALLINT", arrow.UINT32: "UINTEGER", arrow.UINT64: "UBIGINT",
	arrow.FLOAT32: "FLOAT", arrow.FLOAT64: "DOUBLE",
	arrow.STRING: "VARCHAR", arrow.LARGE_STRING: "VARCHAR", arrow.BINARY: "BLOB",
	arrow.DATE32: "DATE", arrow.DURATION: "INTERVAL", arrow.BOOL: "BOOLEAN",
}
