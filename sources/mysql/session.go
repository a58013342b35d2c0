package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

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
	if q, qerr := mySQL(queries.MySQLRollback, nil); qerr != nil {
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
			q, err := mySQL(queries.MySQLUseDatabase, struct{ Database string }{s.cfg.DBName})
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
	q, err := mySQL(queries.MySQLPinRowsRead, nil)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("mysql: %s: %w", q, err)
	}
	if q, err = mySQL(queries.MySQLRowsReadSettings, nil); err != nil {
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
		q, err := mySQL(queries.MySQLBinlogSnapshot, nil)
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
