package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

// Writer renders a Result in one format. Write must not open files: the
// caller decides where the bytes go.
type Writer interface {
	// Format is the writer's --format name ("json", "md", …).
	Format() string
	// File is the file name the writer's output takes in the evidence
	// folder ("summary.json", "report.md", …).
	File() string
	// Write renders r to w.
	Write(ctx context.Context, w io.Writer, r *Result) error
}

// FolderWriter is a Writer whose output draws on files already in the
// evidence folder — the exceptions CSVs (Outcome.File), which hold every
// exception row while Result carries only the first ones. The caller uses
// WriteFolder instead of Write when it has the folder.
type FolderWriter interface {
	Writer
	// WriteFolder renders r to w, reading the files r names from evidence,
	// the evidence folder as written so far (paths relative to it, with
	// forward slashes, as fs.FS wants them).
	WriteFolder(ctx context.Context, w io.Writer, r *Result, evidence fs.FS) error
}

// ErrNeedsFolder is returned by the Write method of a FolderWriter that
// cannot render without the evidence folder's files.
var ErrNeedsFolder = errors.New("report: format needs the evidence folder")

var writers = map[string]Writer{}

// Register adds a writer; it panics on a duplicate format.
func Register(w Writer) {
	if _, dup := writers[w.Format()]; dup {
		panic("report: Register called twice for format " + w.Format())
	}
	writers[w.Format()] = w
}

// Formats returns the registered format names, sorted.
func Formats() []string {
	var fs []string
	for f := range writers {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return fs
}

// Lookup returns the writer of a format.
func Lookup(format string) (Writer, error) {
	w, ok := writers[format]
	if !ok {
		return nil, fmt.Errorf("report: unknown format %q (known: %v)", format, Formats())
	}
	return w, nil
}

func init() {
	Register(jsonWriter{})
	Register(markdownWriter{})
}

// jsonWriter writes summary.json: the Result as indented JSON.
type jsonWriter struct{}

func (jsonWriter) Format() string { return "json" }
func (jsonWriter) File() string   { return "summary.json" }
func (jsonWriter) Write(_ context.Context, w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
