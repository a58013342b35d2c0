package mysql

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
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
	u, err := url.Parse(loc.URI)
	if err != nil || u.Opaque != "" || u.Host == "" && u.RawQuery == "" && u.Path == "" {
		return nil, fmt.Errorf("%w: %s: want mysql://user@host:3306/database?table=name", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	}
	s.kind = strings.ToLower(u.Scheme)
	if s.kind != "mysql" && s.kind != "mariadb" {
		return nil, fmt.Errorf("%w: %s: want a mysql:// or mariadb:// URI", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	}
	cfg := gomysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		s.password, s.hasPW = u.User.Password()
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
		return nil, fmt.Errorf("%w: %s: the path is the database, one name", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	}
	var keep []string
	var uTable, uQuery string
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, kerr := url.QueryUnescape(k)
		val, verr := url.QueryUnescape(v)
		if kerr != nil || verr != nil {
			return nil, fmt.Errorf("%w: URI parameter %q: %w (encode %% as %%25, & as %%26 and + as %%2B, or use the spec's long form)", sources.ErrInvalidLocation, sources.Redact(k), errors.Join(kerr, verr))
		}
		switch key {
		case "table":
			uTable = val
		case "query":
			uQuery = val
		case "zero_dates":
			if val != "null" && val != "error" {
				return nil, fmt.Errorf("%w: URI parameter zero_dates: want null or error, got %q", sources.ErrInvalidLocation, val)
			}
			if zero != "" {
				return nil, fmt.Errorf("%w: zero_dates is given twice (URI parameter and zero_dates: option)", sources.ErrInvalidLocation)
			}
			zero = val
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
			return nil, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, sources.Redact(loc.URI), err)
		}
		cfg = parsed
	}
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
	s.zeroNull = zero == "null"

	table, query, err = sqlserver.TableOrQuery(table, query, uTable, uQuery)
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
		return mySQL("read_table", struct {
			Table    []string
			Describe bool
		}{s.table, describe})
	}
	if describe {
		return mySQL("describe_query", struct{ Query string }{s.query})
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

// myDial connects as the driver would, with a 256 KiB read buffer in front
// of the connection: the driver reads at most 4 KiB at a time, one system
// call each, which a long result pays for on every few dozen rows.
func myDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetKeepAlive(true)
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 256<<10)}, nil
}

// bufferedConn is a net.Conn whose reads go through a buffer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// myConnector is the driver's connector for cfg, dialling through myDial.
func myConnector(cfg *gomysql.Config) (driver.Connector, error) {
	if cfg.DialFunc == nil {
		cfg.DialFunc = myDial
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	return connector, nil
}

// mySession is one connection with its read-only transaction open: the
// snapshot one or more inputs read in.
type mySession struct {
	db       *sql.DB
	conn     *sql.Conn
	mariaDB  bool
	database string         // the session's database (USE changes it)
	facts    map[string]any // the snapshot's facts, for every input read in it
	openedBy string         // the role of the input that opened it
	first    map[string]any // that input's Details, told when another shares it
	server   string         // host:port or socket, for messages
}

// release ends the transaction and closes the connection. A connection
// that is already gone (a cancelled or failed read) has nothing to end.
func (ss *mySession) release() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	if q, qerr := mySQL("rollback", nil); qerr != nil {
		err = qerr
	} else if _, rerr := ss.conn.ExecContext(ctx, q); rerr != nil && !errors.Is(rerr, driver.ErrBadConn) && !errors.Is(rerr, gomysql.ErrInvalidConn) && !errors.Is(rerr, sql.ErrConnDone) {
		err = fmt.Errorf("mysql: end the read-only transaction on %s: %w", ss.server, rerr)
	}
	ss.conn.Close()
	ss.db.Close()
	return err
}

// groupKey names, in the run's Group, the session of this server, account
// and connection settings (the database aside: a later input changes to
// its own with USE). It is a hash, so no password is kept in a key.
func (s *mysqlSource) groupKey(cfg *gomysql.Config) string {
	c := cfg.Clone()
	c.DBName = ""
	sum := sha256.Sum256([]byte(c.FormatDSN()))
	return "mysql session " + hex.EncodeToString(sum[:])
}

func (s *mysqlSource) serverKey() string { return "mysql server " + s.cfg.Net + " " + s.cfg.Addr }

// session returns the session this input reads in — the one an earlier
// input of the run opened on the same server with the same account and
// settings, else a new one — whether this input owns it (it must hand it
// to the group or release it), and the shared_snapshot facts.
func (s *mysqlSource) session(ctx context.Context) (ss *mySession, own bool, share map[string]any, err error) {
	cfg := s.config()
	key := s.groupKey(cfg)
	if v, ok := s.loc.Group.Get(key); ok {
		ss := v.(*mySession)
		switch {
		case s.cfg.DBName != "" && s.cfg.DBName != ss.database:
			q, err := mySQL("use_database", struct{ Database string }{s.cfg.DBName})
			if err != nil {
				return nil, false, nil, err
			}
			if _, err := ss.conn.ExecContext(ctx, q); err != nil {
				return nil, false, nil, fmt.Errorf("mysql: change to database %s on %s: %w", s.cfg.DBName, ss.server, err)
			}
			ss.database = s.cfg.DBName
			fallthrough
		case s.cfg.DBName == ss.database:
			if ss.first != nil {
				ss.first["shared_snapshot"] = true
				ss.first["shared_snapshot_reason"] = fmt.Sprintf("the %s was read later in this input's transaction, on the same server as the same user: both inputs are as of one snapshot", s.loc.Role)
				ss.first["snapshot_shared_with"] = s.loc.Role
			}
			return ss, false, map[string]any{
				"shared_snapshot":        true,
				"shared_snapshot_reason": fmt.Sprintf("read in the transaction the %s opened on this server (MySQL and MariaDB cannot export a snapshot, so the same connection reads both inputs): both inputs are as of one snapshot", ss.openedBy),
				"snapshot_opened_by":     ss.openedBy,
			}, nil
		}
		// A URI without a database cannot share a session whose database
		// was set by another input (USE cannot unset it).
	}
	share = map[string]any{"shared_snapshot": false}
	switch earlier, ok := s.loc.Group.Get(s.serverKey()); {
	case s.loc.Group == nil:
		share["shared_snapshot_reason"] = "read on its own (no other input of a run to share a snapshot with)"
	case ok:
		share["shared_snapshot_reason"] = fmt.Sprintf("the %s was read on this server with another user, connection settings or no database, so this input has a snapshot of its own, opened after that one", earlier)
	default:
		share["shared_snapshot_reason"] = "no earlier input of the run was read on this server: this input's transaction stays open until the run's inputs are loaded, so that a later input on this server (same user and settings) reads in the same snapshot"
	}

	connector, err := myConnector(cfg)
	if err != nil {
		return nil, false, nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxIdleConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, false, nil, fmt.Errorf("connect to %s as %s: %w", s.cfg.Addr, s.cfg.User, err)
	}
	opened := &mySession{db: db, conn: conn, database: s.cfg.DBName, openedBy: s.loc.Role, server: s.cfg.Addr}
	ss = opened
	// opened, not ss: an error return sets ss to nil before this runs
	defer func() {
		if err != nil {
			opened.release()
		}
	}()
	pinned, err := myPinRowsRead(ctx, conn)
	if err != nil {
		return nil, false, nil, err
	}
	for _, id := range []string{"session_time_zone", "isolation", "start_snapshot"} {
		q, err := mySQL(id, nil)
		if err != nil {
			return nil, false, nil, err
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, false, nil, fmt.Errorf("mysql: %s: %w", q, err)
		}
	}
	if ss.facts, ss.mariaDB, err = mySnapshotFacts(ctx, conn); err != nil {
		return nil, false, nil, err
	}
	for k, v := range pinned {
		ss.facts[k] = v
	}
	s.loc.Group.Put(s.serverKey(), s.loc.Role, nil)
	return ss, true, share, nil
}

// myMaxSelectLimit is sql_select_limit's maximum (and its default): no
// limit.
const myMaxSelectLimit = "18446744073709551615"

// myPinRowsRead sets the session variables that decide which rows a SELECT
// returns, whatever the server's GLOBAL values or the URI (the driver sets
// an unknown parameter as a session variable) say: sql_select_limit to its
// maximum and, on MariaDB, system_versioning_asof to DEFAULT
// (pin_rows_read). It then reads them back (rows_read_settings) and
// refuses the read when they are not so (see myCheckRowsRead), and returns
// them for the input's Details: sql_select_limit, and
// system_versioning_asof where the server has the variable.
func myPinRowsRead(ctx context.Context, conn *sql.Conn) (map[string]any, error) {
	q, err := mySQL("pin_rows_read", nil)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("mysql: %s: %w", q, err)
	}
	if q, err = mySQL("rows_read_settings", nil); err != nil {
		return nil, err
	}
	readBack := func(err error) error {
		return fmt.Errorf("mysql: read back the session's sql_select_limit and system_versioning_asof: %w", err)
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, readBack(err)
	}
	defer rows.Close()
	settings := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, readBack(err)
		}
		settings[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, readBack(err)
	}
	if err := myCheckRowsRead(settings); err != nil {
		return nil, err
	}
	d := make(map[string]any, len(settings))
	for k, v := range settings {
		d[k] = v
	}
	return d, nil
}

// myCheckRowsRead refuses session values (variable name, lower case, to
// value, as SHOW VARIABLES gives them) under which a SELECT would not
// return every current row: sql_select_limit other than its maximum, and
// system_versioning_asof, where the server has it, other than DEFAULT
// (SET SESSION … = DEFAULT takes the GLOBAL value, so a server whose
// GLOBAL value is a time keeps it in the session).
func myCheckRowsRead(settings map[string]string) error {
	if v := settings["sql_select_limit"]; v != myMaxSelectLimit {
		return fmt.Errorf("mysql: the session's sql_select_limit is %q after SET SESSION sql_select_limit = %s: a SELECT would return at most that many rows, and reconcile reads every row; the read is refused, check what sets it on the server (init_connect, a proxy)", v, myMaxSelectLimit)
	}
	if v, ok := settings["system_versioning_asof"]; ok && !strings.EqualFold(v, "DEFAULT") {
		return fmt.Errorf("mysql: the session's system_versioning_asof is %q after SET SESSION system_versioning_asof = DEFAULT, which takes the server's GLOBAL value: a system-versioned table would be read as of that time, not as it is now, and reconcile reads the current rows; the read is refused: have the server's GLOBAL value reset (SET GLOBAL system_versioning_asof = DEFAULT), or read from a server without it", v)
	}
	return nil
}

// mySnapshotFacts reads, in the transaction just opened, what an auditor
// needs to say "as of what" the rows were read (see the package doc).
func mySnapshotFacts(ctx context.Context, conn *sql.Conn) (map[string]any, bool, error) {
	row := func(id string, data any, dest ...any) error {
		q, err := mySQL(id, data)
		if err != nil {
			return err
		}
		if err := conn.QueryRowContext(ctx, q).Scan(dest...); err != nil {
			return fmt.Errorf("mysql: read the snapshot's facts (%s): %w", id, err)
		}
		return nil
	}
	var version, now, sessionTZ, systemTZ string
	var charset sql.NullString
	var logBin int64
	if err := row("snapshot_facts", nil, &version, &now, &sessionTZ, &systemTZ, &logBin, &charset); err != nil {
		return nil, false, err
	}
	mariaDB := strings.Contains(strings.ToLower(version), "mariadb")
	d := map[string]any{
		"server":                 "MySQL",
		"server_version":         version,
		"transaction_started_at": now,
		"isolation":              "REPEATABLE READ, READ ONLY, WITH CONSISTENT SNAPSHOT",
		"session_time_zone":      sessionTZ,
		"system_time_zone":       systemTZ,
		"character_set_results":  charset.String,
	}
	if mariaDB {
		d["server"] = "MariaDB"
	}
	if sessionTZ != "+00:00" {
		return nil, false, fmt.Errorf("mysql: the session time zone is %q after SET time_zone = '+00:00'; TIMESTAMP values cannot be read as UTC", sessionTZ)
	}
	// Only utf8mb4 carries every character: in any other set (utf8mb3,
	// which utf8 names, has no 4-byte characters such as emoji) the server
	// sends a character it cannot convert as '?', so 'a😀' would arrive,
	// and compare, as 'a?'.
	if !strings.EqualFold(charset.String, "utf8mb4") {
		return nil, false, fmt.Errorf("%w: the session's results are in character set %q; reconcile reads text as UTF-8 and needs utf8mb4, the only character set in which the server sends every character (in any other it replaces a character the set lacks, an emoji in utf8mb3 say, with '?', so different text would compare equal): remove the charset and character_set_results parameters or set them to utf8mb4", sources.ErrInvalidLocation, charset.String)
	}
	var level string
	if err := row("isolation_level", struct{ MariaDB bool }{mariaDB}, &level); err != nil {
		return nil, false, err
	}
	d["server_isolation_level"] = level
	var gtid sql.NullString
	gtidVar := "gtid_executed"
	if mariaDB {
		gtidVar = "gtid_current_pos"
	}
	err := row("gtid", struct{ MariaDB bool }{mariaDB}, &gtid)
	switch {
	case err != nil:
		d[gtidVar+"_unavailable"] = err.Error()
	case gtid.String != "":
		d[gtidVar] = gtid.String
	case logBin == 0:
		d[gtidVar+"_unavailable"] = "binary logging is off on this server (@@log_bin = 0): it keeps no binary log, so there is no GTID position or log position to record"
	default:
		d[gtidVar+"_unavailable"] = "@@" + gtidVar + " is empty: no transaction has been written to the binary log with a GTID"
	}
	if mariaDB {
		// The binary log position of the snapshot itself (MariaDB only).
		q, err := mySQL("binlog_snapshot", nil)
		if err != nil {
			return nil, false, err
		}
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return nil, false, fmt.Errorf("mysql: read the snapshot's binary log position: %w", err)
		}
		status := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return nil, false, err
			}
			status[strings.ToLower(k)] = v
		}
		rows.Close()
		if f := status["binlog_snapshot_file"]; f != "" {
			d["binlog_snapshot_file"] = f
			d["binlog_snapshot_position"] = status["binlog_snapshot_position"]
		} else if logBin == 0 {
			d["binlog_snapshot_unavailable"] = "binary logging is off on this server (@@log_bin = 0)"
		} else {
			d["binlog_snapshot_unavailable"] = "the server gave no binlog_snapshot_file for this transaction"
		}
	} else {
		d["binlog_snapshot_unavailable"] = "MySQL gives no binary log position tied to a reader's snapshot; gtid_executed was read just after the snapshot was taken"
	}
	return d, mariaDB, nil
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
	q, err := mySQL("input_facts", nil)
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

// describe maps the columns of the input's statement, run with LIMIT 0 so
// that no row is read; for a table the catalog adds each column's declared
// type (and the exact precision of a DECIMAL UNSIGNED) and the evidence
// gets the table's engine. A column whose type is not mapped, a duplicate
// name or a provenance name is an error naming the column.
func (s *mysqlSource) describe(ctx context.Context, conn *sql.Conn, details map[string]any) ([]myColumn, error) {
	q, err := s.sql(true)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, s.queryError(details, err)
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("mysql: column types: %w", err)
	}
	if len(types) == 0 {
		return nil, errors.New("mysql: the statement returns no columns")
	}
	cols := make([]myColumn, len(types))
	for i, t := range types {
		c := myColumn{Name: t.Name(), WireType: t.DatabaseTypeName()}
		if p, sc, ok := t.DecimalSize(); ok {
			c.Precision, c.Scale = p, sc
		}
		c.MyType = myMetaType(&c)
		// The driver takes a DECIMAL's precision from its display length
		// less a sign, which an UNSIGNED one does not have, and cannot say
		// which it is: a query's DECIMAL is read one digit wider, so that
		// an UNSIGNED DECIMAL(5,2) holding 999.99 is not refused as more
		// than 4 digits (a table's catalog gives the exact type instead).
		if s.table == nil && c.WireType == "DECIMAL" && c.Precision < sqlserver.MaxDecimalDigits {
			c.Precision++
		}
		cols[i] = c
	}
	if s.table != nil {
		if err := s.catalog(ctx, conn, cols, details); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	names := make([]string, 0, len(cols))
	var bad []string
	for i := range cols {
		c := &cols[i]
		switch {
		case seen[c.Name]:
			return nil, fmt.Errorf("%w: the result has two columns named %q; give them distinct names (SELECT a.x AS a_x, …)", sources.ErrInvalidLocation, c.Name)
		case c.Name == sources.FileColumn || c.Name == sources.LineColumn || c.Name == sources.RowColumn:
			return nil, fmt.Errorf("%w: column name %q is reserved for provenance; rename it in a query", sources.ErrInvalidLocation, c.Name)
		}
		seen[c.Name] = true
		names = append(names, c.Name)
		if err := sources.CaseClash(names); err != nil {
			return nil, fmt.Errorf("%w; give them distinct names in a query (SELECT a AS a_lower, A AS a_upper, …)", err)
		}
		if !mapMyType(c) {
			bad = append(bad, fmt.Sprintf("column %s has type %s", c.Name, c.MyType))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s, which reconcile cannot load exactly; read it through a query that casts it (query: SELECT …, CAST(col AS CHAR) AS col FROM …)", ErrUnmappedType, strings.Join(bad, "; "))
	}
	return cols, nil
}

// catalog adds to the columns of a table their declared types from
// information_schema, and to details the table's engine.
func (s *mysqlSource) catalog(ctx context.Context, conn *sql.Conn, cols []myColumn, details map[string]any) error {
	var db any // NULL: the session's database
	name := s.table[0]
	if len(s.table) == 2 {
		db, name = s.table[0], s.table[1]
	}
	q, err := mySQL("table_columns", nil)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, q, db, name)
	if err != nil {
		return fmt.Errorf("mysql: read the columns of %s from information_schema: %w", s.file(), err)
	}
	byName := map[string]int{}
	for i, c := range cols {
		byName[c.Name] = i
	}
	var hidden []string
	for rows.Next() {
		var col, colType, dataType string
		var prec, scale sql.NullInt64
		if err := rows.Scan(&col, &colType, &dataType, &prec, &scale); err != nil {
			rows.Close()
			return fmt.Errorf("mysql: columns of %s: %w", s.file(), err)
		}
		i, ok := byName[col]
		if !ok {
			// in the table, not in SELECT *: an INVISIBLE column
			hidden = append(hidden, col)
			continue
		}
		cols[i].MyType = colType
		if cols[i].WireType == "DECIMAL" && prec.Valid && scale.Valid {
			cols[i].Precision, cols[i].Scale = prec.Int64, scale.Int64
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql: columns of %s: %w", s.file(), err)
	}
	if len(hidden) > 0 {
		return fmt.Errorf("%w: table %s has column(s) that SELECT * leaves out (INVISIBLE): %s; a table is read whole, so name its columns in a query (query: SELECT *, %s FROM …)", sources.ErrInvalidLocation, s.file(), strings.Join(hidden, ", "), strings.Join(hidden, ", "))
	}
	q, err = mySQL("table_engine", nil)
	if err != nil {
		return err
	}
	var engine sql.NullString
	var kind string
	if err := conn.QueryRowContext(ctx, q, db, name).Scan(&engine, &kind); err != nil {
		return fmt.Errorf("mysql: read the engine of %s from information_schema: %w", s.file(), err)
	}
	details["table_type"] = kind
	if engine.Valid {
		details["table_engine"] = engine.String
		if !strings.EqualFold(engine.String, "InnoDB") {
			details["snapshot_note"] = fmt.Sprintf("engine %s is not transactional: its rows are read as they are when read, not as of the snapshot", engine.String)
		}
	}
	return nil
}

// myFill runs query on conn over the text protocol and writes every row to
// w, each value parsed straight into its column's Arrow builder (see
// myAppenderFor); cols are the columns the statement was described with.
// __file is file and __line the 1-based row. A value with no exact Arrow
// representation is an error naming the row, the column and the value; the
// read then stops at once: the connection is dropped rather than drained.
func myFill(ctx context.Context, conn *sql.Conn, query string, cols []myColumn, file string, w *sources.RowWriter, zd *zeroDates) error {
	return conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("mysql: the driver connection %T cannot run a query", dc)
		}
		rows, err := qc.QueryContext(ctx, query, nil)
		if err != nil {
			return err
		}
		names := rows.Columns()
		tn, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
		if len(names) != len(cols) || tn == nil {
			return &myAbort{fmt.Errorf("mysql: the statement returned %d columns, %d when described", len(names), len(cols))}
		}
		for i, n := range names {
			// A query's columns were described as a derived table, which
			// may type a column of NULLs as BINARY; any other change of
			// type stops the read.
			read := myColumn{Name: n, WireType: tn.ColumnTypeDatabaseTypeName(i), Precision: 1}
			if n != cols[i].Name || read.WireType != "NULL" && (!mapMyType(&read) || read.class != cols[i].class) {
				return &myAbort{fmt.Errorf("mysql: column %d changed between describe and read (%s %s, then %s %s)", i+1, cols[i].Name, cols[i].WireType, n, read.WireType)}
			}
		}
		nc := len(cols)
		app := make([]myAppender, nc)
		for i := range cols {
			app[i] = myAppenderFor(&cols[i], i, w.Column(i), zd)
		}
		dest := make([]driver.Value, nc)
		var row int64
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					return rows.Close()
				}
				return &myAbort{err}
			}
			size := 0
			for i, v := range dest {
				if v == nil {
					w.Column(i).AppendNull()
					continue
				}
				n, err := app[i](v)
				if err != nil {
					c := cols[i]
					return &myAbort{fmt.Errorf("%s:%d: column %s (%s): value %s: %w", file, row+1, c.Name, c.MyType, myValueText(v), err)}
				}
				size += n
			}
			row++
			if err := w.EndRow(file, row, size); err != nil {
				return &myAbort{err}
			}
		}
	})
}

// myAbort ends a read in the middle of a result: it matches
// driver.ErrBadConn, so database/sql drops the connection (the server stops
// sending) instead of reading the rest of the result to discard it. Its
// message is its cause's.
type myAbort struct{ err error }

func (e *myAbort) Error() string   { return e.err.Error() }
func (e *myAbort) Unwrap() []error { return []error{e.err, driver.ErrBadConn} }

// myColumnEvidence lists each column's MySQL type and the Arrow type it was
// read as.
func myColumnEvidence(cols []myColumn) []map[string]string {
	out := make([]map[string]string, len(cols))
	for i, c := range cols {
		out[i] = map[string]string{"name": c.Name, "mysql_type": c.MyType, "arrow_type": c.Arrow.String()}
	}
	return out
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
	q, err := mySQL("start_snapshot", nil)
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
