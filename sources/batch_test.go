package sources_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/sources"
)

var textField = []arrow.Field{{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}

// drain reads every batch and returns their row counts and the error.
func drain(rr array.RecordReader) ([]int64, error) {
	defer rr.Release()
	var sizes []int64
	for rr.Next() {
		sizes = append(sizes, rr.RecordBatch().NumRows())
	}
	return sizes, rr.Err()
}

// A batch closes at BatchRows rows, or earlier once its values reach
// BatchBytes: wide rows give short batches, so memory stays bounded.
func TestReadRowsBounds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rows  int
		value int
		want  []int64
	}{
		{"narrow rows: cut at BatchRows", sources.BatchRows*2 + 5, 8, []int64{sources.BatchRows, sources.BatchRows, 5}},
		{"1 MiB values: cut at BatchBytes", 70, 1 << 20, []int64{32, 32, 6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			val := strings.Repeat("x", tt.value)
			rr, err := sources.ReadRows(context.Background(), textField, sources.ReadOptions{}, func(ctx context.Context, w *sources.RowWriter) error {
				b := w.Column(0).(*array.StringBuilder)
				for i := range tt.rows {
					b.Append(val)
					if err := w.EndRow("f", int64(i+1), len(val)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sizes, err := drain(rr)
			if err != nil {
				t.Fatal(err)
			}
			if len(sizes) != len(tt.want) {
				t.Fatalf("batches %v, want %v", sizes, tt.want)
			}
			for i := range sizes {
				if sizes[i] != tt.want[i] {
					t.Errorf("batches %v, want %v", sizes, tt.want)
				}
			}
		})
	}
}

// The builder refuses a provenance name as a user column, and a row that
// left a column without a value, instead of building a batch that lies.
func TestReadRowsRefuses(t *testing.T) {
	_, err := sources.ReadRows(context.Background(), []arrow.Field{{Name: "__line", Type: arrow.PrimitiveTypes.Int64}}, sources.ReadOptions{}, nil)
	if !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("a user column named __line: err = %v, want ErrInvalidLocation", err)
	}
	two := append(textField, arrow.Field{Name: "w", Type: arrow.BinaryTypes.String})
	rr, err := sources.ReadRows(context.Background(), two, sources.ReadOptions{}, func(ctx context.Context, w *sources.RowWriter) error {
		w.Column(0).(*array.StringBuilder).Append("only one")
		return w.EndRow("f", 1, 8)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(rr); err == nil || !strings.Contains(err.Error(), "column w holds 0 values for 1 rows") {
		t.Errorf("err = %v, want the column without a value named", err)
	}
}

// A fill error ends the records with that error; provenance is appended to
// whole batches handed over with AppendBatch, which are cut at BatchRows.
func TestReadRowsAppendBatch(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	n := sources.BatchRows + 10
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	field := []arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}
	rec := array.NewRecordBatch(arrow.NewSchema(field, nil), []arrow.Array{col}, int64(n))
	defer rec.Release()
	boom := errors.New("boom")
	rr, err := sources.ReadRows(context.Background(), field, sources.ReadOptions{}, func(ctx context.Context, w *sources.RowWriter) error {
		if err := w.AppendBatch(rec, "p.parquet", 1); err != nil {
			return err
		}
		w.Column(0).(*array.Int64Builder).Append(-1)
		if err := w.EndRow("q.parquet", 1, 8); err != nil {
			return err
		}
		return boom
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows int64
	var lastRow string // the provenance of the last row handed over
	for rr.Next() {
		b := rr.RecordBatch()
		rows += b.NumRows()
		if b.NumRows() > sources.BatchRows {
			t.Errorf("a batch of %d rows", b.NumRows())
		}
		i := int(b.NumRows()) - 1
		lastRow = b.Column(1).ValueStr(i) + ":" + b.Column(2).ValueStr(i) + " row " + b.Column(3).ValueStr(i)
	}
	if !errors.Is(rr.Err(), boom) {
		t.Errorf("err = %v, want the fill's error", rr.Err())
	}
	if rows != int64(n) {
		t.Fatalf("%d rows before the error, want the %d of the whole batch", rows, n)
	}
	if want := "p.parquet:65546 row 65545"; lastRow != want {
		t.Errorf("last row's provenance %s, want %s", lastRow, want)
	}
}

// fixin: the one batch builder refuses two user columns that differ only in
// case (every Arrow kind: postgres, mysql, ndjson, kafka), naming both.
func TestReadRowsCaseOnlyColumnsRefused(t *testing.T) {
	user := []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "amount", Type: arrow.BinaryTypes.String}, {Name: "AMOUNT", Type: arrow.BinaryTypes.String}}
	_, err := sources.ReadRows(context.Background(), user, sources.ReadOptions{}, func(context.Context, *sources.RowWriter) error { return nil })
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), `"amount" and "AMOUNT" differ only in case`) {
		t.Fatalf("err = %v, want ErrInvalidLocation naming amount and AMOUNT", err)
	}
}
