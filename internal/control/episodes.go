package control

import (
	"context"
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// episodesOf computes the replay episodes of the run's sink
// (checks.ReplayEpisodes) as summary.json states them, and writes their
// statements — table restarts for a sink of records, then the episodes'
// query — to queries/_replay_episodes.sql, so they can be re-performed. Nil
// without a checkpoint column.
func episodesOf(ctx context.Context, db *duck.DB, s *spec.Spec, rs *restarts.Restarts, prep *prepared, folder *evidence.Folder) ([]evidence.Episode, error) {
	eps, q, err := checks.ReplayEpisodes(ctx, db, prep.params)
	if err != nil {
		return nil, fmt.Errorf("replay episodes: %w", err)
	}
	if q == "" {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("-- The replay episodes: every key of the sink written more than once, each copy after the first counted\n" +
		"-- under its checkpoint pair and the restart that explains it. Run over tables source and sink as loaded by\n" +
		"-- reconcile (session TimeZone UTC)")
	if s.Reperform != nil {
		b.WriteString(", after _replay_tables.sql.\n")
	} else {
		b.WriteString(".\n")
		for _, st := range prep.restarts {
			b.WriteString("\n" + strings.TrimSpace(st) + ";\n")
		}
	}
	b.WriteString("\n" + strings.TrimSpace(q) + ";\n")
	if err := folder.WriteFile(evidence.ReplayEpisodesFile, []byte(b.String())); err != nil {
		return nil, err
	}
	unit := "entries"
	if s.Reperform != nil {
		unit = "windows"
	}
	var out []evidence.Episode
	for _, e := range eps {
		x := evidence.Episode{Restart: e.Restart, RestartNo: e.RestartNo, FromCheckpoint: e.From, ToCheckpoint: e.To,
			Unit: unit, Keys: e.Keys, Copies: e.Copies}
		if rs != nil && e.RestartNo > 0 {
			for _, r := range rs.Restarts {
				if r.No == e.RestartNo {
					t := r.Time.UTC()
					x.RestartTime = &t
				}
			}
		}
		for _, a := range e.Amounts {
			x.Amounts = append(x.Amounts, evidence.EpisodeAmount{Column: a.Column, Amount: a.Amount})
		}
		out = append(out, x)
	}
	return out, nil
}

// restartsNotes are the notes of a sink of records given restarts:: the
// restarts read, each with the entries it explains as written again, and
// what reading them established. None for a windowed sink (summary.json
// replay lists its restarts) or without restarts.
func restartsNotes(s *spec.Spec, rs *restarts.Restarts, eps []evidence.Episode) []string {
	if rs == nil || s.Reperform != nil {
		return nil
	}
	explained := map[int]int64{}
	for _, e := range eps {
		if e.RestartNo > 0 {
			explained[e.RestartNo] += e.Keys
		}
	}
	parts := make([]string, len(rs.Restarts))
	for i, r := range rs.Restarts {
		n := explained[r.No]
		what := "explains no entry written again"
		if n > 0 {
			what = fmt.Sprintf("explains %d entr%s written again", n, map[bool]string{true: "y", false: "ies"}[n == 1])
		}
		parts[i] = r.Label() + " " + what
	}
	note := fmt.Sprintf("restarts: %d restart(s) read from %s", len(rs.Restarts), strings.Join(rs.Files, ", "))
	if len(parts) > 0 {
		note += ": " + strings.Join(parts, "; ")
	}
	notes := []string{note}
	for _, n := range rs.Notes {
		notes = append(notes, "restarts: "+n)
	}
	return notes
}
