//go:build ignore

// gen writes the Iceberg sample: an hourly job posting ledger entries into
// an Apache Iceberg table through Flink's Iceberg sink, one commit per
// checkpoint, whose restore committed checkpoint 7's files twice. Job
// 3b1f…a001 committed checkpoints 1..7 (12 entries an hour, one hour per
// checkpoint) and failed; it was restored from a savepoint under a new job
// id, 9c2e…b002, whose committer did not find checkpoint 7 committed under
// its own job id and committed the restored checkpoint's data files again
// (same files, summary flink.job-id of the new job, checkpoint 7), then
// went on with checkpoints 8..10.
//
// source.csv (120 entries) is deterministic: run `go run gen.go` and it
// does not change. The table (warehouse/ledger/postings, not kept in git:
// an Iceberg table names its files by absolute path) is written anew each
// time, with new snapshot ids and file names; make samples runs gen.go
// before the sample.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
)

const (
	hours    = 10
	perHour  = 12
	accounts = 4
	twice    = 7 // the checkpoint committed twice
	jobA     = "3b1f6c0e9d2a4e7f8a5b6c7d8e9fa001"
	jobB     = "9c2e7d1f0a3b4c5d6e7f8091a2b3b002"
	operator = "e3dfc0d8582dd38f0b1e7c2a9d4f5a61"
)

type entry struct{ id, account, amount, hour string }

func entries() [][]entry {
	var out [][]entry
	n := 0
	for h := range hours {
		var hour []entry
		for range perHour {
			n++
			cents := (n*7919)%90000 + 1000
			hour = append(hour, entry{
				id:      fmt.Sprintf("E%05d", n),
				account: fmt.Sprintf("ACC-%d", n%accounts+1),
				amount:  fmt.Sprintf("%d.%02d", cents/100, cents%100),
				hour:    fmt.Sprintf("2026-11-27T%02d:00:00Z", h),
			})
		}
		out = append(out, hour)
	}
	return out
}

func main() {
	all := entries()
	samplegen.WriteCSV("source.csv", []string{"entry_id", "account", "amount", "hour"}, func(emit func(...string)) {
		for _, hour := range all {
			for _, e := range hour {
				emit(e.id, e.account, e.amount, e.hour)
			}
		}
	})
	ctx := context.Background()
	wh, err := filepath.Abs("warehouse")
	if err != nil {
		panic(err)
	}
	if err := os.RemoveAll(wh); err != nil {
		panic(err)
	}
	schema := iceberg.NewSchemaWithIdentifiers(0, []int{1},
		iceberg.NestedField{ID: 1, Name: "entry_id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "account", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)},
		iceberg.NestedField{ID: 4, Name: "hour", Type: iceberg.PrimitiveTypes.TimestampTz},
	)
	tb, err := icebergtest.NewHadoop(ctx, wh, "ledger", "postings", schema, 2)
	if err != nil {
		panic(err)
	}
	sc, err := tb.ArrowSchema()
	if err != nil {
		panic(err)
	}
	var restored []iceberg.DataFile
	for h, hour := range all {
		ckpt := int64(h + 1)
		job := jobA
		if ckpt > twice {
			job = jobB
		}
		var rows []map[string]string
		for _, e := range hour {
			rows = append(rows, map[string]string{"entry_id": e.id, "account": e.account, "amount": e.amount, "hour": e.hour})
		}
		b, _ := json.Marshal(rows)
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(string(b)))
		if err != nil {
			panic(err)
		}
		_, files, err := tb.Append(ctx, icebergtest.Flink(job, operator, ckpt), rec)
		rec.Release()
		if err != nil {
			panic(err)
		}
		if ckpt == twice {
			restored = files
			// The restore: checkpoint 7's files committed again under the
			// new job id.
			if _, err := tb.AddFiles(ctx, icebergtest.Flink(jobB, operator, twice), restored...); err != nil {
				panic(err)
			}
		}
	}
	fmt.Printf("wrote source.csv and the table %s (%d snapshots)\n", filepath.Join("warehouse", "ledger", "postings"), len(tb.T.Metadata().Snapshots()))
}
