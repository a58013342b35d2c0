package control

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// readUncommitted reads the sink's uncommitted files (Input.Skipped with
// Uncommitted: written but not committed), each alone and only to label
// findings: with record ids, their ids go into checks.SinkUncommittedTable
// (typed as the sink's ids are compared, so after checks.Prepare). Each
// file's fingerprint and rows, or why it could not be read, are recorded in
// in.Skipped. It returns whether the side table exists (the sink has
// uncommitted files and the spec record ids) and notes for the report. Only
// a cancelled ctx or a failing engine is an error: an unreadable file is
// expected (an in-progress file may be cut anywhere) and only noted.
func readUncommitted(ctx context.Context, db *duck.DB, sink sources.Source, in *sources.Input, opt load.Options, ids []string, dir string) (bool, []string, error) {
	ur, ok := sink.(sources.UncommittedReader)
	var files []*sources.SkippedFile
	for i := range in.Skipped {
		if in.Skipped[i].Uncommitted {
			files = append(files, &in.Skipped[i])
		}
	}
	if !ok || len(files) == 0 {
		return false, nil, nil
	}
	var idCols []duck.Column
	if len(ids) > 0 {
		cols, err := db.Columns(ctx, checks.SinkTable)
		if err != nil {
			return false, nil, err
		}
		types := map[string]string{}
		for _, c := range cols {
			types[c.Name] = c.Type
		}
		for _, id := range ids {
			idCols = append(idCols, duck.Column{Name: id, Type: types[id]})
		}
		if err := load.UncommittedTable(ctx, db, checks.SinkUncommittedTable, idCols); err != nil {
			return false, nil, err
		}
	}
	var unreadable []string
	for _, f := range files {
		p := f.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, filepath.FromSlash(p))
		}
		if fp, err := fileset.Fingerprint(ctx, []string{p}); err == nil {
			f.Bytes, f.SHA256 = fp[0].Bytes, fp[0].SHA256
		}
		rows, err := readOneUncommitted(ctx, db, ur, in, opt, f.Path, idCols)
		if cerr := ctx.Err(); cerr != nil {
			return false, nil, cerr
		}
		if errors.Is(err, duck.ErrOutOfMemory) {
			return false, nil, err
		}
		if err != nil {
			f.ReadError = oneLine(err.Error())
			unreadable = append(unreadable, f.Path)
			continue
		}
		f.Rows = &rows
	}
	var notes []string
	if len(unreadable) > 0 {
		what := "their rows are not counted"
		if len(ids) > 0 {
			what = "an id in them is not labelled as uncommitted"
		}
		notes = append(notes, fmt.Sprintf("%d uncommitted sink file(s) could not be read (%s; the evidence lists why): %s", len(unreadable), what, strings.Join(unreadable, ", ")))
	}
	return len(ids) > 0, notes, nil
}

func readOneUncommitted(ctx context.Context, db *duck.DB, ur sources.UncommittedReader, in *sources.Input, opt load.Options, name string, ids []duck.Column) (int64, error) {
	rr, err := ur.ReadUncommitted(ctx, name)
	if err != nil {
		return 0, err
	}
	return load.Uncommitted(ctx, db, checks.SinkUncommittedTable, ids, in.Declared, in.Formats, opt, rr)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
