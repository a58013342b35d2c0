package iceberg

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/reconcile-dev/reconcile/sources"
)

// readers is how many data files the scan decodes at once: up to 4 (at
// most GOMAXPROCS) while every file is at most parallelFileBytes, else 1.
func readers(files []planned) int {
	for _, f := range files {
		if f.task.File.FileSizeBytes() > parallelFileBytes {
			return 1
		}
	}
	return max(1, min(runtime.GOMAXPROCS(0), 4))
}

// fill reads the planned data files with iceberg-go (deletes applied) and
// writes their rows with the provenance columns. Each task's FirstRowID is
// its index << posBits, so the _row_id the scan synthesises names the task
// and the row's position (see lineageMeta).
func (s *source) fill(ctx context.Context, w *sources.RowWriter, rtbl *table.Table, snap *table.Snapshot, cols []column, files []planned) error {
	if len(files) == 0 {
		return nil
	}
	tasks := make([]table.FileScanTask, len(files))
	for i, f := range files {
		t := f.task
		first := int64(i) << posBits
		t.FirstRowID = &first
		tasks[i] = t
	}
	scan := rtbl.Scan(table.WithSnapshotID(snap.SnapshotID), table.WithRowLineage(),
		table.WithMaxConcurrency(readers(files)))
	defer scan.Close()
	sc, recs, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		return fmt.Errorf("%w: %s, snapshot %d: %w", ErrRead, s.name(), snap.SnapshotID, err)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		j := sc.FieldIndices(c.field.Name)
		if len(j) != 1 {
			return fmt.Errorf("%w: %s, snapshot %d: the scan yields no column %s (%v)", ErrRead, s.name(), snap.SnapshotID, c.field.Name, sc)
		}
		idx[i] = j[0]
	}
	rid := sc.FieldIndices(iceberg.RowIDColumnName)
	if len(rid) != 1 {
		return fmt.Errorf("%w: %s, snapshot %d: the scan yields no %s", ErrRead, s.name(), snap.SnapshotID, iceberg.RowIDColumnName)
	}
	var fields []arrow.Field
	for _, c := range cols {
		fields = append(fields, c.field)
	}
	fields = append(fields,
		arrow.Field{Name: SnapshotColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: JobIDColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: CheckpointColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: CheckpointAfterColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	out := arrow.NewSchema(fields, nil)
	last := -1
	prov := &provenance{task: -1}
	defer prov.release()
	for rec, err := range recs {
		if err != nil {
			where := ""
			if last >= 0 {
				where = fmt.Sprintf(" (after data file %s)", files[last].name)
			}
			return fmt.Errorf("%w: %s, snapshot %d%s: %w", ErrRead, s.name(), snap.SnapshotID, where, err)
		}
		err := s.batch(w, rec, out, cols, idx, rid[0], files, &last, prov)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// batch writes one batch of the scan: its rows cut into runs of one task.
func (s *source) batch(w *sources.RowWriter, rec arrow.RecordBatch, out *arrow.Schema, cols []column, idx []int, rid int, files []planned, last *int, prov *provenance) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	ids, ok := rec.Column(rid).(*array.Int64)
	if !ok || ids.NullN() > 0 {
		return fmt.Errorf("%w: %s: the scan's %s is %s with %d nulls", ErrRead, s.name(), iceberg.RowIDColumnName, rec.Column(rid).DataType(), rec.Column(rid).NullN())
	}
	user := make([]arrow.Array, len(cols))
	for i, c := range cols {
		a := rec.Column(idx[i])
		if c.conv != nil {
			conv, err := c.conv(a)
			if err != nil {
				return fmt.Errorf("%w: %s: column %s: %w", ErrRead, s.name(), c.field.Name, err)
			}
			defer conv.Release()
			a = conv
		}
		user[i] = a
	}
	const mask = 1<<posBits - 1
	for start := 0; start < n; {
		task := int(ids.Value(start) >> posBits)
		end := start + 1
		for end < n && int(ids.Value(end)>>posBits) == task {
			end++
		}
		if task < 0 || task >= len(files) {
			return fmt.Errorf("%w: %s: a row of task %d of %d", ErrRead, s.name(), task, len(files))
		}
		*last = task
		f := files[task]
		m := end - start
		mem := memory.DefaultAllocator
		lines := array.NewInt64Builder(mem)
		lines.Reserve(m)
		for i := start; i < end; i++ {
			lines.UnsafeAppend(ids.Value(i)&mask + 1)
		}
		la := lines.NewInt64Array()
		lines.Release()
		arrs := make([]arrow.Array, 0, len(user)+4)
		for _, a := range user {
			arrs = append(arrs, array.NewSlice(a, int64(start), int64(end)))
		}
		arrs = append(arrs, prov.columns(task, f, m)...)
		part := array.NewRecordBatch(out, arrs, int64(m))
		for _, a := range arrs {
			a.Release()
		}
		err := w.AppendBatchAt(part, f.name, la)
		part.Release()
		la.Release()
		if err != nil {
			return err
		}
		start = end
	}
	return nil
}

// provenance keeps the kind's provenance columns of one task — constants
// of its data file — long enough for the batches of that task, so each
// batch takes slices of them instead of building them again.
type provenance struct {
	task int
	n    int
	cols []arrow.Array
}

// columns are __snapshot, __job_id, __checkpoint and __checkpoint_after
// of task's file for m rows (new references: the caller releases them).
func (p *provenance) columns(task int, f planned, m int) []arrow.Array {
	if p.task != task || p.n < m {
		p.release()
		n := max(m, sources.BatchRows)
		hasCkpt := f.c != nil && f.c.hasCkpt
		var ck, after int64
		if hasCkpt {
			ck, after = f.c.ckpt, f.c.after
		}
		var job arrow.Array
		if f.c != nil && f.c.job != "" {
			job = constText(n, f.c.job)
		} else {
			job = array.MakeArrayOfNull(memory.DefaultAllocator, arrow.BinaryTypes.String, n)
		}
		p.task, p.n = task, n
		p.cols = []arrow.Array{constInt(n, f.added, true), job, constInt(n, ck, hasCkpt), constInt(n, after, hasCkpt && f.c.hasAfter)}
	}
	out := make([]arrow.Array, len(p.cols))
	for i, c := range p.cols {
		out[i] = array.NewSlice(c, 0, int64(m))
	}
	return out
}

func (p *provenance) release() {
	for _, c := range p.cols {
		c.Release()
	}
	p.cols, p.task, p.n = nil, -1, 0
}

func constInt(n int, v int64, valid bool) arrow.Array {
	if !valid {
		return array.MakeArrayOfNull(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64, n)
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for range n {
		b.UnsafeAppend(v)
	}
	return b.NewArray()
}

func constText(n int, v string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(n * len(v))
	for range n {
		b.Append(v)
	}
	return b.NewArray()
}
