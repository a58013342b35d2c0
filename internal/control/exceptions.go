package control

import (
	"context"
	"fmt"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/queries"
)

// evidenceSQL are the statements that write evidence files from the
// session (queries/evidence).
var evidenceSQL = queries.MustSet("evidence", checks.Funcs())

// writeExceptions writes, for every check that ran, all rows of its
// exception table to evidence.ExceptionsFile (evidence/exceptions_csv.sql:
// sorted on every column, so two runs give identical files; a header only
// when the check passed; the rows within a declared tolerance are listed
// with the exceptions) and names the file in the outcome. A file that
// does not hold the number of rows the check counted is an error, never a
// silent difference.
func writeExceptions(ctx context.Context, db *duck.DB, folder *evidence.Folder, outs []*checks.Outcome) error {
	for _, o := range outs {
		if o.Table == "" {
			continue
		}
		file := evidence.ExceptionsFile(o.ID)
		n, err := db.ExecCountFile(ctx, evidenceSQL, queries.EvidenceExceptionsCSV, struct{ Table, Path string }{o.Table, folder.Path(file)})
		if err != nil {
			return fmt.Errorf("write %s: %w", file, err)
		}
		want := o.Exceptions
		if o.WithinTolerance != nil {
			want += *o.WithinTolerance // listed with the exceptions
		}
		if n != want {
			return fmt.Errorf("write %s: %d rows written, but check %s counted %d exceptions and rows within tolerance", file, n, o.ID, want)
		}
		o.File = file
	}
	return nil
}
