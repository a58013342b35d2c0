package history

import (
	"testing"

	"github.com/reconcile-dev/reconcile/queries"
)

// Every file of queries/history parses with the template helpers this package
// renders it with (queries.NewSet parses a template only when it is first
// rendered, so a broken file would otherwise fail only the run that
// renders it), and each folder has files.
func TestStatementsParse(t *testing.T) {
	for _, s := range []*queries.Set{statements()} {
		if err := s.ParseAll(); err != nil {
			t.Errorf("%s: %v", s.Dir(), err)
		}
		if len(s.IDs()) == 0 {
			t.Errorf("%s: no files", s.Dir())
		}
	}
}
