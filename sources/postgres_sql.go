package sources

import (
	"sync"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// pgStatements are the statements the postgres kind builds, the files of
// queries/postgres, parsed once (a file that does not parse is a broken
// build). Identifiers reach them quoted ({{q …}}: double quotes, a quote
// doubled, as PostgreSQL reads them); the constant statements are written
// where they are run.
var pgStatements = sync.OnceValue(func() *queries.Set {
	return queries.MustSet("postgres", sqlfile.Funcs())
})

// pgSQL renders the statement id of queries/postgres with data.
func pgSQL(id string, data any) (string, error) {
	return pgStatements().SQL(id, data)
}
