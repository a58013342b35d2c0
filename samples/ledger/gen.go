//go:build ignore

// gen writes the ledger sample: 3,000 source ledger entries and two sinks —
// one committed by an at-least-once JDBC-style sink across a TaskManager
// crash (seed 003: restore from checkpoint 7, records after its offset are
// replayed and inserted again), one committed exactly once. Each entry has
// a status (posted, or reversed for a reversal) that the job looks up
// asynchronously; after the restore its lookup cache was cold, the first
// lookups timed out and the job's fallback wrote the replayed copies of
// entries 1,401..1,410 with an empty status. Deterministic: run
// `go generate ./samples/...` and the files do not change.
package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

//go:generate go run gen.go

const (
	entries        = 3000
	checkpointSize = 200 // records between two checkpoints
	restoredFrom   = 7   // last completed checkpoint before the crash
	crashAfter     = 1530
	// coldLookups is how many records the restored job wrote with an empty
	// status, its status lookups timing out while the cache warmed up.
	coldLookups = 10
)

type entry struct {
	id, account, amount, status, eventTime string
}

func main() {
	r := rand.New(rand.NewPCG(2026, 11))
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var es []entry
	for i := 1; i <= entries; i++ {
		cents := r.IntN(250000) + 1
		if r.IntN(20) == 0 {
			cents = -cents // a reversal
		}
		sign, status := "", "posted"
		if cents < 0 {
			sign, cents, status = "-", -cents, "reversed"
		}
		es = append(es, entry{
			id:        fmt.Sprintf("E%07d", i),
			account:   fmt.Sprintf("ACC-%02d", r.IntN(12)+1),
			amount:    fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100),
			status:    status,
			eventTime: start.Add(time.Duration(i) * 28 * time.Second).Format(time.RFC3339),
		})
	}
	samplegen.WriteCSV("source.csv", []string{"entry_id", "account", "amount", "status", "event_time"}, func(emit func(...string)) {
		for _, e := range es {
			emit(e.id, e.account, e.amount, e.status, e.eventTime)
		}
	})
	header := []string{"entry_id", "account", "amount", "status", "checkpoint_id", "posted_at"}
	// epoch is the checkpoint whose barrier follows the record: the
	// checkpoint a transactional sink would have committed it with.
	epoch := func(i int) int { return (i-1)/checkpointSize + 1 }
	posted := func(i int, delay time.Duration) string {
		return start.Add(time.Duration(i)*28*time.Second + 3*time.Second + delay).Format(time.RFC3339)
	}
	samplegen.WriteCSV("sink-exactly-once.csv", header, func(emit func(...string)) {
		for i, e := range es {
			emit(e.id, e.account, e.amount, e.status, fmt.Sprint(epoch(i+1)), posted(i+1, 0))
		}
	})
	// At-least-once: records up to the crash are inserted under their epoch;
	// checkpoint 8 never completes, the job restores from 7 and replays every
	// record after its offset (1,401..) under the next checkpoint ids
	// (Flink does not reuse id 8), inserting 1,401..1,530 a second time;
	// the first coldLookups of them with an empty status.
	replayed := restoredFrom * checkpointSize
	samplegen.WriteCSV("sink-at-least-once.csv", header, func(emit func(...string)) {
		for i := 1; i <= crashAfter; i++ {
			e := es[i-1]
			emit(e.id, e.account, e.amount, e.status, fmt.Sprint(epoch(i)), posted(i, 0))
		}
		for i := replayed + 1; i <= entries; i++ {
			e := es[i-1]
			status := e.status
			if i <= replayed+coldLookups {
				status = ""
			}
			emit(e.id, e.account, e.amount, status, fmt.Sprint(epoch(i)+1), posted(crashAfter, time.Duration(i-replayed)*time.Second+90*time.Second))
		}
	})
}
