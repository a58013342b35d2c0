// Package icebergtest writes real Apache Iceberg tables with
// github.com/apache/iceberg-go for the tests, the sample and the benchmark
// of the iceberg kind: a table in a Hadoop-style folder (metadata/vN and
// version-hint.text) or in a SQL catalog, appends with Flink's summary
// keys, row deltas with equality deletes, files committed twice,
// rollbacks and schema changes. It is test support: nothing a run uses.
package icebergtest

import (
	"context"
	"fmt"
	"iter"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/hadoop"
	"github.com/apache/iceberg-go/table"
)

// Table is a table being written, in the catalog that commits its changes.
type Table struct {
	Cat   catalog.Catalog
	Ident table.Identifier
	T     *table.Table
}

// NewHadoop creates table ns.name in a Hadoop-style warehouse folder
// (warehouse/ns/name, its metadata/ folder holding vN.metadata.json and
// version-hint.text) with the given schema and format version, partitioned
// by spec when one is given.
func NewHadoop(ctx context.Context, warehouse, ns, name string, schema *iceberg.Schema, formatVersion int, spec ...iceberg.PartitionSpec) (*Table, error) {
	cat, err := hadoop.NewCatalog("test", warehouse, iceberg.Properties{})
	if err != nil {
		return nil, err
	}
	return Create(ctx, cat, ns, name, schema, formatVersion, spec...)
}

// Create creates table ns.name in cat (its namespace too when missing),
// partitioned by spec when one is given.
func Create(ctx context.Context, cat catalog.Catalog, ns, name string, schema *iceberg.Schema, formatVersion int, spec ...iceberg.PartitionSpec) (*Table, error) {
	if ok, err := cat.CheckNamespaceExists(ctx, table.Identifier{ns}); err != nil {
		return nil, err
	} else if !ok {
		if err := cat.CreateNamespace(ctx, table.Identifier{ns}, nil); err != nil {
			return nil, err
		}
	}
	ident := table.Identifier{ns, name}
	opts := []catalog.CreateTableOpt{catalog.WithProperties(iceberg.Properties{
		table.PropertyFormatVersion: strconv.Itoa(formatVersion)})}
	for i := range spec {
		opts = append(opts, catalog.WithPartitionSpec(&spec[i]))
	}
	t, err := cat.CreateTable(ctx, ident, schema, opts...)
	if err != nil {
		return nil, err
	}
	return &Table{Cat: cat, Ident: ident, T: t}, nil
}

// Flink is the summary Flink's Iceberg sink writes on a commit: its job,
// operator and the highest checkpoint id committed.
func Flink(job, operator string, checkpoint int64) iceberg.Properties {
	return iceberg.Properties{
		"flink.job-id":                      job,
		"flink.operator-id":                 operator,
		"flink.max-committed-checkpoint-id": strconv.FormatInt(checkpoint, 10),
	}
}

// Batches yields recs once each (WriteRecords releases what it reads: each
// is retained first, so the caller keeps its own reference).
func Batches(recs ...arrow.RecordBatch) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, r := range recs {
			r.Retain()
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Write writes recs as data files of the table, committing nothing.
func (t *Table) Write(ctx context.Context, recs ...arrow.RecordBatch) ([]iceberg.DataFile, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	var out []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, t.T, recs[0].Schema(), Batches(recs...)) {
		if err != nil {
			return nil, err
		}
		out = append(out, df)
	}
	return out, nil
}

// commit runs f in a transaction and commits it; the table is reloaded.
func (t *Table) commit(ctx context.Context, f func(tx *table.Transaction) error) (int64, error) {
	tx := t.T.NewTransaction()
	if err := f(tx); err != nil {
		return 0, err
	}
	nt, err := tx.Commit(ctx)
	if err != nil {
		return 0, err
	}
	t.T = nt
	if s := nt.CurrentSnapshot(); s != nil {
		return s.SnapshotID, nil
	}
	return 0, nil
}

// Append writes recs and commits them as one append snapshot with props
// in its summary; it returns the snapshot id and the data files it added.
func (t *Table) Append(ctx context.Context, props iceberg.Properties, recs ...arrow.RecordBatch) (int64, []iceberg.DataFile, error) {
	if len(recs) == 0 {
		return 0, nil, fmt.Errorf("icebergtest: nothing to append")
	}
	rdr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		return 0, nil, err
	}
	defer rdr.Release()
	id, err := t.commit(ctx, func(tx *table.Transaction) error { return tx.Append(ctx, rdr, props) })
	if err != nil {
		return 0, nil, err
	}
	files, err := t.AddedFiles(id)
	return id, files, err
}

// AddedFiles are the data files snapshot id added.
func (t *Table) AddedFiles(id int64) ([]iceberg.DataFile, error) {
	snap := t.T.SnapshotByID(id)
	if snap == nil {
		return nil, fmt.Errorf("icebergtest: no snapshot %d", id)
	}
	fs, err := t.T.FS(context.Background())
	if err != nil {
		return nil, err
	}
	ms, err := snap.Manifests(fs)
	if err != nil {
		return nil, err
	}
	var out []iceberg.DataFile
	for _, m := range ms {
		es, err := m.FetchEntries(fs, true)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Status() == iceberg.EntryStatusADDED && e.SnapshotID() == id && e.DataFile().ContentType() == iceberg.EntryContentData {
				out = append(out, e.DataFile())
			}
		}
	}
	return out, nil
}

// AddFiles commits data files already written (as a restored Flink job's
// committer re-commits a checkpoint's files): no check that the table
// already holds them.
func (t *Table) AddFiles(ctx context.Context, props iceberg.Properties, files ...iceberg.DataFile) (int64, error) {
	return t.commit(ctx, func(tx *table.Transaction) error {
		return tx.AddDataFiles(ctx, files, props, table.WithoutDuplicateCheck())
	})
}

// Upsert commits one row delta, as Flink's sink does for a checkpoint of
// an upsert table: the rows of keys deleted by equality on the fields
// eqIDs (their values in deletes), and the rows of upsert added.
func (t *Table) Upsert(ctx context.Context, props iceberg.Properties, eqIDs []int, deletes arrow.RecordBatch, upsert ...arrow.RecordBatch) (int64, error) {
	files, err := t.Write(ctx, upsert...)
	if err != nil {
		return 0, err
	}
	return t.commit(ctx, func(tx *table.Transaction) error {
		dels, err := tx.WriteEqualityDeletes(ctx, eqIDs, Batches(deletes))
		if err != nil {
			return err
		}
		return tx.NewRowDelta(props).AddRows(files...).AddDeletes(dels...).Commit(ctx)
	})
}

// Replace commits the files of remove replaced by recs rewritten, as
// iceberg-go's ReplaceDataFilesWithDataFiles does: an overwrite (Rewrite
// commits a compaction's replace).
func (t *Table) Replace(ctx context.Context, props iceberg.Properties, remove []iceberg.DataFile, recs ...arrow.RecordBatch) (int64, error) {
	files, err := t.Write(ctx, recs...)
	if err != nil {
		return 0, err
	}
	return t.commit(ctx, func(tx *table.Transaction) error {
		return tx.ReplaceDataFilesWithDataFiles(ctx, remove, files, props)
	})
}

// Rewrite commits a compaction as Iceberg's RewriteFiles does (operation
// replace, as Spark's rewrite_data_files commits one): the files of
// remove rewritten as recs.
func (t *Table) Rewrite(ctx context.Context, props iceberg.Properties, remove []iceberg.DataFile, recs ...arrow.RecordBatch) (int64, error) {
	files, err := t.Write(ctx, recs...)
	if err != nil {
		return 0, err
	}
	return t.commit(ctx, func(tx *table.Transaction) error {
		r := tx.NewRewrite(props)
		for _, f := range remove {
			r.DeleteFile(f)
		}
		for _, f := range files {
			r.AddDataFile(f)
		}
		return r.Commit(ctx)
	})
}

// Rollback makes snapshot id the current one again.
func (t *Table) Rollback(ctx context.Context, id int64) error {
	_, err := t.commit(ctx, func(tx *table.Transaction) error { return tx.RollbackToSnapshot(id) })
	return err
}

// AddColumn adds an optional column at the end of the schema.
func (t *Table) AddColumn(ctx context.Context, name string, typ iceberg.Type) error {
	_, err := t.commit(ctx, func(tx *table.Transaction) error {
		return tx.UpdateSchema(true, false).AddColumn([]string{name}, typ, "", false, nil).Commit()
	})
	return err
}

// RenameColumn renames a top-level column.
func (t *Table) RenameColumn(ctx context.Context, from, to string) error {
	_, err := t.commit(ctx, func(tx *table.Transaction) error {
		return tx.UpdateSchema(true, false).RenameColumn([]string{from}, to).Commit()
	})
	return err
}

// ArrowSchema is the table's current schema in Arrow form (with field ids),
// for building the records to write.
func (t *Table) ArrowSchema() (*arrow.Schema, error) {
	return table.SchemaToArrowSchema(t.T.Schema(), nil, true, false)
}

// MustID is the field id of a top-level column.
func (t *Table) MustID(name string) int {
	f, ok := t.T.Schema().FindFieldByName(name)
	if !ok {
		panic(fmt.Sprintf("icebergtest: no column %s", name))
	}
	return f.ID
}

// DeleteWhere deletes the rows whose column equals value, merge-on-read:
// position deletes in format v2, a deletion vector in v3.
func (t *Table) DeleteWhere(ctx context.Context, props iceberg.Properties, column, value string) (int64, error) {
	return t.commit(ctx, func(tx *table.Transaction) error {
		if err := tx.SetProperties(iceberg.Properties{table.WriteDeleteModeKey: table.WriteModeMergeOnRead}); err != nil {
			return err
		}
		return tx.Delete(ctx, iceberg.EqualTo(iceberg.Reference(column), value), props)
	})
}
