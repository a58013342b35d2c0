// Package pgtest gives tests a real PostgreSQL server: the one named by
// RECONCILE_PG_URL (default postgres://root@127.0.0.1:5432/test). When it
// cannot be reached a test is skipped with a one-line reason, unless
// RECONCILE_REQUIRE_PG=1 (as .ci/run sets), which makes that a failure.
// There are no mocks: every PostgreSQL test talks to the server.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server tests use when RECONCILE_PG_URL is not set.
const DefaultURL = "postgres://root@127.0.0.1:5432/test"

// URL is the server tests use.
func URL() string {
	if u := os.Getenv("RECONCILE_PG_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Connect returns a connection to URL(), closed when the test ends. It
// skips the test (or fails it under RECONCILE_REQUIRE_PG=1) when the server
// does not answer within 5 seconds.
func Connect(tb testing.TB) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, URL())
	if err != nil {
		reason := strings.Join(strings.Fields(err.Error()), " ")
		if len(reason) > 160 {
			reason = reason[:160] + "…"
		}
		msg := fmt.Sprintf("PostgreSQL not reachable (set RECONCILE_PG_URL; RECONCILE_REQUIRE_PG=1 makes this a failure): %s", reason)
		if os.Getenv("RECONCILE_REQUIRE_PG") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Schema creates a schema of its own for the test (dropped with everything
// in it when the test ends) and returns its name and an open connection.
func Schema(tb testing.TB) (string, *pgx.Conn) {
	tb.Helper()
	conn := Connect(tb)
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
	schema := "rt_" + name + "_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		tb.Fatalf("create schema %s: %v", schema, err)
	}
	tb.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema, conn
}

// Exec runs SQL statements (several separated by semicolons are allowed)
// and fails the test on error.
func Exec(tb testing.TB, conn *pgx.Conn, sql string) {
	tb.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		tb.Fatalf("%s: %v", firstLine(sql), err)
	}
}

// TableURL is URL() with a table= parameter for schema.table.
func TableURL(schema, table string) string {
	u := URL()
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "table=" + schema + "." + table
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
