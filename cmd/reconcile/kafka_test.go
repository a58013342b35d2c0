package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
)

// The Kafka end-to-end runs that are "run this spec, expect these
// exceptions" are case folders of testdata/endtoend (kafka-*, kcat-*, see
// TestEndToEnd). What stays here is what a case folder cannot express: a
// topic written to while the run reads it (a hook on the broker's fetch),
// and SASL secrets that must appear in no output at all (the want/ files
// compare only some outputs) on a cluster with SASL on.

func startKafka(t *testing.T, topics map[string]int32, opts ...kfake.Opt) *kafkatest.Cluster {
	t.Helper()
	c, err := kafkatest.Start(0, topics, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// kafkaRun writes spec into a fresh folder (with the files given), runs
// `reconcile run --config spec.yaml --format json` there and returns the
// exit code, stdout, stderr and the evidence folder.
func kafkaRun(t *testing.T, spec string, files map[string]string) (exitCode, string, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	writeFile(t, filepath.Join(dir, "spec.yaml"), spec)
	out := filepath.Join(dir, "evidence")
	code, stdout, stderr := runCLI(t, "run", "--config", filepath.Join(dir, "spec.yaml"), "--out", out, "--format", "json")
	return code, stdout, stderr, out
}

func readEvidenceFile(t *testing.T, out, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// kafkaSummary is what the Kafka tests read of summary.json.
type kafkaSummary struct {
	pgSummary
	Notes []string `json:"notes"`
}

func readKafkaSummary(t *testing.T, out string) *kafkaSummary {
	t.Helper()
	var s kafkaSummary
	if err := json.Unmarshal([]byte(readEvidenceFile(t, out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func idSpec(sink string) string {
	return "source: source.csv\nsink:\n" + sink + "id: [id]\nmeasures: [amount]\n"
}

// A topic written during the read: the run lists the end offsets, and a
// bounded writer then adds 500 records before the first fetch is answered
// (kfake holds the fetch until the writer is done). The run reads exactly
// to the listed end offsets, and a second run given those offsets as start
// and end reads the same records once the writer has written more.
func TestKafkaWrittenDuringRead(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"busy": 2})
	cl, err := c.Producer()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	write := func(from, to int) {
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, kafkatest.Record("busy", int32(i%2), "id", fmt.Sprintf("E%04d", i), "amount", json.Number("1.00")))
		}
		if err := kafkatest.Plain(ctx, cl, recs...); err != nil {
			t.Error(err)
		}
	}
	write(0, 300)
	var source strings.Builder
	source.WriteString("id,amount\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&source, "E%04d,1.00\n", i)
	}
	written := make(chan struct{})
	var once sync.Once
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		once.Do(func() {
			go func() { write(300, 800); close(written) }()
			c.SleepControl(func() { <-written })
		})
		return nil, nil, false
	})
	code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: "+c.URI("busy")+"\n"), map[string]string{"source.csv": source.String()})
	<-written
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (the 500 records written after the listing are not read)\n%s%s", code, stdout, stderr)
	}
	s := readKafkaSummary(t, out)
	if s.Inputs[1].Rows != 300 {
		t.Errorf("sink rows %d, want 300", s.Inputs[1].Rows)
	}
	var ends []string
	for _, p := range s.Inputs[1].Details["partitions"].([]any) {
		p := p.(map[string]any)
		ends = append(ends, fmt.Sprintf("%v:%v", p["partition"], p["end_offset"]))
	}
	if strings.Join(ends, ",") != "0:150,1:150" {
		t.Errorf("end offsets %v, want 0:150,1:150", ends)
	}
	// Repeated with the listed offsets, after the writer: the same records.
	code, stdout, stderr, out2 := kafkaRun(t, idSpec("  uri: "+c.URI("busy")+"\n  start: \"0:0,1:0\"\n  end: \""+strings.Join(ends, ",")+"\"\n"), map[string]string{"source.csv": source.String()})
	if code != exitOK || readKafkaSummary(t, out2).Inputs[1].Rows != 300 {
		t.Fatalf("repeat: exit %d, rows %d\n%s%s", code, readKafkaSummary(t, out2).Inputs[1].Rows, stdout, stderr)
	}
	// Read to the end now: the 500 later records are unexpected ids.
	code, _, _, out3 := kafkaRun(t, idSpec("  uri: "+c.URI("busy")+"\n"), map[string]string{"source.csv": source.String()})
	if s3 := readKafkaSummary(t, out3); code != exitFailed || s3.Inputs[1].Rows != 800 {
		t.Errorf("read to the new end: exit %d, rows %d, want 1 and 800", code, s3.Inputs[1].Rows)
	}
}

// SASL secrets appear nowhere: not in stdout, stderr or any evidence file,
// whether the password is in the URI, in the spec or in an environment
// variable, and not when the password is wrong.
func TestKafkaSASLPasswordNeverLeaks(t *testing.T) {
	const pw = "kafka-leak-canary-42"
	c := startKafka(t, map[string]int32{"secure": 1}, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", "auditor", pw))
	cl, err := c.Producer(kgo.SASL(scramAuth("auditor", pw)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := kafkatest.Plain(context.Background(), cl, kafkatest.Record("secure", 0, "id", "1", "amount", json.Number("10.00"))); err != nil {
		t.Fatal(err)
	}
	source := map[string]string{"source.csv": "id,amount\n1,10.00\n"}
	noLeak := func(t *testing.T, stdout, stderr, out string) {
		t.Helper()
		for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if strings.Contains(s, pw) {
				t.Errorf("%s holds the password:\n%s", what, s)
			}
		}
		filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, _ := os.ReadFile(path); strings.Contains(string(data), pw) {
					t.Errorf("%s holds the password", path)
				}
			}
			return nil
		})
	}
	addr := strings.TrimPrefix(c.URI("secure"), "kafka://")
	t.Run("uri", func(t *testing.T) {
		code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: kafka://auditor:"+pw+"@"+addr+"\n  sasl_mechanism: SCRAM-SHA-256\n"), source)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		noLeak(t, stdout, stderr, out)
		if s := readKafkaSummary(t, out); !strings.Contains(s.Inputs[1].Location, "auditor:xxxxx@") || s.Inputs[1].Details["sasl_user"] != "auditor" {
			t.Errorf("location %q, details %v", s.Inputs[1].Location, s.Inputs[1].Details)
		}
	})
	t.Run("option", func(t *testing.T) {
		code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: kafka://"+addr+"\n  sasl_mechanism: SCRAM-SHA-256\n  sasl_user: auditor\n  sasl_password: "+pw+"\n"), source)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		noLeak(t, stdout, stderr, out)
	})
	t.Run("env", func(t *testing.T) {
		t.Setenv("RECONCILE_TEST_KAFKA_PW", pw)
		code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: kafka://auditor@"+addr+"\n  sasl_mechanism: SCRAM-SHA-256\n  sasl_password_env: RECONCILE_TEST_KAFKA_PW\n"), source)
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		noLeak(t, stdout, stderr, out)
	})
	t.Run("wrong password", func(t *testing.T) {
		code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: kafka://auditor:"+pw+"-wrong@"+addr+"\n  sasl_mechanism: SCRAM-SHA-256\n"), source)
		if code != exitRuntime {
			t.Errorf("exit %d, want 3\n%s%s", code, stdout, stderr)
		}
		noLeak(t, stdout, stderr, out)
	})
}

func scramAuth(user, pass string) sasl.Mechanism {
	return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
}

// The cases kafka-ledger-sample-read-* run the Kafka sample's specs: each
// case's spec.yaml is samples/kafka/<spec> with only the broker's address
// and the source's path changed, so the README's verdicts for the sample
// are the cases' want/ folders.
func TestKafkaSampleSpecsAreCases(t *testing.T) {
	for _, name := range []string{"read-committed", "read-uncommitted"} {
		sample, err := os.ReadFile(filepath.Join("..", "..", "samples", "kafka", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := os.ReadFile(filepath.Join("testdata", "endtoend", "kafka-ledger-sample-"+name, "spec.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(string(sample), "127.0.0.1:19092", "${KAFKA_BROKERS}", 1)
		want = strings.Replace(want, "\nsource: source.csv\n", "\nsource: ${REPO}/samples/kafka/source.csv\n", 1)
		if string(c) != want {
			t.Errorf("kafka-ledger-sample-%s/spec.yaml is not samples/kafka/%s.yaml with the broker and source changed (-want +got):\n%s", name, name, cmp.Diff(want, string(c)))
		}
	}
}
