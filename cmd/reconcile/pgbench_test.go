package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// pgbenchScale is the scale of the pgbench database: 100,000 accounts,
// 10 tellers and 1 branch per unit.
const pgbenchScale = 2

// Issue 31's balance control on a ledger workload nobody on this project
// wrote: PostgreSQL's pgbench (TPC-B-like: every transaction adds delta to
// pgbench_accounts.abalance, pgbench_tellers.tbalance and
// pgbench_branches.bbalance and inserts (tid, bid, aid, delta, mtime) into
// pgbench_history). `pgbench -i -s 2` and 3 s of `pgbench -c 4` (or, without
// the binary, the same statements from the test) in a schema of the test's
// own; then the raw pgbench_history (postings, no posting id) is the source
// and pgbench_accounts the sink at balance grain (abalance renamed delta),
// per aid, with no pre-aggregating query:
//
//   - clean, the control passes: 200,000 accounts, most with abalance 0 and
//     no postings, balance (absent on one side is 0), where the built-in
//     record checks failed on tens of thousands of rows;
//   - after three history rows are deleted, two balances edited (one of an
//     account with postings, one of an account without) and one history row
//     duplicated, exactly those six accounts are out of balance, each by
//     the deleted delta (sink - source = +delta), the edit, or minus the
//     duplicated delta, with the postings behind each source sum.
//
// The same for the branches, history grouped by bid against
// pgbench_branches.bbalance (both branches edited, by amounts no fault can
// cancel). Skipped like every PostgreSQL test unless RECONCILE_REQUIRE_PG=1;
// RECONCILE_PGBENCH=statements uses the statements even when pgbench is on
// PATH.
func TestPgbenchBalanceControl(t *testing.T) {
	if testing.Short() {
		t.Skip("pgbench: a 200,000-account database (-short)")
	}
	schema, conn := pgtest.Schema(t)
	ctx := context.Background()
	if bin, err := exec.LookPath("pgbench"); err == nil && os.Getenv("RECONCILE_PGBENCH") != "statements" {
		t.Logf("pgbench: %s", bin)
		pgbenchBinary(t, bin, schema)
	} else {
		t.Logf("pgbench: the statements (no binary, or RECONCILE_PGBENCH=statements)")
		pgbenchStatements(t, conn, schema)
	}
	var history int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+schema+".pgbench_history").Scan(&history); err != nil || history < 20 {
		t.Fatalf("%d history rows after the run (%v): too few to plant faults", history, err)
	}
	t.Logf("%d transactions", history)
	dir := t.TempDir()
	accounts := writeFile(t, filepath.Join(dir, "accounts.yaml"), fmt.Sprintf(`name: pgbench-accounts
source: %q
sink: {uri: %q, rename: "abalance:delta"}
group_by: [aid]
measures: [delta]
grain: {sink: balance}
duplicates: [aid, tid, delta, mtime]
`, pgtest.TableURL(schema, "pgbench_history"), pgtest.TableURL(schema, "pgbench_accounts")))
	branches := writeFile(t, filepath.Join(dir, "branches.yaml"), fmt.Sprintf(`name: pgbench-branches
source: %q
sink: {uri: %q, rename: {bbalance: delta}}
group_by: [bid]
measures: [delta]
grain: {sink: balance}
`, pgtest.TableURL(schema, "pgbench_history"), pgtest.TableURL(schema, "pgbench_branches")))

	// run returns the summary, and sum_balance's header and rows.
	run := func(spec, name string, want exitCode) (*pgSummary, []string, [][]string) {
		t.Helper()
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out, "--format", "json")
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s%s", name, code, want, stdout, stderr)
		}
		s := readSummary(t, out)
		status := map[string]string{}
		for _, c := range s.Checks {
			status[c.ID] = fmt.Sprintf("%s %d", c.Status, c.Exceptions)
		}
		for id, w := range map[string]string{"population": "pass 0", "duplicate_balance_rows": "pass 0", "row_count_balance": "skipped 0", "missing_ids": "skipped 0"} {
			if status[id] != w {
				t.Errorf("%s: %s %s, want %s", name, id, status[id], w)
			}
		}
		rows := readCSV(t, filepath.Join(out, "exceptions", "sum_balance.csv"))
		return s, rows[0], rows[1:]
	}

	// Clean: every account and branch balances.
	s, _, rows := run(accounts, "accounts-clean", exitOK)
	if s.Status != "pass" || len(rows) != 0 || s.Inputs[1].Rows != 100000*pgbenchScale || s.Inputs[0].Rows != history {
		t.Errorf("clean accounts: %s, %d rows out of balance, inputs %d/%d rows:\n%s", s.Status, len(rows), s.Inputs[0].Rows, s.Inputs[1].Rows, s.findings())
	}
	if s, _, rows := run(branches, "branches-clean", exitOK); s.Status != "pass" || len(rows) != 0 {
		t.Errorf("clean branches: %s, %v", s.Status, rows)
	}

	// The faults: four history rows of four accounts, each with a delta
	// that is not 0 (three deleted, one duplicated); two accounts edited
	// that are none of those, one with postings and one without.
	type posting struct {
		ctid          string
		aid, bid, val int
	}
	var picked []posting
	prows, err := conn.Query(ctx, fmt.Sprintf(`SELECT ctid::text, aid, bid, delta FROM (
    SELECT DISTINCT ON (aid) ctid, aid, bid, delta FROM %s.pgbench_history WHERE delta <> 0 ORDER BY aid, mtime) AS h
ORDER BY aid LIMIT 4`, schema))
	if err != nil {
		t.Fatal(err)
	}
	for prows.Next() {
		var p posting
		if err := prows.Scan(&p.ctid, &p.aid, &p.bid, &p.val); err != nil {
			t.Fatal(err)
		}
		picked = append(picked, p)
	}
	if prows.Close(); prows.Err() != nil || len(picked) != 4 {
		t.Fatalf("picked %v: %v", picked, prows.Err())
	}
	taken := []int{picked[0].aid, picked[1].aid, picked[2].aid, picked[3].aid}
	var withPostings, without int
	if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT min(aid) FROM %s.pgbench_history WHERE NOT aid = ANY($1)", schema), taken).Scan(&withPostings); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT min(aid) FROM %[1]s.pgbench_accounts AS a WHERE NOT EXISTS (SELECT 1 FROM %[1]s.pgbench_history AS h WHERE h.aid = a.aid)", schema)).Scan(&without); err != nil {
		t.Fatal(err)
	}
	wantAccounts := map[int]int{} // aid → sink − source
	wantBranches := map[int]int{} // bid → sink − source
	for _, p := range picked[:3] {
		pgtest.Exec(t, conn, fmt.Sprintf("DELETE FROM %s.pgbench_history WHERE ctid = '%s'::tid", schema, p.ctid))
		wantAccounts[p.aid] += p.val
		wantBranches[p.bid] += p.val
	}
	dup := picked[3]
	pgtest.Exec(t, conn, fmt.Sprintf("INSERT INTO %[1]s.pgbench_history SELECT * FROM %[1]s.pgbench_history WHERE ctid = '%[2]s'::tid", schema, dup.ctid))
	wantAccounts[dup.aid] -= dup.val
	wantBranches[dup.bid] -= dup.val
	for aid, edit := range map[int]int{withPostings: 7, without: -11} {
		pgtest.Exec(t, conn, fmt.Sprintf("UPDATE %s.pgbench_accounts SET abalance = abalance + %d WHERE aid = %d", schema, edit, aid))
		wantAccounts[aid] += edit
	}
	// Both branches edited, by more than the planted postings can move a
	// branch (4 × 5,000), so neither balances by chance.
	for bid, edit := range map[int]int{1: 1_000_003, 2: -2_000_005} {
		pgtest.Exec(t, conn, fmt.Sprintf("UPDATE %s.pgbench_branches SET bbalance = bbalance + %d WHERE bid = %d", schema, edit, bid))
		wantBranches[bid] += edit
	}

	// Each group out of balance with its difference and the postings behind
	// the source sum, as the server counts them.
	check := func(name, spec, col string, want map[int]int) {
		t.Helper()
		s, header, rows := run(spec, name, exitFailed)
		var got, exp []string
		for _, r := range rows {
			got = append(got, r[0]+" "+r[3]+" "+r[5])
		}
		for g, d := range want {
			var n int
			if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s.pgbench_history WHERE %s = $1", schema, col), g).Scan(&n); err != nil {
				t.Fatal(err)
			}
			exp = append(exp, fmt.Sprintf("%d %d %d", g, d, n))
		}
		slices.Sort(got)
		slices.Sort(exp)
		if !slices.Equal(got, exp) {
			t.Errorf("%s out of balance (%s difference source_postings):\n got %q\nwant %q\n%s", name, col, got, exp, s.findings())
		}
		if h := strings.Join(header, ","); h != col+",source_delta,sink_delta,difference_delta,difference_pct_delta,source_postings" {
			t.Errorf("%s: sum_balance columns %s", name, h)
		}
	}
	check("accounts-faults", accounts, "aid", wantAccounts)
	// The duplicated history row (pgbench_history has no posting id) is
	// listed by duplicate_postings with both rows' locations (the table and
	// each row's place in the read); the clean run listed none.
	if clean := readCSV(t, filepath.Join(dir, "accounts-clean", "exceptions", "duplicate_postings.csv")); len(clean) != 1 {
		t.Errorf("clean accounts: duplicate_postings %v", clean)
	}
	dups := readCSV(t, filepath.Join(dir, "accounts-faults", "exceptions", "duplicate_postings.csv"))
	if len(dups) != 2 {
		t.Fatalf("duplicate_postings: %v, want the one duplicated history row", dups)
	}
	col := map[string]string{}
	for i, h := range dups[0] {
		col[h] = dups[1][i]
	}
	locs := strings.Split(col["locations"], ";")
	if col["aid"] != strconv.Itoa(dup.aid) || col["delta"] != strconv.Itoa(dup.val) || col["copies"] != "2" || col["side"] != "source" ||
		len(locs) != 2 || locs[0] == locs[1] || !strings.Contains(locs[0], ".pgbench_history:") {
		t.Errorf("duplicate_postings: %v, want aid %d's posting of %d written twice, at two locations", col, dup.aid, dup.val)
	}
	check("branches-faults", branches, "bid", wantBranches)
	if len(wantAccounts) != 6 {
		t.Errorf("%d accounts planted out of balance, want 6: %v", len(wantAccounts), wantAccounts)
	}
}

// pgbenchBinary runs `pgbench -i -s 2` and `pgbench -c 4 -T 3` against the
// test's server with the test's schema first in search_path (PGOPTIONS), so
// every pgbench table is created and updated there.
func pgbenchBinary(t *testing.T, bin, schema string) {
	t.Helper()
	env := append(os.Environ(), "PGOPTIONS=-c search_path="+schema)
	for _, args := range [][]string{
		{"-i", "-q", "-s", fmt.Sprint(pgbenchScale), pgtest.URL()},
		{"-n", "-c", "4", "-j", "2", "-T", "3", pgtest.URL()},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// pgbenchStatements is pgbenchBinary without the binary: pgbench's tables
// as `pgbench -i` makes them (pgbench 15's DDL and initial rows), then 3 s of
// its built-in TPC-B-like script from 4 connections: aid, bid, tid and
// delta drawn as \set random(…) draws them, the same five statements in one
// transaction.
func pgbenchStatements(t *testing.T, conn *pgx.Conn, schema string) {
	t.Helper()
	s := pgbenchScale
	pgtest.Exec(t, conn, fmt.Sprintf(`SET search_path = %[1]s;
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84)) WITH (fillfactor = 100);
CREATE TABLE pgbench_accounts (aid int not null, bid int, abalance int, filler char(84)) WITH (fillfactor = 100);
CREATE TABLE pgbench_branches (bid int not null, bbalance int, filler char(88)) WITH (fillfactor = 100);
INSERT INTO pgbench_branches (bid, bbalance) SELECT bid, 0 FROM generate_series(1, %[2]d) AS bid;
INSERT INTO pgbench_tellers (tid, bid, tbalance) SELECT tid, (tid - 1) / 10 + 1, 0 FROM generate_series(1, %[3]d) AS tid;
INSERT INTO pgbench_accounts (aid, bid, abalance, filler) SELECT aid, (aid - 1) / 100000 + 1, 0, '' FROM generate_series(1, %[4]d) AS aid;
ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid);
ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid);
ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid);
RESET search_path`, schema, s, 10*s, 100000*s))
	deadline := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			cfg, err := pgx.ParseConfig(pgtest.URL())
			if err != nil {
				errs <- err
				return
			}
			cfg.RuntimeParams["search_path"] = schema
			client, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				errs <- err
				return
			}
			defer client.Close(ctx)
			for time.Now().Before(deadline) {
				aid, bid, tid, delta := 1+rand.IntN(100000*s), 1+rand.IntN(s), 1+rand.IntN(10*s), rand.IntN(10001)-5000
				tx, err := client.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				var balance int
				for _, st := range []struct {
					sql  string
					args []any
				}{
					{"UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", []any{delta, aid}},
					{"SELECT abalance FROM pgbench_accounts WHERE aid = $1", []any{aid}},
					{"UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", []any{delta, tid}},
					{"UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2", []any{delta, bid}},
					{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", []any{tid, bid, aid, delta}},
				} {
					if strings.HasPrefix(st.sql, "SELECT") {
						err = tx.QueryRow(ctx, st.sql, st.args...).Scan(&balance)
					} else {
						_, err = tx.Exec(ctx, st.sql, st.args...)
					}
					if err != nil {
						tx.Rollback(ctx)
						errs <- fmt.Errorf("%s: %w", st.sql, err)
						return
					}
				}
				if err := tx.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
