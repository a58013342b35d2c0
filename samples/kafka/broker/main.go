// Command broker runs the Kafka sample's cluster in process — franz-go's
// kfake, a real Kafka protocol server with transactions and read_committed
// fetches — and writes the sample topics to it, then serves them until
// interrupted (Ctrl-C):
//
//	go run -tags duckdb_arrow ./samples/kafka/broker            # 127.0.0.1:19092
//	go run -tags duckdb_arrow ./samples/kafka/broker -port 29092
//
// Topics: ledger-postings (the sample: seven transactions of an exactly-once
// job, the fourth aborted after a failover; see samples/kafka/README in the
// repository's README), commit-abort-commit and retry-duplicates (the two
// incidents the tests use, small enough to dump with kcat). Nothing is kept
// on disk: every start writes the same topics at the same offsets.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
)

func main() {
	port := flag.Int("port", 19092, "port to listen on (127.0.0.1)")
	source := flag.String("source", "samples/kafka/source.csv", "the sample's source ledger, from which the sink topic is written")
	flag.Parse()
	if err := run(*port, *source); err != nil {
		fmt.Fprintln(os.Stderr, "broker:", err)
		os.Exit(1)
	}
}

func run(port int, source string) error {
	ctx := context.Background()
	c, err := kafkatest.Start(port, map[string]int32{
		kafkatest.LedgerTopic: kafkatest.LedgerPartitions,
		"commit-abort-commit": 1,
		"retry-duplicates":    1,
	})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := kafkatest.LoadLedgerSample(ctx, c, kafkatest.LedgerTopic, source); err != nil {
		return err
	}
	if err := kafkatest.LoadCommitAbortCommit(ctx, c, "commit-abort-commit"); err != nil {
		return err
	}
	if err := kafkatest.LoadRetryDuplicates(ctx, c, "retry-duplicates"); err != nil {
		return err
	}
	fmt.Printf("Kafka sample broker at %s (in process, franz-go kfake); Ctrl-C stops it\n", c.Addr)
	fmt.Printf("  %s  3 partitions: checkpoints 1-3 and 5-7 committed, checkpoint 4 (entries %d-%d) aborted after a failover\n",
		c.URI(kafkatest.LedgerTopic), kafkatest.LedgerAbortedFrom, kafkatest.LedgerAbortedTo)
	fmt.Printf("  %s  T1 committed, T2 aborted, T3 committed (ids 3 and 4 again)\n", c.URI("commit-abort-commit"))
	fmt.Printf("  %s  ids 2 and 3 written twice by a retry without idempotence\n", c.URI("retry-duplicates"))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return nil
}
