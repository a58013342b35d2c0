//go:build ignore

// gen writes the Parquet files of the end-to-end cases parquet-decimals-differ
// and parquet-id-types-differ with DuckDB (deterministic: run it again and the
// files do not change):
//
//	go run -tags duckdb_arrow gen.go
package main

import (
	"context"
	"log"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

func main() {
	ctx := context.Background()
	db, err := duck.Open(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		// amount DECIMAL(18,2) in the first file, DECIMAL(20,4) in the second.
		`COPY (SELECT * FROM (VALUES (1::BIGINT, 10.00::DECIMAL(18,2)), (2, 20.00)) v(entry_id, amount)) TO 'round/a.parquet' (FORMAT parquet)`,
		`COPY (SELECT * FROM (VALUES (3::BIGINT, 1.2345::DECIMAL(20,4)), (4, 99.9951)) v(entry_id, amount)) TO 'round/b.parquet' (FORMAT parquet)`,
		// entry_id BIGINT in the first file, VARCHAR in the second.
		`COPY (SELECT * FROM (VALUES (1::BIGINT, 10.00::DECIMAL(18,2)), (2, 20.00)) v(entry_id, amount)) TO '../parquet-id-types-differ/ids/a.parquet' (FORMAT parquet)`,
		`COPY (SELECT * FROM (VALUES ('007', 70.00::DECIMAL(18,2))) v(entry_id, amount)) TO '../parquet-id-types-differ/ids/b.parquet' (FORMAT parquet)`,
	} {
		if err := db.Exec(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
}
