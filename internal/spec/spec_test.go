package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    *Spec
		wantErr string
	}{
		{
			name: "short and long inputs, scalar and list columns",
			yaml: "source: a.csv\nsink: {uri: 'exports/*.csv', delimiter: ';'}\nid: entry_id\nmeasures: [amount, fee]\n",
			want: &Spec{Source: Input{URI: "a.csv"}, Sink: Input{URI: "exports/*.csv", Options: map[string]any{"delimiter": ";"}},
				ID: []string{"entry_id"}, Measures: []string{"amount", "fee"}},
		},
		{name: "unknown key", yaml: "source: a.csv\nmeasure: [amount]\n", wantErr: "unknown key measure"},
		{name: "mapping without uri", yaml: "source: {table: t}\n", wantErr: "needs uri:"},
		{name: "not yaml", yaml: "source: [a\n", wantErr: "spec: invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Source, tt.want.Source) || !reflect.DeepEqual(got.Sink, tt.want.Sink) ||
				!reflect.DeepEqual(got.ID, tt.want.ID) || !reflect.DeepEqual(got.Measures, tt.want.Measures) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Relative paths in a spec file are relative to the file's folder.
func TestLoadResolvesOut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "specs", "ledger.yaml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("source: s.csv\nsink: k.csv\nid: [id]\nout: ../evidence/x\n"), 0o644)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "evidence", "x"); s.Out != want {
		t.Errorf("Out = %s, want %s", s.Out, want)
	}
	if s.Dir != filepath.Join(dir, "specs") {
		t.Errorf("Dir = %s", s.Dir)
	}
}

func TestValidateReportsEverything(t *testing.T) {
	err := (&Spec{Measures: []string{"amount", "amount"}}).Validate()
	if err == nil || !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	for _, want := range []string{"source is required", "sink is required", "out is required", "named twice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

func TestSplitColumns(t *testing.T) {
	if got := SplitColumns(" region , sub "); !reflect.DeepEqual(got, []string{"region", "sub"}) {
		t.Errorf("got %q", got)
	}
	if got := SplitColumns(""); got != nil {
		t.Errorf("got %q, want nil", got)
	}
}

// The same invalid spec gets the same message every time, its problems in
// the order of the spec's keys (Validate once ranged over maps: the same
// bad flags gave three different messages in twelve runs). Map iteration
// order is randomised per range statement, so 100 runs of a message built
// that way would differ with near certainty.
func TestValidateIsDeterministic(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{
			name: "every column list named twice",
			spec: Spec{
				Source: Input{URI: "s.csv"}, Sink: Input{URI: "k.csv"}, Out: "ev",
				ID: []string{"id", "id"}, Measures: []string{"amount", "", "amount"}, GroupBy: []string{"account", "account"},
				LogicalKey: []string{"", "key", "key"},
				Watermark:  "wm", Emission: &Emission{LastBy: "seq"}, Restarts: "flink/",
			},
			want: "spec: invalid: id: column id named twice; measures: empty column name; measures: column amount named twice; " +
				"group_by: column account named twice; logical_key: empty column name; logical_key: column key named twice; " +
				"watermark is only meaningful with reperform: (a windowed sink); emission is only meaningful with reperform: (a windowed sink); " +
				"restarts is only meaningful with checkpoint: (the sink column of each write's checkpoint id, by which duplicate copies are attributed to restarts) or reperform: (a windowed sink)",
		},
		{
			name: "windowed spec with record-level keys",
			spec: Spec{
				Source: Input{URI: "s.csv"}, Sink: Input{URI: "k.csv"}, Out: "ev",
				ID: []string{"id"}, Measures: []string{"amount"}, GroupBy: []string{"g", "g"},
				Reperform: &Reperform{WindowEnd: "we", WindowStart: "ws", GroupBy: columns{""},
					Aggregates: Aggregates{{Column: "n", Func: "count", Arg: "*"}, {Column: "n", Func: "sum", Arg: "x"}}},
			},
			want: "spec: invalid: group_by: column g named twice; reperform.event_time is required: the source column holding each event's timestamp; " +
				"reperform.window.size is required and must be positive (such as 1h); " +
				"reperform: give exactly one of window_end and window_start (the sink column naming each row's window); " +
				"reperform.aggregates: column n named twice; reperform.group_by: empty column name; " +
				"measures and reperform exclude each other: reperform.aggregates say which sink columns are compared; " +
				"id and reperform exclude each other: a windowed sink's rows are identified by window and group (reperform.group_by)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 100 {
				err := tt.spec.Validate()
				if err == nil {
					t.Fatal("no error")
				}
				if err.Error() != tt.want {
					t.Fatalf("run %d:\n got %s\nwant %s", i, err, tt.want)
				}
			}
		})
	}
}

func TestInputTimeZone(t *testing.T) {
	s, err := Parse([]byte("source: a.csv\nsink: {uri: b.csv, time_zone: Asia/Shanghai, delimiter: ';'}\nid: [id]\nout: ev\ntime_zone: Europe/Berlin\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ZoneOf("sink"); got != "Asia/Shanghai" {
		t.Errorf("sink zone %q", got)
	}
	if got := s.ZoneOf("source"); got != "Europe/Berlin" {
		t.Errorf("source zone %q, want the spec's", got)
	}
	if _, ok := s.Sink.Options["time_zone"]; ok || s.Sink.Options["delimiter"] != ";" {
		t.Errorf("options %v: time_zone must leave the kind's options, delimiter stay", s.Sink.Options)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	s.Sink.TimeZone = "Mars/Olympus"
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), `sink.time_zone: "Mars/Olympus"`) {
		t.Errorf("Validate = %v, want the bad zone named", err)
	}
	s2, _ := Parse([]byte("source: a.csv\nsink: b.csv\nid: [id]\nout: ev\n"))
	if got := s2.ZoneOf("sink"); got != "UTC" {
		t.Errorf("default zone %q", got)
	}
}

// duplicates: is a list of columns like group_by (one name or a list);
// an empty or repeated name is refused, and so is the key for a windowed
// sink (reperform:), whose repeated windows duplicate_keys lists.
func TestDuplicatesKey(t *testing.T) {
	base := "source: a.csv\nsink: b.csv\nout: e\n"
	s, err := Parse([]byte(base + "duplicates: aid\n"))
	if err != nil || !reflect.DeepEqual(s.Duplicates, []string{"aid"}) {
		t.Fatalf("one name: %+v, %v", s, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"id: [id]\nduplicates: [aid, tid, aid]\n", "duplicates: column aid named twice"},
		{"id: [id]\nduplicates: [aid, '']\n", "duplicates: empty column name"},
		{"reperform: {event_time: t, window: {size: 1h}, window_end: w, aggregates: {n: count(*)}}\nduplicates: [aid]\n", "duplicates applies to inputs of records or postings"},
		{"id: [id]\nduplicates: [aid, tid]\n", ""},
	} {
		s, err := Parse([]byte(base + tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.yaml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
