package spec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const windowed = `
source: events.csv
sink: report.csv
reperform:
  event_time: event_time
  window: {size: 10m, slide: 5m, offset: 1m}
  window_end: window_end
  group_by: account
  aggregates: {revenue: sum(amount), events: count(*), users: count(distinct user_id)}
checkpoint: checkpoint_id
watermark: watermark
emission: {last_by: emit_seq}
restarts: flink/
time_zone: Europe/Berlin
out: ev
`

func TestParseReperform(t *testing.T) {
	s, err := Parse([]byte(windowed))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("a windowed spec needs no id: %v", err)
	}
	r := s.Reperform
	if r.Window.Size != Duration(10*time.Minute) || r.Window.Slide != Duration(5*time.Minute) || r.Window.Offset != Duration(time.Minute) || !r.Window.Sliding() {
		t.Errorf("window %+v", r.Window)
	}
	if got := r.Window.String(); got != "sliding 10m every 5m, offset 1m" {
		t.Errorf("window %q", got)
	}
	var as []string
	for _, a := range r.Aggregates {
		as = append(as, a.Column+"="+a.String())
	}
	// The spec's order, not a map's.
	if got := strings.Join(as, " "); got != "revenue=sum(amount) events=count(*) users=count(distinct user_id)" {
		t.Errorf("aggregates %s", got)
	}
	if len(r.GroupBy) != 1 || s.LastByColumn() != "emit_seq" || s.Zone() != "Europe/Berlin" || s.Restarts != "flink/" {
		t.Errorf("spec %+v", s)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"1h": time.Hour, "1d": 24 * time.Hour, "2d12h": 60 * time.Hour, "-1h": -time.Hour, "-1d": -24 * time.Hour, "90s": 90 * time.Second} {
		got, err := ParseDuration(in)
		if err != nil || time.Duration(got) != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, time.Duration(got), err, want)
		}
	}
	for _, in := range []string{"", "1w", "d", "1d-2h"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q): no error", in)
		}
	}
	if got := Duration(24 * time.Hour).String(); got != "1d" {
		t.Errorf("1d renders as %q", got)
	}
}

func TestReperformInvalid(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown key", strings.Replace(windowed, "window_end: window_end", "window_end: window_end\n  windw: 1h", 1), "windw"},
		{"unknown emission key", strings.Replace(windowed, "{last_by: emit_seq}", "{last: emit_seq}", 1), `unknown key "last"`},
		{"bad aggregate", strings.Replace(windowed, "sum(amount)", "avg(amount)", 1), "want sum(col)"},
		{"bad emission", strings.Replace(windowed, "{last_by: emit_seq}", "first", 1), "want all or {last_by: column}"},
		{"both window columns", strings.Replace(windowed, "window_end: window_end", "window_end: e\n  window_start: s", 1), "exactly one of window_end and window_start"},
		{"offset too large", strings.Replace(windowed, "offset: 1m", "offset: 5m", 1), "offset must be smaller"},
		{"slide above size", strings.Replace(windowed, "slide: 5m", "slide: 20m", 1), "slide must be positive and at most the size"},
		{"id and reperform", windowed + "id: [x]\n", "id and reperform exclude each other"},
		{"watermark without reperform", "source: a.csv\nsink: b.csv\nid: x\nout: o\nwatermark: w\n", "watermark is only meaningful with reperform"},
		{"restarts without checkpoint", "source: a.csv\nsink: b.csv\nid: x\nout: o\nrestarts: r.csv\n", "restarts is only meaningful with checkpoint: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.yaml))
			if err == nil {
				err = s.Validate()
			}
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// A record-level control with a checkpoint column takes restarts: (issue
// 34): its duplicate copies are attributed to restarts by checkpoint id.
func TestRestartsWithCheckpoint(t *testing.T) {
	s, err := Parse([]byte("source: a.csv\nsink: b.csv\nid: x\nout: o\ncheckpoint: cp\nrestarts: r.csv\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("restarts: with checkpoint: refused: %v", err)
	}
}
