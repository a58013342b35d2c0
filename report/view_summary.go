package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// population is the population table. For a sink of records: rows,
// distinct ids and the sum of each measure, source against sink; for a
// balance control, no distinct ids, no difference of rows when an input
// is at balance grain, and a roll-forward's figures
// (rollForwardPopulation). For a
// re-performed windowed sink, whose rows are windows and not records: the
// source events against the sink rows (different units, so no
// difference), the window + group keys re-performed from the source
// against the distinct keys in the sink, and the sink rows per key.
func population(s *evidence.Summary) []PopulationRow {
	t := s.Totals
	if t == nil {
		return nil
	}
	none := Cell{Null: true}
	n := func(i int64) Cell { return Cell{Text: fmt.Sprint(i), Kind: KindNumber} }
	var rows []PopulationRow
	if r := s.Replay; r != nil {
		rows = append(rows,
			PopulationRow{Label: "source events; sink rows (not comparable: one sink row per window and group)", Source: n(r.SourceEvents), Sink: n(r.SinkRows), Difference: none},
			PopulationRow{Label: "window + group keys: re-performed from the source; distinct in the sink", Source: n(r.ExpectedKeys), Sink: n(r.SinkDistinctKeys), Difference: n(r.SinkDistinctKeys - r.ExpectedKeys)},
			PopulationRow{Label: "sink rows per key (1.0 when each window is written once)", Source: none, Sink: Cell{Text: fmt.Sprintf("%.4f", r.SinkRowsPerKey), Kind: KindNumber}, Difference: none})
	} else if p := s.Parameters; p != nil && len(p.ID) == 0 {
		// A balance control: no record ids to count.
		if p.Opening != nil {
			return rollForwardPopulation(s)
		}
		diff := n(t.SinkRows - t.SourceRows)
		if balanceGrain(p) {
			diff = none // postings against balances: different units
		}
		rows = append(rows, PopulationRow{Label: "rows", Source: n(t.SourceRows), Sink: n(t.SinkRows), Difference: diff})
	} else {
		rows = append(rows,
			PopulationRow{Label: "rows", Source: n(t.SourceRows), Sink: n(t.SinkRows), Difference: n(t.SinkRows - t.SourceRows)},
			PopulationRow{Label: "distinct ids", Source: n(t.SourceDistinctIDs), Sink: n(t.SinkDistinctIDs), Difference: n(t.SinkDistinctIDs - t.SourceDistinctIDs)})
	}
	dec := func(v string) Cell { return typed(field{text: v}, KindNumber) }
	for _, m := range t.Measures {
		rows = append(rows, PopulationRow{Label: "sum of " + m.Name, Source: dec(m.SourceSum), Sink: dec(m.SinkSum), Difference: dec(m.Difference)})
	}
	return rows
}

// comparison lays out summary.json's comparison.
func comparison(c *evidence.Comparison) ([]ComparedRow, []UncomparedRow) {
	if c == nil {
		return nil, nil
	}
	var cmp []ComparedRow
	for _, col := range c.Compared {
		cmp = append(cmp, ComparedRow{Column: col.Column, SourceType: col.SourceType, SinkType: col.SinkType,
			How: methodText(col), Normalize: strings.Join(col.Normalize, ", "), Tolerance: toleranceText(col)})
	}
	var un []UncomparedRow
	for _, u := range c.Uncompared {
		un = append(un, UncomparedRow{Column: u.Column, Input: u.Input, Reason: u.Reason})
	}
	return cmp, un
}

// toleranceText is a compared column's tolerance as the reports state it:
// "0.01", "0.01 (default)" for tolerance:'s default, "none (default
// tolerance 0.01 does not apply to VARCHAR)" for a column the default does
// not fit, "" for none.
func toleranceText(c evidence.ComparedColumn) string {
	switch {
	case c.Tolerance != "" && c.ToleranceFrom != "":
		return c.Tolerance + " (" + c.ToleranceFrom + ")"
	case c.NoTolerance != "":
		return "none (" + c.NoTolerance + ")"
	}
	return c.Tolerance
}

// methodText is a comparison method in words, with the zones a timestamp
// column's zone-less values were read in.
func methodText(c evidence.ComparedColumn) string {
	text := map[string]string{
		"text": "text, byte for byte", "number": "exact value", "float": "binary floating point, at its precision",
		"boolean": "boolean", "date": "date", "timestamp": "instants", "value": "value of the type",
		"interval": "interval, field by field (months, days, microseconds)",
	}[c.Method]
	if text == "" {
		text = c.Method
	}
	var zones []string
	if c.SourceZone != "" {
		zones = append(zones, "source: zone-less values read in "+c.SourceZone)
	}
	if c.SinkZone != "" {
		zones = append(zones, "sink: zone-less values read in "+c.SinkZone)
	}
	if len(zones) > 0 {
		text += " (" + strings.Join(zones, "; ") + ")"
	}
	return text
}

func replayView(s *evidence.Replay) *ReplayView {
	if s == nil {
		return nil
	}
	v := &ReplayView{Window: s.Window, EventTime: s.EventTime, TimeZone: s.TimeZone, Emission: s.Emission,
		RestartFiles: s.RestartFiles, Notes: s.RestartNotes, Unexplained: counts(s.Unexplained), UnexplainedKeys: s.UnexplainedKeys}
	for _, r := range s.Restarts {
		rv := RestartView{No: r.No, Time: r.Time.UTC(), At: r.Time.UTC().Format("2006-01-02 15:04:05"), Checkpoint: "unknown", Barrier: "–", Keys: r.Keys, Findings: counts(r.Findings)}
		if r.RestoredCheckpoint >= 0 {
			rv.Checkpoint, rv.RestoredKnown = fmt.Sprint(r.RestoredCheckpoint), true
		}
		if r.RestoredCheckpointTime != nil {
			rv.Barrier = r.RestoredCheckpointTime.UTC().Format("2006-01-02 15:04:05")
		}
		v.Restarts = append(v.Restarts, rv)
	}
	return v
}

// counts lists {check: n} in check-id order.
func counts(m map[string]int64) []Count {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]Count, len(ks))
	for i, k := range ks {
		out[i] = Count{Check: k, N: m[k]}
	}
	return out
}

// countList renders counts as "check n, …" ("none" when empty).
func countList(cs []Count) string {
	if len(cs) == 0 {
		return "none"
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s %d", c.Check, c.N)
	}
	return strings.Join(out, ", ")
}

// flatten lists v's JSON form as (dotted key, value) pairs in key order;
// lists of scalars are joined with ", ".
func flatten(v any) ([][2]string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	var out [][2]string
	var walk func(prefix string, t any)
	walk = func(prefix string, t any) {
		switch t := t.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, t[k])
			}
		case []any:
			scalars := make([]string, 0, len(t))
			for _, e := range t {
				switch e.(type) {
				case map[string]any, []any:
				default:
					scalars = append(scalars, scalar(e))
				}
			}
			if len(scalars) == len(t) {
				out = append(out, [2]string{prefix, strings.Join(scalars, ", ")})
				return
			}
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		default:
			out = append(out, [2]string{prefix, scalar(t)})
		}
	}
	walk("", tree)
	return out, nil
}

// scalar renders a JSON value: text as is, anything else as JSON.
func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		d, _ := json.Marshal(v)
		return string(d)
	}
}

// aggregateText is an aggregate as a spec writes it: sum(amount).
func aggregateText(a evidence.Aggregate) string {
	if a.Distinct {
		return fmt.Sprintf("%s(distinct %s)", a.Func, a.Arg)
	}
	return fmt.Sprintf("%s(%s)", a.Func, a.Arg)
}
