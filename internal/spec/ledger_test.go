package spec

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A balance control: group_by and measures without id is valid; grain:
// and opening: are read; the opening's rename: takes the flag's text form
// too.
func TestBalanceControl(t *testing.T) {
	s, err := Parse([]byte(`source: history.csv
sink: {uri: accounts.csv, rename: "abalance:delta"}
opening: {uri: opening.csv, rename: {abalance: delta}, time_zone: Europe/Berlin}
group_by: [aid]
measures: [delta]
grain: {sink: balance}
allow_empty: [opening]
out: ev
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !s.BalanceControl() {
		t.Error("not a balance control")
	}
	if want := map[string]string{"abalance": "delta"}; !reflect.DeepEqual(s.Sink.Rename, want) || !reflect.DeepEqual(s.Opening.Rename, want) {
		t.Errorf("renames %v, %v", s.Sink.Rename, s.Opening.Rename)
	}
	if s.Opening.URI != "opening.csv" || s.Opening.TimeZone != "Europe/Berlin" || s.ZoneOf(RoleOpening) != "Europe/Berlin" {
		t.Errorf("opening %+v", s.Opening)
	}
	for role, want := range map[string]string{RoleSource: GrainPosting, RoleSink: GrainBalance, RoleOpening: GrainBalance} {
		if got := s.GrainOf(role); got != want {
			t.Errorf("GrainOf(%s) = %s, want %s", role, got, want)
		}
	}
	// Without grain:, both inputs are postings.
	if g := (&Spec{}).GrainOf(RoleSink); g != GrainPosting {
		t.Errorf("default grain %s", g)
	}
}

func TestValidateLedger(t *testing.T) {
	base := "source: s.csv\nsink: k.csv\nout: ev\n"
	balance := "group_by: [aid]\nmeasures: [delta]\n"
	tests := []struct{ name, yaml, want string }{
		{"no id, no group_by", "measures: [delta]\n", "id is required"},
		{"no id, no measures", "group_by: [aid]\n", "needs group_by and measures instead"},
		{"grain with an id", "id: [id]\n" + balance + "grain: {sink: balance}\n", "grain: is a key of a balance control"},
		{"opening with an id", "id: [id]\n" + balance + "opening: o.csv\n", "opening: is a key of a balance control"},
		{"opening of a windowed sink", "reperform: {event_time: t, window: {size: 1h}, window_end: w, aggregates: {n: count(*)}}\nopening: o.csv\n", "it has reperform:"},
		{"bad grain", balance + "grain: {sink: balances}\n", `grain.sink: "balances": want posting`},
		{"unknown grain key", balance + "grain: {closing: balance}\n", "unknown key closing under grain"},
		{"opening at posting grain", balance + "opening: o.csv\ngrain: {opening: posting}\n", "always at balance grain"},
		{"grain of no opening", balance + "grain: {opening: balance}\n", "grain.opening: the spec has no opening:"},
		{"empty opening", balance + "opening: ''\n", "opening: a path, glob or connection URI is required"},
		{"opening without uri", balance + "opening: {rename: {a: b}}\n", "needs uri:"},
		{"opening zone", balance + "opening: {uri: o.csv, time_zone: Mars/Olympus}\n", "opening.time_zone"},
		{"opening rename", balance + "opening: {uri: o.csv, rename: {a: a}}\n", "opening.rename: column a is renamed to itself"},
		{"checkpoint", balance + "checkpoint: cp\n", "checkpoint: a balance control"},
		{"logical key", balance + "logical_key: [k]\n", "logical_key: a balance control"},
		{"compare", balance + "compare: [bid]\n", "compare: a balance control"},
		{"tolerance", balance + "tolerance: {delta: 1}\n", "tolerance: a balance control"},
		{"allow_empty opening without one", balance + "allow_empty: [opening]\n", "allow_empty: opening: the spec has no opening:"},
		{"allow_empty with an opening", balance + "opening: o.csv\nallow_empty: [closing]\n", "want source, sink and/or opening"},
		{"pct measure", "id: [id]\nmeasures: [amount, pct_amount]\n", "two columns difference_pct_amount"},
		{"rename text", balance + "opening: {uri: o.csv, rename: abalance}\n", "rename=abalance: want the input's name:the control's name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(base + tt.yaml))
			if err == nil {
				err = s.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

// ${parameters} are replaced in the opening's URI and options as in the
// other inputs'.
func TestOpeningExpanded(t *testing.T) {
	s, err := Parse([]byte("source: s.csv\nsink: k.csv\nopening: {uri: 'balances/day=${prev}.csv', delimiter: ';'}\ngroup_by: [a]\nmeasures: [m]\nout: ev\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewParams(map[string]string{"prev": "2026-11-29"}, runDay)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Expand(p); err != nil {
		t.Fatal(err)
	}
	if s.Opening.URI != "balances/day=2026-11-29.csv" || s.Params["prev"] != "2026-11-29" {
		t.Errorf("opening %+v, params %v", s.Opening, s.Params)
	}
}
