// Package kafkatest runs a Kafka cluster in process (franz-go's kfake, which
// speaks the real Kafka protocol, transactions and read_committed fetches
// included) and writes topics to it the way the incidents of seed 001 and
// seed 003 do: a transactional producer that commits, aborts after a
// failover and commits again, and a plain producer retrying without
// idempotence. The tests, the Kafka sample's broker (samples/kafka/broker)
// and the benchmark use it; the reconcile binary does not.
package kafkatest

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Cluster is an in-process Kafka cluster of one broker listening on
// 127.0.0.1.
type Cluster struct {
	*kfake.Cluster
	// Addr is the broker's host:port.
	Addr string
}

// Start starts a cluster on port (0: any free port) with the topics given
// (name → partitions). Extra kfake options (SASL, TLS) may follow.
func Start(port int, topics map[string]int32, opts ...kfake.Opt) (*Cluster, error) {
	all := append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port)}, opts...)
	c, err := kfake.NewCluster(all...)
	if err != nil {
		return nil, err
	}
	for t, n := range topics {
		if err := c.CreateTopic(t, n, nil); err != nil {
			c.Close()
			return nil, fmt.Errorf("create topic %s: %w", t, err)
		}
	}
	return &Cluster{Cluster: c, Addr: c.ListenAddrs()[0]}, nil
}

// URI is the kafka:// location of topic on the cluster.
func (c *Cluster) URI(topic string) string { return "kafka://" + c.Addr + "/" + topic }

// Producer returns a client producing to the cluster, partitions chosen by
// each record's Partition field. Further options follow the defaults.
func (c *Cluster) Producer(opts ...kgo.Opt) (*kgo.Client, error) {
	all := append([]kgo.Opt{kgo.SeedBrokers(c.Addr), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)
	return kgo.NewClient(all...)
}

// Transactional returns a transactional producer (kgo.TransactionalID), as
// Flink's exactly-once Kafka sink is.
func (c *Cluster) Transactional(id string, opts ...kgo.Opt) (*kgo.Client, error) {
	return c.Producer(append([]kgo.Opt{kgo.TransactionalID(id)}, opts...)...)
}

// Txn writes recs in one transaction and commits it, or aborts it once
// every record is written (a failover after the sink's pre-commit).
func Txn(ctx context.Context, cl *kgo.Client, commit bool, recs ...*kgo.Record) error {
	if err := cl.BeginTransaction(); err != nil {
		return err
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return err
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	end := kgo.TryAbort
	if commit {
		end = kgo.TryCommit
	}
	return cl.EndTransaction(ctx, end)
}

// Plain writes recs outside any transaction, in order, waiting for each.
func Plain(ctx context.Context, cl *kgo.Client, recs ...*kgo.Record) error {
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

// Record builds a record of topic and partition whose value is a JSON
// object of the fields given as name, value pairs, in that order; a value
// that is a json.Number or RawJSON is written as it is (12.50 stays 12.50),
// a string is quoted. The timestamp is fixed (2026-11-26T12:00:00Z plus the
// first field's position in a run), so topics are the same from run to run.
func Record(topic string, partition int32, fields ...any) *kgo.Record {
	return &kgo.Record{Topic: topic, Partition: partition, Value: Object(fields...), Timestamp: Epoch}
}

// Epoch is the timestamp Record gives every record.
var Epoch = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// RawJSON is a value written into an Object as it is.
type RawJSON string

// Object renders name, value pairs as one JSON object, in order.
func Object(fields ...any) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fmt.Sprint(fields[i]))
		b.Write(k)
		b.WriteByte(':')
		switch v := fields[i+1].(type) {
		case json.Number:
			b.WriteString(string(v))
		case RawJSON:
			b.WriteString(string(v))
		default:
			j, _ := json.Marshal(v)
			b.Write(j)
		}
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// LoadCommitAbortCommit writes the transactional incident of seed 001 to
// partition 0 of topic: T1 commits ids 1 and 2, T2 writes ids 3 and 4 and
// is aborted (the job failed over before the checkpoint completed), T3
// writes ids 3 and 4 again and commits. Each record is {"id": …,
// "amount": …, "checkpoint_id": …}. Read committed, the topic holds ids
// 1–4 once each; read uncommitted, 3 and 4 twice.
func LoadCommitAbortCommit(ctx context.Context, c *Cluster, topic string) error {
	cl, err := c.Transactional("reconcile-test-" + topic)
	if err != nil {
		return err
	}
	defer cl.Close()
	rec := func(id, amount string, cp int) *kgo.Record {
		return Record(topic, 0, "id", id, "amount", json.Number(amount), "checkpoint_id", cp)
	}
	if err := Txn(ctx, cl, true, rec("1", "10.00", 1), rec("2", "20.50", 1)); err != nil {
		return fmt.Errorf("T1: %w", err)
	}
	if err := Txn(ctx, cl, false, rec("3", "30.00", 2), rec("4", "40.25", 2)); err != nil {
		return fmt.Errorf("T2: %w", err)
	}
	if err := Txn(ctx, cl, true, rec("3", "30.00", 3), rec("4", "40.25", 3)); err != nil {
		return fmt.Errorf("T3: %w", err)
	}
	return nil
}

// LoadRetryDuplicates writes the non-idempotent retry of seed 003 to
// partition 0 of topic with a plain producer: ids 1, 2, 3, then 2 and 3
// again (a retried batch whose first write had succeeded).
func LoadRetryDuplicates(ctx context.Context, c *Cluster, topic string) error {
	cl, err := c.Producer(kgo.DisableIdempotentWrite())
	if err != nil {
		return err
	}
	defer cl.Close()
	var recs []*kgo.Record
	for _, id := range []string{"1", "2", "3", "2", "3"} {
		recs = append(recs, Record(topic, 0, "id", id, "amount", json.Number(id+"0.00")))
	}
	return Plain(ctx, cl, recs...)
}

// LedgerTopic is the Kafka sample's sink topic (samples/kafka).
const LedgerTopic = "ledger-postings"

// Ledger sample figures, for the tests that check its verdicts.
const (
	LedgerPartitions  = 3
	LedgerCheckpoint  = 100 // entries per checkpoint (one transaction each)
	LedgerAbortedFrom = 301 // the aborted transaction (checkpoint 4) wrote entries 301…370
	LedgerAbortedTo   = 370
)

// LoadLedgerSample writes the Kafka sample's sink (seed 001: an exactly-once
// job whose Kafka sink commits one transaction per checkpoint) to topic,
// from the source ledger CSV at sourceCSV (entry_id,account,amount): each
// checkpoint's 100 entries are posted in one transaction, partitioned by
// account, keyed by entry_id, the value {"entry_id", "account", "amount",
// "checkpoint_id"} with the amount as a JSON number written exactly as the
// CSV has it. During checkpoint 4 the job fails over after posting entries
// 301–370: that transaction is aborted, the job restores checkpoint 3 and
// posts 301–400 again under checkpoint 5 (and so on: 401–500 under 6,
// 501–600 under 7). Read committed, the topic holds every entry once; read
// uncommitted, entries 301–370 twice.
func LoadLedgerSample(ctx context.Context, c *Cluster, topic, sourceCSV string) error {
	entries, err := readLedger(sourceCSV)
	if err != nil {
		return err
	}
	cl, err := c.Transactional("ledger-sink-" + topic)
	if err != nil {
		return err
	}
	defer cl.Close()
	post := func(from, to, checkpoint int, commit bool) error {
		var recs []*kgo.Record
		for _, e := range entries[from-1 : to] {
			acct, _ := strconv.Atoi(strings.TrimPrefix(e[1], "ACC-"))
			r := Record(topic, int32(acct%LedgerPartitions),
				"entry_id", e[0], "account", e[1], "amount", json.Number(e[2]), "checkpoint_id", checkpoint)
			r.Key = []byte(e[0])
			r.Timestamp = Epoch.Add(time.Duration(checkpoint) * time.Minute)
			recs = append(recs, r)
		}
		if err := Txn(ctx, cl, commit, recs...); err != nil {
			return fmt.Errorf("checkpoint %d: %w", checkpoint, err)
		}
		return nil
	}
	for cp := 1; cp <= 3; cp++ {
		if err := post((cp-1)*LedgerCheckpoint+1, cp*LedgerCheckpoint, cp, true); err != nil {
			return err
		}
	}
	if err := post(LedgerAbortedFrom, LedgerAbortedTo, 4, false); err != nil {
		return err
	}
	for cp := 5; (cp-2)*LedgerCheckpoint <= len(entries); cp++ {
		if err := post((cp-2)*LedgerCheckpoint+1, min((cp-1)*LedgerCheckpoint, len(entries)), cp, true); err != nil {
			return err
		}
	}
	return nil
}

func readLedger(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "entry_id,account,amount" {
		return nil, fmt.Errorf("%s: want the header entry_id,account,amount and entries", path)
	}
	return rows[1:], nil
}
