package report

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// EpisodeLines words every replay episode of s (summary.json
// replay_episodes), one line each, as the terminal summary and report.md
// print them:
//
//	restart 1 at 2026-11-27T03:14:00Z from checkpoint 150 replayed checkpoints 151→152: 3 entries written twice, amount 3873.80 double-posted
//	checkpoints 153→153 (within one checkpoint): 1 entry written twice, amount 1000.00 double-posted; no restart explains it
//
// An episode no restart explains says so when the spec gave restarts:, and
// that none was given otherwise. Amounts are the exact decimal sums of the
// rows written again.
func EpisodeLines(s *evidence.Summary) []string {
	restarts := s.Parameters != nil && s.Parameters.Restarts != ""
	out := make([]string, len(s.Episodes))
	for i, e := range s.Episodes {
		out[i] = episodeLine(e, restarts)
	}
	return out
}

func episodeLine(e evidence.Episode, restarts bool) string {
	pair := fmt.Sprintf("checkpoints %s→%s", e.FromCheckpoint, e.ToCheckpoint)
	if e.FromCheckpoint == e.ToCheckpoint {
		pair += " (within one checkpoint)"
	}
	var b strings.Builder
	if e.Restart != "" {
		fmt.Fprintf(&b, "%s replayed %s", e.Restart, pair)
	} else {
		b.WriteString(pair)
	}
	unit := e.Unit
	if one, ok := map[string]string{"entries": "entry", "windows": "window"}[unit]; ok && e.Keys == 1 {
		unit = one
	}
	if e.Copies == e.Keys {
		fmt.Fprintf(&b, ": %d %s written twice", e.Keys, unit)
	} else {
		fmt.Fprintf(&b, ": %d %s written again (%d rows)", e.Keys, unit, e.Copies)
	}
	if len(e.Amounts) > 0 {
		amounts := make([]string, len(e.Amounts))
		for i, a := range e.Amounts {
			amounts[i] = a.Column + " " + a.Amount
		}
		if e.Unit == "windows" {
			fmt.Fprintf(&b, ", %s counted twice by a sum of the rows", strings.Join(amounts, " and "))
		} else {
			fmt.Fprintf(&b, ", %s double-posted", strings.Join(amounts, " and "))
		}
	}
	switch {
	case e.Restart != "":
	case restarts:
		b.WriteString("; no restart explains it")
	default:
		b.WriteString("; no restart history given (restarts:)")
	}
	return b.String()
}

// writeEpisodes writes the section on the replay episodes of report.md:
// one line per episode (EpisodeLines); nothing when there is none.
func writeEpisodes(b *strings.Builder, s *evidence.Summary) {
	lines := EpisodeLines(s)
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Replay episodes\n\n")
	b.WriteString("Keys of the sink written more than once, each copy after the first counted under the checkpoint ids it was " +
		"written again across (the copy before it, this copy) and attributed to the restart that rolled the earlier write back " +
		"in the job's state; amounts are the exact sums of the rows written again (`queries/_replay_episodes.sql`).\n\n")
	for _, l := range lines {
		fmt.Fprintf(b, "- %s\n", l)
	}
	b.WriteString("\n")
}
