//go:build ignore

// gen writes the nightly sample: three nights of the ledger (seed 003's
// job), each night's extract in a folder named for its day
// (2026-11-28/, 2026-11-29/, 2026-11-30/) holding the period to date:
//
//	source.csv     the source ledger entries, 1,000 a day
//	ledger.csv     the ledger table, written by an at-least-once JDBC sink
//	warehouse.csv  the warehouse copy, written by a transactional sink
//
// Night 1 is clean. On day 2 a TaskManager is killed after entry 1,530,
// the job restores checkpoint 7 (entry 1,400) and replays 1,401..1,530
// through the plain-INSERT sink: 130 entries posted twice. On day 3 the
// ledger team deletes 100 of the extra copies (1,401..1,500; 1,501..1,530
// stay doubled), and a second crash after entry 2,620, restored from
// checkpoint 13 (entry 2,600), posts 2,601..2,620 twice: 20 new. The
// warehouse is right every night. Deterministic: `go run gen.go` gives
// the same files.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

//go:generate go run gen.go

const (
	perDay         = 1000
	checkpointSize = 200 // records between two checkpoints
)

var days = []string{"2026-11-28", "2026-11-29", "2026-11-30"}

type entry struct {
	id, account, amount, eventTime string
}

// replay is a crash of the job: entries after restored*checkpointSize up
// to crashAfter are written a second time, under the next checkpoint id.
type replay struct{ restored, crashAfter int }

func main() {
	r := rand.New(rand.NewPCG(2026, 28))
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	var es []entry
	for i := 1; i <= perDay*len(days); i++ {
		cents := r.IntN(250000) + 1
		sign := ""
		if r.IntN(20) == 0 {
			sign = "-" // a reversal
		}
		day := (i - 1) / perDay
		at := start.Add(time.Duration(day)*24*time.Hour + time.Duration((i-1)%perDay)*28*time.Second)
		es = append(es, entry{
			id:        fmt.Sprintf("E%07d", i),
			account:   fmt.Sprintf("ACC-%02d", r.IntN(12)+1),
			amount:    fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100),
			eventTime: at.Format(time.RFC3339),
		})
	}
	// The crashes of days 2 and 3, and the repair on day 3 of entries
	// 1,401..1,500 (their second copies deleted).
	crashes := map[int]replay{1: {restored: 7, crashAfter: 1530}, 2: {restored: 13, crashAfter: 2620}}
	repaired := func(night, i int) bool { return night >= 2 && i >= 1401 && i <= 1500 }
	epoch := func(i int) int { return (i-1)/checkpointSize + 1 }
	for night, day := range days {
		if err := os.MkdirAll(day, 0o755); err != nil {
			panic(err)
		}
		upTo := perDay * (night + 1)
		samplegen.WriteCSV(day+"/source.csv", []string{"entry_id", "account", "amount", "event_time"}, func(emit func(...string)) {
			for _, e := range es[:upTo] {
				emit(e.id, e.account, e.amount, e.eventTime)
			}
		})
		header := []string{"entry_id", "account", "amount", "checkpoint_id"}
		samplegen.WriteCSV(day+"/warehouse.csv", header, func(emit func(...string)) {
			for i, e := range es[:upTo] {
				emit(e.id, e.account, e.amount, fmt.Sprint(epoch(i+1)))
			}
		})
		samplegen.WriteCSV(day+"/ledger.csv", header, func(emit func(...string)) {
			for i, e := range es[:upTo] {
				emit(e.id, e.account, e.amount, fmt.Sprint(epoch(i+1)))
			}
			// The replayed copies, in the order the crashes happened, as
			// far as this night's extract reaches.
			for d := 1; d <= night; d++ {
				c := crashes[d]
				for i := c.restored*checkpointSize + 1; i <= c.crashAfter; i++ {
					if !repaired(night, i) {
						e := es[i-1]
						emit(e.id, e.account, e.amount, fmt.Sprint(epoch(i)+1))
					}
				}
			}
		})
	}
}
