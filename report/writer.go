// Package report lays out the evidence of a run for people: report.md,
// report.html and workbook.xlsx, from one View built once from summary.json
// (evidence.Summary) and the evidence folder's exceptions and queries.
// Every figure, type and chart series is decided in the view; a writer only
// lays it out. Writers never open files: the caller decides where the bytes
// go, and the evidence package owns the folder and its layout.
package report

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// Writer lays out a View in one format.
type Writer interface {
	// Format is the writer's --format name ("json", "md", …).
	Format() string
	// File is the file the writer's output takes in the evidence folder
	// (evidence.SummaryFile, evidence.MarkdownFile, …).
	File() string
	// Write renders v to w.
	Write(ctx context.Context, w io.Writer, v *View) error
}

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
		return nil, fmt.Errorf("report: unknown format %q (known: %v, or all)", format, Formats())
	}
	return w, nil
}

func init() {
	Register(jsonWriter{})
	Register(markdownWriter{})
}

// jsonWriter writes summary.json (evidence.Summary.Encode).
type jsonWriter struct{}

func (jsonWriter) Format() string { return "json" }
func (jsonWriter) File() string   { return evidence.SummaryFile }
func (jsonWriter) Write(_ context.Context, w io.Writer, v *View) error {
	return v.Summary.Encode(w)
}
