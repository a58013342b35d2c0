// Package mysqltest gives tests a real MySQL or MariaDB server: the one
// named by RECONCILE_MYSQL_URL (default mysql://root@127.0.0.1:3306/test).
// When it cannot be reached a test is skipped with a one-line reason, unless
// RECONCILE_REQUIRE_MYSQL=1 (as .ci/run sets), which makes that a failure.
// There are no mocks: every MySQL test talks to the server, each in a
// database of its own that is dropped when the test ends.
package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DefaultURL is the server tests use when RECONCILE_MYSQL_URL is not set.
const DefaultURL = "mysql://root@127.0.0.1:3306/test"

// URL is the server tests use, as a mysql:// URI.
func URL() string {
	if u := os.Getenv("RECONCILE_MYSQL_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Config is URL() as a driver configuration (user, password, address,
// database), for tests that talk to the server directly.
func Config(tb testing.TB) *mysql.Config {
	tb.Helper()
	u, err := url.Parse(URL())
	if err != nil {
		tb.Fatalf("RECONCILE_MYSQL_URL: %v", err)
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	cfg.Addr = net.JoinHostPort(host, port)
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	cfg.MultiStatements = true
	cfg.InterpolateParams = true
	cfg.AllowAllFiles = false
	return cfg
}

// Connect returns a connection pool to URL() (multi-statement Exec
// allowed), closed when the test ends. It skips the test (or fails it under
// RECONCILE_REQUIRE_MYSQL=1) when the server does not answer within 5
// seconds.
func Connect(tb testing.TB) *sql.DB {
	tb.Helper()
	return ConnectConfig(tb, Config(tb))
}

// ConnectConfig is Connect with a configuration of the caller's.
func ConnectConfig(tb testing.TB, cfg *mysql.Config) *sql.DB {
	tb.Helper()
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(connector)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		reason := strings.Join(strings.Fields(err.Error()), " ")
		if len(reason) > 160 {
			reason = reason[:160] + "…"
		}
		msg := fmt.Sprintf("MariaDB/MySQL not reachable (set RECONCILE_MYSQL_URL; RECONCILE_REQUIRE_MYSQL=1 makes this a failure): %s", reason)
		if os.Getenv("RECONCILE_REQUIRE_MYSQL") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Database creates a database of its own for the test (dropped with
// everything in it when the test ends) and returns its name and a
// connection pool whose connections use it.
func Database(tb testing.TB) (string, *sql.DB) {
	tb.Helper()
	admin := Connect(tb)
	var b [4]byte
	rand.Read(b[:])
	name := strings.ToLower(tb.Name())
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if len(name) > 40 {
		name = name[:40]
	}
	db := "rt_" + name + "_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+db+"` CHARACTER SET utf8mb4"); err != nil {
		tb.Fatalf("create database %s: %v", db, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE `"+db+"`"); err != nil {
			tb.Errorf("drop database %s: %v", db, err)
		}
	})
	cfg := Config(tb)
	cfg.DBName = db
	return db, ConnectConfig(tb, cfg)
}

// Exec runs SQL statements (several separated by semicolons are allowed)
// and fails the test on error.
func Exec(tb testing.TB, db *sql.DB, sql string) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), sql); err != nil {
		tb.Fatalf("%s: %v", firstLine(sql), err)
	}
}

// DatabaseURL is URL() with its database replaced by database.
func DatabaseURL(tb testing.TB, database string) string {
	tb.Helper()
	u, err := url.Parse(URL())
	if err != nil {
		tb.Fatalf("RECONCILE_MYSQL_URL: %v", err)
	}
	u.Path = "/" + database
	return u.String()
}

// TableURL is URL() on database with a table= parameter for table.
func TableURL(tb testing.TB, database, table string) string {
	tb.Helper()
	u := DatabaseURL(tb, database)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "table=" + url.QueryEscape(table)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
