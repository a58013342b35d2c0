// Package sqlfile parses and renders reconcile's SQL files, the one place
// SQL text lives (see package queries): each file is a Go text/template of
// one DuckDB statement, preceded by a strict header of "-- key: value"
// comment lines, as sqlc's "-- name:" annotations and goose's "-- +goose"
// annotations are (STYLE.md §1, §4). The file still runs in the duckdb
// shell once its template actions are filled in.
//
//	-- statement: measure_digits          the statement's id (file name without NNN_ and .sql)
//	-- description: The fraction and integer digits a measure needs.
//	SELECT coalesce(max(length(regexp_extract({{q .Column}}, '\.(\d*)\s*$', 1))), 0) …
//
// A header ends at the first line that is not a comment. Which keys a file
// may carry is decided by its caller (Parse's keys argument); an unknown key
// is an error naming the file and line, so a misspelt key never passes
// silently. A key may repeat: its values are kept in order (a description
// continues over several lines).
//
// Template helpers (Funcs) render SQL fragments with every identifier and
// literal quoted; values reach SQL only through them or as bind parameters.
package sqlfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrParse wraps every problem with a SQL file: an unknown or malformed
// header line, a template that does not parse, a file that is missing.
var ErrParse = fault.Usage.New("sqlfile: invalid SQL file")

// File is one parsed SQL file.
type File struct {
	// Name is the file's path within its file system ("load/read_csv.sql").
	Name string
	// ID is the file name without folder, order prefix (NNN_) and ".sql".
	ID     string
	header []entry

	// The template is parsed when first rendered: a run renders about 40
	// of the 211 embedded files, and parsing all of them when the program
	// started took 13 ms of every run. The test of the package that owns
	// a folder of queries/ parses all of it (queries.Set.ParseAll), so a
	// broken file still fails the tests.
	text  string
	funcs template.FuncMap
	once  sync.Once
	tmpl  *template.Template
	err   error
}

type entry struct {
	key, value string
	line       int
}

var orderPrefix = regexp.MustCompile(`^\d+_`)

// IDOf returns the id a file name gives: its base name without an NNN_
// order prefix and without ".sql" ("queries/020_late_postings.sql" →
// "late_postings").
func IDOf(name string) string {
	return orderPrefix.ReplaceAllString(strings.TrimSuffix(path.Base(name), ".sql"), "")
}

// Parse parses text as the SQL file name. keys are the header keys the file
// may carry; any other key is an error. Errors wrap ErrParse and name the
// file (and line).
func Parse(name, text string, keys []string, funcs template.FuncMap) (*File, error) {
	f, err := parseHeader(name, text, keys, funcs)
	if err != nil {
		return nil, err
	}
	if _, err := f.Template(); err != nil {
		return nil, err
	}
	return f, nil
}

// parseHeader parses the header of text as Parse does and keeps the
// template to be parsed when first rendered (File.Template).
func parseHeader(name, text string, keys []string, funcs template.FuncMap) (*File, error) {
	f := &File{Name: name, ID: IDOf(name)}
	line := 0
	// the header's lines, without a buffer per file (a 64 KiB scanner
	// buffer for each of the 57 files the checks read was 3.7 MB and 1 ms
	// of every start)
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "--") {
			break
		}
		body := strings.TrimSpace(strings.TrimPrefix(l, "--"))
		if body == "" {
			continue
		}
		key, val, ok := strings.Cut(body, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %s:%d: header line %q is not \"-- key: value\"", ErrParse, name, line, l)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !slices.Contains(keys, key) {
			return nil, fmt.Errorf("%w: %s:%d: unknown header key %q (want %s)", ErrParse, name, line, key, strings.Join(keys, ", "))
		}
		f.header = append(f.header, entry{key: key, value: val, line: line})
	}
	f.text, f.funcs = text, funcs
	return f, nil
}

// HeaderValue returns the value of the first header line "-- key: value"
// of text whose key is key ("" when there is none). It reads the header
// as Parse does — up to the first line that is not a comment — but accepts
// any key and checks nothing else: for a tool that reads one key of files
// of several kinds (queries/internal/genids reads every file's id).
func HeaderValue(text, key string) string {
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "--") {
			break
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "--"), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Template parses the file's template (once; later calls return the same
// template or error). Errors wrap ErrParse and name the file.
func (f *File) Template() (*template.Template, error) {
	f.once.Do(func() {
		t, err := template.New(f.Name).Funcs(f.funcs).Option("missingkey=error").Parse(f.text)
		if err != nil {
			f.err = fmt.Errorf("%w: %s: %w", ErrParse, f.Name, err)
			return
		}
		f.tmpl = t
	})
	return f.tmpl, f.err
}

// ReadFile reads and parses one file of fsys (see Parse).
func ReadFile(fsys fs.FS, name string, keys []string, funcs template.FuncMap) (*File, error) {
	return readWith(fsys, name, keys, funcs, Parse)
}

// parser is Parse or parseHeader.
type parser func(name, text string, keys []string, funcs template.FuncMap) (*File, error)

// readWith reads the file name of fsys and parses it with parse.
func readWith(fsys fs.FS, name string, keys []string, funcs template.FuncMap, parse parser) (*File, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	return parse(name, string(data), keys, funcs)
}

// Values returns every value of key in header order (nil when absent).
func (f *File) Values(key string) []string {
	var out []string
	for _, e := range f.header {
		if e.key == key {
			out = append(out, e.value)
		}
	}
	return out
}

// Value returns the values of key joined by a space: a description written
// over several lines reads as one sentence.
func (f *File) Value(key string) string { return strings.Join(f.Values(key), " ") }

// List returns the comma-separated items of every value of key, trimmed,
// empty items dropped ("requires: id, measures" → [id measures]).
func (f *File) List(key string) []string {
	var out []string
	for _, v := range f.Values(key) {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// Line returns the header line number of the first value of key (0 when
// absent), for error messages.
func (f *File) Line(key string) int {
	for _, e := range f.header {
		if e.key == key {
			return e.line
		}
	}
	return 0
}

// Render executes the template with data and returns the SQL. Errors name
// the file.
func (f *File) Render(data any) (string, error) {
	t, err := f.Template()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render %s: %w", f.Name, err)
	}
	return b.String(), nil
}

// Body returns the rendered SQL without its header comment lines: the
// statement as it is sent to the engine.
func Body(sql string) string {
	lines := strings.Split(sql, "\n")
	i := 0
	for i < len(lines) {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--") {
			break
		}
		i++
	}
	return strings.Join(lines[i:], "\n")
}

// WithoutKeys returns sql with the header lines of the given keys removed:
// lines of the header (the leading "--" lines, as Parse reads it) only;
// everything else is kept byte for byte.
func WithoutKeys(sql string, keys ...string) string {
	lines := strings.SplitAfter(sql, "\n")
	out := make([]string, 0, len(lines))
	header := true
	for _, line := range lines {
		l := strings.TrimSpace(line)
		if header && !strings.HasPrefix(l, "--") {
			header = false
		}
		if header {
			key, _, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(l, "--")), ":")
			if ok && slices.Contains(keys, strings.TrimSpace(key)) {
				continue
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "")
}

// Set is a folder of parsed statements read once, for the built-in SQL a
// package runs (as sqlc's seed.go reads its embedded folder once). A file
// of the set that does not parse is a broken build, so MustSet panics.
type Set struct {
	files map[string]*File
	names []string
}

// MustSet parses every *.sql file directly in dir of fsys with the given
// header keys and helpers, and panics if any fails (the files are
// embedded: a failure here is a bug in the build, not in a user's input).
func MustSet(fsys fs.FS, dir string, keys []string, funcs template.FuncMap) *Set {
	s, err := NewSet(fsys, dir, keys, funcs)
	if err != nil {
		panic(err)
	}
	return s
}

// NewSet is MustSet returning the error (for user-supplied folders).
func NewSet(fsys fs.FS, dir string, keys []string, funcs template.FuncMap) (*Set, error) {
	return newSet(fsys, dir, keys, funcs, Parse)
}

// NewEmbeddedSet is NewSet for files built into the program: it parses
// each file's header now and its template when the file is first rendered
// (File.Template), so a template error surfaces there. A test of the
// program's own must parse every file (Set.ParseAll).
func NewEmbeddedSet(fsys fs.FS, dir string, keys []string, funcs template.FuncMap) (*Set, error) {
	return newSet(fsys, dir, keys, funcs, parseHeader)
}

func newSet(fsys fs.FS, dir string, keys []string, funcs template.FuncMap, parse parser) (*Set, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.sql"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	slices.Sort(names)
	s := &Set{files: map[string]*File{}}
	var errs []error
	for _, n := range names {
		f, err := readWith(fsys, n, keys, funcs, parse)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := s.files[f.ID]; dup {
			errs = append(errs, fmt.Errorf("%w: %s: a second file with id %s", ErrParse, n, f.ID))
			continue
		}
		s.files[f.ID] = f
		s.names = append(s.names, f.ID)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseAll parses the template of every file of s, and returns the errors
// joined (each wraps ErrParse and names its file).
func (s *Set) ParseAll() error {
	var errs []error
	for _, id := range s.names {
		if _, err := s.files[id].Template(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// IDs returns the ids of the set's files in file-name order.
func (s *Set) IDs() []string { return slices.Clone(s.names) }

// Get returns the file with id, or an error wrapping ErrParse.
func (s *Set) Get(id string) (*File, error) {
	f, ok := s.files[id]
	if !ok {
		return nil, fmt.Errorf("%w: no SQL file %s", ErrParse, id)
	}
	return f, nil
}

// Render renders the file with id (see File.Render).
func (s *Set) Render(id string, data any) (string, error) {
	f, err := s.Get(id)
	if err != nil {
		return "", err
	}
	return f.Render(data)
}
