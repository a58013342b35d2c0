package file

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
)

// ErrSchema is returned when the files of one input declare a column with
// types that cannot be unified without changing a value, or a column one
// file lacks. The message names both files, the column and both types. It
// is an input error (exit 3).
var ErrSchema = fault.Runtime.New("sources: files of one input differ in schema")

// unifyParquet returns the columns of files whose own schemas are schemas
// (as parquetSchema gives them: the types DuckDB reads each file's columns
// as): every file must have the same column names (in any order; the first
// file's order is kept), and each column's types are unified where no value
// can change:
//
//   - the same type stays;
//   - signed integers widen to the widest (int8 < int16 < int32 < int64),
//     unsigned ones likewise, and an unsigned integer joins a signed one
//     only when the signed one is wider;
//   - DECIMAL(p1,s1) and DECIMAL(p2,s2) become DECIMAL(p,s) with s =
//     max(s1,s2) and p = max(p1-s1, p2-s2) + s, which holds every value of
//     both exactly; when p exceeds 38 (the widest decimal DuckDB holds), or
//     a file declares more than 38 digits, the column is a 256-bit decimal
//     of that p and s here, and its type is then sized from the values
//     (sizeDecimals: the narrowest exact type they need);
//   - timestamps of one kind — adjusted to UTC (instants) or not (wall-clock
//     times) — in milliseconds, microseconds or nanoseconds become the
//     finest unit (DuckDB's TIMESTAMP, TIMESTAMP WITH TIME ZONE, or
//     TIMESTAMP_NS whose range each coarser value is checked against:
//     checkValues); times of day likewise (TIME, TIME_NS);
//   - utf8 and large_utf8 become utf8.
//
// Anything else — an integer and text (a BIGINT 7 and a text "007"), a
// decimal and a float, an instant and a wall-clock time, a date and a
// timestamp — is an ErrSchema naming both files, the column, both types and
// why (whyNot), never a cast to one file's type (what DuckDB's read_parquet
// does by default).
func unifyParquet(files []sources.ScanFile, schemas [][]arrow.Field) ([]arrow.Field, error) {
	if len(files) == 0 {
		return nil, nil
	}
	out := append([]arrow.Field{}, schemas[0]...)
	from := make([]int, len(out)) // which file gave each column's type
	index := map[string]int{}
	for i, f := range out {
		index[f.Name] = i
	}
	for k := 1; k < len(files); k++ {
		have := map[string]bool{}
		for _, f := range schemas[k] {
			have[f.Name] = true
			i, ok := index[f.Name]
			if !ok {
				return nil, fmt.Errorf("%w: %s has a column %s (%s) that %s lacks; every file of one input must have the same columns", ErrSchema, files[k].Name, f.Name, arrowTypeName(f.Type), files[0].Name)
			}
			t, ok := unifyType(out[i].Type, f.Type)
			if !ok {
				return nil, fmt.Errorf("%w: column %s is %s in %s but %s in %s; %s (reconcile never casts one file to another's type)", ErrSchema, f.Name, arrowTypeName(out[i].Type), files[from[i]].Name, arrowTypeName(f.Type), files[k].Name, whyNot(out[i].Type, f.Type))
			}
			if !arrow.TypeEqual(t, out[i].Type) {
				out[i].Type, from[i] = t, k
			}
		}
		for _, f := range out {
			if !have[f.Name] {
				return nil, fmt.Errorf("%w: %s has no column %s, which %s has (%s); every file of one input must have the same columns", ErrSchema, files[k].Name, f.Name, files[0].Name, arrowTypeName(f.Type))
			}
		}
	}
	return out, nil
}

// maxDecimalDigits is the widest DECIMAL DuckDB holds (a 128-bit integer).
const maxDecimalDigits = 38

// unifyType returns the type that holds every value of a and b unchanged
// (a 256-bit decimal for decimals that need more than 38 digits together:
// their values size it).
func unifyType(a, b arrow.DataType) (arrow.DataType, bool) {
	if arrow.TypeEqual(a, b) {
		return a, true
	}
	if isString(a) && isString(b) {
		return arrow.BinaryTypes.String, true
	}
	sa, wa, ia := intWidth(a)
	sb, wb, ib := intWidth(b)
	if ia && ib {
		switch {
		case sa == sb && wa >= wb:
			return a, true
		case sa == sb:
			return b, true
		case sa && wa > wb:
			return a, true
		case sb && wb > wa:
			return b, true
		}
		return nil, false
	}
	da, oka := a.(arrow.DecimalType)
	db, okb := b.(arrow.DecimalType)
	if oka && okb {
		s := max(da.GetScale(), db.GetScale())
		p := max(da.GetPrecision()-da.GetScale(), db.GetPrecision()-db.GetScale()) + s
		if p > maxDecimalDigits || a.ID() == arrow.DECIMAL256 || b.ID() == arrow.DECIMAL256 {
			return &arrow.Decimal256Type{Precision: p, Scale: s}, true
		}
		return &arrow.Decimal128Type{Precision: p, Scale: s}, true
	}
	ta, oka := a.(*arrow.TimestampType)
	tb, okb := b.(*arrow.TimestampType)
	if oka && okb && (ta.TimeZone == "") == (tb.TimeZone == "") {
		return &arrow.TimestampType{Unit: max(ta.Unit, tb.Unit), TimeZone: ta.TimeZone}, true
	}
	if ua, ok := timeUnit(a); ok {
		if ub, ok := timeUnit(b); ok {
			if u := max(ua, ub); u == arrow.Nanosecond {
				return arrow.FixedWidthTypes.Time64ns, true
			}
			return arrow.FixedWidthTypes.Time64us, true
		}
	}
	return nil, false
}

// timeUnit is the unit of a time-of-day type.
func timeUnit(t arrow.DataType) (arrow.TimeUnit, bool) {
	switch x := t.(type) {
	case *arrow.Time32Type:
		return x.Unit, true
	case *arrow.Time64Type:
		return x.Unit, true
	}
	return 0, false
}

// whyNot says why a and b, which unifyType does not unify, have no type that
// holds both, for the error.
func whyNot(a, b arrow.DataType) string {
	_, oka := a.(*arrow.TimestampType)
	_, okb := b.(*arrow.TimestampType)
	if oka && okb {
		return "one is adjusted to UTC (isAdjustedToUTC: instants, TIMESTAMP WITH TIME ZONE), the other is not (wall-clock times, TIMESTAMP): the files do not say which zone the wall-clock times are in, and reconcile does not guess it"
	}
	isDate := func(t arrow.DataType) bool { return t.ID() == arrow.DATE32 || t.ID() == arrow.DATE64 }
	if (isDate(a) && okb) || (oka && isDate(b)) {
		return "a DATE is a day, not the instant or wall-clock time of its midnight"
	}
	return "no type holds both without changing a value"
}
func isString(t arrow.DataType) bool {
	return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
}

// intWidth says whether t is an integer type, signed, and its width in bits.
func intWidth(t arrow.DataType) (signed bool, bits int, ok bool) {
	switch t.ID() {
	case arrow.INT8:
		return true, 8, true
	case arrow.INT16:
		return true, 16, true
	case arrow.INT32:
		return true, 32, true
	case arrow.INT64:
		return true, 64, true
	case arrow.UINT8:
		return false, 8, true
	case arrow.UINT16:
		return false, 16, true
	case arrow.UINT32:
		return false, 32, true
	case arrow.UINT64:
		return false, 64, true
	}
	return false, 0, false
}

// duckType is the DuckDB type DuckDB reads an Arrow (Parquet) type as, for
// the types a unified column can have; "" for others (a 256-bit decimal,
// which the values size to a DECIMAL first).
func duckType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.DECIMAL128, arrow.DATE32:
		name, _ := ducktype.FromArrow(t)
		return name
	case arrow.TIMESTAMP:
		// read_parquet reads a zone-less TIMESTAMP(NANOS) as TIMESTAMP_NS.
		if ts := t.(*arrow.TimestampType); ts.TimeZone == "" && ts.Unit == arrow.Nanosecond {
			return "TIMESTAMP_NS"
		}
		name, _ := ducktype.FromArrow(t)
		return name
	case arrow.TIME32:
		return "TIME"
	case arrow.TIME64:
		if t.(*arrow.Time64Type).Unit == arrow.Nanosecond {
			return "TIME_NS"
		}
		return "TIME"
	}
	return ""
}

// arrowTypeName names an Arrow type for messages: the DuckDB type and the Arrow
// type ("BIGINT (int64)").
func arrowTypeName(t arrow.DataType) string {
	if d := duckType(t); d != "" {
		return d + " (" + t.String() + ")"
	}
	return t.String()
}

// convertArray returns a (a file's column as pqarrow reads it) as type to
// (its unified type, see unifyType, or the type sizeDecimals found for its
// values), changing no value; the caller releases the result. A value the
// type does not hold — a decimal of more digits, a timestamp beyond
// TIMESTAMP_NS's range, a nanosecond timestamp read in microseconds — is
// one checkValues listed: with lenient (bad_records: report) it becomes
// NULL, its row being removed by the loader, else it is an error naming
// file, row, column and value. firstLine is the __line of a's first value.
func convertArray(a arrow.Array, to arrow.DataType, file, col string, firstLine int64, lenient bool) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), to) {
		a.Retain()
		return a, nil
	}
	mem := memory.DefaultAllocator
	n := a.Len()
	notHeld := func(i int, what string) error {
		return fmt.Errorf("%s:%d: column %s: value %s %s", file, firstLine+int64(i), col, a.ValueStr(i), what)
	}
	switch {
	case isString(to):
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		src := a.(array.StringLike)
		for i := range n {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(src.Value(i))
			}
		}
		return b.NewArray(), nil
	case to.ID() == arrow.DECIMAL128:
		dt := to.(*arrow.Decimal128Type)
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, ok := rescale(a, i, dt)
			switch {
			case ok:
				b.Append(v)
			case lenient:
				b.AppendNull()
			default:
				return nil, notHeld(i, fmt.Sprintf("does not fit %s, the type the column's values are read as", duckType(dt)))
			}
		}
		return b.NewArray(), nil
	case to.ID() == arrow.TIMESTAMP:
		src, ok := a.(*array.Timestamp)
		if !ok {
			break
		}
		from := a.DataType().(*arrow.TimestampType).Unit
		b := array.NewTimestampBuilder(mem, to.(*arrow.TimestampType))
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, ok := changeUnit(int64(src.Value(i)), from, to.(*arrow.TimestampType).Unit)
			switch {
			case ok:
				b.Append(arrow.Timestamp(v))
			case lenient:
				b.AppendNull()
			default:
				return nil, notHeld(i, "is beyond TIMESTAMP_NS (1677-09-21 to 2262-04-11), the type the column is read as")
			}
		}
		return b.NewArray(), nil
	case to.ID() == arrow.TIME64:
		var from arrow.TimeUnit
		var value func(int) int64
		switch x := a.(type) {
		case *array.Time32:
			from, value = x.DataType().(*arrow.Time32Type).Unit, func(i int) int64 { return int64(x.Value(i)) }
		case *array.Time64:
			from, value = x.DataType().(*arrow.Time64Type).Unit, func(i int) int64 { return int64(x.Value(i)) }
		default:
			return nil, fmt.Errorf("sources: no conversion of %s to %s", a.DataType(), to)
		}
		b := array.NewTime64Builder(mem, to.(*arrow.Time64Type))
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, _ := changeUnit(value(i), from, to.(*arrow.Time64Type).Unit) // a day fits any unit
			b.Append(arrow.Time64(v))
		}
		return b.NewArray(), nil
	}
	signed, _, ok := intWidth(to)
	if !ok {
		return nil, fmt.Errorf("sources: no conversion of %s to %s", a.DataType(), to)
	}
	b := array.NewBuilder(mem, to)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		if signed {
			appendInt(b, intValue(a, i))
		} else {
			appendUint(b, uintValue(a, i))
		}
	}
	return b.NewArray(), nil
}

// unitsPerSecond is how many of each time unit a second has.
var unitsPerSecond = map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}

// changeUnit returns v, a count of from units, in to units: exact when to
// is finer (ok is false when it overflows 64 bits), truncated when coarser
// (the values that lose digits are listed by checkValues).
func changeUnit(v int64, from, to arrow.TimeUnit) (int64, bool) {
	f, t := unitsPerSecond[from], unitsPerSecond[to]
	if t <= f {
		return v / (f / t), true
	}
	m := t / f
	if v > math.MaxInt64/m || v < math.MinInt64/m {
		return 0, false
	}
	return v * m, true
}

// rescale returns value i of a (a 128- or 256-bit decimal) as a decimal of
// dt, and whether dt holds it exactly.
func rescale(a arrow.Array, i int, dt *arrow.Decimal128Type) (decimal128.Num, bool) {
	if src, ok := a.(*array.Decimal128); ok {
		up := dt.Scale - src.DataType().(*arrow.Decimal128Type).Scale
		if up >= 0 {
			// Scaled only when it fits: IncreaseScaleBy panics beyond 128
			// bits.
			if v := src.Value(i); up <= dt.Precision && v.FitsInPrecision(dt.Precision-up) {
				return v.IncreaseScaleBy(up), true
			}
			return decimal128.Num{}, false
		}
	}
	v, scale, ok := decimalBig(a, i)
	if !ok {
		return decimal128.Num{}, false
	}
	ten := big.NewInt(10)
	switch k := dt.Scale - scale; {
	case k > 0:
		v.Mul(v, new(big.Int).Exp(ten, big.NewInt(int64(k)), nil))
	case k < 0:
		q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(ten, big.NewInt(int64(-k)), nil), new(big.Int))
		if r.Sign() != 0 {
			return decimal128.Num{}, false
		}
		v = q
	}
	if new(big.Int).Abs(v).Cmp(new(big.Int).Exp(ten, big.NewInt(int64(dt.Precision)), nil)) >= 0 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(v), true
}

// decimalBig is value i of a decimal array as its unscaled integer and
// scale.
func decimalBig(a arrow.Array, i int) (*big.Int, int32, bool) {
	switch x := a.(type) {
	case *array.Decimal128:
		return x.Value(i).BigInt(), x.DataType().(*arrow.Decimal128Type).Scale, true
	case *array.Decimal256:
		return x.Value(i).BigInt(), x.DataType().(*arrow.Decimal256Type).Scale, true
	}
	return nil, 0, false
}

func intValue(a arrow.Array, i int) int64 {
	switch x := a.(type) {
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.Uint8:
		return int64(x.Value(i))
	case *array.Uint16:
		return int64(x.Value(i))
	case *array.Uint32:
		return int64(x.Value(i))
	}
	panic("sources: intValue of " + a.DataType().String())
}

func uintValue(a arrow.Array, i int) uint64 {
	switch x := a.(type) {
	case *array.Uint8:
		return uint64(x.Value(i))
	case *array.Uint16:
		return uint64(x.Value(i))
	case *array.Uint32:
		return uint64(x.Value(i))
	case *array.Uint64:
		return x.Value(i)
	}
	panic("sources: uintValue of " + a.DataType().String())
}

func appendInt(b array.Builder, v int64) {
	switch x := b.(type) {
	case *array.Int8Builder:
		x.Append(int8(v))
	case *array.Int16Builder:
		x.Append(int16(v))
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int64Builder:
		x.Append(v)
	}
}

func appendUint(b array.Builder, v uint64) {
	switch x := b.(type) {
	case *array.Uint8Builder:
		x.Append(uint8(v))
	case *array.Uint16Builder:
		x.Append(uint16(v))
	case *array.Uint32Builder:
		x.Append(uint32(v))
	case *array.Uint64Builder:
		x.Append(v)
	}
}
