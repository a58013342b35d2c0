package file

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// unifyParquet returns the columns of files whose own schemas are schemas:
// every file must have the same column names (in any order; the first
// file's order is kept), and each column's types are unified where no value
// can change:
//
//   - the same type stays;
//   - signed integers widen to the widest (int8 < int16 < int32 < int64),
//     unsigned ones likewise, and an unsigned integer joins a signed one
//     only when the signed one is wider;
//   - DECIMAL(p1,s1) and DECIMAL(p2,s2) become DECIMAL(p,s) with s =
//     max(s1,s2) and p = max(p1-s1, p2-s2) + s, which holds every value of
//     both exactly; when p would exceed 38 (the widest decimal DuckDB
//     holds), DECIMAL(38,s), each value checked as it is read;
//   - utf8 and large_utf8 become utf8.
//
// Anything else — an integer and text (a BIGINT 7 and a text "007"), a
// decimal and a float, a timestamp of another unit — is an ErrSchema, never
// a cast to one file's type (what DuckDB's read_parquet does by default).
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
				return nil, fmt.Errorf("%w: column %s is %s in %s but %s in %s; no type holds both without changing a value (reconcile never casts one file to another's type)", ErrSchema, f.Name, arrowTypeName(out[i].Type), files[from[i]].Name, arrowTypeName(f.Type), files[k].Name)
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

// unifyType returns the type that holds every value of a and b unchanged.
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
	da, oka := a.(*arrow.Decimal128Type)
	db, okb := b.(*arrow.Decimal128Type)
	if oka && okb {
		s := max(da.Scale, db.Scale)
		p := max(da.Precision-da.Scale, db.Precision-db.Scale) + s
		return &arrow.Decimal128Type{Precision: min(p, 38), Scale: s}, true
	}
	return nil, false
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
// the types a unified column can have; "" for others.
func duckType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.DECIMAL128:
		name, _ := ducktype.FromArrow(t)
		return name
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

// convertArray returns a as type to (a unified type of a's, see
// unifyType), changing no value; the caller releases the result. A decimal
// that does not fit DECIMAL(38,s) is an error naming file, line, column and
// value. firstLine is the __line of a's first value.
func convertArray(a arrow.Array, to arrow.DataType, file, col string, firstLine int64) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), to) {
		a.Retain()
		return a, nil
	}
	mem := memory.DefaultAllocator
	n := a.Len()
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
		src := a.(*array.Decimal128)
		up := dt.Scale - src.DataType().(*arrow.Decimal128Type).Scale
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := src.Value(i).IncreaseScaleBy(up)
			if !v.FitsInPrecision(dt.Precision) {
				return nil, fmt.Errorf("%w: %s:%d: column %s: value %s does not fit %s, the widest decimal that holds every file's scale", ErrSchema, file, firstLine+int64(i), col, src.ValueStr(i), duckType(dt))
			}
			b.Append(v)
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
