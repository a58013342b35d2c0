// Package queries holds every SQL statement reconcile runs, one file each
// (package sqlfile parses and renders them): the check files at the root,
// and in sub-folders the statements and fragments the Go code renders with
// typed data. No statement is written in a Go string.
//
//	*.sql        the checks: NNN_<check>.sql, each a SELECT of the check's
//	             exceptions (header keys documented in package checks);
//	             `reconcile run --queries DIR` reads a folder of such files
//	             instead, and only its root
//	rules/       fragments shared by the checks and `reconcile explain`, so a
//	             rule exists once: which restart explains a finding, what a
//	             replayed interval is, how a timestamp is read, the verdict of
//	             a re-performed window
//	prepare/     exact types: id and measure conversion (checks.Prepare)
//	replay/      re-performance of a windowed sink, the restarts table and
//	             the attribution of findings to restarts (checks.PrepareReplay,
//	             checks.LoadRestarts, checks.SummarizeReplay)
//	run/         the exception table of a check, its count,
//	             the partial-NULL-id note (checks.Run)
//	totals/      the population figures (checks.ComputeTotals)
//	explain/     every row of one key (`reconcile explain`)
//	evidence/    the exceptions CSV of a check (internal/control)
//	load/        putting an input into the engine as a table (internal/load)
//	postgres/    what the postgres input kind sends to the server
//	history/     the run history database (package history): its schema, the
//	             classification of a run's exceptions against the previous
//	             run, recording a run, listing runs
//	engine/      the DuckDB session's own: its settings, materialising an Arrow
//	             view, row counts, the column list (internal/duck)
//	mysql/       what the mysql input kind sends to a MySQL or MariaDB server
//	             (identifiers quoted with backticks)
//	bench/       cmd/reconcile-bench only: the generator of the benchmark data
//	             (generate/) and the hand-written contenders reconcile is
//	             measured against, each folder run in file order: records/
//	             (DuckDB), reperform/ (DuckDB), pg_load/ and pg_records/
//	             (PostgreSQL)
//
// A file in a sub-folder is a Go text/template of one DuckDB statement or
// one fragment of SQL (an expression or a condition that a template helper
// or another statement embeds). Its header, strict like a check file's:
//
//	-- statement: replay_events      the file's id: its name without NNN_ and .sql
//	                                  (or -- fragment: for a fragment; exactly one of the two)
//	-- description: …                what it does, in the field's terms (required)
//	-- returns: …                    optional: the shape of its result (columns and types)
//
// An unknown key, a missing description, or an id that is not the file's
// name is a broken build: NewSet returns it as an error and MustSet, with
// which a package reads its own folder, panics with it in every program.
//
// Go code names a file by its constant in ids.go (CheckMissingIDs,
// HistoryAttach, BenchPGLoadDrop: the folder and the id in mixed caps),
// which `go generate ./queries` writes from the headers
// (internal/genids): a misspelt name does not build, and a test fails when
// ids.go is not current or a call names a file by a string literal.
package queries

//go:generate go run ./internal/genids

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/template"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
)

// FS holds the check files at its root and the statements in the
// sub-folders listed above.
//
//go:embed *.sql rules/*.sql prepare/*.sql replay/*.sql run/*.sql totals/*.sql explain/*.sql evidence/*.sql load/*.sql postgres/*.sql engine/*.sql history/*.sql mysql/*.sql trino/*.sql bench/*/*.sql
var FS embed.FS

// Keys are the header keys a file in a sub-folder may carry.
var Keys = []string{"statement", "fragment", "description", "returns"}

// Set is one sub-folder of statements and fragments, parsed once.
type Set struct {
	dir string
	set *sqlfile.Set
}

// NewSet reads every file of sub-folder dir of FS with the template
// helpers funcs and checks its header (see the package doc): an unknown
// key, no statement: or fragment: line or both, an id that is not the
// file's name, or no description is an error wrapping sqlfile.ErrParse
// that names the file (every problem of the folder, joined). A file's
// template is parsed when it is first rendered (sqlfile.NewEmbeddedSet:
// 13 ms of every run went to parsing all 211), so a template that does not
// parse is the error of Set.SQL; the tests of the package that owns a
// folder parse all of it with its helpers (Set.ParseAll).
func NewSet(dir string, funcs template.FuncMap) (*Set, error) {
	return newSet(FS, dir, funcs)
}

// MustSet is NewSet for a package's own folder, read when the package is
// initialised or first uses it: the files are embedded, so an error is a
// bug in the build, and MustSet panics with it in every program.
func MustSet(dir string, funcs template.FuncMap) *Set {
	s, err := NewSet(dir, funcs)
	if err != nil {
		panic(err)
	}
	return s
}

// newSet is NewSet over the files of fsys.
func newSet(fsys fs.FS, dir string, funcs template.FuncMap) (*Set, error) {
	s, err := sqlfile.NewEmbeddedSet(fsys, dir, Keys, funcs)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, id := range s.IDs() {
		f, _ := s.Get(id)
		stmt, frag := f.Value("statement"), f.Value("fragment")
		switch {
		case stmt != "" && frag != "":
			errs = append(errs, fmt.Errorf("%s: both -- statement: and -- fragment:", f.Name))
		case stmt == "" && frag == "":
			errs = append(errs, fmt.Errorf("%s: no -- statement: or -- fragment: line", f.Name))
		case stmt+frag != f.ID:
			errs = append(errs, fmt.Errorf("%s: header names %q; it must equal the file name %q", f.Name, stmt+frag, f.ID))
		}
		if f.Value("description") == "" {
			errs = append(errs, fmt.Errorf("%s: no -- description: line", f.Name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w: %w", sqlfile.ErrParse, err)
	}
	return &Set{dir: dir, set: s}, nil
}

// ParseAll parses the template of every file of the set with its helpers
// and returns every error, joined (each wraps sqlfile.ErrParse and names
// its file): for the test of the package that owns the folder.
func (s *Set) ParseAll() error { return s.set.ParseAll() }

// File returns the parsed header of the file with id (an error wrapping
// sqlfile.ErrParse when the set has none).
func (s *Set) File(id string) (*sqlfile.File, error) { return s.set.Get(id) }

// SQL renders the file with id for data and returns the statement (or
// fragment) as it is sent to DuckDB: without its header, without a
// trailing newline. Errors name the file.
func (s *Set) SQL(id string, data any) (string, error) {
	out, err := s.set.Render(id, data)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(sqlfile.Body(out), "\n"), nil
}

// IDs lists the ids of the set's files in file-name order.
func (s *Set) IDs() []string { return s.set.IDs() }

// Dir is the sub-folder the set was read from.
func (s *Set) Dir() string { return s.dir }
