package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/internal/trinotest"
)

// TestTrinoDuplicatePostings: duplicates: runs on Trino (check
// duplicate_postings in Trino's dialect) over a PostgreSQL source and an
// Iceberg sink with planted repeated postings — under different ids, with
// NULL in a column (NULL equals NULL), an empty text and a NULL (one
// value), 10.0 and 10.00 (one number), a column typed bigint in one input
// and integer in the other (written as text) and, in the sink, a posting
// written three times over two commits — and writes the exception file of
// the embedded run over the same two tables byte for byte but for the
// locations, which name the table or the data files, in text order. Every
// check has the embedded run's verdict and count.
func TestTrinoDuplicatePostings(t *testing.T) {
	iceSchema, tdb := trinotest.Schema(t, "iceberg")
	pgSchema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`
		CREATE TABLE %[1]s.postings (entry_id text, account text, amount numeric(12,2), memo text, batch bigint);
		INSERT INTO %[1]s.postings VALUES
			('E1', 'A', 10.0, NULL, 1), ('E2', 'A', 10.00, NULL, 1),
			('E3', 'B', 5, 'x', 1), ('E4', 'B', 5, 'y', 1),
			('E5', '', 7, 'z', 1), ('E6', NULL, 7, 'z', 1),
			('E7', 'C', 1, NULL, 1), ('E8', 'D', 2, 'w', 1), ('E9', 'D', 2, 'w', 2);`, pgSchema))
	sink := "iceberg." + iceSchema + ".postings"
	trinotest.Exec(t, tdb, "CREATE TABLE "+sink+" (entry_id varchar, account varchar, amount decimal(12,2), memo varchar, batch integer)")
	trinotest.Exec(t, tdb, fmt.Sprintf("INSERT INTO %s SELECT entry_id, account, amount, memo, CAST(batch AS integer) FROM postgresql.%s.postings", sink, pgSchema))
	trinotest.Exec(t, tdb, "INSERT INTO "+sink+" VALUES ('E10', 'C', DECIMAL '1.00', NULL, 1), ('E11', 'C', DECIMAL '1', NULL, 1)")

	common := "id: [entry_id]\nmeasures: [amount]\nduplicates: [account, amount, memo, batch]\n"
	embOut, emb, triOut, tri := runBothEngines(t, pgSchema, "postings", iceSchema, common)

	embChecks := map[string]parityCheck{}
	for _, c := range emb.Checks {
		embChecks[c.ID] = c
	}
	ran := false
	for _, c := range tri.Checks {
		e, ok := embChecks[c.ID]
		if !ok {
			t.Errorf("check %s ran on Trino only", c.ID)
			continue
		}
		if c.Status != e.Status || c.Exceptions != e.Exceptions {
			t.Errorf("check %s: %s with %d exceptions on Trino, %s with %d embedded", c.ID, c.Status, c.Exceptions, e.Status, e.Exceptions)
		}
		if c.ID != "duplicate_postings" {
			continue
		}
		ran = true
		where := map[string]bool{}
		for _, col := range c.Columns {
			if col.Role == "location" {
				where[col.Name] = true
			}
		}
		if !where["locations"] {
			t.Errorf("duplicate_postings: no location column locations in %+v", c.Columns)
		}
		a, b := withoutColumns(t, filepath.Join(triOut, c.File), where), withoutColumns(t, filepath.Join(embOut, c.File), where)
		if !slices.Equal(a, b) {
			t.Errorf("duplicate_postings differs but for %v:\nTrino    %q\nembedded %q", where, a, b)
		}
		want := []string{"account,amount,memo,batch,side,copies",
			",7.00,z,1,sink,2", ",7.00,z,1,source,2", "A,10.00,,1,sink,2", "A,10.00,,1,source,2", "C,1.00,,1,sink,3"}
		if !slices.Equal(a, want) {
			t.Errorf("duplicate_postings on Trino but for the locations:\n%q\nwant %q", a, want)
		}
	}
	if !ran {
		t.Errorf("duplicate_postings not run on Trino: %+v", tri.Checks)
	}
	// The locations: the source's table once per copy; the sink's data
	// files, in text order (the third copy of C in another commit's file).
	rows := readCSV(t, filepath.Join(triOut, "exceptions", "duplicate_postings.csv"))
	col := slices.Index(rows[0], "locations")
	for _, r := range rows[1:] {
		locs := strings.Split(r[col], ";")
		if len(locs) != map[bool]int{true: 3, false: 2}[r[0] == "C"] || !slices.IsSorted(locs) {
			t.Errorf("locations %q of %q: want one per copy, in text order", r[col], r)
		}
		if r[4] == "source" && locs[0] != "postgresql."+pgSchema+".postings" || r[4] == "sink" && !strings.HasSuffix(locs[0], ".parquet") {
			t.Errorf("locations %q of %q: want the table's name (source) or data files (sink)", r[col], r)
		}
		if r[0] == "C" && locs[0] == locs[2] {
			t.Errorf("locations %q of %q: want the data files of two commits", r[col], r)
		}
	}
}
