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

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
)

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

func (s *kafkaSummary) hasNote(sub string) bool {
	for _, n := range s.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

const ids14 = "id,amount\n1,10.00\n2,20.50\n3,30.00\n4,40.25\n"

func idSpec(sink string) string {
	return "source: source.csv\nsink:\n" + sink + "id: [id]\nmeasures: [amount]\n"
}

// The transactional incident end to end: T1 commits ids 1 and 2, T2 (3, 4)
// is aborted, T3 commits 3 and 4 again. read_committed reconciles clean
// against ids 1–4 and reports no offset gap as missing; read_uncommitted
// finds ids 3 and 4 twice, each with both offsets, and notes the isolation
// level. The kcat dumps of the same topic (made by real kcat) give the same
// exceptions, byte for byte.
func TestKafkaCommitAbortCommitRun(t *testing.T) {
	c := startKafka(t, map[string]int32{"commit-abort-commit": 1})
	if err := kafkatest.LoadCommitAbortCommit(context.Background(), c, "commit-abort-commit"); err != nil {
		t.Fatal(err)
	}
	kcatDir, err := filepath.Abs(filepath.Join("..", "..", "sources", "testdata", "kafka"))
	if err != nil {
		t.Fatal(err)
	}
	for _, iso := range []string{"read_committed", "read_uncommitted"} {
		t.Run(iso, func(t *testing.T) {
			live := fmt.Sprintf("  uri: %s\n  isolation: %s\n", c.URI("commit-abort-commit"), iso)
			code, stdout, stderr, out := kafkaRun(t, idSpec(live), map[string]string{"source.csv": ids14})
			s := readKafkaSummary(t, out)
			dups := readEvidenceFile(t, out, "exceptions/duplicate_ids.csv")
			missing := readEvidenceFile(t, out, "exceptions/missing_ids.csv")
			if missing != "id,source_rows,source_amount,source_location\n" {
				t.Errorf("missing_ids:\n%s", missing)
			}
			switch iso {
			case "read_committed":
				if code != exitOK {
					t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
				}
				if s.hasNote("aborted") {
					t.Errorf("notes %q: no isolation warning under read_committed", s.Notes)
				}
				p := s.Inputs[1].Details["partitions"].([]any)[0].(map[string]any)
				if fmt.Sprint(p["start_offset"], p["end_offset"], p["records"], p["offsets_without_record"]) != "0 9 4 5" {
					t.Errorf("partition evidence %v: want offsets 0..9, 4 records, 5 offsets without a record", p)
				}
			case "read_uncommitted":
				if code != exitFailed {
					t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
				}
				want := "id,side,row_count,conflicting,checkpoint_ids,locations\n" +
					"3,sink,2,false,,commit-abort-commit[0]@3;commit-abort-commit[0]@6\n" +
					"4,sink,2,false,,commit-abort-commit[0]@4;commit-abort-commit[0]@7\n"
				if dups != want {
					t.Errorf("duplicate_ids:\n%s\nwant:\n%s", dups, want)
				}
				if !s.hasNote("WARNING: sink read with isolation read_uncommitted") || !strings.Contains(stdout, "WARNING: sink read with isolation read_uncommitted") {
					t.Errorf("notes %q / stdout %s: want the isolation warning", s.Notes, stdout)
				}
			}
			if s.Inputs[1].Details["isolation_level"] != iso {
				t.Errorf("isolation_level %v", s.Inputs[1].Details["isolation_level"])
			}

			// the same topic as real kcat dumped it
			dump := fmt.Sprintf("  uri: kcat:%s\n  isolation: %s\n", filepath.Join(kcatDir, "commit-abort-commit."+iso+".jsonl"), iso)
			kcode, kout, kerr, kev := kafkaRun(t, idSpec(dump), map[string]string{"source.csv": ids14})
			if kcode != code {
				t.Fatalf("kcat: exit %d, live %d\n%s%s", kcode, code, kout, kerr)
			}
			for _, f := range []string{"duplicate_ids", "missing_ids", "unexpected_ids", "value_mismatches", "row_count_balance", "sum_balance"} {
				if a, b := readEvidenceFile(t, out, "exceptions/"+f+".csv"), readEvidenceFile(t, kev, "exceptions/"+f+".csv"); a != b {
					t.Errorf("%s: kcat dump\n%s\nlive\n%s", f, b, a)
				}
			}
			if ks := readKafkaSummary(t, kev); ks.findings() != s.findings() {
				t.Errorf("findings: kcat\n%s\nlive\n%s", ks.findings(), s.findings())
			}
		})
	}
}

// A plain producer retrying without idempotence writes ids 2 and 3 twice:
// true duplicates in the log, found under either isolation level with both
// offsets.
func TestKafkaRetryDuplicatesRun(t *testing.T) {
	c := startKafka(t, map[string]int32{"retry": 1})
	if err := kafkatest.LoadRetryDuplicates(context.Background(), c, "retry"); err != nil {
		t.Fatal(err)
	}
	source := "id,amount\n1,10.00\n2,20.00\n3,30.00\n"
	for _, iso := range []string{"read_committed", "read_uncommitted"} {
		t.Run(iso, func(t *testing.T) {
			code, stdout, stderr, out := kafkaRun(t, idSpec(fmt.Sprintf("  uri: %s\n  isolation: %s\n", c.URI("retry"), iso)), map[string]string{"source.csv": source})
			if code != exitFailed {
				t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
			}
			want := "id,side,row_count,conflicting,checkpoint_ids,locations\n" +
				"2,sink,2,false,,retry[0]@1;retry[0]@3\n" +
				"3,sink,2,false,,retry[0]@2;retry[0]@4\n"
			if got := readEvidenceFile(t, out, "exceptions/duplicate_ids.csv"); got != want {
				t.Errorf("duplicate_ids:\n%s\nwant:\n%s", got, want)
			}
		})
	}
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

// A value that is not JSON stops the run (exit 3) naming topic, partition
// and offset, and leaves no evidence; with bad_records: report the run
// completes, lists it in check bad_records and fails (exit 1): a record no
// check saw is never a silent drop.
func TestKafkaNotJSONRun(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"t": 1})
	cl, err := c.Producer()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := kafkatest.Plain(ctx, cl,
		kafkatest.Record("t", 0, "id", "1", "amount", json.Number("10.00")),
		&kgo.Record{Topic: "t", Value: []byte("id=2;amount=20.50")},
		kafkatest.Record("t", 0, "id", "3", "amount", json.Number("30.00"))); err != nil {
		t.Fatal(err)
	}
	source := "id,amount\n1,10.00\n3,30.00\n"
	code, stdout, stderr, out := kafkaRun(t, idSpec("  uri: "+c.URI("t")+"\n"), map[string]string{"source.csv": source})
	if code != exitRuntime || !strings.Contains(stderr, "t[0]@1") || !strings.Contains(stderr, "not JSON") {
		t.Errorf("exit %d, want 3 naming t[0]@1\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an evidence folder was left: %v", err)
	}
	code, stdout, stderr, out = kafkaRun(t, idSpec("  uri: "+c.URI("t")+"\n  bad_records: report\n"), map[string]string{"source.csv": source})
	if code != exitFailed {
		t.Fatalf("bad_records: report: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL    bad_records") {
		t.Errorf("stdout does not show bad_records failing:\n%s", stdout)
	}
	got := readEvidenceFile(t, out, "exceptions/bad_records.csv")
	if !strings.HasPrefix(got, "side,location,reason\nsink,t[0]@1,\"value is not JSON (value: json): cannot parse JSON") {
		t.Errorf("bad_records.csv:\n%s", got)
	}
	// A run whose inputs do not report bad records does not list the check.
	if s := readKafkaSummary(t, out); len(s.Checks) != 10 {
		t.Errorf("%d checks with bad_records: report, want population, the 8 record checks and bad_records", len(s.Checks))
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

// The README's Kafka sample: the in-process broker's topic reconciled both
// ways gives the verdicts the README states.
func TestKafkaLedgerSample(t *testing.T) {
	c := startKafka(t, map[string]int32{kafkatest.LedgerTopic: kafkatest.LedgerPartitions})
	sample := filepath.Join("..", "..", "samples", "kafka")
	if err := kafkatest.LoadLedgerSample(context.Background(), c, kafkatest.LedgerTopic, filepath.Join(sample, "source.csv")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(sample, "source.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec     string
		code     exitCode
		findings string
	}{
		{"read-committed.yaml", exitOK, "status pass; rows 600/600\npopulation pass 0\nnull_ids pass 0\nmissing_ids pass 0\nunexpected_ids pass 0\nduplicate_ids pass 0\nvalue_mismatches pass 0\nrow_count_balance pass 0\nsum_balance pass 0\nkey_checkpoint_conflicts pass 0\n"},
		{"read-uncommitted.yaml", exitFailed, "status fail; rows 600/670\npopulation pass 0\nnull_ids pass 0\nmissing_ids pass 0\nunexpected_ids pass 0\nduplicate_ids fail 70\nvalue_mismatches pass 0\nrow_count_balance fail 6\nsum_balance fail 6\nkey_checkpoint_conflicts fail 70\n"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			spec, err := os.ReadFile(filepath.Join(sample, tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			specText := strings.ReplaceAll(string(spec), "127.0.0.1:19092", c.Addr)
			code, stdout, stderr, out := kafkaRun(t, specText, map[string]string{"source.csv": string(src)})
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			s := readKafkaSummary(t, out)
			if got := s.findings(); !strings.HasPrefix(got, tc.findings) {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.findings)
			}
			if tc.code == exitFailed {
				dups := strings.Split(strings.TrimSpace(readEvidenceFile(t, out, "exceptions/duplicate_ids.csv")), "\n")
				if len(dups) != 71 || !strings.HasPrefix(dups[1], "E0301,sink,2,false,4;5,ledger-postings[") || strings.Count(dups[1], "@") != 2 {
					t.Errorf("duplicate_ids: %d lines, first %q", len(dups), dups[1])
				}
			}
		})
	}
}

func scramAuth(user, pass string) sasl.Mechanism {
	return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
}

// reconcile explain shows every copy of an id at its topic[partition]@offset.
func TestKafkaExplain(t *testing.T) {
	c := startKafka(t, map[string]int32{"commit-abort-commit": 1})
	if err := kafkatest.LoadCommitAbortCommit(context.Background(), c, "commit-abort-commit"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "source.csv"), ids14)
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), idSpec("  uri: "+c.URI("commit-abort-commit")+"\n  isolation: read_uncommitted\n")+"out: evidence\n")
	code, stdout, stderr := runCLI(t, "explain", "--config", spec, "--key", "3")
	if code != exitOK || !strings.Contains(stdout, "commit-abort-commit[0]@3") || !strings.Contains(stdout, "commit-abort-commit[0]@6") || !strings.Contains(stdout, "source.csv:4") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
