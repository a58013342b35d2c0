package iceberg

import (
	"context"
	"fmt"
	"runtime"
	"slices"

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
// writes their rows with the provenance columns (scanTasks); with part >=
// 0, each row's part (sources.PartColumn: part plus the file's index in
// files) after them.
func (s *source) fill(ctx context.Context, w *sources.RowWriter, rtbl *table.Table, snap *table.Snapshot, cols []column, files []planned, part int) error {
	tasks := make([]table.FileScanTask, len(files))
	for i, f := range files {
		tasks[i] = f.task
	}
	prov := provenanceFields
	if part >= 0 {
		prov = append(slices.Clone(prov), partField)
	}
	out := recordSchema(cols, prov)
	pv := &provenance{task: -1}
	defer pv.release()
	return s.scanTasks(ctx, rtbl, snap, cols, nil, tasks, readers(files), func(task int, user []arrow.Array, lines *array.Int64) error {
		f := files[task]
		m := lines.Len()
		arrs := make([]arrow.Array, 0, len(user)+len(prov))
		arrs = append(arrs, user...)
		pc := pv.columns(task, f.added, f.c, m, partOf(part, task))
		arrs = append(arrs, pc...)
		part := array.NewRecordBatch(out, arrs, int64(m))
		for _, a := range pc {
			a.Release()
		}
		err := w.AppendBatchAt(part, f.name, lines)
		part.Release()
		return err
	})
}

// partField is the part of a row the loader asks for
// (sources.PartScan.Records).
var partField = arrow.Field{Name: sources.PartColumn, Type: arrow.PrimitiveTypes.Int32}

// partOf is the part of task's rows when the records carry it (part >= 0:
// the first task's), else -1.
func partOf(part, task int) int {
	if part < 0 {
		return -1
	}
	return part + task
}

// provenanceFields are the kind's own provenance columns of every row, in
// order: __snapshot, __job_id, __checkpoint, __checkpoint_after.
var provenanceFields = []arrow.Field{
	{Name: SnapshotColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: JobIDColumn, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: CheckpointColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: CheckpointAfterColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

// recordSchema is the schema of the user columns cols, then the kind's
// provenance fields prov (without __file, __line and __row, which the
// RowWriter adds).
func recordSchema(cols []column, prov []arrow.Field) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(cols)+len(prov))
	for _, c := range cols {
		fields = append(fields, c.field)
	}
	return arrow.NewSchema(append(fields, prov...), nil)
}

// scanTasks reads tasks with iceberg-go's scan of snap (its schema; the
// deletes each task carries applied), up to concurrency files at a time,
// and calls emit, in task order, for each run of rows of one task: the
// user columns cols (converted: column.conv) and each row's 1-based
// position in the task's file as written (__line). With only, just those
// columns are read (an equality delete file's, which holds no other) and
// every other column is NULL. The arrays are valid only during the call.
// Each task's FirstRowID is its index << posBits, so the _row_id the scan
// synthesises names the task and the row's position (see lineageMeta).
func (s *source) scanTasks(ctx context.Context, rtbl *table.Table, snap *table.Snapshot, cols []column, only []string, tasks []table.FileScanTask, concurrency int, emit func(task int, user []arrow.Array, lines *array.Int64) error) error {
	if len(tasks) == 0 {
		return nil
	}
	tasks = slices.Clone(tasks)
	for i := range tasks {
		first := int64(i) << posBits
		tasks[i].FirstRowID = &first
	}
	opts := []table.ScanOption{table.WithSnapshotID(snap.SnapshotID), table.WithRowLineage(), table.WithMaxConcurrency(concurrency)}
	if only != nil {
		opts = append(opts, table.WithSelectedFields(only...))
	}
	scan := rtbl.Scan(opts...)
	defer scan.Close()
	sc, recs, err := scan.ReadTasks(ctx, tasks)
	if err != nil {
		return fmt.Errorf("%w: %s, snapshot %d: %w", ErrRead, s.name(), snap.SnapshotID, err)
	}
	idx := make([]int, len(cols))
	for i, c := range cols {
		j := sc.FieldIndices(c.field.Name)
		if only != nil && !slices.Contains(only, c.field.Name) {
			idx[i] = -1 // NULL
			continue
		}
		if len(j) != 1 {
			return fmt.Errorf("%w: %s, snapshot %d: the scan yields no column %s (%v)", ErrRead, s.name(), snap.SnapshotID, c.field.Name, sc)
		}
		idx[i] = j[0]
	}
	rid := sc.FieldIndices(iceberg.RowIDColumnName)
	if len(rid) != 1 {
		return fmt.Errorf("%w: %s, snapshot %d: the scan yields no %s", ErrRead, s.name(), snap.SnapshotID, iceberg.RowIDColumnName)
	}
	last := -1
	for rec, err := range recs {
		if err != nil {
			where := ""
			if last >= 0 {
				where = fmt.Sprintf(" (after %s)", tasks[last].File.FilePath())
			}
			return fmt.Errorf("%w: %s, snapshot %d%s: %w", ErrRead, s.name(), snap.SnapshotID, where, err)
		}
		err := s.batch(rec, cols, idx, rid[0], len(tasks), &last, emit)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// batch cuts one batch of the scan into runs of one task and emits each.
func (s *source) batch(rec arrow.RecordBatch, cols []column, idx []int, rid, ntasks int, last *int, emit func(task int, user []arrow.Array, lines *array.Int64) error) error {
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
		if idx[i] < 0 {
			a := array.MakeArrayOfNull(memory.DefaultAllocator, c.field.Type, n)
			defer a.Release()
			user[i] = a
			continue
		}
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
		if task < 0 || task >= ntasks {
			return fmt.Errorf("%w: %s: a row of task %d of %d", ErrRead, s.name(), task, ntasks)
		}
		*last = task
		m := end - start
		lines := array.NewInt64Builder(memory.DefaultAllocator)
		lines.Reserve(m)
		for i := start; i < end; i++ {
			lines.UnsafeAppend(ids.Value(i)&mask + 1)
		}
		la := lines.NewInt64Array()
		lines.Release()
		arrs := make([]arrow.Array, len(user))
		for i, a := range user {
			arrs[i] = array.NewSlice(a, int64(start), int64(end))
		}
		err := emit(task, arrs, la)
		for _, a := range arrs {
			a.Release()
		}
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

// columns are __snapshot (snapshot), __job_id, __checkpoint and
// __checkpoint_after (of its commit c) for m rows of task, followed by
// extra constant text columns (nil values NULL), then, when part >= 0,
// __part (int32): a new reference to each (the caller releases them).
func (p *provenance) columns(task int, snapshot int64, c *commit, m, part int, extra ...*string) []arrow.Array {
	if p.task != task || p.n < m {
		p.release()
		n := max(m, sources.BatchRows)
		hasCkpt := c != nil && c.hasCkpt
		var ck, after int64
		if hasCkpt {
			ck, after = c.ckpt, c.after
		}
		var job arrow.Array
		if c != nil && c.job != "" {
			job = constText(n, c.job)
		} else {
			job = array.MakeArrayOfNull(memory.DefaultAllocator, arrow.BinaryTypes.String, n)
		}
		p.task, p.n = task, n
		p.cols = []arrow.Array{constInt(n, snapshot, true), job, constInt(n, ck, hasCkpt), constInt(n, after, hasCkpt && c.hasAfter)}
		for _, v := range extra {
			if v == nil {
				p.cols = append(p.cols, array.MakeArrayOfNull(memory.DefaultAllocator, arrow.BinaryTypes.String, n))
			} else {
				p.cols = append(p.cols, constText(n, *v))
			}
		}
		if part >= 0 {
			b := array.NewInt32Builder(memory.DefaultAllocator)
			b.Reserve(n)
			for range n {
				b.UnsafeAppend(int32(part))
			}
			p.cols = append(p.cols, b.NewArray())
			b.Release()
		}
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
