package load_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
)

// rawSource hands the loader records of its own schema, bypassing the
// sources' batch builder (and so its column-name checks).
type rawSource struct{ schema *arrow.Schema }

func (s rawSource) Close() error { return nil }

func (s rawSource) Read(context.Context) (*sources.Input, array.RecordReader, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, s.schema)
	defer b.Release()
	for i := range s.schema.Fields() {
		switch fb := b.Field(i).(type) {
		case *array.StringBuilder:
			fb.Append("x")
		case *array.Int64Builder:
			fb.Append(1)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(s.schema, []arrow.RecordBatch{rec})
	return &sources.Input{Role: "sink", Location: "raw"}, rr, err
}

// fixin: whatever a source hands over, a column DuckDB renames on load
// (AMOUNT → AMOUNT_1, its names compared ignoring case) is an error naming
// both lists, never a table with a name the input does not have.
func TestFixinLoadRefusesEngineRename(t *testing.T) {
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	str := arrow.BinaryTypes.String
	i64 := arrow.PrimitiveTypes.Int64
	prov := []arrow.Field{{Name: sources.FileColumn, Type: str}, {Name: sources.LineColumn, Type: i64}, {Name: sources.RowColumn, Type: i64}}
	clash := arrow.NewSchema(append([]arrow.Field{{Name: "id", Type: str}, {Name: "amount", Type: str}, {Name: "AMOUNT", Type: str}}, prov...), nil)
	_, err = load.Table(context.Background(), db, "t", rawSource{clash})
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), `"AMOUNT_1"`) {
		t.Fatalf("err = %v, want ErrInvalidLocation naming the renamed AMOUNT_1", err)
	}
	ok := arrow.NewSchema(append([]arrow.Field{{Name: "id", Type: str}, {Name: "amount", Type: str}}, prov...), nil)
	if _, err := load.Table(context.Background(), db, "u", rawSource{ok}); err != nil {
		t.Fatalf("distinct names: %v", err)
	}
}
