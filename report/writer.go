package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
