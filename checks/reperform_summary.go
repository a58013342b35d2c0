package checks

import (
	"context"
	"fmt"
	"math"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/restarts"
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
	restarts.Restart
	Label string `json:"label"`
	// Findings counts exception rows per check explained by this restart.
	Findings map[string]int64 `json:"findings"`
	// Keys counts distinct windows and groups among them.
	Keys int64 `json:"keys"`
}

// SummarizeReplay counts the populations and attributes every replay
// finding — the exception rows of the failed checks whose Finding is
// FindingReplay — to the restart that explains it (replay/attribution.sql):
// the column of role restart where the check has one; else the restart that
// rewound the first of its checkpoint ids (role checkpoints); else none.
// A finding's key is its window end and group columns (roles window_end and
// group).
func SummarizeReplay(ctx context.Context, db *duck.DB, r *Replay, rs *restarts.Restarts, outs []*Outcome) (*ReplaySummary, error) {
	sum := &ReplaySummary{EventTime: r.EventTime, Window: r.Window.String(), WindowColumn: r.WindowColumn, TimeZone: r.Zone, Emission: "all", Unexplained: map[string]int64{}}
	if r.LastBy != "" {
		sum.Emission = "last_by " + r.LastBy
	}
	_, pop, err := db.StringsFile(ctx, replaySQL, queries.ReplayPopulations, struct{ Groups []string }{r.GroupBy})
	if err != nil {
		return nil, err
	}
	for i, n := range []*int64{&sum.SourceEvents, &sum.ExpectedKeys, &sum.SinkRows, &sum.SinkDistinctKeys} {
		fmt.Sscan(*pop[0][i], n)
	}
	if sum.SinkDistinctKeys > 0 {
		sum.SinkRowsPerKey = math.Round(float64(sum.SinkRows)/float64(sum.SinkDistinctKeys)*10000) / 10000
	}

	type finding struct {
		Check, Table, Restart, Checkpoints, WindowEnd string
		Groups                                        []string
	}
	var fs []finding
	for _, o := range outs {
		if o.Status != Fail || o.Table == "" || o.Finding != FindingReplay {
			continue
		}
		f := finding{Check: o.ID, Table: o.Table}
		if c, ok := o.Column(RoleRestart, ""); ok {
			f.Restart = c.Name
		} else if c, ok := o.Column(RoleCheckpoints, ""); ok {
			f.Checkpoints = c.Name
		}
		if c, ok := o.Column(RoleWindowEnd, ""); ok {
			f.WindowEnd = c.Name
			for _, g := range o.ColumnsWith(RoleGroup) {
				f.Groups = append(f.Groups, g.Name)
			}
		}
		fs = append(fs, f)
	}
	if rs != nil {
		sum.RestartFiles, sum.RestartNotes = rs.Files, rs.Notes
		for _, x := range rs.Restarts {
			sum.Restarts = append(sum.Restarts, RestartFindings{Restart: x, Label: x.Label(), Findings: map[string]int64{}})
		}
	}
	if len(fs) == 0 {
		return sum, nil
	}
	_, attr, err := db.StringsFile(ctx, replaySQL, queries.ReplayAttribution, struct{ Findings []finding }{fs})
	if err != nil {
		return nil, err
	}
	for _, row := range attr {
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
