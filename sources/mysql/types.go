package mysql

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// errMyValue marks a MySQL or MariaDB value that has no exact Arrow
// representation (a zero date, a date that is not in the calendar, a decimal
// wider than its column, text that is not UTF-8); the message names the
// table or query, the row, the column and the value.
var errMyValue = errors.New("value cannot be loaded exactly")

// ErrZeroDate is the error (wrapped, with the row, column and value) of a
// MySQL zero date — 0000-00-00, or a date with a zero month or day such as
// 2024-00-10 — in an input that does not say zero_dates: null. It is an
// input error (exit 3): the value is in the data, and no calendar date
// stands for it.
var ErrZeroDate = fmt.Errorf("%w: a zero date is no calendar date", errMyValue)

// myClass is how a MySQL result column is decoded: the wire type as the
// driver names it (driver.RowsColumnTypeDatabaseTypeName) decides it.
type myClass int

const (
	myInt8 myClass = iota + 1
	myUint8
	myInt16
	myUint16
	myInt32
	myUint32
	myInt64
	myUint64
	myYear
	myDecimal
	myFloat32
	myFloat64
	myText
	myBinary
	myDate
	myDateTime
	myTimestamp
	myTime
	myBit
)

// myColumn is one result column of a MySQL or MariaDB read and how it is
// mapped.
type myColumn struct {
	Name string
	// WireType is the driver's name of the result column's type
	// ("UNSIGNED BIGINT", "DECIMAL", "DATETIME", …).
	WireType string
	// MyType is the column's type as the evidence shows it: the catalog's
	// COLUMN_TYPE for a table ("decimal(18,2) unsigned", "tinyint(1)",
	// "enum('a','b')"), else the result metadata's ("DECIMAL(18,2)").
	MyType    string
	Precision int64 // DECIMAL precision and scale; fsp of DATETIME, TIMESTAMP, TIME
	Scale     int64
	class     myClass
	Arrow     arrow.DataType
}

// mapMyType sets c.class and c.Arrow from c.WireType (and the DECIMAL
// precision and scale), or returns false when the type has no exact mapping
// (see the package doc): GEOMETRY, VECTOR, a column of NULL type, or a type
// this driver version does not name.
func mapMyType(c *myColumn) bool {
	ts := func(zone string) *arrow.TimestampType {
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: zone}
	}
	switch c.WireType {
	case "TINYINT":
		c.class, c.Arrow = myInt8, arrow.PrimitiveTypes.Int8
	case "UNSIGNED TINYINT":
		c.class, c.Arrow = myUint8, arrow.PrimitiveTypes.Uint8
	case "SMALLINT":
		c.class, c.Arrow = myInt16, arrow.PrimitiveTypes.Int16
	case "UNSIGNED SMALLINT":
		c.class, c.Arrow = myUint16, arrow.PrimitiveTypes.Uint16
	case "MEDIUMINT", "INT":
		c.class, c.Arrow = myInt32, arrow.PrimitiveTypes.Int32
	case "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		c.class, c.Arrow = myUint32, arrow.PrimitiveTypes.Uint32
	case "BIGINT":
		c.class, c.Arrow = myInt64, arrow.PrimitiveTypes.Int64
	case "UNSIGNED BIGINT":
		c.class, c.Arrow = myUint64, arrow.PrimitiveTypes.Uint64
	case "YEAR":
		c.class, c.Arrow = myYear, arrow.PrimitiveTypes.Int16
	case "DECIMAL":
		if c.Scale > sqlserver.MaxDecimalDigits || c.Scale < 0 || c.Precision < 1 {
			return false
		}
		c.class, c.Arrow = myDecimal, sqlserver.DecimalType(int32(c.Precision), int32(c.Scale))
	case "FLOAT":
		c.class, c.Arrow = myFloat32, arrow.PrimitiveTypes.Float32
	case "DOUBLE":
		c.class, c.Arrow = myFloat64, arrow.PrimitiveTypes.Float64
	case "CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET", "JSON":
		c.class, c.Arrow = myText, arrow.BinaryTypes.String
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		c.class, c.Arrow = myBinary, arrow.BinaryTypes.Binary
	case "DATE":
		c.class, c.Arrow = myDate, arrow.FixedWidthTypes.Date32
	case "DATETIME":
		c.class, c.Arrow = myDateTime, ts("")
	case "TIMESTAMP":
		c.class, c.Arrow = myTimestamp, ts("UTC")
	case "TIME":
		c.class, c.Arrow = myTime, &arrow.DurationType{Unit: arrow.Microsecond}
	case "BIT":
		c.class, c.Arrow = myBit, arrow.PrimitiveTypes.Uint64
	default:
		return false
	}
	return true
}

// myMetaType is the type of a result column as its metadata describes it,
// for the evidence of a query's column: DECIMAL(18,2), DATETIME(3), ….
func myMetaType(c *myColumn) string {
	switch c.WireType {
	case "DECIMAL":
		return fmt.Sprintf("DECIMAL(%d,%d)", c.Precision, c.Scale)
	case "DATETIME", "TIMESTAMP", "TIME":
		if c.Precision > 0 {
			return fmt.Sprintf("%s(%d)", c.WireType, c.Precision)
		}
	}
	return c.WireType
}

// myAppender appends one non-NULL value, as the driver returns it from the
// text protocol (int64, uint64, float32, float64 or []byte valid until the
// next row), to its builder, and returns the bytes it counts towards the
// batch size. Errors wrap errMyValue and describe the value; the caller adds
// the row and column.
type myAppender func(v driver.Value) (int, error)

// zeroDates says what a zero date becomes: an error (the default) or NULL,
// counted per column.
type zeroDates struct {
	asNull bool
	counts []int64 // per column, when asNull
}

// myAppenderFor returns the appender of column i, writing into b, the
// builder of c.Arrow.
func myAppenderFor(c *myColumn, i int, b array.Builder, zd *zeroDates) myAppender {
	wrong := func(v driver.Value) error {
		return fmt.Errorf("%w: the driver returned %T for a %s column", errMyValue, v, c.WireType)
	}
	switch c.class {
	case myInt8, myInt16, myInt32, myInt64, myYear, myUint8, myUint16, myUint32, myUint64, myBit:
		return myIntAppender(c, b, wrong)
	case myFloat32, myFloat64, myDecimal:
		return myNumberAppender(c, b, wrong)
	case myText, myBinary:
		return myBytesAppender(c, b, wrong)
	case myDate, myDateTime, myTimestamp, myTime:
		return myTimeAppender(c, i, b, zd, wrong)
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// myIntAppender is myAppenderFor for the integer columns (BIT too): each
// value checked against the column type's range.
func myIntAppender(c *myColumn, b array.Builder, wrong func(driver.Value) error) myAppender {
	switch c.class {
	case myInt8, myInt16, myInt32, myInt64, myYear:
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch c.class {
		case myInt8:
			lo, hi = math.MinInt8, math.MaxInt8
		case myInt16, myYear:
			lo, hi = math.MinInt16, math.MaxInt16
		case myInt32:
			lo, hi = math.MinInt32, math.MaxInt32
		}
		appendInt := intAppender(b)
		return func(v driver.Value) (int, error) {
			n, ok := v.(int64)
			if !ok {
				return 0, wrong(v)
			}
			if n < lo || n > hi {
				return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
			}
			appendInt(n)
			return 8, nil
		}
	case myUint8, myUint16, myUint32:
		hi := int64(math.MaxUint8)
		switch c.class {
		case myUint16:
			hi = math.MaxUint16
		case myUint32:
			hi = math.MaxUint32
		}
		appendUint := uintAppender(b)
		return func(v driver.Value) (int, error) {
			n, ok := v.(int64)
			if !ok {
				return 0, wrong(v)
			}
			if n < 0 || n > hi {
				return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
			}
			appendUint(uint64(n))
			return 8, nil
		}
	case myUint64:
		bb := b.(*array.Uint64Builder)
		return func(v driver.Value) (int, error) {
			switch n := v.(type) {
			case uint64:
				bb.Append(n)
			case int64: // a NOT NULL column's small values may come signed
				if n < 0 {
					return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
				}
				bb.Append(uint64(n))
			default:
				return 0, wrong(v)
			}
			return 8, nil
		}
	case myBit:
		bb := b.(*array.Uint64Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			if len(raw) > 8 {
				return 0, fmt.Errorf("%w: BIT value of %d bytes, at most 8 expected", errMyValue, len(raw))
			}
			var n uint64
			for _, x := range raw {
				n = n<<8 | uint64(x)
			}
			bb.Append(n)
			return 8, nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// myNumberAppender is myAppenderFor for FLOAT, DOUBLE and DECIMAL.
func myNumberAppender(c *myColumn, b array.Builder, wrong func(driver.Value) error) myAppender {
	switch c.class {
	case myFloat32:
		bb := b.(*array.Float32Builder)
		return func(v driver.Value) (int, error) {
			f, ok := v.(float32)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(f)
			return 4, nil
		}
	case myFloat64:
		bb := b.(*array.Float64Builder)
		return func(v driver.Value) (int, error) {
			f, ok := v.(float64)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(f)
			return 8, nil
		}
	case myDecimal:
		dt := c.Arrow.(*arrow.Decimal128Type)
		bb := b.(*array.Decimal128Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			n, err := parseMyDecimal(raw, dt.Precision, dt.Scale)
			if err != nil {
				return 0, err
			}
			bb.Append(n)
			return 16, nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// myBytesAppender is myAppenderFor for text (checked to be UTF-8) and
// binary columns.
func myBytesAppender(c *myColumn, b array.Builder, wrong func(driver.Value) error) myAppender {
	switch c.class {
	case myText:
		bb := b.(*array.StringBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			if !utf8.Valid(raw) {
				return 0, fmt.Errorf("%w: %s is not UTF-8 text", errMyValue, myValueText(raw))
			}
			bb.BinaryBuilder.Append(raw)
			return len(raw), nil
		}
	case myBinary:
		bb := b.(*array.BinaryBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(raw)
			return len(raw), nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// myTimeAppender is myAppenderFor for DATE, DATETIME, TIMESTAMP and TIME;
// a zero date is an ErrZeroDate, or NULL counted in zd.counts[i] with
// zero_dates: null.
func myTimeAppender(c *myColumn, i int, b array.Builder, zd *zeroDates, wrong func(driver.Value) error) myAppender {
	switch c.class {
	case myDate:
		bb := b.(*array.Date32Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			days, zero, err := parseMyDate(raw)
			switch {
			case zero && zd.asNull:
				zd.counts[i]++
				bb.AppendNull()
				return 0, nil
			case zero:
				return 0, fmt.Errorf("%w: %q (read it as NULL with the input option zero_dates: null)", ErrZeroDate, raw)
			case err != nil:
				return 0, err
			}
			bb.Append(arrow.Date32(days))
			return 4, nil
		}
	case myDateTime, myTimestamp:
		bb := b.(*array.TimestampBuilder)
		var memo dateMemo
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			us, zero, err := memo.parseDateTime(raw)
			switch {
			case zero && zd.asNull:
				zd.counts[i]++
				bb.AppendNull()
				return 0, nil
			case zero:
				return 0, fmt.Errorf("%w: %q (read it as NULL with the input option zero_dates: null)", ErrZeroDate, raw)
			case err != nil:
				return 0, err
			}
			bb.Append(arrow.Timestamp(us))
			return 8, nil
		}
	case myTime:
		bb := b.(*array.DurationBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			us, err := parseMyTime(raw)
			if err != nil {
				return 0, err
			}
			bb.Append(arrow.Duration(us))
			return 8, nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// intAppender appends an int64 known to be in range to a signed integer
// builder.
func intAppender(b array.Builder) func(int64) {
	switch bb := b.(type) {
	case *array.Int8Builder:
		return func(n int64) { bb.Append(int8(n)) }
	case *array.Int16Builder:
		return func(n int64) { bb.Append(int16(n)) }
	case *array.Int32Builder:
		return func(n int64) { bb.Append(int32(n)) }
	case *array.Int64Builder:
		return func(n int64) { bb.Append(n) }
	}
	panic(fmt.Sprintf("sources: %T is not a signed integer builder", b))
}

// uintAppender appends a uint64 known to be in range to an unsigned
// integer builder.
func uintAppender(b array.Builder) func(uint64) {
	switch bb := b.(type) {
	case *array.Uint8Builder:
		return func(n uint64) { bb.Append(uint8(n)) }
	case *array.Uint16Builder:
		return func(n uint64) { bb.Append(uint16(n)) }
	case *array.Uint32Builder:
		return func(n uint64) { bb.Append(uint32(n)) }
	case *array.Uint64Builder:
		return func(n uint64) { bb.Append(n) }
	}
	panic(fmt.Sprintf("sources: %T is not an unsigned integer builder", b))
}
