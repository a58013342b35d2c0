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
