package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
)

// A row-level security policy that would hide rows from the reading role
// makes the read fail, naming the policy's effect, instead of leaving the
// rows out: the read runs with row_security off. Before, a role under a
// policy read 3 of 5 rows and a control over them passed.
func TestPostgresRowSecurityRefused(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	var b [4]byte
	rand.Read(b[:])
	role := "rt_rls_reader_" + hex.EncodeToString(b[:])
	s, r := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.k (id int, hidden boolean);
		INSERT INTO %[1]s.k VALUES (1, false), (2, false), (3, false), (3, true), (4, true);
		ALTER TABLE %[1]s.k ENABLE ROW LEVEL SECURITY;
		CREATE POLICY visible ON %[1]s.k FOR SELECT USING (NOT hidden);
		CREATE ROLE %[2]s LOGIN;
		GRANT USAGE ON SCHEMA %[1]s TO %[2]s;
		GRANT SELECT ON %[1]s.k TO %[2]s`, s, r))
	t.Cleanup(func() {
		pgtest.Exec(t, conn, fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE %[1]s", r))
	})
	u, err := url.Parse(pgtest.TableURL(schema, "k"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	_, _, err = pgLoad(t, sources.Location{URI: u.String()})
	if err == nil || !strings.Contains(err.Error(), "a row-level security policy would hide rows from this role") || !strings.Contains(err.Error(), "BYPASSRLS") {
		t.Fatalf("read under a policy: %v, want a refusal naming row-level security", err)
	}
	// The table's owner bypasses the policy and reads all five rows.
	_, in, err := pgLoad(t, sources.Location{URI: pgtest.TableURL(schema, "k")})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 5 || in.Details["row_security"] != "off" {
		t.Errorf("owner's read: %d rows, row_security %v; want 5, off", in.Rows, in.Details["row_security"])
	}
}

// A query input's conversions of a timestamptz to a date or to text are
// made in UTC, whatever zone the connection asks for: the same rows on
// every machine, and the evidence says so. Before, TimeZone=Asia/Tokyo (a
// URI parameter, PGTZ, a role's or the server's setting) made 20:00 UTC on
// 1 March the 2nd of March.
func TestPostgresSessionTimeZoneUTC(t *testing.T) {
	pgtest.Connect(t)
	q := "SELECT 1 AS id, ts::date AS d, ts::text AS t FROM (VALUES (timestamptz '2024-03-01 20:00:00+00')) v(ts)"
	for _, zone := range []string{"", "Asia/Tokyo", "America/Los_Angeles"} {
		uri := pgtest.URL()
		sep := "?"
		if strings.Contains(uri, "?") {
			sep = "&"
		}
		uri += sep + "query=" + url.QueryEscape(q)
		if zone != "" {
			uri += "&TimeZone=" + url.QueryEscape(zone)
		}
		db, in, err := pgLoad(t, sources.Location{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		_, rows, err := db.Strings(context.Background(), "SELECT CAST(d AS VARCHAR), t FROM t")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(derefs(rows)); got != "[[2024-03-01 2024-03-01 20:00:00+00]]" {
			t.Errorf("TimeZone %q: %s, want the UTC date and text", zone, got)
		}
		if in.Details["session_time_zone"] != "UTC" {
			t.Errorf("TimeZone %q: details session_time_zone %v", zone, in.Details["session_time_zone"])
		}
	}
}
