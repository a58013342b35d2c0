package report

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// idPhrase opens the "what was compared" line: the record id, for a
// balance control (no id) the grain of each input and the roll-forward,
// or for a windowed sink the window key.
func idPhrase(p *evidence.Parameters) string {
	if p.Reperform == nil && len(p.ID) == 0 {
		return balancePhrase(p)
	}
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
		aggs[i] = fmt.Sprintf("`%s` = `%s`", a.Column, aggregateText(a))
	}
	return fmt.Sprintf("Windowed sink, one row per %s, re-performed from source events by `%s`: %s", codeList(key), rp.EventTime, strings.Join(aggs, ", "))
}

// writeReplay writes the section on a re-performed windowed sink: the
// windows, the restarts seen and which findings each explains, and the
// findings no restart explains (its population figures are in the
// population table).
func writeReplay(b *strings.Builder, s *ReplayView) {
	if s == nil {
		return
	}
	b.WriteString("## Stream-job replay\n\n")
	fmt.Fprintf(b, "Windows: %s over `%s`, assigned on UTC instants (epoch-aligned, as Flink's event-time window assigners); "+
		"timestamps without a zone were read in **%s**. Emission compared: %s.\n\n", s.Window, s.EventTime, s.TimeZone, s.Emission)

	if len(s.RestartFiles) == 0 {
		b.WriteString("No restart history was given (`restarts:`): findings are not correlated with restarts.\n\n")
	} else {
		fmt.Fprintf(b, "Restarts seen: **%d** (from %s).\n\n", len(s.Restarts), codeList(s.RestartFiles))
		if len(s.Restarts) > 0 {
			b.WriteString("| restart | failed/restored at (UTC) | restored checkpoint | its barrier (UTC) | keys explained | findings explained |\n|---|---|---:|---|---:|---|\n")
			for _, r := range s.Restarts {
				fmt.Fprintf(b, "| %d | %s | %s | %s | %d | %s |\n", r.No, r.At, r.Checkpoint, r.Barrier, r.Keys, findings(r.Findings))
			}
			b.WriteString("\n")
		}
		for _, n := range s.Notes {
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

func findings(cs []Count) string {
	if len(cs) == 0 {
		return "none"
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("`%s` %d", c.Check, c.N)
	}
	return strings.Join(out, ", ")
}
