package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
)

// run --help lists every kind the registry holds, files and servers apart,
// each with its aliases: MySQL, Kafka and kcat were missing from a list
// written by hand.
func TestRunHelpListsEveryKind(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	flat := strings.Join(strings.Fields(help), " ")
	for _, want := range []string{
		"Kinds of files: csv (tsv, txt), iceberg, kcat (kafkacat), ndjson (jsonl), parquet (pq).",
		"Kinds of servers and catalogs: iceberg+sql, kafka, mysql (mariadb), postgres (postgresql).",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("run --help lacks %q:\n%s", want, help)
		}
	}
	for _, k := range sources.Kinds() {
		if !regexp.MustCompile(`[:,] ` + regexp.QuoteMeta(k) + `[ ,.]`).MatchString(flat) {
			t.Errorf("run --help does not list the registered kind %s", k)
		}
	}
	long, _, _ := strings.Cut(help, "\nUsage:")
	for _, line := range strings.Split(long, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("run --help text line of %d columns: %q", len([]rune(line)), line)
		}
	}
}

// A kind registered tomorrow appears in run --help without another edit.
// The kind is registered in a child process (this test binary run again),
// so that no other test sees it.
func TestRunHelpListsNewKind(t *testing.T) {
	if os.Getenv("RECONCILE_TEST_NEW_KIND") == "1" {
		open := func(sources.Location) (sources.Source, error) { return nil, errors.New("test kind") }
		sources.Register("deltalake", open, "delta")
		sources.RegisterFileKind("deltalake")
		sources.Register("clickhouse", open, "ch")
		_, help, _ := runCLI(t, "run", "--help")
		fmt.Print(help)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunHelpListsNewKind$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RECONCILE_TEST_NEW_KIND=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"Kinds of files: csv (tsv, txt), deltalake (delta), iceberg,", "Kinds of servers and catalogs: clickhouse (ch), iceberg+sql,"} {
		if !strings.Contains(flat, want) {
			t.Errorf("run --help with two new kinds lacks %q:\n%s", want, out)
		}
	}
}

// The folder of files given without a kind prefix: read as the kind
// its files agree on (the run passes), refused with the prefixes to write
// when they disagree (exit 2).
func TestRunFolderWithoutKind(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "day=1", "a.csv"), "id,amount\n1,1.00\n")
	writeFile(t, filepath.Join(dir, "src", "b.csv"), "id,amount\n2,2.00\n")
	writeFile(t, filepath.Join(dir, "snk", "part-0.csv"), "id,amount\n1,1.00\n2,2.00\n")
	writeFile(t, filepath.Join(dir, "snk", "_SUCCESS"), "")
	code, stdout, stderr := runCLI(t, "run", "--source", filepath.Join(dir, "src"), "--sink", filepath.Join(dir, "snk"), "--id", "id", "--measure", "amount", "--out", filepath.Join(dir, "ev"), "--format", "json", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d, want 0: %s%s", code, stdout, stderr)
	}
	writeFile(t, filepath.Join(dir, "snk", "part-1.ndjson"), `{"id":"3","amount":"3.00"}`+"\n")
	code, _, stderr = runCLI(t, "run", "--source", filepath.Join(dir, "src"), "--sink", filepath.Join(dir, "snk"), "--id", "id", "--out", filepath.Join(dir, "ev2"))
	want := "snk is a folder whose files' extensions disagree: .csv (1 file, such as part-0.csv), .ndjson (1 file, such as part-1.ndjson): give the kind to read them as with a prefix (csv:" + filepath.Join(dir, "snk") + ", ndjson:" + filepath.Join(dir, "snk") + ") or kind: in the spec"
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("disagreeing files: exit %d, %q; want %d saying %q", code, stderr, exitUsage, want)
	}
}
