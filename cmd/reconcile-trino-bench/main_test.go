package main

import (
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// TestStatementsParse: the benchmark's statements parse and render, and
// the hand-written checks read the pinned tables they are given.
func TestStatementsParse(t *testing.T) {
	for _, dir := range []string{"bench/trino_generate", "bench/trino_records"} {
		set := queries.MustSet(dir, sqlfile.Funcs())
		if err := set.ParseAll(); err != nil {
			t.Fatal(err)
		}
		for _, id := range set.IDs() {
			q, err := set.SQL(id, map[string]any{"Schema": "s", "Table": "t", "Rows": 10000, "Source": "src FOR VERSION AS OF 1", "Sink": "snk FOR VERSION AS OF 2"})
			if err != nil {
				t.Errorf("%s/%s: %v", dir, id, err)
			}
			if dir == "bench/trino_records" && !strings.Contains(q, "FOR VERSION AS OF") {
				t.Errorf("%s/%s reads no pinned table:\n%s", dir, id, q)
			}
		}
	}
}
