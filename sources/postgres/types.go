package postgres

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// PostgreSQL type OIDs (src/include/catalog/pg_type.dat) of the types the
// postgres kind maps. A domain, an enum, an array or any other type has
// another OID and is refused before any row is read.
const (
	oidBool        = 16
	oidBytea       = 17
	oidChar        = 18 // "char", one byte
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidBPChar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// Epoch shifts between PostgreSQL's binary format (days or microseconds
// since 2000-01-01) and Arrow's (since 1970-01-01).
const (
	pgEpochDays   = 10_957
	pgEpochMicros = 946_684_800_000_000
)

// errPGValue marks a value that has no exact Arrow representation (NaN,
// ±Infinity, more than 38 digits, a date out of range); the message names
// column, row and value.
var errPGValue = errors.New("value cannot be loaded exactly")

// pgColumn is one result column of a PostgreSQL query and how it is mapped.
type pgColumn struct {
	Name    string
	OID     uint32
	TypMod  int32
	PGType  string // format_type(oid, typmod), for messages and evidence
	Arrow   arrow.DataType
	numeric bool // an unconstrained numeric whose scale is found by a pre-scan
}

// mapPGType returns the Arrow type that holds every value of a PostgreSQL
// column exactly (see the package doc), or ok=false when the type is not
// mapped. For an unconstrained numeric the type is a placeholder until the
// pre-scan has found the column's scale (see sqlserver.DecimalType).
func mapPGType(oid uint32, typmod int32) (arrow.DataType, bool) {
	switch oid {
	case oidBool:
		return arrow.FixedWidthTypes.Boolean, true
	case oidInt2:
		return arrow.PrimitiveTypes.Int16, true
	case oidInt4:
		return arrow.PrimitiveTypes.Int32, true
	case oidInt8:
		return arrow.PrimitiveTypes.Int64, true
	case oidFloat4:
		return arrow.PrimitiveTypes.Float32, true
	case oidFloat8:
		return arrow.PrimitiveTypes.Float64, true
	case oidText, oidVarchar, oidBPChar, oidName, oidChar, oidUUID, oidJSON, oidJSONB:
		return arrow.BinaryTypes.String, true
	case oidBytea:
		return arrow.BinaryTypes.Binary, true
	case oidDate:
		return arrow.FixedWidthTypes.Date32, true
	case oidTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, true
	case oidTimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true
	case oidNumeric:
		if typmod < 4 {
			return &arrow.Decimal128Type{Precision: sqlserver.MaxDecimalDigits, Scale: 0}, true
		}
		// PostgreSQL 15's make_numeric_typmod: precision in the high 16
		// bits, scale in the low 11 bits, signed (numeric(5,-2)).
		p := ((typmod - 4) >> 16) & 0xffff
		s := (((typmod - 4) & 0x7ff) ^ 1024) - 1024
		return sqlserver.DecimalType(p, s), true
	}
	return nil, false
}

// pgAppender appends one non-NULL binary-format value to its builder.
type pgAppender func(v []byte) error

// appenderFor returns the appender for column c writing into b, which must
// be the builder of c.Arrow. Errors it returns wrap errPGValue and describe
// the value; the caller adds column and row.
func appenderFor(c *pgColumn, b array.Builder) pgAppender {
	switch c.OID {
	case oidBool, oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8, oidNumeric:
		return numberAppender(c, b)
	case oidText, oidVarchar, oidBPChar, oidName, oidChar, oidJSON, oidJSONB, oidUUID, oidBytea:
		return bytesAppender(c, b)
	case oidDate, oidTimestamp, oidTimestampTZ:
		return timeAppender(c, b)
	}
	panic(fmt.Sprintf("sources: no appender for PostgreSQL type %d", c.OID))
}

// numberAppender is appenderFor for boolean, the integers, the floats and
// numeric.
func numberAppender(c *pgColumn, b array.Builder) pgAppender {
	switch c.OID {
	case oidBool:
		bb := b.(*array.BooleanBuilder)
		return func(v []byte) error {
			if len(v) != 1 {
				return wrongSize(v, 1)
			}
			bb.Append(v[0] != 0)
			return nil
		}
	case oidInt2:
		bb := b.(*array.Int16Builder)
		return func(v []byte) error {
			if len(v) != 2 {
				return wrongSize(v, 2)
			}
			bb.Append(int16(binary.BigEndian.Uint16(v)))
			return nil
		}
	case oidInt4:
		bb := b.(*array.Int32Builder)
		return func(v []byte) error {
			if len(v) != 4 {
				return wrongSize(v, 4)
			}
			bb.Append(int32(binary.BigEndian.Uint32(v)))
			return nil
		}
	case oidInt8:
		bb := b.(*array.Int64Builder)
		return func(v []byte) error {
			if len(v) != 8 {
				return wrongSize(v, 8)
			}
			bb.Append(int64(binary.BigEndian.Uint64(v)))
			return nil
		}
	case oidFloat4:
		bb := b.(*array.Float32Builder)
		return func(v []byte) error {
			if len(v) != 4 {
				return wrongSize(v, 4)
			}
			bb.Append(math.Float32frombits(binary.BigEndian.Uint32(v)))
			return nil
		}
	case oidFloat8:
		bb := b.(*array.Float64Builder)
		return func(v []byte) error {
			if len(v) != 8 {
				return wrongSize(v, 8)
			}
			bb.Append(math.Float64frombits(binary.BigEndian.Uint64(v)))
			return nil
		}
	case oidNumeric:
		dt := c.Arrow.(*arrow.Decimal128Type)
		bb := b.(*array.Decimal128Builder)
		return func(v []byte) error {
			n, err := decodeNumeric(v, dt.Precision, dt.Scale)
			if err != nil {
				return err
			}
			bb.Append(n)
			return nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for PostgreSQL type %d", c.OID))
}

// bytesAppender is appenderFor for the text types (checked to be UTF-8),
// jsonb, uuid (as its canonical text) and bytea.
func bytesAppender(c *pgColumn, b array.Builder) pgAppender {
	switch c.OID {
	case oidText, oidVarchar, oidBPChar, oidName, oidChar, oidJSON:
		bb := b.(*array.StringBuilder)
		return func(v []byte) error {
			// The server converts text to the client's UTF8 except from a
			// database of encoding SQL_ASCII, whose bytes come as stored.
			if !utf8.Valid(v) {
				return fmt.Errorf("%w: %s is not UTF-8 text (a database of encoding SQL_ASCII passes its bytes on as stored; read convert_from(CAST(col AS bytea), 'LATIN1') or the encoding they are in, in a query)", errPGValue, sqlserver.QuoteCut(v))
			}
			bb.BinaryBuilder.Append(v)
			return nil
		}
	case oidJSONB:
		bb := b.(*array.StringBuilder)
		return func(v []byte) error {
			if len(v) < 1 || v[0] != 1 {
				return fmt.Errorf("%w: jsonb binary format version %v is not 1", errPGValue, v[:min(1, len(v))])
			}
			bb.BinaryBuilder.Append(v[1:])
			return nil
		}
	case oidUUID:
		bb := b.(*array.StringBuilder)
		var buf [36]byte
		return func(v []byte) error {
			if len(v) != 16 {
				return wrongSize(v, 16)
			}
			hex.Encode(buf[0:8], v[0:4])
			buf[8] = '-'
			hex.Encode(buf[9:13], v[4:6])
			buf[13] = '-'
			hex.Encode(buf[14:18], v[6:8])
			buf[18] = '-'
			hex.Encode(buf[19:23], v[8:10])
			buf[23] = '-'
			hex.Encode(buf[24:36], v[10:16])
			bb.BinaryBuilder.Append(buf[:])
			return nil
		}
	case oidBytea:
		bb := b.(*array.BinaryBuilder)
		return func(v []byte) error {
			bb.Append(v)
			return nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for PostgreSQL type %d", c.OID))
}

// timeAppender is appenderFor for date, timestamp and timestamptz: ±infinity
// and values out of Arrow's range are errors.
func timeAppender(c *pgColumn, b array.Builder) pgAppender {
	switch c.OID {
	case oidDate:
		bb := b.(*array.Date32Builder)
		return func(v []byte) error {
			if len(v) != 4 {
				return wrongSize(v, 4)
			}
			d := int64(int32(binary.BigEndian.Uint32(v)))
			switch {
			case d == math.MaxInt32:
				return fmt.Errorf("%w: date 'infinity' has no calendar value", errPGValue)
			case d == math.MinInt32:
				return fmt.Errorf("%w: date '-infinity' has no calendar value", errPGValue)
			case d+pgEpochDays > math.MaxInt32:
				return fmt.Errorf("%w: date %d days after 2000-01-01 is out of range", errPGValue, d)
			}
			bb.Append(arrow.Date32(d + pgEpochDays))
			return nil
		}
	case oidTimestamp, oidTimestampTZ:
		bb := b.(*array.TimestampBuilder)
		kind := "timestamp"
		if c.OID == oidTimestampTZ {
			kind = "timestamptz"
		}
		return func(v []byte) error {
			if len(v) != 8 {
				return wrongSize(v, 8)
			}
			t := int64(binary.BigEndian.Uint64(v))
			switch {
			case t == math.MaxInt64:
				return fmt.Errorf("%w: %s 'infinity' has no calendar value", errPGValue, kind)
			case t == math.MinInt64:
				return fmt.Errorf("%w: %s '-infinity' has no calendar value", errPGValue, kind)
			case t >= math.MaxInt64-pgEpochMicros:
				// math.MaxInt64 µs after 1970 is DuckDB's 'infinity':
				// the last µs before it is the last calendar value
				return fmt.Errorf("%w: %s %d µs after 2000-01-01 is out of range", errPGValue, kind, t)
			}
			bb.Append(arrow.Timestamp(t + pgEpochMicros))
			return nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for PostgreSQL type %d", c.OID))
}

func wrongSize(v []byte, want int) error {
	return fmt.Errorf("%w: binary value of %d bytes, want %d", errPGValue, len(v), want)
}

var pow10u64 = func() [19]uint64 {
	var p [19]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Sign words of PostgreSQL's binary numeric.
const (
	numericPos     = 0x0000
	numericNeg     = 0x4000
	numericNaN     = 0xC000
	numericPosInf  = 0xD000
	numericNegInf  = 0xF000
	numericHeader  = 8
	numericBase    = 10000
	numericDigitsN = 4 // decimal digits per base-10000 digit
)

// decodeNumeric turns PostgreSQL's binary numeric (int16 ndigits, int16
// weight, uint16 sign, uint16 dscale, then ndigits base-10000 digits, most
// significant first) into the unscaled decimal128 at scale, exactly. It
// fails, wrapping errPGValue, for NaN and ±Infinity, for a "digit" above
// 9999 (PostgreSQL's numeric_recv refuses one and a server never sends
// one; read by place value it would be another number), for a value with
// more non-zero fraction digits than scale (trailing zeros, which dscale
// counts, are dropped: 1.000 at scale 0 is 1), and for one with more than
// precision digits.
func decodeNumeric(v []byte, precision, scale int32) (decimal128.Num, error) {
	if len(v) < numericHeader {
		return decimal128.Num{}, fmt.Errorf("%w: numeric binary value of %d bytes", errPGValue, len(v))
	}
	ndigits := int(int16(binary.BigEndian.Uint16(v[0:])))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	sign := binary.BigEndian.Uint16(v[4:])
	switch sign {
	case numericPos, numericNeg:
	case numericNaN, numericPosInf, numericNegInf:
		return decimal128.Num{}, fmt.Errorf("%w: %s is not a number a decimal can hold", errPGValue, numericString(v))
	default:
		return decimal128.Num{}, fmt.Errorf("%w: numeric sign word %#x is unknown", errPGValue, sign)
	}
	if ndigits < 0 || len(v) != numericHeader+2*ndigits {
		return decimal128.Num{}, fmt.Errorf("%w: numeric binary value of %d bytes for %d digits", errPGValue, len(v), ndigits)
	}
	for i := range ndigits {
		if d := binary.BigEndian.Uint16(v[numericHeader+2*i:]); d >= numericBase {
			return decimal128.Num{}, fmt.Errorf("%w: numeric digit %d of %d is %d, not a base-10000 digit (0 to 9999; PostgreSQL's numeric_recv refuses it)", errPGValue, i+1, ndigits, d)
		}
	}
	// The digits read as one integer acc stand for acc × 10^(4·(weight-ndigits+1)).
	exp := numericDigitsN*(weight-ndigits+1) + int(scale)
	if ndigits*numericDigitsN+max(exp, 0) <= 18 && exp >= -18 {
		var acc uint64
		for i := range ndigits {
			acc = acc*numericBase + uint64(binary.BigEndian.Uint16(v[numericHeader+2*i:]))
		}
		if exp >= 0 {
			acc *= pow10u64[exp]
		} else {
			p := pow10u64[-exp]
			if acc%p != 0 {
				return decimal128.Num{}, fmt.Errorf("%w: %s has more fraction digits than the column's scale %d", errPGValue, numericString(v), scale)
			}
			acc /= p
		}
		if precision <= 18 && acc >= pow10u64[precision] {
			return decimal128.Num{}, fmt.Errorf("%w: %s has more than %d digits", errPGValue, numericString(v), precision)
		}
		n := int64(acc)
		if sign == numericNeg {
			n = -n
		}
		return decimal128.FromI64(n), nil
	}
	u, exact := numericUnscaled(v, int(scale))
	if !exact {
		return decimal128.Num{}, fmt.Errorf("%w: %s has more fraction digits than the column's scale %d", errPGValue, numericString(v), scale)
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	if new(big.Int).Abs(u).Cmp(limit) >= 0 {
		return decimal128.Num{}, fmt.Errorf("%w: %s has more than %d digits (an exact decimal holds at most 38)", errPGValue, numericString(v), precision)
	}
	return decimal128.FromBigInt(u), nil
}

// numericUnscaled returns a finite binary numeric as the integer value ×
// 10^scale, and whether that is exact (no non-zero digit dropped).
func numericUnscaled(v []byte, scale int) (*big.Int, bool) {
	ndigits := int(int16(binary.BigEndian.Uint16(v[0:])))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	acc := new(big.Int)
	base := big.NewInt(numericBase)
	for i := range ndigits {
		acc.Mul(acc, base)
		acc.Add(acc, big.NewInt(int64(binary.BigEndian.Uint16(v[numericHeader+2*i:]))))
	}
	exact := true
	if exp := numericDigitsN*(weight-ndigits+1) + scale; exp >= 0 {
		acc.Mul(acc, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil))
	} else {
		var rem big.Int
		acc.QuoRem(acc, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil), &rem)
		exact = rem.Sign() == 0
	}
	if binary.BigEndian.Uint16(v[4:]) == numericNeg {
		acc.Neg(acc)
	}
	return acc, exact
}

// numericString renders a binary numeric as PostgreSQL prints it
// ("-1234.50", "NaN", "Infinity"), for messages.
func numericString(v []byte) string {
	if len(v) < numericHeader {
		return "(malformed numeric)"
	}
	switch binary.BigEndian.Uint16(v[4:]) {
	case numericNaN:
		return "NaN"
	case numericPosInf:
		return "Infinity"
	case numericNegInf:
		return "-Infinity"
	}
	ndigits := int(int16(binary.BigEndian.Uint16(v[0:])))
	if ndigits < 0 || len(v) != numericHeader+2*ndigits {
		return "(malformed numeric)"
	}
	dscale := int(binary.BigEndian.Uint16(v[6:]))
	u, _ := numericUnscaled(v, dscale)
	return formatUnscaled(u, dscale)
}

// formatUnscaled renders u / 10^scale in plain decimal notation.
func formatUnscaled(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
