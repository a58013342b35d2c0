package mysql

import (
	"strings"
	"sync"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// myStatements are the statements the mysql kind sends, the files of
// queries/mysql, parsed once (a file that does not parse is a broken build).
// In them {{q …}} quotes an identifier as MySQL and MariaDB read it — in
// backticks, a backtick doubled. There is no {{lit}}: values reach the
// server as arguments, never as literals (a backslash escapes in one
// sql_mode and not in another).
var myStatements = sync.OnceValue(func() *queries.Set {
	funcs := sqlfile.Funcs()
	funcs["q"] = Ident
	delete(funcs, "lit")
	return queries.MustSet("mysql", funcs)
})

// mySQL renders the statement id of queries/mysql with data.
func mySQL(id string, data any) (string, error) {
	return myStatements().SQL(id, data)
}

// Ident quotes name as a MySQL or MariaDB identifier: `a“b` for a`b.
func Ident(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
