package checks

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

// ReplaySummary is the re-performance of a windowed sink in summary.json
// (key "replay"): the populations, the sink's rows-per-key ratio and what
// the restarts explain.
type ReplaySummary struct {
	EventTime    string `json:"event_time"`
	Window       string `json:"window"`
	WindowColumn string `json:"window_column"`
	// TimeZone is the zone zone-less timestamps were read in.
	TimeZone string `json:"time_zone"`
	// Emission is "all" or "last_by <column>".
	Emission string `json:"emission"`
	// SourceEvents counts source rows with an event time; ExpectedKeys the
	// windows and groups re-performed from them.
	SourceEvents int64 `json:"source_events"`
	ExpectedKeys int64 `json:"expected_keys"`
	// SinkRows and SinkDistinctKeys count the sink's rows and distinct
	// logical keys (window + group); SinkRowsPerKey is their ratio, which
	// is 1.0 for a sink that writes each window once (with emission
	// last_by, rows are counted per emission that counts).
	SinkRows         int64   `json:"sink_rows"`
	SinkDistinctKeys int64   `json:"sink_distinct_keys"`
	SinkRowsPerKey   float64 `json:"sink_rows_per_key"`
	// Restarts are the restarts seen, each with the findings it explains.
	Restarts []RestartFindings `json:"restarts"`
	// RestartFiles are the restarts: files read ("" when none was given).
	RestartFiles []string `json:"restart_files,omitempty"`
	RestartNotes []string `json:"restart_notes,omitempty"`
	// Unexplained counts, per check, the findings no restart explains:
	// the alarming ones.
	Unexplained map[string]int64 `json:"unexplained_findings"`
	// UnexplainedKeys counts distinct windows and groups among them.
	UnexplainedKeys int64 `json:"unexplained_keys"`
}

// RestartFindings is one restart and the findings it explains.
type RestartFindings struct {
	Restart
	Label string `json:"label"`
	// Findings counts exception rows per check explained by this restart.
	Findings map[string]int64 `json:"findings"`
	// Keys counts distinct windows and groups among them.
	Keys int64 `json:"keys"`
}

// replayChecks are the checks whose exceptions are replay findings.
var replayChecks = []string{"duplicate_keys", "key_checkpoint_conflicts", "reperformance_mismatches", "missing_keys", "unexpected_keys", "early_writes"}

// SummarizeReplay counts the populations and attributes every replay
// finding (the exception rows of the checks above) to the restart that
// explains it: the restart column where the check has one; for
// key_checkpoint_conflicts, the restart that rewound its first checkpoint;
// none for missing and unexpected keys.
func SummarizeReplay(ctx context.Context, db *duck.DB, r *Replay, rs *Restarts, outs []*Outcome) (*ReplaySummary, error) {
	sum := &ReplaySummary{EventTime: r.EventTime, Window: r.Window.String(), WindowColumn: r.WindowColumn, TimeZone: r.Zone, Emission: "all", Unexplained: map[string]int64{}}
	if r.LastBy != "" {
		sum.Emission = "last_by " + r.LastBy
	}
	var err error
	if sum.SourceEvents, err = db.Count(ctx, "SELECT count(DISTINCT __row) FROM replay_events"); err != nil {
		return nil, err
	}
	if sum.ExpectedKeys, err = db.Count(ctx, "SELECT count(*) FROM expected"); err != nil {
		return nil, err
	}
	if sum.SinkRows, err = db.Count(ctx, "SELECT count(*) FROM replay_sink WHERE __compared"); err != nil {
		return nil, err
	}
	key := "__window_end"
	for _, g := range r.GroupBy {
		key += ", " + duck.Ident(g)
	}
	if sum.SinkDistinctKeys, err = db.Count(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM replay_sink WHERE __compared)", key)); err != nil {
		return nil, err
	}
	if sum.SinkDistinctKeys > 0 {
		sum.SinkRowsPerKey = math.Round(float64(sum.SinkRows)/float64(sum.SinkDistinctKeys)*10000) / 10000
	}

	// One row per finding: check, restart label (NULL: unexplained), key.
	restartOf := funcs["restartof"].(func(string) string)
	var parts []string
	for _, o := range outs {
		if o.Status != Fail || o.Table == "" || !contains(replayChecks, o.ID) {
			continue
		}
		restart := "CAST(NULL AS VARCHAR)"
		switch {
		case hasColumn(o, "restart"):
			restart = "restart"
		case hasColumn(o, "checkpoint_ids"):
			restart = restartOf("list_min(list_transform(string_split(CAST(checkpoint_ids AS VARCHAR), ';'), x -> TRY_CAST(x AS BIGINT)))")
		}
		k := "CAST(NULL AS VARCHAR)"
		if hasColumn(o, "window_end") {
			ks := []string{"CAST(window_end AS VARCHAR)"}
			for _, g := range r.GroupBy {
				ks = append(ks, fmt.Sprintf("coalesce(CAST(%s AS VARCHAR), '∅')", duck.Ident(g)))
			}
			k = strings.Join(ks, " || '|' || ")
			if o.ID == "key_checkpoint_conflicts" {
				k = "NULL" // the sink's own spelling of the window; not comparable
			}
		}
		parts = append(parts, fmt.Sprintf("SELECT %s AS check_id, %s AS restart, %s AS key FROM %s", duck.Literal(o.ID), restart, k, duck.Ident(o.Table)))
	}
	if rs != nil {
		sum.RestartFiles, sum.RestartNotes = rs.Files, rs.Notes
		for _, x := range rs.Restarts {
			sum.Restarts = append(sum.Restarts, RestartFindings{Restart: x, Label: x.Label(), Findings: map[string]int64{}})
		}
	}
	if len(parts) == 0 {
		return sum, nil
	}
	_, rows, err := db.Strings(ctx, fmt.Sprintf(`WITH f AS (%s)
SELECT restart, check_id, count(*), (SELECT count(DISTINCT g.key) FROM f AS g WHERE g.restart IS NOT DISTINCT FROM f.restart)
FROM f GROUP BY restart, check_id ORDER BY restart, check_id`, strings.Join(parts, "\nUNION ALL\n")))
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		var n, keys int64
		fmt.Sscan(*row[2], &n)
		fmt.Sscan(*row[3], &keys)
		if row[0] == nil {
			sum.Unexplained[*row[1]] = n
			sum.UnexplainedKeys = keys
			continue
		}
		for i := range sum.Restarts {
			if sum.Restarts[i].Label == *row[0] {
				sum.Restarts[i].Findings[*row[1]] = n
				sum.Restarts[i].Keys = keys
			}
		}
	}
	return sum, nil
}
