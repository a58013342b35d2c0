package checks_test

// The record checks' naive-tool cases (NOT IN with NULL, sniffed 007, float
// sums, NULL and composite ids, duplicates with conflicts, checkpoint
// conflicts, equal sums hiding a swapped id, …) are end-to-end golden cases
// in cmd/reconcile/testdata/endtoend, one folder each. The helpers here
// serve the replay tests.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests read inputs of every kind
)

// reconcile runs the whole control on two files and returns the result and
// the evidence folder.
func reconcile(t *testing.T, source, sink string, s spec.Spec) (*evidence.Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "evidence")
	s.Source = spec.Input{URI: source}
	s.Sink = spec.Input{URI: sink}
	s.Out = out
	if s.Dir == "" {
		s.Dir, _ = os.Getwd()
	}
	res, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json", "md"}})
	if err != nil {
		t.Fatalf("control.Run: %v", err)
	}
	return res, out
}

// exceptions returns the exceptions CSV of a check, header included.
func exceptions(t *testing.T, dir, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "exceptions", id+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// statuses maps every check to its status and exception count, for
// compact assertions.
func statuses(res *evidence.Summary) map[string]string {
	m := map[string]string{}
	for _, c := range res.Checks {
		m[c.ID] = fmt.Sprintf("%s %d", c.Status, c.Exceptions)
	}
	return m
}

func wantStatuses(t *testing.T, res *evidence.Summary, want map[string]string) {
	t.Helper()
	got := statuses(res)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %q, want %q", id, got[id], w)
		}
	}
}
