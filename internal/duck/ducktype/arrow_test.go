package ducktype

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// Each Arrow type maps to the DuckDB type duckdb-go's Arrow interface
// loads it as; a type with no mapping keeps Arrow's name and says so.
func TestFromArrow(t *testing.T) {
	for _, c := range []struct {
		t    arrow.DataType
		want string
		ok   bool
	}{
		{arrow.PrimitiveTypes.Int8, "TINYINT", true},
		{arrow.PrimitiveTypes.Uint64, "UBIGINT", true},
		{arrow.PrimitiveTypes.Float64, "DOUBLE", true},
		{&arrow.Decimal128Type{Precision: 38, Scale: 10}, "DECIMAL(38,10)", true},
		{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "TIMESTAMP WITH TIME ZONE", true},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, "TIMESTAMP", true},
		{arrow.BinaryTypes.String, "VARCHAR", true},
		{arrow.BinaryTypes.LargeString, "VARCHAR", true},
		{arrow.BinaryTypes.Binary, "BLOB", true},
		{arrow.FixedWidthTypes.Date32, "DATE", true},
		{arrow.FixedWidthTypes.Boolean, "BOOLEAN", true},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), "list<item: int32, nullable>", false},
	} {
		got, ok := FromArrow(c.t)
		if got != c.want || ok != c.ok {
			t.Errorf("FromArrow(%s) = %q, %v; want %q, %v", c.t, got, ok, c.want, c.ok)
		}
	}
}
