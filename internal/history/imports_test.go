package history

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// The run history keeps and classifies runs; it does not lay out
// evidence: no file of the package imports package report (comparing two
// evidence folders, which reads their reports' view, is package diff).
func TestNoReportImport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/reconcile-dev/reconcile/report" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
