package iceberg

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"
	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/sources"
)

// ScanParts is the kind's fast path (sources.PartScanner): the records of
// Read as one part per data file, in read order. A data file an engine may
// read itself (Part.File) is one to which no delete applies, in Parquet,
// every column of the schema read found in it under its field id and its
// name (nested fields by field id, struct fields by name too), with as many
// rows as the manifest says; its user columns are the file's own, its
// provenance columns constants of the file. Any other file is read by
// iceberg-go (PartScan.Records), which applies its deletes and maps its
// columns by field id; Part.Why says why. With changes: the whole input is
// read by iceberg-go. Once the loader has read the parts, the Input's
// details say how (read_by_duckdb: the data files DuckDB read; and
// read_by_iceberg_go: each other data file with the reason).
func (s *source) ScanParts(ctx context.Context) (*sources.Input, *sources.PartScan, error) {
	r, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	ps := &sources.PartScan{Fields: r.user, Records: r.records, Constant: make([]bool, len(r.user))}
	if r.ch != nil {
		ps.SourceRead = "the table is read as its changes (changes: true): iceberg-go reads every data and delete file"
		ps.Parts = []sources.Part{{Name: "changes", Why: ps.SourceRead}}
		return r.in, ps, nil
	}
	// The provenance columns follow the table's: one value per data file.
	for j := len(r.cols); j < len(r.user); j++ {
		ps.Constant[j] = true
	}
	ps.Parts = make([]sources.Part, len(r.files))
	for i, f := range r.files {
		p := sources.Part{Name: f.name, Values: provenanceValues(f.added, f.c)}
		rows, sig, why := s.nativeFile(r, f)
		if why != "" {
			p.Why = why
		} else {
			p.Rows = rows
			pf := &sources.PartFile{Path: localPath(f.task.File.FilePath()), Schema: sig}
			for _, c := range r.cols {
				pf.Columns = append(pf.Columns, c.field.Name)
			}
			p.File = pf
		}
		ps.Parts[i] = p
	}
	ps.Decided = func(reads []sources.PartRead) {
		n := 0
		var other []any
		for i, rd := range reads {
			if rd.Native {
				n++
				continue
			}
			other = append(other, map[string]any{"path": r.files[i].name, "added_by_snapshot": strconv.FormatInt(r.files[i].added, 10), "why": rd.Why})
		}
		r.in.Details["read_by_duckdb"] = n
		if len(other) > 0 {
			r.in.Details["read_by_iceberg_go"] = other
		}
	}
	return r.in, ps, nil
}

// provenanceValues are the values of provenanceFields for the rows of a
// data file the snapshot added (its commit c): __snapshot, __job_id,
// __checkpoint, __checkpoint_after as text, nil for NULL.
func provenanceValues(added int64, c *commit) []*string {
	snap := strconv.FormatInt(added, 10)
	out := []*string{&snap, nil, nil, nil}
	if c != nil && c.job != "" {
		job := c.job
		out[1] = &job
	}
	if c != nil && c.hasCkpt {
		ck := strconv.FormatInt(c.ckpt, 10)
		out[2] = &ck
		if c.hasAfter {
			after := strconv.FormatInt(c.after, 10)
			out[3] = &after
		}
	}
	return out
}

// nativeFile says why the data file f cannot be read by an engine as the
// records hold it ("" when it can), and when it can its rows and the
// signature of its Parquet schema (parquetSignature): a delete applies to
// it; it is not Parquet; its footer cannot be read or counts other rows
// than the manifest; a column of the schema read is not in it under its
// field id and name (sameFields).
func (s *source) nativeFile(r *read, f planned) (int64, string, string) {
	t := f.task
	if n := len(t.DeleteFiles) + len(t.EqualityDeleteFiles) + len(t.DeletionVectorFiles); n > 0 {
		return 0, "", fmt.Sprintf("%d delete file(s) apply to it (deletes_applied)", n)
	}
	if t.File.FileFormat() != iceberg.ParquetFile {
		return 0, "", fmt.Sprintf("it is %s, not Parquet", t.File.FileFormat())
	}
	rdr, err := file.OpenParquetFile(localPath(t.File.FilePath()), false)
	if err != nil {
		return 0, "", "its footer cannot be read: " + err.Error()
	}
	defer rdr.Close()
	md := rdr.MetaData()
	if md.NumRows != t.File.Count() {
		return 0, "", fmt.Sprintf("its footer counts %d rows, the manifest %d", md.NumRows, t.File.Count())
	}
	root := md.Schema.Root()
	for _, c := range r.cols {
		field, ok := r.schemaField(c.field.Name)
		if !ok {
			return 0, "", fmt.Sprintf("column %s is not a top-level field of the schema read", c.field.Name)
		}
		var n pqschema.Node
		for i := range root.NumFields() {
			if int(root.Field(i).FieldID()) == field.ID {
				n = root.Field(i)
				break
			}
		}
		if n == nil {
			return 0, "", fmt.Sprintf("column %s (field id %d) is not in it (added after the file was written: iceberg-go reads it as NULL)", field.Name, field.ID)
		}
		if why := sameFields(field, n, true); why != "" {
			return 0, "", "column " + field.Name + ": " + why
		}
	}
	return md.NumRows, parquetSignature(md), ""
}

// parquetSignature is a text of every element of a Parquet file's schema,
// in order — name, repetition, physical type and length, logical and
// converted type, decimal precision and scale, field id — and of its
// ARROW:schema key-value metadata: files with the same text are read as
// the same types by any reader of Parquet.
func parquetSignature(md *metadata.FileMetaData) string {
	var b strings.Builder
	var walk func(n pqschema.Node, depth int)
	walk = func(n pqschema.Node, depth int) {
		fmt.Fprintf(&b, "%d %q %s %d %s %s", depth, n.Name(), n.RepetitionType(), n.FieldID(), n.LogicalType(), n.ConvertedType())
		switch n := n.(type) {
		case *pqschema.PrimitiveNode:
			fmt.Fprintf(&b, " %s %d %d %d\n", n.PhysicalType(), n.TypeLength(), n.DecimalMetadata().Precision, n.DecimalMetadata().Scale)
		case *pqschema.GroupNode:
			fmt.Fprintf(&b, " group %d\n", n.NumFields())
			for i := range n.NumFields() {
				walk(n.Field(i), depth+1)
			}
		}
	}
	walk(md.Schema.Root(), 0)
	if kv := md.KeyValueMetadata(); kv != nil {
		if v := kv.FindValue("ARROW:schema"); v != nil {
			fmt.Fprintf(&b, "ARROW:schema %q\n", *v)
		}
	}
	return b.String()
}

// schemaField is the top-level field of the read's schema named name.
func (r *read) schemaField(name string) (iceberg.NestedField, bool) {
	for _, f := range r.schema.Fields() {
		if f.Name == name {
			return f, true
		}
	}
	return iceberg.NestedField{}, false
}

// sameFields says how the Parquet node n differs from the field f it
// stands for ("" when it does not): another field id; another name (when
// named: a column or a struct's field, which read_parquet reads by name);
// a struct with another set of fields, a list or map of another layout or
// element field id (Parquet's three-level LIST and MAP).
func sameFields(f iceberg.NestedField, n pqschema.Node, named bool) string {
	if int(n.FieldID()) != f.ID {
		return fmt.Sprintf("field id %d in the file, %d in the schema", n.FieldID(), f.ID)
	}
	if named && n.Name() != f.Name {
		return fmt.Sprintf("%s in the file (renamed since it was written)", n.Name())
	}
	g, group := n.(*pqschema.GroupNode)
	switch t := f.Type.(type) {
	case *iceberg.StructType:
		if !group || g.NumFields() != len(t.FieldList) {
			return "a struct of other fields in the file"
		}
		for _, sf := range t.FieldList {
			var c pqschema.Node
			for i := range g.NumFields() {
				if int(g.Field(i).FieldID()) == sf.ID {
					c = g.Field(i)
				}
			}
			if c == nil {
				return fmt.Sprintf("field %s (field id %d) is not in the file", sf.Name, sf.ID)
			}
			if why := sameFields(sf, c, true); why != "" {
				return "field " + sf.Name + ": " + why
			}
		}
	case *iceberg.ListType:
		elem, ok := repeatedChildren(g, group, 1)
		if !ok {
			return "a list of another layout in the file"
		}
		return sameFields(t.ElementField(), elem[0], false)
	case *iceberg.MapType:
		kv, ok := repeatedChildren(g, group, 2)
		if !ok {
			return "a map of another layout in the file"
		}
		if why := sameFields(t.KeyField(), kv[0], false); why != "" {
			return "key: " + why
		}
		return sameFields(t.ValueField(), kv[1], false)
	default:
		if group {
			return "a group in the file"
		}
	}
	return ""
}

// repeatedChildren are the n children of the one repeated group inside g
// (Parquet's three-level LIST: list → element; MAP: key_value → key,
// value).
func repeatedChildren(g *pqschema.GroupNode, group bool, n int) ([]pqschema.Node, bool) {
	if !group || g.NumFields() != 1 {
		return nil, false
	}
	rg, ok := g.Field(0).(*pqschema.GroupNode)
	if !ok || rg.NumFields() != n {
		return nil, false
	}
	out := make([]pqschema.Node, n)
	for i := range n {
		out[i] = rg.Field(i)
	}
	return out, true
}
