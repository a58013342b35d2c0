package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var runDay = time.Date(2026, 11, 30, 23, 30, 0, 0, time.FixedZone("X", -2*3600)) // 2026-12-01 in UTC

func writeSpec(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "specs", "ledger.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every string of the spec is expanded — URIs, globs, a query in the
// options, out, name, restarts, history — before relative paths are
// resolved, and the parameters used are recorded.
func TestLoadWithExpandsEveryString(t *testing.T) {
	t.Setenv("RECONCILE_TEST_DB", "ledger")
	path := writeSpec(t, `name: ledger-${day}
source: exports/day=${day}/*.csv
sink:
  uri: postgres://reader@db/${env:RECONCILE_TEST_DB}
  query: SELECT * FROM postings WHERE day = '${day}' AND tag = '$${literal}'
  columns: ['a_${day}', b]
id: [entry_id]
out: ../evidence/${day}/../ledger-${run_date}
history: ../evidence/history-${day}.duckdb
`)
	p, err := NewParams(map[string]string{"day": "2026-11-29"}, runDay)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadWith(path, p)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(path))
	checks := []struct{ field, got, want string }{
		{"name", s.Name, "ledger-2026-11-29"},
		{"source", s.Source.URI, "exports/day=2026-11-29/*.csv"},
		{"sink", s.Sink.URI, "postgres://reader@db/ledger"},
		{"query", s.Sink.Options["query"].(string), "SELECT * FROM postings WHERE day = '2026-11-29' AND tag = '${literal}'"},
		{"columns[0]", s.Sink.Options["columns"].([]any)[0].(string), "a_2026-11-29"},
		// ${day}/.. is resolved after expansion: the folder named by the day, then up.
		{"out", s.Out, filepath.Join(root, "evidence", "ledger-2026-12-01")},
		{"history", s.History, filepath.Join(root, "evidence", "history-2026-11-29.duckdb")},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	want := map[string]string{"day": "2026-11-29", "run_date": "2026-12-01", "env:RECONCILE_TEST_DB": EnvValue}
	if !reflect.DeepEqual(s.Params, want) {
		t.Errorf("Params = %v, want %v", s.Params, want)
	}
	if u := p.Unused(); len(u) != 0 {
		t.Errorf("Unused = %v", u)
	}
}

// An unknown or unset parameter is a spec error (exit 2) naming the field
// and the parameter; every one is reported at once.
func TestExpandErrors(t *testing.T) {
	os.Unsetenv("RECONCILE_TEST_UNSET")
	tests := []struct {
		name, yaml string
		params     map[string]string
		want       []string
	}{
		{"unknown parameter", "source: s-${day}.csv\nsink: k.csv\nid: [id]\nout: x\n", nil,
			[]string{"source.uri: ${day}: unknown parameter day: give --param day=VALUE"}},
		{"misspelt parameter", "source: s-${dya}.csv\nsink: k-${day}.csv\nid: [id]\nout: x\n", map[string]string{"day": "1"},
			[]string{"source.uri: ${dya}: unknown parameter dya", "known: day, run_date"}},
		{"unset environment variable", "source: s.csv\nsink: k.csv\nid: [id]\nout: ${env:RECONCILE_TEST_UNSET}\n", nil,
			[]string{"out: ${env:RECONCILE_TEST_UNSET}: environment variable RECONCILE_TEST_UNSET is not set"}},
		{"unclosed", "source: s-${day.csv\nsink: k.csv\nid: [id]\nout: x\n", map[string]string{"day": "1"},
			[]string{"source.uri", "without a closing }"}},
		{"two at once", "source: s-${a}.csv\nsink: k.csv\nid: ['${b}']\nout: x\n", nil,
			[]string{"unknown parameter a", "id[0]: ${b}: unknown parameter b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewParams(tt.params, runDay)
			if err != nil {
				t.Fatal(err)
			}
			_, err = LoadWith(writeSpec(t, tt.yaml), p)
			if err == nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

// A --param that no spec uses is reported (it would change nothing,
// silently); run_date cannot be given, and a bad name is refused.
func TestParamsGiven(t *testing.T) {
	p, err := NewParams(map[string]string{"day": "2026-11-29", "dya": "x"}, runDay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWith(writeSpec(t, "source: ${day}.csv\nsink: k.csv\nid: [id]\nout: x\n"), p); err != nil {
		t.Fatal(err)
	}
	if got := p.Unused(); !reflect.DeepEqual(got, []string{"dya"}) {
		t.Errorf("Unused = %v, want [dya]", got)
	}
	for _, bad := range []map[string]string{{"run_date": "2026-01-01"}, {"1day": "x"}, {"a-b": "x"}} {
		if _, err := NewParams(bad, runDay); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewParams(%v) = %v, want ErrInvalid", bad, err)
		}
	}
	for _, kv := range []string{"day", "=x"} {
		if _, _, err := ParseParam(kv); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseParam(%q) = %v, want ErrInvalid", kv, err)
		}
	}
	if n, v, err := ParseParam("q=a=b"); err != nil || n != "q" || v != "a=b" {
		t.Errorf("ParseParam(q=a=b) = %q, %q, %v", n, v, err)
	}
}

// A value is inserted as text: it never changes the spec's structure, and
// a value holding "${" is not expanded again.
func TestExpandIsText(t *testing.T) {
	p, err := NewParams(map[string]string{"v": "x: [1, 2] # ${v}"}, runDay)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadWith(writeSpec(t, "source: a-${v}\nsink: k.csv\nid: [id]\nout: x\n"), p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a-x: [1, 2] # ${v}"; s.Source.URI != want {
		t.Errorf("source = %q, want %q", s.Source.URI, want)
	}
}
