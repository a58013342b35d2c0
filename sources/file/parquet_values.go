package file

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/reconcile-dev/reconcile/sources"
)

// columnInfo is what a Parquet file's footer says of one of its columns
// beyond the type DuckDB reads it as: its leaf column (-1 for a nested
// column), the Arrow type pqarrow reads it as (raw), and whether it is an
// INT96 timestamp (Spark's legacy encoding, nanoseconds).
type columnInfo struct {
	leaf  int
	raw   arrow.DataType
	int96 bool
}

// nanosDropped reports whether DuckDB's read_parquet reads the column in
// microseconds although the file holds nanoseconds: an INT96 timestamp (as
// TIMESTAMP) or a TIMESTAMP(NANOS, isAdjustedToUTC=true) (as TIMESTAMP WITH
// TIME ZONE). A zone-less TIMESTAMP(NANOS) is read as TIMESTAMP_NS, exactly.
func (c columnInfo) nanosDropped() bool {
	ts, ok := c.raw.(*arrow.TimestampType)
	return ok && ts.Unit == arrow.Nanosecond && (c.int96 || ts.TimeZone != "")
}

// loadedType is the type, in Arrow terms, that DuckDB's read_parquet reads
// a column of raw type (pqarrow's) as: an INT96 timestamp is a zone-less
// timestamp in microseconds (whatever zone pqarrow gives it from a stored
// Arrow schema), a timestamp adjusted to UTC is one in UTC (whatever zone
// name the writer kept), in microseconds when the file holds nanoseconds.
func loadedType(raw arrow.DataType, int96 bool) arrow.DataType {
	ts, ok := raw.(*arrow.TimestampType)
	switch {
	case !ok:
		return raw
	case int96:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case ts.TimeZone != "":
		return &arrow.TimestampType{Unit: min(ts.Unit, arrow.Microsecond), TimeZone: "UTC"}
	}
	return ts
}

// valueCheck is what checkValues found: the records whose values cannot be
// read exactly, and whether an engine's own reader must not read the files
// (sourceRead: a 256-bit decimal, which DuckDB 1.5 reads as a wrong DOUBLE,
// or, with report, a listed value its CAST would fail on).
type valueCheck struct {
	bad        []sources.BadRecord
	sourceRead string
}

// decimalStats are the digits the values of one decimal column need: the
// most fraction digits without trailing zeros (scale, first needed by
// scaleAt) and how many values have each number of integer digits.
type decimalStats struct {
	scale   int
	scaleAt string // file:row and value that needs scale, for messages
	ints    [80]int64
}

// checkValues reads, from the files themselves (pqarrow), the values of the
// columns whose loaded type depends on them or would change them, and
// returns the records that cannot be read exactly (with report) or the
// first one's error (without):
//
//   - an INT96 timestamp, or a TIMESTAMP(NANOS) adjusted to UTC, whose
//     value has digits below a microsecond: DuckDB reads such a column in
//     microseconds and would drop them (…000000999 equal to …000000001);
//   - a millisecond or microsecond timestamp of a column unified to
//     TIMESTAMP_NS that is beyond its range (1677-09-21 to 2262-04-11);
//   - a decimal column of more than 38 digits (a file's DECIMAL(40,2), or
//     DECIMAL(38,0) and DECIMAL(38,10) together): sizeDecimals sets its type
//     in fields to the narrowest exact DECIMAL(p,s) its values need and
//     lists a value that no DECIMAL holds beside the others' fraction digits.
//
// infos[k] are file k's columns as parquetColumns gives them, in its order;
// fields the unified columns. With typesOnly (Schema), only the decimals
// that their values size are read.
func checkValues(ctx context.Context, files []sources.ScanFile, schemas [][]arrow.Field, infos [][]columnInfo, fields []arrow.Field, report, typesOnly bool) (valueCheck, error) {
	var vc valueCheck
	unified := map[string]int{}
	for i, f := range fields {
		unified[f.Name] = i
	}
	stats := map[int]*decimalStats{}
	for i, f := range fields {
		if f.Type.ID() == arrow.DECIMAL256 {
			stats[i] = &decimalStats{}
		}
	}
	for k, f := range files {
		for j, c := range infos[k] {
			if c.raw.ID() == arrow.DECIMAL256 {
				vc.sourceRead = fmt.Sprintf("%s: column %s is %s, which DuckDB's read_parquet reads as a DOUBLE", f.Name, schemas[k][j].Name, c.raw)
			}
		}
	}
	// fail lists one bad value, or returns it as the error.
	fail := func(f sources.ScanFile, row int64, col, value, reason string) error {
		if !report {
			return fmt.Errorf("%s:%d: column %s: value %s %s", f.Name, row, col, strconv.Quote(value), reason)
		}
		if len(vc.bad) >= maxBadRecords {
			return fmt.Errorf("%s:%d: column %s: value %s %s (more than %d records cannot be read, which bad_records: report lists at most: is the column's type right?)", f.Name, row, col, strconv.Quote(value), reason, maxBadRecords)
		}
		v := value
		vc.bad = append(vc.bad, sources.BadRecord{Location: fmt.Sprintf("%s:%d", f.Name, row), Column: col, Value: &v, Reason: reason, File: f.Name, Line: row})
		return nil
	}
	for k, f := range files {
		var cols []int // the file's columns to read
		for j, c := range infos[k] {
			i := unified[schemas[k][j].Name]
			if c.leaf < 0 {
				continue
			}
			if stats[i] != nil || !typesOnly && (c.nanosDropped() || widened(c, fields[i].Type)) {
				cols = append(cols, j)
			}
		}
		if len(cols) == 0 {
			continue
		}
		err := readColumns(ctx, f, infos[k], cols, func(j int, a arrow.Array, first int64) error {
			c, name := infos[k][j], schemas[k][j].Name
			i := unified[name]
			for r := range a.Len() {
				if a.IsNull(r) {
					continue
				}
				row := first + int64(r)
				switch {
				case stats[i] != nil:
					st := stats[i]
					v := decimalText(a, r)
					intDigits, scale := decimalDigits(v)
					if scale > st.scale {
						st.scale, st.scaleAt = scale, fmt.Sprintf("%s at %s:%d", v, f.Name, row)
					}
					st.ints[min(intDigits, len(st.ints)-1)]++
				case c.nanosDropped():
					v := int64(a.(*array.Timestamp).Value(r))
					if v%1000 != 0 {
						if err := fail(f, row, name, nanoText(v, !c.int96), nanosReason(c)); err != nil {
							return err
						}
					}
				case widened(c, fields[i].Type):
					from := c.raw.(*arrow.TimestampType).Unit
					if _, ok := changeUnit(int64(a.(*array.Timestamp).Value(r)), from, arrow.Nanosecond); !ok {
						if err := fail(f, row, name, a.ValueStr(r), "is beyond TIMESTAMP_NS (1677-09-21 to 2262-04-11), the type the column is read as: another file of the input holds nanoseconds"); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			return vc, err
		}
	}
	for i := range fields {
		st := stats[i]
		if st == nil {
			continue
		}
		wide, err := sizeDecimal(ctx, files, schemas, infos, fields[i], st, fail)
		if err != nil {
			return vc, err
		}
		if wide && report {
			vc.sourceRead = fmt.Sprintf("column %s has values that no DECIMAL holds, which DuckDB's CAST would fail on", fields[i].Name)
		}
		fields[i].Type = st.decimalType()
	}
	if report && vc.sourceRead == "" {
		for _, b := range vc.bad {
			if t, ok := fields[unified[b.Column]].Type.(*arrow.TimestampType); ok && t.Unit == arrow.Nanosecond && t.TimeZone == "" {
				vc.sourceRead = fmt.Sprintf("column %s has values beyond TIMESTAMP_NS, which DuckDB's CAST would fail on", b.Column)
			}
		}
	}
	return vc, nil
}

// widened reports whether column c is a zone-less timestamp coarser than
// nanoseconds of a column unified to TIMESTAMP_NS (another file holds
// nanoseconds).
func widened(c columnInfo, to arrow.DataType) bool {
	raw, ok := c.raw.(*arrow.TimestampType)
	ts, ok2 := to.(*arrow.TimestampType)
	return ok && ok2 && !c.int96 && raw.TimeZone == "" && ts.TimeZone == "" && ts.Unit == arrow.Nanosecond && raw.Unit != arrow.Nanosecond
}

// nanosReason is why a value with digits below a microsecond of column c
// cannot be read.
func nanosReason(c columnInfo) string {
	what := "a Parquet TIMESTAMP(NANOS, isAdjustedToUTC=true) as a TIMESTAMP WITH TIME ZONE"
	if c.int96 {
		what = "a Parquet INT96 timestamp (nanoseconds) as a TIMESTAMP"
	}
	return "has digits below a microsecond: DuckDB reads " + what + ", in microseconds, which would drop them (10:00:00.000000999 would equal 10:00:00.000000001)"
}

// nanoText is a timestamp of ns nanoseconds since the epoch, with its nine
// fraction digits, and Z when it is an instant (UTC).
func nanoText(ns int64, utc bool) string {
	s := time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000")
	if utc {
		s += "Z"
	}
	return s
}

// decimalText is value i of a decimal array written at its scale
// (1.50 for 150 of scale 2).
func decimalText(a arrow.Array, i int) string {
	v, scale, ok := decimalBig(a, i)
	if !ok {
		return a.ValueStr(i)
	}
	sign := ""
	if v.Sign() < 0 {
		sign, v = "-", new(big.Int).Neg(v)
	}
	digits := v.String()
	if scale <= 0 {
		return sign + digits + strings.Repeat("0", int(-scale))
	}
	if len(digits) <= int(scale) {
		digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
}

// decimalDigits are the integer digits (leading zeros dropped) and the
// fraction digits without trailing zeros of a decimal's text.
func decimalDigits(v string) (intDigits, scale int) {
	v = strings.TrimLeft(v, "+-")
	whole, frac, _ := strings.Cut(v, ".")
	return len(strings.TrimLeft(whole, "0")), len(strings.TrimRight(frac, "0"))
}

// decimalType is the narrowest DECIMAL(p,s) of the values st counted that
// fit beside its fraction digits: s the fraction digits they need, p the
// integer digits of the widest plus s (at least 1).
func (st *decimalStats) decimalType() *arrow.Decimal128Type {
	ints := 0
	for d := maxDecimalDigits - st.scale; d >= 0; d-- {
		if st.ints[d] > 0 {
			ints = d
			break
		}
	}
	return &arrow.Decimal128Type{Precision: int32(max(ints+st.scale, 1)), Scale: int32(st.scale)}
}

// sizeDecimal lists, when some value of the decimal column field has more
// integer digits than fit beside the fraction digits st found (38 digits
// at most), each such value (fail: the first stops the run), reading the
// column again; wide says whether there was one.
func sizeDecimal(ctx context.Context, files []sources.ScanFile, schemas [][]arrow.Field, infos [][]columnInfo, field arrow.Field, st *decimalStats, fail func(sources.ScanFile, int64, string, string, string) error) (wide bool, err error) {
	room := maxDecimalDigits - st.scale
	for d := room + 1; d < len(st.ints); d++ {
		wide = wide || st.ints[d] > 0
	}
	if !wide {
		return false, nil
	}
	var declared []string
	for k, f := range files {
		for _, c := range schemas[k] {
			if c.Name == field.Name {
				declared = append(declared, fmt.Sprintf("%s in %s", decimalName(c.Type), f.Name))
			}
		}
	}
	for k, f := range files {
		j := fieldIndex(schemas[k], field.Name)
		if j < 0 || infos[k][j].leaf < 0 {
			continue
		}
		err := readColumns(ctx, f, infos[k], []int{j}, func(_ int, a arrow.Array, first int64) error {
			for r := range a.Len() {
				if a.IsNull(r) {
					continue
				}
				v := decimalText(a, r)
				if d, _ := decimalDigits(v); d > room {
					reason := fmt.Sprintf("has %d integer digits; beside the %d fraction digits the column's values need (%s), an exact DECIMAL (38 digits at most) holds %d (the column is %s)", d, st.scale, st.scaleAt, room, strings.Join(declared, ", "))
					if st.scale == 0 {
						reason = fmt.Sprintf("has %d integer digits; an exact DECIMAL holds 38 at most (the column is %s)", d, strings.Join(declared, ", "))
					}
					if err := fail(f, first+int64(r), field.Name, v, reason); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// decimalName is DECIMAL(p,s) of a decimal type, else its Arrow name.
func decimalName(t arrow.DataType) string {
	if d, ok := t.(arrow.DecimalType); ok {
		return fmt.Sprintf("DECIMAL(%d,%d)", d.GetPrecision(), d.GetScale())
	}
	return t.String()
}

func fieldIndex(fs []arrow.Field, name string) int {
	for j, f := range fs {
		if f.Name == name {
			return j
		}
	}
	return -1
}

// readColumns reads columns cols (indexes of the file's fields, infos) of
// file f with pqarrow, batch by batch, calling fn with each column's array
// and the row (1-based) of its first value.
func readColumns(ctx context.Context, f sources.ScanFile, infos []columnInfo, cols []int, fn func(j int, a arrow.Array, first int64) error) error {
	fr, closeFn, err := openParquetFile(f.Path)
	if err != nil {
		return err
	}
	defer closeFn()
	leaves := make([]int, len(cols))
	for n, j := range cols {
		leaves[n] = infos[j].leaf
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rr.Release()
	first := int64(1)
	for rr.Next() {
		rec := rr.RecordBatch()
		for n, j := range cols {
			if err := fn(j, rec.Column(n), first); err != nil {
				return err
			}
		}
		first += rec.NumRows()
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

// parquetColumns reads a file's schema: its columns with the types DuckDB
// reads them as (loadedType) and what checkValues needs of each.
func parquetColumns(path string) ([]arrow.Field, []columnInfo, error) {
	fr, closeFn, err := openParquetFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	sc, err := fr.Schema()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: schema: %w", path, err)
	}
	fs := sc.Fields()
	pschema := fr.ParquetReader().MetaData().Schema
	infos := make([]columnInfo, len(fs))
	out := make([]arrow.Field, len(fs))
	for i, fd := range fs {
		c := columnInfo{leaf: -1, raw: fd.Type}
		if i < len(fr.Manifest.Fields) && fr.Manifest.Fields[i].IsLeaf() {
			c.leaf = fr.Manifest.Fields[i].ColIndex
			c.int96 = pschema.Column(c.leaf).PhysicalType() == parquet.Types.Int96
		}
		infos[i] = c
		out[i] = fd
		out[i].Type = loadedType(fd.Type, c.int96)
	}
	return out, infos, nil
}
