package postgres

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// pgStatements are the statements the postgres kind builds, the files of
// queries/postgres, parsed once (a file that does not parse is a broken
// build). Identifiers reach them quoted ({{q …}}: double quotes, a quote
// doubled, as PostgreSQL reads them).
var pgStatements = sync.OnceValue(func() *queries.Set {
	return queries.MustSet("postgres", sqlfile.Funcs())
})

// pgSQL renders the statement id of queries/postgres with data.
func pgSQL(id string, data any) (string, error) {
	return pgStatements().SQL(id, data)
}

// pgExec renders and runs a statement of queries/postgres that returns no
// rows, in tx.
func pgExec(ctx context.Context, tx pgx.Tx, id string) error {
	q, err := pgSQL(id, nil)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, q)
	return err
}
