// Package iceberg is the input kind for Apache Iceberg tables: it reads one
// snapshot of a table as a reader of the table sees it — position deletes,
// deletion vectors and equality deletes applied — with
// github.com/apache/iceberg-go, and attributes every row to the data file
// it lies in and the snapshot (and, for Flink's Iceberg sink, the job and
// checkpoint) that committed that file. See README.md beside this file.
//
// Two kinds are registered:
//
//	iceberg:warehouse/db/table             a table folder on the local file system
//	iceberg:warehouse/db/table/metadata/v3.metadata.json   one metadata file
//	iceberg+sql:postgres://user@host:5432/db?table=ns.name&catalog=NAME
//	iceberg+sql:sqlite:path/catalog.db?table=ns.name
//
// Options: snapshot: (an id), as_of: (an instant), ref: (a branch or tag);
// the default is the table's current snapshot. changes: true reads instead
// the rows each snapshot of a range inserted and deleted (from after
// from_snapshot:, or the whole ancestry, to the snapshot chosen; see
// changes.go). The loader reads the data files to which no delete applies
// with DuckDB's own Parquet reader (ScanParts, sources.PartScanner). The
// kind imports no other kind, no engine and no check (package sources'
// rules).
package iceberg

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	iceberg "github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// The kind's own provenance columns (sources.Input.Provenance), after the
// table's columns and before __file, __line and __row:
//
//	__snapshot          int64  the snapshot that added the row's data file
//	__job_id            utf8   its flink.job-id (NULL: not a Flink commit)
//	__checkpoint        int64  its flink.max-committed-checkpoint-id
//	__checkpoint_after  int64  the checkpoint id the same job and operator
//	                           committed before it along its ancestry: the
//	                           snapshot committed the checkpoints in
//	                           (__checkpoint_after, __checkpoint]
//
// __file is the data file (relative to the table's location when it lies
// below it) and __line the row's 1-based position in it, as before any
// delete was applied; a location reads file:line@snapshot
// (sources.LocationSnapshot), since a data file two snapshots added is
// read twice.
const (
	SnapshotColumn        = "__snapshot"
	JobIDColumn           = "__job_id"
	CheckpointColumn      = "__checkpoint"
	CheckpointAfterColumn = "__checkpoint_after"
)

// ErrRead is in the chain of an error reading a table's metadata, manifests
// or data files (a runtime error, exit 3).
var ErrRead = fault.Runtime.New("iceberg: cannot read the table")

// source is one Iceberg input.
type source struct {
	loc  sources.Location
	kind string
	// path is the table folder or metadata file (KindFS); cat the SQL
	// catalog (KindSQL).
	path string
	cat  *sqlCatalog
	sel  selector
	// changes: read the changes of a snapshot range (the changes:
	// option), from after fromSnapshot (nil: the whole ancestry).
	changes      bool
	fromSnapshot *int64
}

func (s *source) Close() error { return nil }

// metadataFile is the metadata file a read resolved and its bytes.
type metadataFile struct {
	path  string // on the local file system
	how   string // how it was found, for the evidence
	bytes []byte // as stored
	sum   string // SHA-256 of bytes, lower-case hex
	// catalog facts (KindSQL) for the evidence
	catalog map[string]any
}

// posBits: a row's _row_id, as the read asks iceberg-go to make it, is its
// task's index shifted left by posBits plus its position in the data file.
const posBits = 40

// lineageMeta is the table's metadata reporting format version 3 at least,
// so that a scan of a v1 or v2 table may project _row_id: iceberg-go
// synthesises it as a task's FirstRowID plus the row's position in the
// data file before any delete or filter drops a row (table/arrow_scanner.go,
// synthesizeRowLineageColumns), which is how the read learns each row's
// task and position. Version is read only by Scan.Projection in the read
// path (iceberg-go v0.7.0); TestPositions pins the behaviour.
type lineageMeta struct{ table.Metadata }

func (m lineageMeta) Version() int { return max(3, m.Metadata.Version()) }

// planned is one data file to read.
type planned struct {
	task  table.FileScanTask
	name  string // __file
	added int64  // the snapshot that added it
	c     *commit
}

// Read resolves the metadata file, chooses the snapshot, maps its schema,
// plans the data files with their deletes and returns the Input and the
// records. See the package doc and README.md.
func (s *source) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	r, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	rr, err := r.records(ctx, 0, r.parts(), 0, false)
	if err != nil {
		return nil, nil, err
	}
	return r.in, rr, nil
}

// read is a read prepared up to its first row: the Input, the records'
// user fields and how to produce them.
type read struct {
	s    *source
	in   *sources.Input
	meta table.Metadata
	snap *table.Snapshot
	// user are the records' fields before __file, __line and __row: the
	// table's columns (cols) and the kind's provenance.
	user []arrow.Field
	cols []column
	// schema is the schema the snapshot read was written under.
	schema *iceberg.Schema
	// rtbl is the table as the scan reads it (lineageMeta).
	rtbl *table.Table
	// files are the data files of the snapshot read, in read order (also
	// planned for a read of changes, ch, for the commit history's
	// findings, but not read).
	files []planned
	ch    *changes
}

// parts is how many parts the records have: one per data file, or one
// for a read of changes.
func (r *read) parts() int {
	if r.ch != nil {
		return 1
	}
	return len(r.files)
}

// records are the rows of parts [from, to) (files, or the changes),
// __row counting from firstRow; with part, each row's part follows the
// fields (sources.PartScan.Records).
func (r *read) records(ctx context.Context, from, to int, firstRow int64, part bool) (array.RecordReader, error) {
	s := r.s
	opt := sources.ReadOptions{Progress: s.loc.Progress, Label: "reading " + s.loc.Role + " " + sources.Redact(s.loc.URI), FirstRow: firstRow}
	user, base := r.user, -1
	if part {
		user, base = append(slices.Clone(user), partField), from
	}
	return sources.ReadRows(ctx, user, opt, func(ctx context.Context, w *sources.RowWriter) error {
		if r.snap == nil {
			return nil
		}
		if r.ch != nil {
			return s.fillChanges(ctx, w, r, base)
		}
		return s.fill(ctx, w, r.rtbl, r.snap, r.cols, r.files[from:to], base)
	})
}

// prepare resolves the metadata file, chooses the snapshot, maps its
// schema, plans the data files with their deletes (or, with changes:,
// the changes of the snapshot range) and describes the read.
func (s *source) prepare(ctx context.Context) (*read, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mf, err := s.locate(ctx)
	if err != nil {
		return nil, err
	}
	fp, err := fileset.Fingerprint(ctx, []string{mf.path})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRead, err)
	}
	if fp[0].SHA256 != mf.sum {
		return nil, fmt.Errorf("%w: metadata file %s changed while it was read", sources.ErrChanged, mf.path)
	}
	data := mf.bytes
	if strings.HasSuffix(mf.path, ".gz.metadata.json") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%w: metadata file %s: %w", ErrRead, mf.path, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%w: metadata file %s: %w", ErrRead, mf.path, err)
		}
	}
	meta, err := table.ParseMetadataBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata file %s: %w", ErrRead, mf.path, err)
	}
	snap, selected, err := s.pick(meta)
	if err != nil {
		return nil, fmt.Errorf("%s (metadata file %s): %w", s.name(), mf.path, err)
	}
	schema := meta.CurrentSchema()
	if snap != nil && snap.SchemaID != nil {
		schema = nil
		for _, sc := range meta.Schemas() {
			if sc.ID == *snap.SchemaID {
				schema = sc
			}
		}
		if schema == nil {
			return nil, fmt.Errorf("%w: snapshot %d names schema %d, which the metadata file %s does not hold", ErrRead, snap.SnapshotID, *snap.SchemaID, mf.path)
		}
	}
	cols, err := mapSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("%s, snapshot %s: %w", s.name(), snapText(snap), err)
	}
	prov := provenanceFields
	if s.changes {
		prov = append(slices.Clone(prov), changeFields...)
	}
	user := make([]arrow.Field, 0, len(cols)+len(prov))
	for _, c := range cols {
		for _, p := range prov {
			if c.field.Name == p.Name {
				return nil, fmt.Errorf("%w: %s: column name %q is reserved for the kind's provenance", sources.ErrInvalidLocation, s.name(), c.field.Name)
			}
		}
		user = append(user, c.field)
	}
	user = append(user, prov...)

	fsF := func(context.Context) (iceio.IO, error) { return iceio.LocalFS{}, nil }
	ident := table.Identifier{"reconcile", s.loc.Role}
	tbl := table.New(ident, meta, mf.path, fsF, nil)
	hist := analyze(meta, snap)
	r := &read{s: s, meta: meta, snap: snap, user: user, cols: cols, schema: schema,
		rtbl: table.New(ident, lineageMeta{meta}, mf.path, fsF, nil)}
	if snap != nil {
		// Planned for the commit history also when the changes are read
		// (a data file live twice is a finding either way).
		if r.files, err = s.plan(ctx, tbl, meta, snap, hist); err != nil {
			return nil, err
		}
		if s.changes {
			if r.ch, err = s.planChanges(ctx, meta, snap, schema, hist); err != nil {
				return nil, err
			}
		}
	}
	r.in = s.input(mf, fp[0], meta, snap, selected, schema, r.files, hist)
	if r.ch != nil {
		r.ch.describe(s, meta, r.in)
	}
	var utc []string
	for _, c := range cols {
		if c.utcNS {
			utc = append(utc, c.field.Name)
		}
	}
	if len(utc) > 0 {
		r.in.Details["utc_nanosecond_columns"] = utc
	}
	return r, nil
}

// name is the table as messages name it.
func (s *source) name() string {
	if s.cat != nil {
		return fmt.Sprintf("Iceberg table %s.%s of SQL catalog %s", strings.Join(s.cat.namespace, "."), s.cat.table, s.cat.name)
	}
	return "Iceberg table " + fileset.Rel(s.loc.BaseDir, s.path)
}

func snapText(s *table.Snapshot) string {
	if s == nil {
		return "none (the table has no snapshot)"
	}
	return strconv.FormatInt(s.SnapshotID, 10)
}

// pick chooses the snapshot read: snapshot:, as_of:, ref:, else the
// current one (nil for a table with no snapshot yet). selected says how,
// for the evidence.
func (s *source) pick(meta table.Metadata) (*table.Snapshot, string, error) {
	switch {
	case s.sel.snapshot != nil:
		snap := meta.SnapshotByID(*s.sel.snapshot)
		if snap == nil {
			return nil, "", fmt.Errorf("%w: snapshot %d is not in the table's metadata (expired, or of another table)", sources.ErrInvalidLocation, *s.sel.snapshot)
		}
		return snap, fmt.Sprintf("snapshot: %d", *s.sel.snapshot), nil
	case s.sel.asOf != nil:
		ms := s.sel.asOf.UnixMilli()
		var best *table.SnapshotLogEntry
		for e := range meta.SnapshotLogs() {
			if e.TimestampMs <= ms && (best == nil || e.TimestampMs >= best.TimestampMs) {
				e := e
				best = &e
			}
		}
		if best == nil {
			return nil, "", fmt.Errorf("%w: as_of %s: no snapshot was current then (the snapshot log starts later)", sources.ErrInvalidLocation, s.sel.asOf.Format(time.RFC3339Nano))
		}
		snap := meta.SnapshotByID(best.SnapshotID)
		if snap == nil {
			return nil, "", fmt.Errorf("%w: as_of %s: the snapshot log names snapshot %d, which has expired", sources.ErrInvalidLocation, s.sel.asOf.Format(time.RFC3339Nano), best.SnapshotID)
		}
		return snap, fmt.Sprintf("as_of: %s (the snapshot current then, by the snapshot log)", s.sel.asOf.Format(time.RFC3339Nano)), nil
	case s.sel.ref != "":
		for name, ref := range meta.Refs() {
			if name == s.sel.ref {
				snap := meta.SnapshotByID(ref.SnapshotID)
				if snap == nil {
					return nil, "", fmt.Errorf("%w: ref %s names snapshot %d, which the metadata does not hold", ErrRead, name, ref.SnapshotID)
				}
				return snap, fmt.Sprintf("ref: %s (%s)", name, ref.SnapshotRefType), nil
			}
		}
		var names []string
		for name := range meta.Refs() {
			names = append(names, name)
		}
		sort.Strings(names)
		return nil, "", fmt.Errorf("%w: ref %q: the table has no such branch or tag (it has: %s)", sources.ErrInvalidLocation, s.sel.ref, strings.Join(names, ", "))
	}
	return meta.CurrentSnapshot(), "the current snapshot (current-snapshot-id)", nil
}

// plan lists the data files of snap with the deletes that apply to each
// (iceberg-go's planner), each attributed to the snapshot that added it
// (its manifest entry), in read order: by data sequence number, then the
// adding snapshot's place in the ancestry (format v1 has no sequence
// numbers), then path. A table of format v3 whose data files carry _row_id is refused:
// the read takes each row's position from the _row_id it synthesises.
func (s *source) plan(ctx context.Context, tbl *table.Table, meta table.Metadata, snap *table.Snapshot, h *history) ([]planned, error) {
	scan := tbl.Scan(table.WithSnapshotID(snap.SnapshotID))
	defer scan.Close()
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %s, snapshot %d: planning the scan: %w", ErrRead, s.name(), snap.SnapshotID, err)
	}
	// The snapshot that added each live data file, by (path, data
	// sequence number): the same path is live twice when two snapshots
	// added it.
	type entryKey struct {
		path string
		seq  int64
	}
	added := map[entryKey][]int64{}
	manifests, err := snap.Manifests(iceio.LocalFS{})
	if err != nil {
		return nil, fmt.Errorf("%w: %s, snapshot %d: manifest list: %w", ErrRead, s.name(), snap.SnapshotID, err)
	}
	for _, m := range manifests {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		entries, err := m.FetchEntries(iceio.LocalFS{}, true)
		if err != nil {
			return nil, fmt.Errorf("%w: %s, snapshot %d: manifest %s: %w", ErrRead, s.name(), snap.SnapshotID, m.FilePath(), err)
		}
		for _, e := range entries {
			if e.DataFile().ContentType() != iceberg.EntryContentData {
				continue
			}
			k := entryKey{e.DataFile().FilePath(), e.SequenceNum()}
			added[k] = append(added[k], e.SnapshotID())
		}
	}
	for k := range added {
		slices.Sort(added[k])
	}
	files := make([]planned, 0, len(tasks))
	for _, t := range tasks {
		var seq int64 = -1
		if t.DataSequenceNumber != nil {
			seq = *t.DataSequenceNumber
		}
		k := entryKey{t.File.FilePath(), seq}
		ids := added[k]
		if len(ids) == 0 {
			return nil, fmt.Errorf("%w: %s, snapshot %d: data file %s (sequence number %d) is planned but in no manifest entry read", ErrRead, s.name(), snap.SnapshotID, t.File.FilePath(), seq)
		}
		id := ids[0]
		added[k] = ids[1:]
		if meta.Version() >= 3 {
			if _, ok := t.File.ValueCounts()[iceberg.RowIDFieldID]; ok {
				return nil, fmt.Errorf("%w: %s, snapshot %d: data file %s carries a _row_id column (row lineage kept by a rewrite): the row positions this kind reports cannot be told from it", ErrRead, s.name(), snap.SnapshotID, t.File.FilePath())
			}
		}
		p := planned{task: t, name: s.fileName(meta, t.File.FilePath()), added: id, c: h.commits[id]}
		files = append(files, p)
	}
	// Commit order: by data sequence number, then (format v1, where every
	// sequence number is 0) by the adding snapshot's place in the
	// ancestry, then by path.
	pos := map[int64]int{}
	for i, a := range h.ancestry {
		pos[a.SnapshotID] = i
	}
	place := func(id int64) int {
		if i, ok := pos[id]; ok {
			return i
		}
		return len(h.ancestry)
	}
	sort.SliceStable(files, func(i, j int) bool {
		a, b := files[i].task, files[j].task
		as, bs := int64(-1), int64(-1)
		if a.DataSequenceNumber != nil {
			as = *a.DataSequenceNumber
		}
		if b.DataSequenceNumber != nil {
			bs = *b.DataSequenceNumber
		}
		if as != bs {
			return as < bs
		}
		if pa, pb := place(files[i].added), place(files[j].added); pa != pb {
			return pa < pb
		}
		if a.File.FilePath() != b.File.FilePath() {
			return a.File.FilePath() < b.File.FilePath()
		}
		return files[i].added < files[j].added
	})
	// A data file live twice: its rows are read twice.
	var twice []string
	byPath := map[string][]planned{}
	for _, f := range files {
		byPath[f.task.File.FilePath()] = append(byPath[f.task.File.FilePath()], f)
	}
	for p, fs := range byPath {
		if len(fs) > 1 {
			twice = append(twice, p)
		}
	}
	sort.Strings(twice)
	for _, p := range twice {
		fs := byPath[p]
		for _, f := range fs[1:] {
			h.findings = append(h.findings, Finding{Kind: FindingFileTwice, Exception: true,
				Snapshot: strconv.FormatInt(f.added, 10), Other: strconv.FormatInt(fs[0].added, 10),
				Detail: fmt.Sprintf("data file %s (%d rows) was added by snapshot %d%s and again by snapshot %d%s: its rows are read twice", f.name, f.task.File.Count(),
					fs[0].added, commitText(fs[0].c), f.added, commitText(f.c))})
		}
	}
	return files, nil
}

// commitText is " (checkpoint N of job J)" for a Flink commit, else "".
func commitText(c *commit) string {
	if c == nil || !c.hasCkpt {
		return ""
	}
	return fmt.Sprintf(" (checkpoint %s of job %s)", ckptText(c.ckpt), c.job)
}

// fileName is a data file's path as __file and the evidence name it:
// relative to the table's location when it lies below it.
func (s *source) fileName(meta table.Metadata, p string) string {
	loc := strings.TrimSuffix(localPath(meta.Location()), "/")
	lp := localPath(p)
	if loc != "" && strings.HasPrefix(lp, loc+"/") {
		return lp[len(loc)+1:]
	}
	return p
}

// localPath strips a file: scheme.
func localPath(p string) string {
	switch {
	case strings.HasPrefix(p, "file://"):
		return strings.TrimPrefix(strings.TrimPrefix(p, "file://"), "localhost")
	case strings.HasPrefix(p, "file:"):
		return strings.TrimPrefix(p, "file:")
	}
	return p
}

// parallelFileBytes bounds the data files read in parallel: iceberg-go's
// scan returns batches in task order, and a worker holds the decoded rows
// of a whole data file while an earlier one is read (Scan.ReadTasks), so
// files are read side by side only while each is at most this large on
// disk; a larger one makes the read go one file at a time, its batches
// streaming.
const parallelFileBytes = 64 << 20

// input is the evidence's description of the read.
func (s *source) input(mf *metadataFile, fp sources.File, meta table.Metadata, snap *table.Snapshot, selected string, schema *iceberg.Schema, files []planned, h *history) *sources.Input {
	fp.Path = fileset.Rel(s.loc.BaseDir, mf.path)
	in := &sources.Input{Role: s.loc.Role, Kind: s.kind, Location: sources.Redact(s.loc.URI), Files: []sources.File{fp},
		Provenance:   []string{SnapshotColumn, JobIDColumn, CheckpointColumn, CheckpointAfterColumn},
		LocationForm: sources.LocationSnapshot}
	d := map[string]any{
		"table_location":       meta.Location(),
		"table_uuid":           meta.TableUUID().String(),
		"format_version":       meta.Version(),
		"metadata_file":        fp.Path,
		"metadata_sha256":      mf.sum,
		"metadata_found_by":    mf.how,
		"snapshot_selected_by": selected,
		"schema_id":            schema.ID,
	}
	for k, v := range mf.catalog {
		d[k] = v
	}
	if snap == nil {
		d["snapshot_id"] = nil
		in.Notes = append(in.Notes, fmt.Sprintf("the %s %s has no snapshot: no row is read", s.loc.Role, s.name()))
	} else {
		d["snapshot_id"] = strconv.FormatInt(snap.SnapshotID, 10)
		d["sequence_number"] = snap.SequenceNumber
		d["snapshot_timestamp"] = time.UnixMilli(snap.TimestampMs).UTC().Format("2006-01-02T15:04:05.000Z")
		if snap.Summary != nil {
			d["snapshot_operation"] = string(snap.Summary.Operation)
			summary := map[string]any{}
			for k, v := range snap.Summary.Properties {
				summary[k] = v
			}
			d["snapshot_summary"] = summary
		}
		in.Relation = fmt.Sprintf("iceberg %s snapshot %d", meta.TableUUID(), snap.SnapshotID)
		var anc []any
		for _, a := range h.ancestry {
			e := map[string]any{"snapshot_id": strconv.FormatInt(a.SnapshotID, 10), "sequence_number": a.SequenceNumber,
				"timestamp": time.UnixMilli(a.TimestampMs).UTC().Format("2006-01-02T15:04:05.000Z")}
			if a.Summary != nil {
				e["operation"] = string(a.Summary.Operation)
			}
			if c := h.commits[a.SnapshotID]; c != nil && c.hasCkpt {
				e["flink_job_id"], e["flink_operator_id"], e["flink_checkpoint_id"] = c.job, c.op, c.ckpt
				if c.hasAfter {
					e["flink_checkpoint_after"] = c.after
				}
			}
			anc = append(anc, e)
		}
		d["ancestry"] = anc
	}
	var dataFiles, deleteFiles []any
	seenDelete := map[string]bool{}
	for _, f := range files {
		df := f.task.File
		e := map[string]any{"path": f.name, "bytes": df.FileSizeBytes(), "records": df.Count(),
			"added_by_snapshot": strconv.FormatInt(f.added, 10)}
		if f.task.DataSequenceNumber != nil {
			e["sequence_number"] = *f.task.DataSequenceNumber
		}
		var dels []string
		for _, group := range []struct {
			content string
			files   []iceberg.DataFile
		}{{"position_deletes", f.task.DeleteFiles}, {"equality_deletes", f.task.EqualityDeleteFiles}, {"deletion_vector", f.task.DeletionVectorFiles}} {
			for _, del := range group.files {
				name := s.fileName(meta, del.FilePath())
				dels = append(dels, name)
				if seenDelete[group.content+" "+name] {
					continue
				}
				seenDelete[group.content+" "+name] = true
				de := map[string]any{"path": name, "content": group.content, "bytes": del.FileSizeBytes(), "records": del.Count()}
				if ids := del.EqualityFieldIDs(); len(ids) > 0 {
					de["equality_ids"] = ids
				}
				deleteFiles = append(deleteFiles, de)
			}
		}
		if len(dels) > 0 {
			e["deletes_applied"] = dels
		}
		dataFiles = append(dataFiles, e)
	}
	d["data_files"] = dataFiles
	if len(deleteFiles) > 0 {
		d["delete_files"] = deleteFiles
	}
	if len(h.findings) > 0 {
		d["commit_history"] = h.findings
	}
	// The checks commit_history and commit_history_info list the findings
	// (an empty history passes).
	in.ReportsCommitHistory = snap != nil
	for _, f := range h.findings {
		in.CommitHistory = append(in.CommitHistory, sources.CommitFinding{Finding: f.Kind, Exception: f.Exception, Commit: f.Snapshot, Other: f.Other, Detail: f.Detail})
	}
	for _, n := range h.notes {
		in.Notes = append(in.Notes, "the "+s.loc.Role+" "+s.name()+": "+n)
	}
	in.Details = d
	return in
}
