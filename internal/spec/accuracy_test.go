package spec

import (
	"strings"
	"testing"
	"time"
)

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in, kind, amount string
		dur              time.Duration
		wantErr          bool
	}{
		{in: "0.01", kind: ToleranceAbsolute, amount: "0.01"},
		{in: "1.00", kind: ToleranceAbsolute, amount: "1.00"},
		{in: ".5", kind: ToleranceAbsolute, amount: "0.5"},
		{in: "0", kind: ToleranceAbsolute, amount: "0"},
		{in: "0.1%", kind: ToleranceRelative, amount: "0.001"},
		{in: "25%", kind: ToleranceRelative, amount: "0.25"},
		{in: "150 %", kind: ToleranceRelative, amount: "1.50"},
		{in: "0.05%", kind: ToleranceRelative, amount: "0.0005"},
		{in: "2s", kind: ToleranceDuration, dur: 2 * time.Second},
		{in: "500ms", kind: ToleranceDuration, dur: 500 * time.Millisecond},
		{in: "1d", kind: ToleranceDuration, dur: 24 * time.Hour},
		{in: "-0.01", wantErr: true},
		{in: "1e-3", wantErr: true},
		{in: "0,01", wantErr: true},
		{in: "-2s", wantErr: true},
		{in: "%", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseTolerance(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseTolerance(%q) = %+v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTolerance(%q): %v", tt.in, err)
			continue
		}
		if got.Kind != tt.kind || got.Amount != tt.amount || time.Duration(got.Duration) != tt.dur || got.Text != tt.in {
			t.Errorf("ParseTolerance(%q) = %+v, want kind %s amount %q duration %s", tt.in, got, tt.kind, tt.amount, tt.dur)
		}
	}
}

// A tolerance is read from the YAML text, never through a float: 1.00 and
// 0.1 keep their digits.
func TestParseAccuracyKeys(t *testing.T) {
	s, err := Parse([]byte(`source: s.csv
sink: k.csv
id: [id]
measures: [amount]
ignore: [posted_at]
normalize: {name: [trim, casefold]}
tolerance: {amount: 0.10, fx_rate: "0.1%", settled_at: 2s}
balance_tolerance: {amount: 1.00}
allow_empty: sink
out: ev
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := s.Tolerance["amount"].Amount; got != "0.10" {
		t.Errorf("tolerance amount = %q, want 0.10", got)
	}
	if got := s.BalanceTolerance["amount"].Text; got != "1.00" {
		t.Errorf("balance_tolerance amount = %q, want 1.00", got)
	}
	if got := s.Tolerance["settled_at"]; got.Kind != ToleranceDuration || time.Duration(got.Duration) != 2*time.Second {
		t.Errorf("tolerance settled_at = %+v", got)
	}
	if got := strings.Join(s.Normalize["name"], ","); got != "trim,casefold" {
		t.Errorf("normalize name = %q", got)
	}
	if len(s.AllowEmpty) != 1 || s.AllowEmpty[0] != "sink" || len(s.Ignore) != 1 {
		t.Errorf("allow_empty %v, ignore %v", s.AllowEmpty, s.Ignore)
	}
}

// normalize: takes strip_leading_zeros besides trim and casefold, and an
// id or group column whether or not it is compared: a group column in
// ignore: is still grouped after normalising (issue 31, item 4).
func TestNormalizeKeys(t *testing.T) {
	s, err := Parse([]byte(`source: s.csv
sink: k.csv
id: [entry_id]
group_by: [account]
ignore: [account]
normalize: {entry_id: [trim, strip_leading_zeros], account: [casefold]}
out: ev
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Normalize["entry_id"], ","); got != "trim,strip_leading_zeros" {
		t.Errorf("normalize entry_id = %q", got)
	}
}

func TestValidateAccuracy(t *testing.T) {
	base := "source: s.csv\nsink: k.csv\nout: ev\n"
	tests := []struct{ name, yaml, want string }{
		{"compare and ignore", "id: [id]\ncompare: [a]\nignore: [b]\n", "not both"},
		{"id compared", "id: [id]\ncompare: [id]\n", "is an id column"},
		{"twice", "id: [id]\nignore: [a, a]\n", "named twice"},
		{"bad normalisation", "id: [id]\nnormalize: {a: [upper]}\n", `"upper": want trim, casefold or strip_leading_zeros`},
		{"no normalisation", "id: [id]\nnormalize: {a: []}\n", "list at least one of trim, casefold, strip_leading_zeros"},
		{"normalisation twice", "id: [id]\nnormalize: {id: [strip_leading_zeros, strip_leading_zeros]}\n", "strip_leading_zeros named twice"},
		{"normalised but ignored", "id: [id]\nignore: [a]\nnormalize: {a: [trim]}\n", "in ignore"},
		{"balance of no measure", "id: [id]\nmeasures: [amount]\nbalance_tolerance: {fee: 1}\n", "not a measure"},
		{"balance by duration", "id: [id]\nmeasures: [amount]\nbalance_tolerance: {amount: 2s}\n", "is a duration"},
		{"allow_empty", "id: [id]\nallow_empty: [both]\n", "want source and/or sink"},
		{"windowed compare", "reperform: {event_time: t, window: {size: 1h}, window_end: w, aggregates: {n: count(*)}}\ncompare: [a]\n", "compare applies to a sink of records"},
		{"bad tolerance", "id: [id]\ntolerance: {a: 1e3}\n", "tolerance \"1e3\""},
		{"tolerance list", "id: [id]\ntolerance: {a: [1]}\n", "one value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(base + tt.yaml))
			if err == nil {
				err = s.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
