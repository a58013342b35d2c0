package iceberg

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	iceberg "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/reconcile-dev/reconcile/sources"
)

// The columns a read of changes (changes: true) adds after the provenance
// columns:
//
//	__change       utf8  insert or delete
//	__delete_kind  utf8  of a delete: equality (a row of an equality delete
//	                     file: the key values it deletes, every other
//	                     column NULL), position (a row a position delete
//	                     file names: the row as its data file holds it) or
//	                     deletion_vector (likewise, named by a v3 deletion
//	                     vector); NULL for an insert
//
// __snapshot, __job_id, __checkpoint and __checkpoint_after are those of
// the snapshot that made the change. __file and __line of an insert are its
// data file and row; of a position or deletion-vector delete the data file
// and row it deletes; of an equality delete the delete file and its row.
const (
	ChangeColumn     = "__change"
	DeleteKindColumn = "__delete_kind"
)

// Values of __change and __delete_kind.
const (
	ChangeInsert         = "insert"
	ChangeDelete         = "delete"
	DeleteEquality       = "equality"
	DeletePosition       = "position"
	DeleteDeletionVector = "deletion_vector"
)

var changeFields = []arrow.Field{
	{Name: ChangeColumn, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: DeleteKindColumn, Type: arrow.BinaryTypes.String, Nullable: true},
}

// changes is the plan of a read of changes: the snapshots of the range in
// ancestry order, each with what it changed.
type changes struct {
	// from is the snapshot the range starts after (nil: the ancestry's
	// first), to the snapshot read (the range's last).
	from *int64
	to   *table.Snapshot
	// start says where the range starts, for the evidence.
	start string
	snaps []*snapChanges
	hist  *history
	// key are the columns of a row's key: the equality delete files'
	// columns, else the schema's identifier fields (nil: none); keyNote
	// says why there is none.
	key     []string
	keyNote string
	notes   []string
}

// snapChanges is what one snapshot of the range changed, in the order the
// changes are read: its equality deletes; the rows of earlier snapshots'
// data files its position deletes and deletion vectors name; the rows of
// the data files it added; the rows of those its position deletes name.
type snapChanges struct {
	snap    *table.Snapshot
	skipped string // why its changes are not read (a compaction)
	eq      []iceberg.DataFile
	before  []*posTarget
	inserts []iceberg.DataFile
	own     []*posTarget
	// posFiles are the position delete files and deletion vectors it
	// added, for the evidence.
	posFiles []iceberg.DataFile
}

// posTarget is a data file some of whose rows a snapshot deleted by
// position: the rows at positions (0-based, ascending, each once).
type posTarget struct {
	path      string
	file      iceberg.DataFile // nil when no manifest of the snapshot names it
	kind      string           // DeletePosition or DeleteDeletionVector
	positions []int64
	// unreadable says why the row values cannot be read (the file is
	// gone, or the snapshot does not hold it): the rows are listed with
	// NULL values.
	unreadable string
}

// planChanges plans the read of the changes of the snapshot range: after
// from_snapshot (which must be an ancestor of snap), else from the
// ancestry's first snapshot the metadata holds, to snap inclusive. A
// replace snapshot (a compaction: its files hold rows other snapshots
// wrote) is skipped, named with the reason. Refused (ErrRead, naming the
// snapshot and file), since its changes cannot be read exactly: a
// snapshot that removed a data or delete file other than by a compaction
// (an overwrite or a copy-on-write delete: the rows it removed are those
// still live in the file, which its deletes decide); an equality delete
// file partitioned by a column outside its equality columns (its key
// values alone do not say which rows it deletes); a delete file of a
// format other than Parquet or Puffin.
func (s *source) planChanges(ctx context.Context, meta table.Metadata, snap *table.Snapshot, schema *iceberg.Schema, h *history) (*changes, error) {
	ch := &changes{from: s.fromSnapshot, to: snap, hist: h}
	anc := h.ancestry
	first := 0
	if s.fromSnapshot != nil {
		i := slices.IndexFunc(anc, func(a *table.Snapshot) bool { return a.SnapshotID == *s.fromSnapshot })
		if i < 0 {
			return nil, fmt.Errorf("%w: %s: from_snapshot %d is not in the ancestry of snapshot %d, the snapshot read (expired, rolled back, or on another branch)", sources.ErrInvalidLocation, s.name(), *s.fromSnapshot, snap.SnapshotID)
		}
		first = i + 1
		ch.start = fmt.Sprintf("after snapshot %d (from_snapshot)", *s.fromSnapshot)
	} else if len(anc) > 0 {
		if p := anc[0].ParentSnapshotID; p != nil {
			ch.start = fmt.Sprintf("at snapshot %d, the first of the ancestry the metadata holds: its parent %d has expired, and the changes up to it are not read", anc[0].SnapshotID, *p)
			ch.notes = append(ch.notes, "changes: "+ch.start)
		} else {
			ch.start = fmt.Sprintf("at snapshot %d, the table's first", anc[0].SnapshotID)
		}
	}
	eqIDs := map[string][]int{}
	for _, a := range anc[first:] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sc, err := s.snapshotChanges(meta, a)
		if err != nil {
			return nil, err
		}
		for _, d := range sc.eq {
			ids := slices.Sorted(slices.Values(d.EqualityFieldIDs()))
			eqIDs[fmt.Sprint(ids)] = ids
			if err := eqScope(meta, a, d); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrRead, s.name(), err)
			}
		}
		ch.snaps = append(ch.snaps, sc)
	}
	var ids []int
	switch len(eqIDs) {
	case 0:
		ids = schema.IdentifierFieldIDs
		if len(ids) == 0 {
			ch.keyNote = "no equality delete in the range and no identifier fields in the schema: no key, no insert of a key while it is live is looked for"
		}
	case 1:
		for _, v := range eqIDs {
			ids = v
		}
	default:
		ch.keyNote = fmt.Sprintf("the equality deletes of the range are on different columns (field ids %v): no one key, no insert of a key while it is live is looked for", slices.Sorted(maps.Keys(eqIDs)))
	}
	for _, id := range ids {
		f, ok := schema.FindFieldByID(id)
		if !ok || !slices.ContainsFunc(schema.Fields(), func(t iceberg.NestedField) bool { return t.ID == id }) {
			return nil, fmt.Errorf("%w: %s: the key of the changes (field id %d) is not a top-level column of the schema read (%d)", ErrRead, s.name(), id, schema.ID)
		}
		ch.key = append(ch.key, f.Name)
	}
	return ch, nil
}

// eqScope refuses an equality delete file d, committed by snap, of a
// partition spec with a field whose source column is not one of its
// equality columns: it deletes the key only in its own partition, which
// the key values do not say. (Flink's sink in upsert mode requires the
// partition columns among the equality columns.)
func eqScope(meta table.Metadata, snap *table.Snapshot, d iceberg.DataFile) error {
	spec := meta.PartitionSpecByID(int(d.SpecID()))
	if spec == nil {
		return fmt.Errorf("snapshot %d: equality delete file %s names partition spec %d, which the metadata does not hold", snap.SnapshotID, d.FilePath(), d.SpecID())
	}
	eq := d.EqualityFieldIDs()
	for _, f := range spec.Fields() {
		for _, src := range f.SourceIDs {
			if !slices.Contains(eq, src) {
				return fmt.Errorf("changes: snapshot %d: equality delete file %s is partitioned by %s (source field %d), which is not among its equality columns %v: it deletes its keys in its own partition only, which the key values do not say", snap.SnapshotID, d.FilePath(), f.Name, src, eq)
			}
		}
	}
	return nil
}

// snapshotChanges reads the manifests snap wrote (their entries added or
// removed by snap) and the position deletes it added.
func (s *source) snapshotChanges(meta table.Metadata, snap *table.Snapshot) (*snapChanges, error) {
	sc := &snapChanges{snap: snap}
	if snap.Summary != nil && snap.Summary.Operation == table.OpReplace {
		sc.skipped = "a compaction (replace): the data files it wrote hold rows earlier snapshots inserted, and those it removed rows still live: no row changed"
		return sc, nil
	}
	fs := iceio.LocalFS{}
	manifests, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("%w: %s, snapshot %d: manifest list: %w", ErrRead, s.name(), snap.SnapshotID, err)
	}
	var posFiles []iceberg.DataFile
	for _, m := range manifests {
		if m.SnapshotID() != snap.SnapshotID {
			continue
		}
		entries, err := m.FetchEntries(fs, false)
		if err != nil {
			return nil, fmt.Errorf("%w: %s, snapshot %d: manifest %s: %w", ErrRead, s.name(), snap.SnapshotID, m.FilePath(), err)
		}
		for _, e := range entries {
			if e.SnapshotID() != snap.SnapshotID {
				continue
			}
			df := e.DataFile()
			if e.Status() == iceberg.EntryStatusDELETED {
				what := "data file"
				if df.ContentType() != iceberg.EntryContentData {
					what = "delete file"
				}
				return nil, fmt.Errorf("%w: %s: changes: snapshot %d (%s) removed %s %s: the rows a removed file takes away (or gives back) are those its deletes left live, which are not read as changes; read the changes from after it (from_snapshot: %d)", ErrRead, s.name(), snap.SnapshotID, operation(snap), what, df.FilePath(), snap.SnapshotID)
			}
			if e.Status() != iceberg.EntryStatusADDED {
				continue
			}
			switch df.ContentType() {
			case iceberg.EntryContentData:
				sc.inserts = append(sc.inserts, df)
			case iceberg.EntryContentEqDeletes:
				if df.FileFormat() != iceberg.ParquetFile {
					return nil, fmt.Errorf("%w: %s: changes: snapshot %d: equality delete file %s is %s, not Parquet", ErrRead, s.name(), snap.SnapshotID, df.FilePath(), df.FileFormat())
				}
				sc.eq = append(sc.eq, df)
			case iceberg.EntryContentPosDeletes:
				posFiles = append(posFiles, df)
			}
		}
	}
	byPath := func(a, b iceberg.DataFile) int { return strings.Compare(a.FilePath(), b.FilePath()) }
	slices.SortFunc(sc.eq, byPath)
	slices.SortFunc(sc.inserts, byPath)
	slices.SortFunc(posFiles, byPath)
	sc.posFiles = posFiles
	if meta.Version() >= 3 {
		for _, df := range sc.inserts {
			if _, ok := df.ValueCounts()[iceberg.RowIDFieldID]; ok {
				return nil, fmt.Errorf("%w: %s, snapshot %d: data file %s carries a _row_id column (row lineage kept by a rewrite): the row positions this kind reports cannot be told from it", ErrRead, s.name(), snap.SnapshotID, df.FilePath())
			}
		}
	}
	return sc, s.positionTargets(snap, manifests, sc)
}

// operation is snap's operation, for messages.
func operation(snap *table.Snapshot) string {
	if snap.Summary == nil {
		return "no operation recorded"
	}
	return string(snap.Summary.Operation)
}

// positionTargets reads the position delete files and deletion vectors snap
// added into the data files whose rows they delete: those snap added
// itself (own, read after its inserts), the others (before).
func (s *source) positionTargets(snap *table.Snapshot, manifests []iceberg.ManifestFile, sc *snapChanges) error {
	targets := map[string]*posTarget{}
	add := func(path, kind string, pos []int64) {
		t := targets[path]
		if t == nil {
			t = &posTarget{path: path, kind: kind}
			targets[path] = t
		}
		t.positions = append(t.positions, pos...)
	}
	for _, df := range sc.posFiles {
		switch df.FileFormat() {
		case iceberg.PuffinFile:
			ref := df.ReferencedDataFile()
			if ref == nil {
				return fmt.Errorf("%w: %s, snapshot %d: deletion vector %s names no data file", ErrRead, s.name(), snap.SnapshotID, df.FilePath())
			}
			bm, err := dv.ReadDV(iceio.LocalFS{}, df)
			if err != nil {
				return fmt.Errorf("%w: %s, snapshot %d: deletion vector %s: %w", ErrRead, s.name(), snap.SnapshotID, df.FilePath(), err)
			}
			var pos []int64
			for p := range bm.Positions() {
				pos = append(pos, int64(p))
			}
			add(*ref, DeleteDeletionVector, pos)
		case iceberg.ParquetFile:
			byFile, err := readPositionDeletes(localPath(df.FilePath()))
			if err != nil {
				return fmt.Errorf("%w: %s, snapshot %d: position delete file %s: %w", ErrRead, s.name(), snap.SnapshotID, df.FilePath(), err)
			}
			for path, pos := range byFile {
				add(path, DeletePosition, pos)
			}
		default:
			return fmt.Errorf("%w: %s: changes: snapshot %d: position delete file %s is %s, not Parquet or Puffin", ErrRead, s.name(), snap.SnapshotID, df.FilePath(), df.FileFormat())
		}
	}
	if len(targets) == 0 {
		return nil
	}
	own := map[string]iceberg.DataFile{}
	for _, df := range sc.inserts {
		own[df.FilePath()] = df
	}
	// The data files of earlier snapshots: the data manifests' live
	// entries of snap.
	live := map[string]iceberg.DataFile{}
	for _, m := range manifests {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		entries, err := m.FetchEntries(iceio.LocalFS{}, true)
		if err != nil {
			return fmt.Errorf("%w: %s, snapshot %d: manifest %s: %w", ErrRead, s.name(), snap.SnapshotID, m.FilePath(), err)
		}
		for _, e := range entries {
			if e.DataFile().ContentType() == iceberg.EntryContentData {
				live[e.DataFile().FilePath()] = e.DataFile()
			}
		}
	}
	paths := slices.Sorted(maps.Keys(targets))
	for _, p := range paths {
		t := targets[p]
		slices.Sort(t.positions)
		t.positions = slices.Compact(t.positions)
		if df, ok := own[p]; ok {
			t.file = df
			sc.own = append(sc.own, t)
			continue
		}
		t.file = live[p]
		switch {
		case t.file == nil:
			t.unreadable = fmt.Sprintf("snapshot %d holds no data file %s", snap.SnapshotID, p)
		case t.file.FileFormat() != iceberg.ParquetFile:
			t.unreadable = fmt.Sprintf("data file %s is %s", p, t.file.FileFormat())
		default:
			if _, err := os.Stat(localPath(p)); err != nil {
				t.unreadable = err.Error()
			}
		}
		sc.before = append(sc.before, t)
	}
	return nil
}

// readPositionDeletes reads a position delete file (Parquet: file_path,
// pos) into the positions it names, by data file.
func readPositionDeletes(path string) (map[string][]int64, error) {
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	sc, err := fr.Schema()
	if err != nil {
		return nil, err
	}
	fp, pp := sc.FieldIndices("file_path"), sc.FieldIndices("pos")
	if len(fp) != 1 || len(pp) != 1 {
		return nil, fmt.Errorf("no file_path and pos columns (%s)", sc)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	out := map[string][]int64{}
	paths, pos := tbl.Column(fp[0]).Data().Chunks(), tbl.Column(pp[0]).Data().Chunks()
	if len(paths) != len(pos) {
		return nil, fmt.Errorf("file_path and pos in %d and %d chunks", len(paths), len(pos))
	}
	for c := range paths {
		ps, ok1 := paths[c].(*array.String)
		ns, ok2 := pos[c].(*array.Int64)
		if !ok1 || !ok2 || ps.NullN() > 0 || ns.NullN() > 0 || ps.Len() != ns.Len() {
			return nil, fmt.Errorf("file_path %s and pos %s: want text and long, no NULL", paths[c].DataType(), pos[c].DataType())
		}
		for i := range ps.Len() {
			out[ps.Value(i)] = append(out[ps.Value(i)], ns.Value(i))
		}
	}
	return out, nil
}

// fillChanges writes the rows of the changes, snapshot by snapshot in
// ancestry order: its equality deletes, its deletes by position of rows of
// earlier snapshots, its inserts, its deletes by position of its own rows;
// with part >= 0, each row's part (the one part of a read of changes)
// after the change columns.
func (s *source) fillChanges(ctx context.Context, w *sources.RowWriter, r *read, part int) error {
	prov := append(slices.Clone(provenanceFields), changeFields...)
	if part >= 0 {
		prov = append(prov, partField)
	}
	out := recordSchema(r.cols, prov)
	pv := &provenance{task: -1}
	defer pv.release()
	unit := 0
	ins, del := ChangeInsert, ChangeDelete
	eqKind := DeleteEquality
	for _, sc := range r.ch.snaps {
		if sc.skipped != "" {
			continue
		}
		id, c := sc.snap.SnapshotID, r.ch.hist.commits[sc.snap.SnapshotID]
		write := func(u int, name string, kind *string, change *string) func(user []arrow.Array, lines *array.Int64) error {
			return func(user []arrow.Array, lines *array.Int64) error {
				m := lines.Len()
				pc := pv.columns(u, id, c, m, part, change, kind)
				arrs := append(slices.Clone(user), pc...)
				rec := array.NewRecordBatch(out, arrs, int64(m))
				for _, a := range pc {
					a.Release()
				}
				err := w.AppendBatchAt(rec, name, lines)
				rec.Release()
				return err
			}
		}
		for _, d := range sc.eq {
			unit++
			emit := write(unit, s.fileName(r.meta, d.FilePath()), &eqKind, &del)
			only, err := eqColumns(r.schema, d)
			if err != nil {
				return fmt.Errorf("%w: %s, snapshot %d: %w", ErrRead, s.name(), sc.snap.SnapshotID, err)
			}
			err = s.scanTasks(ctx, r.rtbl, r.snap, r.cols, only, []table.FileScanTask{wholeFile(d)}, 1, func(_ int, user []arrow.Array, lines *array.Int64) error {
				return emit(user, lines)
			})
			if err != nil {
				return err
			}
		}
		for _, t := range sc.before {
			unit++
			kind := t.kind
			if err := s.positionRows(ctx, r, t, write(unit, s.fileName(r.meta, t.path), &kind, &del)); err != nil {
				return err
			}
		}
		if len(sc.inserts) > 0 {
			tasks := make([]table.FileScanTask, len(sc.inserts))
			emits := make([]func([]arrow.Array, *array.Int64) error, len(sc.inserts))
			for i, d := range sc.inserts {
				unit++
				tasks[i] = wholeFile(d)
				emits[i] = write(unit, s.fileName(r.meta, d.FilePath()), nil, &ins)
			}
			err := s.scanTasks(ctx, r.rtbl, r.snap, r.cols, nil, tasks, max(1, min(4, len(tasks))), func(task int, user []arrow.Array, lines *array.Int64) error {
				return emits[task](user, lines)
			})
			if err != nil {
				return err
			}
		}
		for _, t := range sc.own {
			unit++
			kind := t.kind
			if err := s.positionRows(ctx, r, t, write(unit, s.fileName(r.meta, t.path), &kind, &del)); err != nil {
				return err
			}
		}
	}
	return nil
}

// eqColumns are the columns of the equality delete file d, by name in the
// schema read: the only ones it holds. An equality column that is not a
// top-level column of that schema is an error.
func eqColumns(schema *iceberg.Schema, d iceberg.DataFile) ([]string, error) {
	var out []string
	for _, id := range d.EqualityFieldIDs() {
		f, ok := schema.FindFieldByID(id)
		if !ok || !slices.ContainsFunc(schema.Fields(), func(t iceberg.NestedField) bool { return t.ID == id }) {
			return nil, fmt.Errorf("equality delete file %s deletes by field id %d, which is not a top-level column of the schema read (%d)", d.FilePath(), id, schema.ID)
		}
		out = append(out, f.Name)
	}
	return out, nil
}

// wholeFile is a scan task reading every row of d, no delete applied.
func wholeFile(d iceberg.DataFile) table.FileScanTask {
	return table.FileScanTask{File: d, Start: 0, Length: d.FileSizeBytes()}
}

// positionRows emits the rows of data file t at t.positions, as the file
// holds them (no delete applied), __line each row's 1-based position; when
// the file cannot be read, the positions with every column NULL. A
// position beyond the file's rows is an error.
func (s *source) positionRows(ctx context.Context, r *read, t *posTarget, emit func([]arrow.Array, *array.Int64) error) error {
	if t.unreadable != "" {
		lb := array.NewInt64Builder(memory.DefaultAllocator)
		defer lb.Release()
		for _, p := range t.positions {
			lb.Append(p + 1)
		}
		lines := lb.NewInt64Array()
		defer lines.Release()
		user := make([]arrow.Array, len(r.cols))
		for i, c := range r.cols {
			user[i] = array.MakeArrayOfNull(memory.DefaultAllocator, c.field.Type, len(t.positions))
			defer user[i].Release()
		}
		return emit(user, lines)
	}
	next, found := 0, 0
	err := s.scanTasks(ctx, r.rtbl, r.snap, r.cols, nil, []table.FileScanTask{wholeFile(t.file)}, 1, func(_ int, user []arrow.Array, lines *array.Int64) error {
		var take []int64
		for i := range lines.Len() {
			for next < len(t.positions) && t.positions[next] < lines.Value(i)-1 {
				next++ // a position the file skipped: found missing below
			}
			if next < len(t.positions) && t.positions[next] == lines.Value(i)-1 {
				take = append(take, int64(i))
			}
		}
		if len(take) == 0 {
			return nil
		}
		found += len(take)
		idx := array.NewInt64Builder(memory.DefaultAllocator)
		idx.AppendValues(take, nil)
		ia := idx.NewInt64Array()
		idx.Release()
		defer ia.Release()
		picked := make([]arrow.Array, len(user))
		for i, a := range user {
			p, err := compute.TakeArray(ctx, a, ia)
			if err != nil {
				return fmt.Errorf("%w: %s: data file %s: %w", ErrRead, s.name(), t.path, err)
			}
			defer p.Release()
			picked[i] = p
		}
		pl, err := compute.TakeArray(ctx, lines, ia)
		if err != nil {
			return err
		}
		defer pl.Release()
		return emit(picked, pl.(*array.Int64))
	})
	if err != nil {
		return err
	}
	if found != len(t.positions) {
		return fmt.Errorf("%w: %s: deletes name %d rows of data file %s (up to row %d), %d of which it holds", ErrRead, s.name(), len(t.positions), t.path, t.positions[len(t.positions)-1]+1, found)
	}
	return nil
}

// describe adds the changes to the Input: details.changes (the range and,
// per snapshot, the files read), the change columns as provenance, the
// key for the loader's look for keys inserted twice (Input.ChangeLog),
// and notes.
func (ch *changes) describe(s *source, meta table.Metadata, in *sources.Input) {
	in.Provenance = append(in.Provenance, ChangeColumn, DeleteKindColumn)
	delete(in.Details, "data_files")
	delete(in.Details, "delete_files")
	from := ""
	if ch.from != nil {
		from = strconv.FormatInt(*ch.from, 10)
	}
	in.Relation = fmt.Sprintf("iceberg %s changes after %s to %d", meta.TableUUID(), from, ch.to.SnapshotID)
	d := map[string]any{"to_snapshot": strconv.FormatInt(ch.to.SnapshotID, 10), "range_starts": ch.start}
	if ch.from != nil {
		d["from_snapshot"] = strconv.FormatInt(*ch.from, 10)
	}
	if ch.key != nil {
		d["key"] = ch.key
		in.ChangeLog = &sources.ChangeLog{Key: ch.key, Change: ChangeColumn, DeleteKind: DeleteKindColumn,
			DeleteAll: DeleteEquality, Commit: SnapshotColumn, Checkpoint: CheckpointColumn}
	} else {
		d["key_note"] = ch.keyNote
	}
	fileEntry := func(df iceberg.DataFile) map[string]any {
		e := map[string]any{"path": s.fileName(meta, df.FilePath()), "bytes": df.FileSizeBytes(), "records": df.Count()}
		if ids := df.EqualityFieldIDs(); len(ids) > 0 {
			e["equality_ids"] = ids
		}
		if ref := df.ReferencedDataFile(); ref != nil {
			e["deletes_in"] = s.fileName(meta, *ref)
		}
		return e
	}
	var unreadable []string
	var snaps []any
	for _, sc := range ch.snaps {
		e := map[string]any{"snapshot_id": strconv.FormatInt(sc.snap.SnapshotID, 10), "sequence_number": sc.snap.SequenceNumber,
			"operation": operation(sc.snap)}
		if sc.skipped != "" {
			e["skipped"] = sc.skipped
			snaps = append(snaps, e)
			continue
		}
		list := func(key string, files []iceberg.DataFile) {
			var out []any
			for _, df := range files {
				out = append(out, fileEntry(df))
			}
			if len(out) > 0 {
				e[key] = out
			}
		}
		list("inserted_files", sc.inserts)
		list("equality_delete_files", sc.eq)
		list("position_delete_files", sc.posFiles)
		var rowsOf []any
		for _, t := range append(slices.Clone(sc.before), sc.own...) {
			re := map[string]any{"data_file": s.fileName(meta, t.path), "rows": len(t.positions), "by": t.kind}
			if t.unreadable != "" {
				re["values_not_read"] = t.unreadable
				unreadable = append(unreadable, fmt.Sprintf("%d rows of %s deleted by snapshot %d (%s)", len(t.positions), s.fileName(meta, t.path), sc.snap.SnapshotID, t.unreadable))
			} else if t.file != nil {
				re["bytes"] = t.file.FileSizeBytes()
			}
			rowsOf = append(rowsOf, re)
		}
		if len(rowsOf) > 0 {
			e["deleted_rows_read_from"] = rowsOf
		}
		snaps = append(snaps, e)
	}
	d["snapshots"] = snaps
	in.Details["changes"] = d
	for _, n := range ch.notes {
		in.Notes = append(in.Notes, "the "+s.loc.Role+" "+s.name()+": "+n)
	}
	if len(unreadable) > 0 {
		sort.Strings(unreadable)
		in.Notes = append(in.Notes, fmt.Sprintf("the %s %s: changes: the values of rows deleted by position could not be read (listed with NULL values, no key): %s", s.loc.Role, s.name(), strings.Join(unreadable, "; ")))
	}
}
