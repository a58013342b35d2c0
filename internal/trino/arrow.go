package trino

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchRows bounds the rows of one record batch QueryArrow yields: the
// memory a result takes in reconcile is one batch, whatever its length.
const batchRows = 16 * 1024

// QueryArrow runs query in the cluster (with the inputs' definitions when
// it reads them) and streams its rows as Arrow record batches of at most
// batchRows rows, each column typed exactly as Trino types it (arrowType):
// a decimal stays a decimal of its precision and scale, never a float. The
// statement's query id is recorded (Queries). A result column of a type
// with no exact Arrow form is an error before any row is read. The caller
// releases the reader, which cancels the query when it has not ended.
func (e *Engine) QueryArrow(ctx context.Context, query string) (array.RecordReader, error) {
	q := e.withInputs(query)
	e.starting()
	rows, err := e.conn.QueryContext(ctx, q, e.callback(query, q)...)
	if err != nil {
		return nil, e.statementError(query, err)
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, e.statementError(query, err)
	}
	fields := make([]arrow.Field, len(cts))
	for i, ct := range cts {
		t, err := arrowType(trinoType(ct))
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("trino: %s: column %s: %w", firstLine(query), ct.Name(), err)
		}
		fields[i] = arrow.Field{Name: ct.Name(), Type: t, Nullable: true}
	}
	r := &rowsReader{e: e, query: query, rows: rows, schema: arrow.NewSchema(fields, nil)}
	r.refs.Store(1)
	return r, nil
}

// arrowType is the Arrow type the values of Trino type t are streamed as:
// the one DuckDB loads as the type duckType names.
func arrowType(t string) (arrow.DataType, error) {
	m := typeArgs.FindStringSubmatch(t)
	if m == nil {
		return nil, fmt.Errorf("Trino type %s has no exact Arrow form", t)
	}
	base, p, s, tz := m[1], m[2], m[3], m[4] != ""
	switch base {
	case "boolean":
		return arrow.FixedWidthTypes.Boolean, nil
	case "tinyint":
		return arrow.PrimitiveTypes.Int8, nil
	case "smallint":
		return arrow.PrimitiveTypes.Int16, nil
	case "integer":
		return arrow.PrimitiveTypes.Int32, nil
	case "bigint":
		return arrow.PrimitiveTypes.Int64, nil
	case "real":
		return arrow.PrimitiveTypes.Float32, nil
	case "double":
		return arrow.PrimitiveTypes.Float64, nil
	case "decimal":
		prec, _ := strconv.Atoi(p)
		scale, _ := strconv.Atoi(s)
		return &arrow.Decimal128Type{Precision: int32(prec), Scale: int32(scale)}, nil
	case "varchar", "char", "uuid", "json", "unknown":
		return arrow.BinaryTypes.String, nil
	case "varbinary":
		return arrow.BinaryTypes.Binary, nil
	case "date":
		return arrow.FixedWidthTypes.Date32, nil
	case "timestamp":
		if n, _ := strconv.Atoi(p); p != "" && n > 6 {
			break
		}
		if tz {
			return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, nil
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	}
	return nil, fmt.Errorf("Trino type %s has no exact Arrow form", t)
}

// rowsReader is an array.RecordReader over a query's rows.
type rowsReader struct {
	e      *Engine
	query  string
	rows   *sql.Rows
	schema *arrow.Schema
	cur    arrow.RecordBatch
	err    error
	done   bool
	refs   atomic.Int64
}

func (r *rowsReader) Retain() { r.refs.Add(1) }

func (r *rowsReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.rows.Close()
}

func (r *rowsReader) Schema() *arrow.Schema          { return r.schema }
func (r *rowsReader) Record() arrow.RecordBatch      { return r.cur }
func (r *rowsReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *rowsReader) Err() error                     { return r.err }

// Next reads up to batchRows rows into the next batch.
func (r *rowsReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done || r.err != nil {
		return false
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	defer b.Release()
	n := len(r.schema.Fields())
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	rowsIn := 0
	for rowsIn < batchRows {
		if !r.rows.Next() {
			r.done = true
			if err := r.rows.Err(); err != nil {
				r.err = r.e.statementError(r.query, err)
				return false
			}
			break
		}
		if err := r.rows.Scan(ptrs...); err != nil {
			r.err = r.e.statementError(r.query, err)
			return false
		}
		for i, v := range vals {
			if err := appendValue(b.Field(i), v); err != nil {
				r.err = fmt.Errorf("trino: %s: column %s: %w", firstLine(r.query), r.schema.Field(i).Name, err)
				return false
			}
		}
		rowsIn++
	}
	if rowsIn == 0 {
		return false
	}
	r.cur = b.NewRecordBatch()
	return true
}

// appendValue appends v, a value as the driver scans it (bool, int64,
// float64, string — decimals and text —, []byte, time.Time, or nil), to
// builder b of the column's Arrow type.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("value %v (%T) for an Arrow %s", v, v, b.Type()) }
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Int8Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(int8(x))
	case *array.Int16Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(int16(x))
	case *array.Int32Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(int32(x))
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Float32Builder:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.Append(float32(x))
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.Append(x)
	case *array.Decimal128Builder:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		t := b.Type().(*arrow.Decimal128Type)
		n, err := decimal128.FromString(s, t.Precision, t.Scale)
		if err != nil {
			return fmt.Errorf("decimal %q as DECIMAL(%d,%d): %w", s, t.Precision, t.Scale, err)
		}
		b.Append(n)
	case *array.StringBuilder:
		switch x := v.(type) {
		case string:
			b.Append(x)
		case []byte:
			b.Append(string(x))
		default:
			return bad()
		}
	case *array.BinaryBuilder:
		switch x := v.(type) {
		case []byte:
			b.Append(x)
		case string:
			b.Append([]byte(x))
		default:
			return bad()
		}
	case *array.Date32Builder:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		y, m, d := x.Date()
		b.Append(arrow.Date32FromTime(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)))
	case *array.TimestampBuilder:
		x, ok := v.(time.Time)
		if !ok {
			return bad()
		}
		if x.Nanosecond()%1000 != 0 {
			return fmt.Errorf("timestamp %s has digits below the microsecond", x.Format(time.RFC3339Nano))
		}
		if b.Type().(*arrow.TimestampType).TimeZone == "" {
			// a zone-less value: its wall-clock time, as UTC
			y, mo, d := x.Date()
			x = time.Date(y, mo, d, x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)
		}
		b.Append(arrow.Timestamp(x.UnixMicro()))
	default:
		return bad()
	}
	return nil
}
