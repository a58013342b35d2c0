package load

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/sources"
)

// CommitHistoryTable is the table CommitHistory creates.
const CommitHistoryTable = "commit_history"

// CommitHistory creates table commit_history (side VARCHAR, seq BIGINT,
// finding VARCHAR, exception BOOLEAN, commit VARCHAR, other_commit
// VARCHAR, detail VARCHAR): one row per fact of an input's commit history
// (sources.Input.CommitHistory, an Iceberg table's snapshots), side being
// the input's role and seq its order there. It is created, possibly empty,
// when any input reports a commit history, and ok says whether it was.
func CommitHistory(ctx context.Context, db *duck.DB, inputs []*sources.Input) (ok bool, err error) {
	for _, in := range inputs {
		ok = ok || in.ReportsCommitHistory
	}
	if !ok {
		return false, nil
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "side", Type: arrow.BinaryTypes.String},
		{Name: "seq", Type: arrow.PrimitiveTypes.Int64},
		{Name: "finding", Type: arrow.BinaryTypes.String},
		{Name: "exception", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "commit", Type: arrow.BinaryTypes.String},
		{Name: "other_commit", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "detail", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, in := range inputs {
		for i, f := range in.CommitHistory {
			b.Field(0).(*array.StringBuilder).Append(in.Role)
			b.Field(1).(*array.Int64Builder).Append(int64(i))
			b.Field(2).(*array.StringBuilder).Append(f.Finding)
			b.Field(3).(*array.BooleanBuilder).Append(f.Exception)
			b.Field(4).(*array.StringBuilder).Append(f.Commit)
			appendOrNull(b.Field(5).(*array.StringBuilder), f.Other, f.Other != "")
			b.Field(6).(*array.StringBuilder).Append(f.Detail)
		}
	}
	if err := loadBuilt(ctx, db, CommitHistoryTable, b); err != nil {
		return false, err
	}
	return true, nil
}
