package control_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// writeFiles writes each file of files (path relative to dir → content).
func writeFiles(t *testing.T, dir string, files [][2]string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f[0])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A one-file CSV sink whose partition column (a key=value folder) the type
// preparation converts — a measure read from the folder name, an id part
// that is empty there — is prepared like any other column: the same
// verdicts as a sink of several files (found by a reviewer: the column is
// not one of the raw rows' own, so it cannot be converted in them).
func TestOneFileCSVPartitionConverted(t *testing.T) {
	cases := []struct {
		name   string
		files  [][2]string
		spec   string
		status evidence.Status
		counts map[string]int64
	}{
		{"measure from the folder", [][2]string{
			{"source.csv", "entry_id,amount\nE1,10.50\nE2,10.5\n"},
			{"sink/amount=10.50/part-0.csv", "entry_id\nE1\nE2\n"},
		}, "source: source.csv\nsink: {uri: sink/, kind: csv, partitions: [amount]}\nid: [entry_id]\nmeasures: [amount]\n", evidence.Pass, nil},
		{"empty id part", [][2]string{
			{"source.csv", "entry_id,region,amount\nE1,EU,10.50\n"},
			{"sink/region=/part-0.csv", "entry_id,amount\nE1,10.50\n"},
		}, "source: source.csv\nsink: {uri: sink/, kind: csv, partitions: [region]}\nid: [entry_id, region]\nmeasures: [amount]\n", evidence.Fail,
			map[string]int64{"missing_ids": 1, "unexpected_ids": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, append(c.files, [2]string{"spec.yaml", "name: p\n" + c.spec}))
			s, err := spec.Load(filepath.Join(dir, "spec.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			s.Out = filepath.Join(dir, "evidence")
			res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.status {
				t.Errorf("status %s, want %s", res.Status, c.status)
			}
			for _, ch := range res.Checks {
				if want, ok := c.counts[ch.ID]; ok && ch.Exceptions != want {
					t.Errorf("%s: %d exceptions, want %d", ch.ID, ch.Exceptions, want)
				}
			}
		})
	}
}
