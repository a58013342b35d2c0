// Package trinotest gives tests a real Trino cluster: the one whose
// coordinator RECONCILE_TRINO_URL names (default http://127.0.0.1:18080,
// the cluster `make trino` starts: .ci/trino). When it cannot be reached,
// or has no active worker, a test is skipped with a one-line reason, unless
// RECONCILE_REQUIRE_TRINO=1 (as .ci/run sets), which makes that a failure.
// There are no mocks: every Trino test talks to the cluster.
package trinotest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trinodb/trino-go-client/trino"
)

// DefaultURL is the coordinator tests use when RECONCILE_TRINO_URL is not
// set: the port .ci/trino gives it.
const DefaultURL = "http://127.0.0.1:18080"

// User is the Trino user the tests connect as (the cluster has no
// authentication: any name is accepted and recorded in its query log).
const User = "reconcile"

// URL is the coordinator's HTTP URL tests use.
func URL() string {
	if u := os.Getenv("RECONCILE_TRINO_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// EngineURI is URL() as reconcile's --engine takes it:
// trino://reconcile@HOST:PORT.
func EngineURI() string {
	u, err := url.Parse(URL())
	if err != nil || u.Host == "" {
		return "trino://" + User + "@" + strings.TrimPrefix(URL(), "http://")
	}
	return "trino://" + User + "@" + u.Host
}

// Connect returns a database handle on the cluster (closed when the test
// ends), its session in UTC. It skips the test (or fails it under
// RECONCILE_REQUIRE_TRINO=1) when the coordinator does not answer within
// 10 seconds or no worker is active.
func Connect(tb testing.TB) *sql.DB {
	tb.Helper()
	u, err := url.Parse(URL())
	if err != nil {
		tb.Fatalf("RECONCILE_TRINO_URL %q: %v", URL(), err)
	}
	u.User = url.User(User)
	cfg := &trino.Config{ServerURI: u.String(), TimeZone: "UTC", Source: "reconcile-tests"}
	conn, err := trino.NewConnector(cfg)
	if err != nil {
		tb.Fatalf("trino connector: %v", err)
	}
	db := sql.OpenDB(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The coordinator's /v1/info first: a port nobody listens on fails at
	// once there, where the driver retries for seconds.
	var workers int
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(URL(), "/")+"/v1/info", nil)
	if err == nil {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	if err == nil {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM system.runtime.nodes WHERE NOT coordinator AND state = 'active'").Scan(&workers)
	}
	if err == nil && workers == 0 {
		err = fmt.Errorf("no active worker")
	}
	if err != nil {
		db.Close()
		reason := strings.Join(strings.Fields(err.Error()), " ")
		if len(reason) > 160 {
			reason = reason[:160] + "…"
		}
		msg := fmt.Sprintf("Trino not reachable at %s (make trino; set RECONCILE_TRINO_URL; RECONCILE_REQUIRE_TRINO=1 makes this a failure): %s", URL(), reason)
		if os.Getenv("RECONCILE_REQUIRE_TRINO") == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// Schema creates a schema of the test's own in catalog (iceberg or hive)
// and drops it, with every table in it, when the test ends. It returns the
// schema's name and the handle.
func Schema(tb testing.TB, catalog string) (string, *sql.DB) {
	tb.Helper()
	db := Connect(tb)
	var b [4]byte
	rand.Read(b[:])
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(tb.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	schema := "rt_" + name + "_" + hex.EncodeToString(b[:])
	Exec(tb, db, fmt.Sprintf("CREATE SCHEMA %s.%s", catalog, schema))
	tb.Cleanup(func() {
		ctx := context.Background()
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT table_name FROM %s.information_schema.tables WHERE table_schema = '%s'", catalog, schema))
		if err != nil {
			tb.Errorf("list the tables of %s.%s: %v", catalog, schema, err)
			return
		}
		var tables []string
		for rows.Next() {
			var t string
			rows.Scan(&t)
			tables = append(tables, t)
		}
		rows.Close()
		for _, t := range tables {
			if _, err := db.ExecContext(ctx, fmt.Sprintf("DROP TABLE %s.%s.%s", catalog, schema, t)); err != nil {
				tb.Errorf("drop table %s.%s.%s: %v", catalog, schema, t, err)
			}
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("DROP SCHEMA %s.%s", catalog, schema)); err != nil {
			tb.Errorf("drop schema %s.%s: %v", catalog, schema, err)
		}
	})
	return schema, db
}

// Exec runs one statement and fails the test on error.
func Exec(tb testing.TB, db *sql.DB, stmt string) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), stmt); err != nil {
		tb.Fatalf("%s: %v", firstLine(stmt), err)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
