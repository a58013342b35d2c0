package load

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/sources"
)

// BadRecordsTable is the table BadRecords creates.
const BadRecordsTable = "bad_records"

// BadRecords creates table bad_records (side VARCHAR, location VARCHAR,
// reason VARCHAR): one row per record an input could not decode and listed
// instead of stopping (bad_records: report; sources.Input.BadRecords), side
// being the input's role. It is created, possibly empty, when any input
// reports bad records, and ok says whether it was.
func BadRecords(ctx context.Context, db *duck.DB, inputs []*sources.Input) (ok bool, err error) {
	for _, in := range inputs {
		ok = ok || in.ReportsBadRecords
	}
	if !ok {
		return false, nil
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "side", Type: arrow.BinaryTypes.String},
		{Name: "location", Type: arrow.BinaryTypes.String},
		{Name: "reason", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, in := range inputs {
		for _, r := range in.BadRecords {
			b.Field(0).(*array.StringBuilder).Append(in.Role)
			b.Field(1).(*array.StringBuilder).Append(r.Location)
			b.Field(2).(*array.StringBuilder).Append(r.Reason)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		return false, err
	}
	defer rr.Release()
	if _, err := db.LoadArrow(ctx, BadRecordsTable, rr); err != nil {
		return false, err
	}
	return true, nil
}
