package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

func init() {
	sources.Register("mysql", openMySQL, "mariadb")
}

// myQueryFile is the __file value of rows read with a query (a table's
// rows carry the table name).
const myQueryFile = "query"

// ErrUnmappedType is returned by Read and Schema when a MySQL or MariaDB
// result column has a type with no exact mapping (GEOMETRY, VECTOR, a
// column of NULL type; see the package doc). The message names every such
// column and its type; nothing has been read. It wraps ErrInvalidLocation:
// the location must change (a query that casts the column), so it is a
// usage error.
var ErrUnmappedType = fmt.Errorf("%w: unmapped MySQL type", sources.ErrInvalidLocation)

// mysqlSource reads one MySQL or MariaDB table or query (see the package
// doc).
type mysqlSource struct {
	loc      sources.Location
	kind     string          // "mysql" or "mariadb", as the URI's scheme says
	cfg      *gomysql.Config // without the password
	password string          // from the URI; hasPW says whether one was given
	hasPW    bool
	table    []string // database and name, or name; nil for a query
	tableArg string   // the table as the user wrote it, for messages
	query    string
	zeroNull bool // zero_dates: null
}

// openMySQL parses a mysql:// or mariadb:// URI
//
//	mysql://user[:password]@host[:port]/database?table=name&…
//
// and the table:, query: and zero_dates: options (or URI parameters).
// Exactly one of table and query is required. Other URI parameters are the
// driver's (github.com/go-sql-driver/mysql: tls, timeout, …; a name it does
// not know is a session variable it sets); socket=/path connects through a
// Unix socket. It does no I/O; the password, when the URI has none, comes
// from MYSQL_PWD in Read, as the mysql client takes it.
func openMySQL(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("mysql", loc.Options)
	table := o.String("table", "")
	query := o.String("query", "")
	zero := ""
	if v, present := loc.Options["zero_dates"]; present {
		o.Use("zero_dates")
		switch v {
		case nil, "null":
			zero = "null"
		case "error":
			zero = "error"
		default:
			return nil, fmt.Errorf("%w: option zero_dates: want null or error, got %v", sources.ErrInvalidLocation, v)
		}
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	s := &mysqlSource{loc: loc}
	u, err := parseURI(loc.URI, zero)
	if err != nil {
		return nil, err
	}
	s.kind, s.password, s.hasPW = u.kind, u.password, u.hasPW
	cfg := u.cfg
	// What reconcile's reading needs, whatever the URI says: values as the
	// server sends them (no time.Time), one statement per query (a COMMIT
	// smuggled into a query cannot end the read-only transaction), no
	// local files, and no driver log lines on stderr.
	cfg.ParseTime = false
	cfg.Loc = time.UTC
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = true
	cfg.Logger = log.New(io.Discard, "", 0)
	s.cfg = cfg
	s.zeroNull = u.zero == "null"

	table, query, err = sqlserver.TableOrQuery(table, query, u.table, u.query)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	switch {
	case table == "" && query == "":
		return nil, fmt.Errorf("%w: %s names no table: add ?table=name (or ?query=SELECT …) to the URI, or table:/query: to the spec", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	case table != "" && query != "":
		return nil, fmt.Errorf("%w: give a table or a query, not both", sources.ErrInvalidLocation)
	}
	s.tableArg = table
	if table != "" {
		if s.table, err = ParseTableName(table); err != nil {
			return nil, err
		}
	} else {
		s.query = strings.TrimRight(query, "; \t\r\n")
	}
	return s, nil
}

// mysqlURI is what a mysql:// or mariadb:// URI gives: the kind its
// scheme names, the driver configuration (without the password), the
// password and whether one was given, and the table, query and zero_dates
// of its parameters.
type mysqlURI struct {
	kind         string
	cfg          *gomysql.Config
	password     string
	hasPW        bool
	table, query string
	zero         string // zero_dates: "null", "error", or "" when not given
}

// parseURI parses a mysql:// or mariadb:// URI (see openMySQL); zero is
// the zero_dates: option ("" when not given), which the URI must not give
// again. Errors wrap sources.ErrInvalidLocation and name the URI without
// its password.
func parseURI(uri, zero string) (mysqlURI, error) {
	out := mysqlURI{zero: zero}
	u, err := url.Parse(uri)
	if err != nil || u.Opaque != "" || u.Host == "" && u.RawQuery == "" && u.Path == "" {
		return out, fmt.Errorf("%w: %s: want mysql://user@host:3306/database?table=name", sources.ErrInvalidLocation, sources.Redact(uri))
	}
	out.kind = strings.ToLower(u.Scheme)
	if out.kind != "mysql" && out.kind != "mariadb" {
		return out, fmt.Errorf("%w: %s: want a mysql:// or mariadb:// URI", sources.ErrInvalidLocation, sources.Redact(uri))
	}
	cfg := gomysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		out.password, out.hasPW = u.User.Password()
	}
	cfg.Net = "tcp"
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	cfg.Addr = net.JoinHostPort(host, port)
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if strings.Contains(cfg.DBName, "/") {
		return out, fmt.Errorf("%w: %s: the path is the database, one name", sources.ErrInvalidLocation, sources.Redact(uri))
	}
	var keep []string
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, kerr := url.QueryUnescape(k)
		val, verr := url.QueryUnescape(v)
		if kerr != nil || verr != nil {
			return out, fmt.Errorf("%w: URI parameter %q: %w (encode %% as %%25, & as %%26 and + as %%2B, or use the spec's long form)", sources.ErrInvalidLocation, sources.Redact(k), errors.Join(kerr, verr))
		}
		switch key {
		case "table":
			out.table = val
		case "query":
			out.query = val
		case "zero_dates":
			if val != "null" && val != "error" {
				return out, fmt.Errorf("%w: URI parameter zero_dates: want null or error, got %q", sources.ErrInvalidLocation, val)
			}
			if out.zero != "" {
				return out, fmt.Errorf("%w: zero_dates is given twice (URI parameter and zero_dates: option)", sources.ErrInvalidLocation)
			}
			out.zero = val
		case "socket":
			cfg.Net, cfg.Addr = "unix", val
		default:
			keep = append(keep, part)
		}
	}
	if len(keep) > 0 {
		// The driver reads its own parameters (and refuses malformed
		// ones): format the DSN of what the URI gave, add them, parse.
		dsn := cfg.FormatDSN()
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		parsed, err := gomysql.ParseDSN(dsn + sep + strings.Join(keep, "&"))
		if err != nil {
			return out, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, sources.Redact(uri), err)
		}
		cfg = parsed
	}
	out.cfg = cfg
	return out, nil
}

// ParseTableName splits a table name as MySQL reads it: "name" or
// "database.name", each part either unquoted or quoted in backticks (kept
// exactly, “ standing for a backtick). Names are not folded: whether case
// matters is the server's setting (lower_case_table_names). It returns the
// unquoted parts; errors wrap ErrInvalidLocation. The parts only ever reach
// SQL quoted by Ident, so no name injects SQL.
func ParseTableName(s string) ([]string, error) {
	parts, err := sqlserver.SplitTableName(s, sqlserver.TableNameRules{
		Quote:     '`',
		Fold:      func(p string) string { return p },
		Qualified: "database.name",
		QuoteHint: "quote names with dots as `name`",
		TooMany:   "want database.name or name",
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	return parts, nil
}

func (s *mysqlSource) Close() error { return nil }

// file is the __file value: the table as database.name (a part in
// backticks where MySQL would need them), or "query".
func (s *mysqlSource) file() string {
	if s.table == nil {
		return myQueryFile
	}
	parts := make([]string, len(s.table))
	for i, p := range s.table {
		parts[i] = p
		if !myPlainIdent(p) {
			parts[i] = Ident(p)
		}
	}
	return strings.Join(parts, ".")
}

// myPlainIdent reports whether MySQL reads p unquoted as itself.
func myPlainIdent(p string) bool {
	digits := true
	for _, r := range p {
		switch {
		case r >= '0' && r <= '9':
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			digits = false
		default:
			return false
		}
	}
	return p != "" && !digits
}

// sql is the statement run to read the input (describe: the same, returning
// only its columns).
func (s *mysqlSource) sql(describe bool) (string, error) {
	if s.table != nil {
		return mySQL(queries.MySQLReadTable, struct {
			Table    []string
			Describe bool
		}{s.table, describe})
	}
	if describe {
		return mySQL(queries.MySQLDescribeQuery, struct{ Query string }{s.query})
	}
	return s.query, nil
}

// config is the driver configuration with the password: the URI's, else
// MYSQL_PWD's.
func (s *mysqlSource) config() *gomysql.Config {
	cfg := s.cfg.Clone()
	cfg.Passwd = s.password
	if !s.hasPW {
		cfg.Passwd = os.Getenv("MYSQL_PWD")
	}
	return cfg
}

// Read connects (or joins the transaction an earlier input of the run
// opened on the same server), pins sql_select_limit to its maximum and, on
// MariaDB, system_versioning_asof to DEFAULT (refusing a session that does
// not keep them, see myPinRowsRead), sets the session time zone to +00:00,
// opens a REPEATABLE READ, READ ONLY transaction WITH CONSISTENT SNAPSHOT,
// records the server, version, GTID position and snapshot facts, and
// describes the statement's columns with a query that returns no row,
// refusing any column it cannot map — all before a row is read. The records then stream the
// rows over the text protocol, each value parsed straight into its Arrow
// builder. Errors: ErrInvalidLocation for a location that cannot work,
// ErrUnmappedType (which wraps it) for a column type with no exact
// mapping; otherwise a *gomysql.MySQLError from the server (a missing table
// is error 1146; the message names table, database and user), a value with
// no exact representation (ErrZeroDate or another; the message names the
// row, column and value), or ctx's error. No error or Input carries the
// password.
func (s *mysqlSource) Read(ctx context.Context) (in *sources.Input, records array.RecordReader, err error) {
	defer func() {
		if err != nil {
			err = s.scrub(err)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ss, own, share, err := s.session(ctx)
	if err != nil {
		return nil, nil, err
	}
	handed := false
	defer func() {
		if own && !handed {
			ss.release()
		}
	}()
	details, err := s.inputFacts(ctx, ss)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range share {
		details[k] = v
	}
	if own {
		ss.first = details
	}
	cols, err := s.describe(ctx, ss.conn, details)
	if err != nil {
		return nil, nil, err
	}
	var floatCols []string
	query, err := s.sql(false)
	if err != nil {
		return nil, nil, err
	}
	details["sql"] = query
	details["columns"] = myColumnEvidence(cols)
	for _, c := range cols {
		if c.WireType == "FLOAT" {
			floatCols = append(floatCols, c.Name)
		}
	}
	details["zero_dates"] = "error"
	if s.zeroNull {
		details["zero_dates"] = "null"
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Arrow, Nullable: true}
	}
	file := s.file()
	label := "reading " + s.loc.Role + " " + file
	// input, not the result in, in the fill: a return sets in
	input := &sources.Input{Role: s.loc.Role, Kind: "mysql", Location: sources.Redact(s.loc.URI), Details: details}
	for _, c := range floatCols {
		input.Notes = append(input.Notes, fmt.Sprintf("WARNING: %s column %s is a MySQL FLOAT, which the server's text protocol prints with at most 6 significant digits: values that differ past the 6th (1234567 and 1234568) arrive equal; read CAST(%s AS DOUBLE) in a query to compare the stored values", s.loc.Role, c, c))
	}
	// the database before the fill starts: it writes details while the
	// records stream, after Read returns
	dbName := fmt.Sprint(details["database"])
	records, err = sources.ReadRows(ctx, fields, sources.ReadOptions{Progress: s.loc.Progress, Label: label}, func(ctx context.Context, w *sources.RowWriter) error {
		zd := &zeroDates{asNull: s.zeroNull, counts: make([]int64, len(cols))}
		err := myFill(ctx, ss.conn, query, cols, file, w, zd)
		if s.zeroNull {
			nulls := map[string]int64{}
			for i, n := range zd.counts {
				if n > 0 {
					nulls[cols[i].Name] = n
					// read before the records end, so before the notes are
					input.Notes = append(input.Notes, fmt.Sprintf("WARNING: %s column %s: %d zero date(s) (0000-00-00, or a zero month or day) read as NULL (zero_dates: null): each compares as NULL, so two different zero dates, or a zero date and a NULL, are not told apart", s.loc.Role, cols[i].Name, n))
				}
			}
			details["zero_dates_read_as_null"] = nulls
		}
		if own {
			if err != nil {
				ss.release()
			} else if perr := s.loc.Group.Put(s.groupKey(s.config()), ss, ss.release); perr != nil {
				err = perr
			}
		}
		if err != nil {
			return s.scrub(s.queryError(details, err))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	handed = true
	in = input
	if s.table != nil {
		db, name := dbName, s.table[len(s.table)-1]
		if len(s.table) == 2 {
			db = s.table[0]
		}
		in.Relation = fmt.Sprintf("mysql %s %s %s.%s", s.cfg.Net, s.cfg.Addr, db, name)
	}
	return in, records, nil
}

// inputFacts are this input's Details: the snapshot's facts, then its own
// database and account, host and port.
func (s *mysqlSource) inputFacts(ctx context.Context, ss *mySession) (map[string]any, error) {
	d := make(map[string]any, len(ss.facts)+8)
	for k, v := range ss.facts {
		d[k] = v
	}
	q, err := mySQL(queries.MySQLInputFacts, nil)
	if err != nil {
		return nil, err
	}
	var db sql.NullString
	var current, user string
	if err := ss.conn.QueryRowContext(ctx, q).Scan(&db, &current, &user); err != nil {
		return nil, fmt.Errorf("mysql: read the session's database and user: %w", err)
	}
	d["database"] = db.String
	d["user"] = current
	d["connect_user"] = user
	if s.cfg.Net == "unix" {
		d["socket"] = s.cfg.Addr
	} else if host, port, err := net.SplitHostPort(s.cfg.Addr); err == nil {
		d["host"] = host
		if n, err := strconv.Atoi(port); err == nil {
			d["port"] = n
		}
	}
	return d, nil
}

// queryError adds who was asking, and where, to a server error, so "table
// doesn't exist" says which database and user looked.
func (s *mysqlSource) queryError(details map[string]any, err error) error {
	var me *gomysql.MySQLError
	if errors.As(err, &me) && s.table != nil {
		switch me.Number {
		case 1146, 1049: // ER_NO_SUCH_TABLE, ER_BAD_DB_ERROR
			db := details["database"]
			if len(s.table) == 2 {
				db = s.table[0]
			}
			return fmt.Errorf("table %s not found in database %v (as user %v): %w", s.tableArg, db, details["user"], err)
		case 1046: // ER_NO_DB_ERROR
			return fmt.Errorf("table %s: no database (as user %v): name it database.name, or put the database in the URI (mysql://host/database): %w", s.tableArg, details["user"], err)
		}
	}
	var ab *myAbort
	if errors.As(err, &ab) {
		return fmt.Errorf("mysql %s in database %v as user %v: %w", s.file(), details["database"], details["user"], ab.err)
	}
	return fmt.Errorf("mysql %s in database %v as user %v: %w", s.file(), details["database"], details["user"], err)
}

// scrub removes the password (the URI's or MYSQL_PWD's) from an error
// message, in case a driver echoes it.
func (s *mysqlSource) scrub(err error) error {
	return sqlserver.Scrub(err, s.config().Passwd)
}

// Schema returns the input's columns and the types they load as, from a
// query that returns no row (and, for a table, the catalog), on a
// connection of its own. Errors are those of Read.
func (s *mysqlSource) Schema(ctx context.Context) (cols []sources.Column, err error) {
	defer func() {
		if err != nil {
			err = s.scrub(err)
		}
	}()
	connector, err := myConnector(s.config())
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to %s as %s: %w", s.cfg.Addr, s.cfg.User, err)
	}
	defer conn.Close() // which ends the transaction
	// Describe in a read-only transaction too, with the rows read pinned
	// (the catalog's rows are read with a SELECT), as Read does.
	if _, err := myPinRowsRead(ctx, conn); err != nil {
		return nil, err
	}
	q, err := mySQL(queries.MySQLStartSnapshot, nil)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("mysql: %s: %w", q, err)
	}
	details := map[string]any{"database": s.cfg.DBName, "user": s.cfg.User}
	mc, err := s.describe(ctx, conn, details)
	if err != nil {
		return nil, err
	}
	out := make([]sources.Column, len(mc))
	for i, c := range mc {
		out[i] = sources.Column{Name: c.Name, Type: sqlserver.EngineType(c.Arrow)}
	}
	return out, nil
}
