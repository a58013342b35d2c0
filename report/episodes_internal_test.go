package report

import (
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// One line per replay episode, for the terminal summary and report.md
// (issue 34, items 5 and 6): the restart and the checkpoint pair it
// replayed, the keys written twice (or again), the exact amounts; an
// episode no restart explains says so, or that no history was given.
func TestEpisodeLines(t *testing.T) {
	at := time.Date(2026, 11, 27, 3, 14, 0, 0, time.UTC)
	s := &evidence.Summary{Parameters: &evidence.Parameters{Restarts: "/x/restarts.csv"}, Episodes: []evidence.Episode{
		{Restart: "restart 1 at 2026-11-27T03:14:00Z from checkpoint 150", RestartNo: 1, RestartTime: &at, FromCheckpoint: "151", ToCheckpoint: "152",
			Unit: "entries", Keys: 3, Copies: 3, Amounts: []evidence.EpisodeAmount{{Column: "amount", Amount: "3873.80"}, {Column: "fee", Amount: "0.30"}}},
		{FromCheckpoint: "153", ToCheckpoint: "153", Unit: "entries", Keys: 1, Copies: 2, Amounts: []evidence.EpisodeAmount{{Column: "amount", Amount: "2000.00"}}},
		{FromCheckpoint: "98", ToCheckpoint: "99", Unit: "windows", Keys: 1, Copies: 1, Amounts: []evidence.EpisodeAmount{{Column: "revenue", Amount: "16384.33"}}},
	}}
	want := []string{
		"restart 1 at 2026-11-27T03:14:00Z from checkpoint 150 replayed checkpoints 151→152: 3 entries written twice, amount 3873.80 and fee 0.30 double-posted",
		"checkpoints 153→153 (within one checkpoint): 1 entry written again (2 rows), amount 2000.00 double-posted; no restart explains it",
		"checkpoints 98→99: 1 window written twice, revenue 16384.33 counted twice by a sum of the rows; no restart explains it",
	}
	got := EpisodeLines(s)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("EpisodeLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s.Parameters.Restarts = ""
	if got := EpisodeLines(s); !strings.HasSuffix(got[1], "; no restart history given (restarts:)") {
		t.Errorf("without restarts: %q", got[1])
	}
	var b strings.Builder
	writeEpisodes(&b, s)
	if md := b.String(); !strings.HasPrefix(md, "## Replay episodes\n") || !strings.Contains(md, "\n- restart 1 at 2026-11-27T03:14:00Z from checkpoint 150 replayed checkpoints 151→152: 3 entries") {
		t.Errorf("report.md section:\n%s", md)
	}
	b.Reset()
	writeEpisodes(&b, &evidence.Summary{})
	if b.Len() != 0 {
		t.Errorf("a run without episodes has a section: %q", b.String())
	}
}
