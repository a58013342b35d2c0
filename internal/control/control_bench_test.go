package control

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// BenchmarkRunCSV measures one whole control over generated CSV files: a
// source of n ledger entries and a sink holding them with 1% dropped, 1%
// replayed under a later checkpoint and 0.1% altered, every check enabled.
// It reports input rows (source + sink) per second.
//
//	go test -tags duckdb_arrow -run '^$' -bench RunCSV -benchtime 1x ./internal/control/
func BenchmarkRunCSV(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			src, sink := filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv")
			generate(b, n, src, sink)
			b.ResetTimer()
			var rows int64
			for i := 0; i < b.N; i++ {
				s := &spec.Spec{
					Source: spec.Input{URI: src}, Sink: spec.Input{URI: sink},
					ID: []string{"entry_id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
					Checkpoint: "checkpoint_id", LogicalKey: []string{"entry_id"},
					Out: filepath.Join(dir, fmt.Sprintf("ev%d", i)), Dir: dir,
				}
				res, err := Run(context.Background(), s, Options{Formats: []string{"json", "md"}})
				if err != nil {
					b.Fatal(err)
				}
				rows += res.Totals.SourceRows + res.Totals.SinkRows
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func generate(b *testing.B, n int, src, sink string) {
	b.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		fmt.Sprintf(`CREATE TABLE e AS SELECT i, printf('E%%09d', i) AS entry_id, 'ACC-' || (i %% 50) AS account,
		  printf('%%d.%%02d', (hash(i) %% 400000)::BIGINT // 100 - 2000, (hash(i) %% 400000)::BIGINT %% 100) AS amount,
		  i // 10000 AS checkpoint_id
		  FROM range(%d) t(i)`, n),
		fmt.Sprintf(`COPY (SELECT entry_id, account, amount FROM e ORDER BY i) TO %s (HEADER)`, duck.Literal(src)),
		fmt.Sprintf(`COPY (
		   SELECT entry_id, account, CASE WHEN i %% 1000 = 7 THEN amount || '1' ELSE amount END AS amount, checkpoint_id, i FROM e WHERE i %% 100 <> 3
		   UNION ALL
		   SELECT entry_id, account, amount, checkpoint_id + 1, i FROM e WHERE i %% 100 = 5
		   ORDER BY i) TO %s (HEADER)`, duck.Literal(sink)),
	}
	for _, q := range stmts {
		if err := db.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
