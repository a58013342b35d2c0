package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
)

// tables are the tables of SchemaVersion, sorted.
var tables = []string{"exceptions", "reconcile_history", "run_checks", "run_inputs", "run_measures", "runs"}

// sniff reports whether path exists and, if it does, checks that it is a
// DuckDB database file (the magic bytes "DUCK" at offset 8 of its main
// header) before DuckDB is let near it: DuckDB would take an empty file
// for a new database and write into it.
func sniff(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	if st.IsDir() {
		return true, fmt.Errorf("%w: %s is a folder; history: names the database file", ErrHistory, path)
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || string(head[8:12]) != "DUCK" {
		return true, fmt.Errorf("%w: %s is not a DuckDB database (damaged, or another kind of file); it is left as it is — name another history file, or move this one away", ErrHistory, path)
	}
	return true, nil
}

// attach attaches the existing history file path to db (read-only, or for
// writing) and checks that it is a history database of a schema this
// reconcile reads. The returned function detaches it.
func attach(ctx context.Context, db *duck.DB, path string, readOnly bool) (func() error, error) {
	if err := db.ExecFile(ctx, statements(), queries.HistoryAttach, struct {
		Path, DB string
		ReadOnly bool
	}{path, dbName, readOnly}); err != nil {
		return nil, fmt.Errorf("%w: %s cannot be opened (%w); it is left as it is", ErrHistory, path, err)
	}
	detach := func() error {
		return db.ExecFile(context.WithoutCancel(ctx), statements(), queries.HistoryDetach, struct{ DB string }{dbName})
	}
	if err := identify(ctx, db, path); err != nil {
		detach()
		return nil, err
	}
	return detach, nil
}

// identify checks the identity row and the tables of the attached file.
func identify(ctx context.Context, db *duck.DB, path string) error {
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryTables, struct{ DB string }{dbName})
	if err != nil {
		return err
	}
	var have []string
	for _, row := range r {
		have = append(have, *row[0])
	}
	if !slices.Contains(have, "reconcile_history") {
		return fmt.Errorf("%w: %s is a DuckDB database but not a reconcile run history (it has no reconcile_history table; tables: %s); it is left as it is", ErrHistory, path, strings.Join(have, ", "))
	}
	_, id, err := db.StringsFile(ctx, statements(), queries.HistoryIdentity, struct{ DB string }{dbName})
	if err != nil {
		return fmt.Errorf("%w: %s: its reconcile_history table cannot be read: %w", ErrHistory, path, err)
	}
	if len(id) != 1 || id[0][0] == nil || *id[0][0] != Magic || id[0][1] == nil {
		return fmt.Errorf("%w: %s: its reconcile_history table does not identify a reconcile run history (want one row with magic %q)", ErrHistory, path, Magic)
	}
	var version int
	fmt.Sscan(*id[0][1], &version)
	if version != SchemaVersion {
		by := ""
		if id[0][2] != nil {
			by = " by reconcile " + *id[0][2]
		}
		return fmt.Errorf("%w: %s has schema version %d (created%s); this reconcile reads version %d", ErrHistory, path, version, by, SchemaVersion)
	}
	for _, t := range tables {
		if !slices.Contains(have, t) {
			return fmt.Errorf("%w: %s is damaged: table %s of schema version %d is missing", ErrHistory, path, t, SchemaVersion)
		}
	}
	return nil
}
