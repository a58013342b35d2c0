package iceberg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/reconcile-dev/reconcile/sources"
)

// ErrUnmappedType is in the chain of the error for a column whose Iceberg
// type reconcile cannot read exactly (variant, geometry, geography,
// unknown, a uuid inside a nested type): a usage error, naming the table,
// the snapshot and the column, before any row is read.
var ErrUnmappedType = fmt.Errorf("%w: an Iceberg type that cannot be read exactly", sources.ErrInvalidLocation)

// column is one user column: the Arrow type it is yielded as, and how the
// array iceberg-go's scan gives is turned into it (nil: as it is).
type column struct {
	field arrow.Field
	conv  func(arrow.Array) (arrow.Array, error)
	// utcNS: a timestamptz_ns read as the zone-less nanoseconds of UTC.
	utcNS bool
}

// mapSchema maps the columns of schema, in order, to their Arrow types:
//
//	Iceberg                  Arrow                   DuckDB
//	boolean                  bool                    BOOLEAN
//	int, long                int32, int64            INTEGER, BIGINT
//	float, double            float32, float64        FLOAT, DOUBLE
//	decimal(p,s)             decimal128(p,s)         DECIMAL(p,s)
//	date                     date32                  DATE
//	time                     time64[us]              TIME
//	timestamp                timestamp[us]           TIMESTAMP (zone-less)
//	timestamptz              timestamp[us, UTC]      TIMESTAMP WITH TIME ZONE
//	timestamp_ns             timestamp[ns]           TIMESTAMP_NS
//	timestamptz_ns           timestamp[ns]           TIMESTAMP_NS, the UTC instant
//	string                   utf8                    VARCHAR
//	uuid                     utf8 (canonical text)   VARCHAR
//	fixed(n), binary         fixed_size_binary, binary  BLOB
//	struct, list, map        struct, list, map       STRUCT, LIST, MAP
//
// as iceberg-go's scan yields them (table.SchemaToArrowSchema), a uuid
// turned into its canonical text as the postgres kind gives one, and a
// timestamptz_ns into the zone-less nanoseconds of its UTC instant: DuckDB
// has no nanosecond type with a zone, and loads Arrow's timestamp[ns, UTC]
// as TIMESTAMP WITH TIME ZONE, dropping the nanoseconds without a word
// (TestTypes). Such a column is named in Details (utc_nanosecond_columns):
// its values are UTC, so the input's time_zone: must stay unset. Refused
// (ErrUnmappedType, naming the column): unknown, variant, geometry and
// geography, and a uuid inside a struct, list or map.
func mapSchema(schema *iceberg.Schema) ([]column, error) {
	as, err := table.SchemaToArrowSchema(schema, nil, false, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnmappedType, err)
	}
	fields := schema.Fields()
	if len(fields) != as.NumFields() {
		return nil, fmt.Errorf("iceberg: %d columns in the schema, %d in its Arrow form", len(fields), as.NumFields())
	}
	out := make([]column, len(fields))
	for i, f := range fields {
		af := as.Field(i)
		c := column{field: arrow.Field{Name: f.Name, Type: af.Type, Nullable: true}}
		switch t := af.Type.(type) {
		case *extensions.UUIDType:
			c.field.Type = arrow.BinaryTypes.String
			c.conv = uuidText
		case *arrow.TimestampType:
			if t.Unit == arrow.Nanosecond && t.TimeZone != "" {
				c.field.Type = &arrow.TimestampType{Unit: arrow.Nanosecond}
				c.conv, c.utcNS = zoneless, true
			}
		default:
			if why := unreadable(t); why != "" {
				return nil, fmt.Errorf("%w: column %s is %s: %s", ErrUnmappedType, f.Name, f.Type, why)
			}
		}
		out[i] = c
	}
	return out, nil
}

// unreadable says why an Arrow type (of a column or nested in one) cannot
// be loaded exactly, or "" when it can.
func unreadable(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.NullType:
		return "a column of type unknown holds only NULLs and has no type to compare"
	case *extensions.UUIDType:
		return "a uuid inside a nested type is not read (a top-level uuid column is read as its text)"
	case *arrow.TimestampType:
		if t.Unit == arrow.Nanosecond && t.TimeZone != "" {
			return "a timestamptz_ns inside a nested type is not read (a top-level one is read as TIMESTAMP_NS in UTC)"
		}
	case arrow.ExtensionType:
		return fmt.Sprintf("type %s has no exact SQL form (variant, geometry and geography are not read)", t.ExtensionName())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if why := unreadable(f.Type); why != "" {
				return fmt.Sprintf("field %s: %s", f.Name, why)
			}
		}
	case arrow.ListLikeType:
		if why := unreadable(t.Elem()); why != "" {
			return "element: " + why
		}
	}
	return ""
}

// uuidText turns an array of Arrow's uuid extension type into the
// canonical text of each value (8-4-4-4-12 lower-case hex).
func uuidText(a arrow.Array) (arrow.Array, error) {
	ext, ok := a.(array.ExtensionArray)
	if !ok {
		return nil, fmt.Errorf("iceberg: a uuid column arrived as %s", a.DataType())
	}
	fsb, ok := ext.Storage().(*array.FixedSizeBinary)
	if !ok || fsb.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != 16 {
		return nil, fmt.Errorf("iceberg: a uuid column arrived as %s", ext.Storage().DataType())
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(a.Len())
	b.ReserveData(36 * a.Len())
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(uuid.UUID(fsb.Value(i)).String())
	}
	return b.NewArray(), nil
}

// zoneless gives the same int64 values of a timestamp[ns, UTC] array as
// timestamp[ns] (the UTC wall clock).
func zoneless(a arrow.Array) (arrow.Array, error) {
	d := a.Data()
	nd := array.NewData(&arrow.TimestampType{Unit: arrow.Nanosecond}, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd), nil
}
