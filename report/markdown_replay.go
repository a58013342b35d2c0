package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// idPhrase opens the "what was compared" line: the record id, or for a
// windowed sink the window key.
func idPhrase(p *spec.Spec) string {
	if p.Reperform == nil {
		return "Record id: " + codeList(p.ID)
	}
	rp := p.Reperform
	w := rp.WindowEnd
	if w == "" {
		w = rp.WindowStart
	}
	key := append([]string{w}, rp.GroupBy...)
	aggs := make([]string, len(rp.Aggregates))
	for i, a := range rp.Aggregates {
		aggs[i] = fmt.Sprintf("`%s` = `%s`", a.Column, a)
	}
	return fmt.Sprintf("Windowed sink, one row per %s, re-performed from source events by `%s`: %s", codeList(key), rp.EventTime, strings.Join(aggs, ", "))
}

// writeReplay writes the section on a re-performed windowed sink: the
// sink's rows per logical key, the restarts seen and which findings each
// explains, and the findings no restart explains.
func writeReplay(b *strings.Builder, s *checks.ReplaySummary) {
	if s == nil {
		return
	}
	b.WriteString("## Stream-job replay\n\n")
	fmt.Fprintf(b, "Windows: %s over `%s`, assigned on UTC instants (epoch-aligned, as Flink's event-time window assigners); "+
		"timestamps without a zone were read in **%s**. Emission compared: %s.\n\n", s.Window, s.EventTime, s.TimeZone, s.Emission)
	b.WriteString("| population | count |\n|---|---:|\n")
	fmt.Fprintf(b, "| source events | %d |\n| windows × groups re-performed | %d |\n| sink rows | %d |\n| distinct sink keys (window + group) | %d |\n", s.SourceEvents, s.ExpectedKeys, s.SinkRows, s.SinkDistinctKeys)
	fmt.Fprintf(b, "| **sink rows per key** (1.0 when each window is written once) | **%.4f** |\n\n", s.SinkRowsPerKey)

	if len(s.RestartFiles) == 0 {
		b.WriteString("No restart history was given (`restarts:`): findings are not correlated with restarts.\n\n")
	} else {
		fmt.Fprintf(b, "Restarts seen: **%d** (from %s).\n\n", len(s.Restarts), codeList(s.RestartFiles))
		if len(s.Restarts) > 0 {
			b.WriteString("| restart | failed/restored at (UTC) | restored checkpoint | its barrier (UTC) | keys explained | findings explained |\n|---|---|---:|---|---:|---|\n")
			for _, r := range s.Restarts {
				ck, at := "unknown", "–"
				if r.RestoredCheckpoint >= 0 {
					ck = fmt.Sprint(r.RestoredCheckpoint)
				}
				if r.RestoredCheckpointTime != nil {
					at = r.RestoredCheckpointTime.UTC().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(b, "| %d | %s | %s | %s | %d | %s |\n", r.No, r.Time.UTC().Format("2006-01-02 15:04:05"), ck, at, r.Keys, findings(r.Findings))
			}
			b.WriteString("\n")
		}
		for _, n := range s.RestartNotes {
			fmt.Fprintf(b, "Note: %s.\n\n", n)
		}
	}
	if len(s.Unexplained) == 0 {
		b.WriteString("Findings no restart explains: **none**.\n\n")
	} else {
		fmt.Fprintf(b, "Findings no restart explains: **%s** (%d window/group key(s)). A restart explains a finding when it restored a checkpoint "+
			"older than the finding's first write, or, for a value mismatch, when the key had events in the replayed interval; these have no such restart "+
			"and need another explanation.\n\n", findings(s.Unexplained), s.UnexplainedKeys)
	}
}

func findings(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = fmt.Sprintf("`%s` %d", k, m[k])
	}
	return strings.Join(out, ", ")
}
