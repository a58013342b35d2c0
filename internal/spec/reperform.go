package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Reperform is the `reperform:` key: how a windowed sink (one row per
// window and group, written when an event-time timer fires) was computed
// from the raw source events, so that reconcile can recompute it.
//
// Window assignment follows Apache Flink's event-time window assigners
// (TumblingEventTimeWindows.of(size, offset), SlidingEventTimeWindows.of(size,
// slide, offset); TimeWindow.getWindowStartWithOffset): windows are aligned
// to the Unix epoch plus offset on UTC instants, start inclusive, end
// exclusive.
type Reperform struct {
	// EventTime is the source column holding each event's timestamp.
	EventTime string `yaml:"event_time" json:"event_time"`
	// Window is the window assigner.
	Window Window `yaml:"window" json:"window"`
	// WindowEnd or WindowStart (exactly one) is the sink column naming the
	// window of a row.
	WindowEnd   string `yaml:"window_end,omitempty" json:"window_end,omitempty"`
	WindowStart string `yaml:"window_start,omitempty" json:"window_start,omitempty"`
	// GroupBy are the key columns, present in both inputs (may be empty:
	// one row per window).
	GroupBy columns `yaml:"group_by,omitempty" json:"group_by,omitempty"`
	// Aggregates map each sink column to the aggregate over source columns
	// that produced it, in spec order.
	Aggregates Aggregates `yaml:"aggregates" json:"aggregates"`
}

// Window is a Flink event-time window assigner: tumbling when Slide is 0.
type Window struct {
	Size   Duration `yaml:"size" json:"size"`
	Slide  Duration `yaml:"slide,omitempty" json:"slide,omitempty"`
	Offset Duration `yaml:"offset,omitempty" json:"offset,omitempty"`
}

// Sliding reports whether the window slides (Slide given and not equal to
// Size).
func (w Window) Sliding() bool { return w.Slide != 0 && w.Slide != w.Size }

// String describes the window as the spec would write it.
func (w Window) String() string {
	s := "tumbling " + w.Size.String()
	if w.Sliding() {
		s = fmt.Sprintf("sliding %s every %s", w.Size, w.Slide)
	}
	if w.Offset != 0 {
		s += ", offset " + w.Offset.String()
	}
	return s
}

// Duration is a window length: Go duration syntax ("1h", "10m", "90s",
// "-1h30m") plus a day unit "d" (exactly 24 hours: windows are on the UTC
// timeline, so a day never has 23 or 25 hours).
type Duration time.Duration

var dayUnit = regexp.MustCompile(`^([+-]?)(\d+)d(.*)$`)

// ParseDuration parses a window length.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	var days time.Duration
	sign := time.Duration(1)
	if m := dayUnit.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		if m[1] == "-" {
			sign = -1
		}
		days = time.Duration(n) * 24 * time.Hour
		s = m[3]
		if s == "" {
			return Duration(sign * days), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a number with a unit such as 1h, 10m, 1d: %w", s, err)
	}
	if d < 0 && days != 0 {
		return 0, fmt.Errorf("duration %q: a sign goes before the days", s)
	}
	return Duration(sign * (days + d)), nil
}

// UnmarshalYAML reads "1h", "1d" and the like.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 1h, 10m or 1d", n.Line)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// String renders whole days as "1d", anything else in Go syntax.
func (d Duration) String() string {
	td := time.Duration(d)
	if td != 0 && td%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", td/(24*time.Hour))
	}
	out := td.String()
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}

// Micros is the duration in microseconds, DuckDB's timestamp resolution.
func (d Duration) Micros() int64 { return time.Duration(d).Microseconds() }

// MarshalJSON writes the duration as text ("1h0m0s", "1d").
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// MarshalYAML writes the duration as text.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// Aggregate is one sink column and the aggregate that produced it.
type Aggregate struct {
	// Column is the sink column.
	Column string `json:"column"`
	// Func is sum, count, min or max (lower case).
	Func string `json:"func"`
	// Distinct is true for count(distinct col).
	Distinct bool `json:"distinct,omitempty"`
	// Arg is the source column, or "*" for count(*).
	Arg string `json:"arg"`
}

// String renders the aggregate as written in a spec: sum(amount).
func (a Aggregate) String() string {
	if a.Distinct {
		return fmt.Sprintf("%s(distinct %s)", a.Func, a.Arg)
	}
	return fmt.Sprintf("%s(%s)", a.Func, a.Arg)
}

// Aggregates keep the spec's order (a YAML mapping, read in order).
type Aggregates []Aggregate

var aggregateText = regexp.MustCompile(`(?i)^\s*(sum|count|min|max)\s*\(\s*(distinct\s+)?(\*|[^()]*?)\s*\)\s*$`)

// ParseAggregate parses "sum(amount)", "count(*)", "count(distinct s)",
// "min(x)" or "max(x)" for sink column col.
func ParseAggregate(col, expr string) (Aggregate, error) {
	m := aggregateText.FindStringSubmatch(expr)
	if m == nil || m[3] == "" {
		return Aggregate{}, fmt.Errorf("aggregate %s: %q: want sum(col), count(*), count(col), count(distinct col), min(col) or max(col)", col, expr)
	}
	a := Aggregate{Column: col, Func: strings.ToLower(m[1]), Distinct: m[2] != "", Arg: m[3]}
	if a.Arg == "*" && (a.Func != "count" || a.Distinct) {
		return Aggregate{}, fmt.Errorf("aggregate %s: %q: only count takes *", col, expr)
	}
	if a.Distinct && a.Func != "count" {
		return Aggregate{}, fmt.Errorf("aggregate %s: %q: distinct is supported with count only", col, expr)
	}
	return a, nil
}

// UnmarshalYAML reads a mapping sink_column: aggregate, in order.
func (as *Aggregates) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: aggregates: want a mapping such as {revenue: sum(amount), events: count(*)}", n.Line)
	}
	var out Aggregates
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: aggregates: %s: want text such as sum(amount)", v.Line, k.Value)
		}
		a, err := ParseAggregate(k.Value, v.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", v.Line, err)
		}
		out = append(out, a)
	}
	*as = out
	return nil
}

// MarshalYAML writes the mapping back in order.
func (as Aggregates) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, a := range as {
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: a.Column},
			&yaml.Node{Kind: yaml.ScalarNode, Value: a.String()})
	}
	return n, nil
}

// Emission is the `emission:` key: `all` (every sink row of a key is an
// emission to compare, the default) or {last_by: col} (a key may be
// emitted several times — early or late firings — and the row with the
// greatest col is the one that counts).
type Emission struct {
	LastBy string `yaml:"last_by,omitempty" json:"last_by,omitempty"`
}

// UnmarshalYAML accepts the scalar all or a mapping {last_by: col}.
func (e *Emission) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value != "all" {
			return fmt.Errorf("line %d: emission: want all or {last_by: column}, got %q", n.Line, n.Value)
		}
		*e = Emission{}
		return nil
	case yaml.MappingNode:
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "last_by" {
				return fmt.Errorf("line %d: emission: unknown key %q (want last_by)", n.Content[i].Line, k)
			}
		}
		var raw struct {
			LastBy string `yaml:"last_by"`
		}
		if err := n.Decode(&raw); err != nil {
			return err
		}
		if raw.LastBy == "" {
			return fmt.Errorf("line %d: emission: last_by needs a sink column", n.Line)
		}
		e.LastBy = raw.LastBy
		return nil
	}
	return fmt.Errorf("line %d: emission: want all or {last_by: column}", n.Line)
}

// MarshalYAML writes all or the mapping.
func (e Emission) MarshalYAML() (any, error) {
	if e.LastBy == "" {
		return "all", nil
	}
	return map[string]string{"last_by": e.LastBy}, nil
}

// LastByColumn is the last_by column, "" for emission all or no emission.
func (s *Spec) LastByColumn() string {
	if s.Emission == nil {
		return ""
	}
	return s.Emission.LastBy
}

// Zone is the declared time zone of zone-less timestamps (UTC by default).
func (s *Spec) Zone() string {
	if s.TimeZone == "" {
		return "UTC"
	}
	return s.TimeZone
}

// ZoneOf is the zone in which the zone-less timestamps of one input (role
// "source", "sink" or "opening") are read: the input's own time_zone, else the
// spec's, else UTC.
func (s *Spec) ZoneOf(role string) string {
	in := s.Source
	switch {
	case role == "sink":
		in = s.Sink
	case role == RoleOpening && s.Opening != nil:
		in = *s.Opening
	}
	if in.TimeZone != "" {
		return in.TimeZone
	}
	return s.Zone()
}

// validateReplay checks the keys of a windowed sink.
func (s *Spec) validateReplay() []string {
	var errs []string
	r := s.Reperform
	if r == nil {
		for _, k := range []struct {
			key string
			set bool
		}{{"watermark", s.Watermark != ""}, {"emission", s.Emission != nil}} {
			if k.set {
				errs = append(errs, k.key+" is only meaningful with reperform: (a windowed sink)")
			}
		}
		// A record-level sink's duplicate copies are attributed to
		// restarts by their checkpoint ids: restarts: needs them.
		if s.Restarts != "" && s.Checkpoint == "" {
			errs = append(errs, "restarts is only meaningful with checkpoint: (the sink column of each write's checkpoint id, by which duplicate copies are attributed to restarts) or reperform: (a windowed sink)")
		}
		return errs
	}
	if r.EventTime == "" {
		errs = append(errs, "reperform.event_time is required: the source column holding each event's timestamp")
	}
	w := r.Window
	switch {
	case w.Size <= 0:
		errs = append(errs, "reperform.window.size is required and must be positive (such as 1h)")
	case w.Slide < 0 || w.Slide > w.Size:
		errs = append(errs, "reperform.window.slide must be positive and at most the size")
	default:
		// Flink: abs(offset) < size for tumbling, < slide for sliding windows.
		lim := w.Size
		if w.Sliding() {
			lim = w.Slide
		}
		if w.Offset >= lim || -w.Offset >= lim {
			errs = append(errs, fmt.Sprintf("reperform.window.offset must be smaller in magnitude than the %s (Flink's window assigners require it)", map[bool]string{true: "slide", false: "size"}[w.Sliding()]))
		}
	}
	if (r.WindowEnd == "") == (r.WindowStart == "") {
		errs = append(errs, "reperform: give exactly one of window_end and window_start (the sink column naming each row's window)")
	}
	if len(r.Aggregates) == 0 {
		errs = append(errs, "reperform.aggregates is required: sink column: aggregate over source columns, such as {revenue: sum(amount)}")
	}
	seen := map[string]bool{}
	for _, a := range r.Aggregates {
		if seen[a.Column] {
			errs = append(errs, "reperform.aggregates: column "+a.Column+" named twice")
		}
		seen[a.Column] = true
	}
	for _, g := range r.GroupBy {
		if g == "" {
			errs = append(errs, "reperform.group_by: empty column name")
		}
	}
	if len(s.Measures) > 0 {
		errs = append(errs, "measures and reperform exclude each other: reperform.aggregates say which sink columns are compared")
	}
	if len(s.ID) > 0 {
		errs = append(errs, "id and reperform exclude each other: a windowed sink's rows are identified by window and group (reperform.group_by)")
	}
	return errs
}

// MarshalJSON writes "all" or {"last_by": col}, as the spec does.
func (e Emission) MarshalJSON() ([]byte, error) {
	if e.LastBy == "" {
		return json.Marshal("all")
	}
	return json.Marshal(map[string]string{"last_by": e.LastBy})
}
