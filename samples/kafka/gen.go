//go:build ignore

// gen writes the Kafka sample's source: 600 ledger entries of six accounts,
// the records an exactly-once Flink job (seed 001) reads and posts to the
// topic ledger-postings through Kafka transactions, one per checkpoint. The
// topic itself is written by the sample broker (samples/kafka/broker) from
// this file. Deterministic: `cd samples/kafka && go run gen.go` does not
// change it.
package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

func main() {
	r := rand.New(rand.NewPCG(2026, 1))
	samplegen.WriteCSV("source.csv", []string{"entry_id", "account", "amount"}, func(emit func(...string)) {
		for i := 1; i <= 600; i++ {
			cents := r.IntN(500000) + 1
			emit(fmt.Sprintf("E%04d", i), fmt.Sprintf("ACC-%02d", 1+r.IntN(6)), fmt.Sprintf("%d.%02d", cents/100, cents%100))
		}
	})
}
