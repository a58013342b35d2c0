package control

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// The spec explain --evidence rebuilds from summary.json is the one the run
// recorded: its parameters, encoded and decoded as summary.json is, give
// the same parameters again (tolerances, windows, aggregates, emission,
// options with numbers), for a sample of each kind of control.
func TestSpecOfRoundTrip(t *testing.T) {
	for _, file := range []string{
		"../../samples/ledger/at-least-once.yaml",
		"../../samples/hourly-report/spec.yaml",
		"../../samples/session-counts/spec.yaml",
		"../../cmd/reconcile/testdata/endtoend/tolerance-beyond/spec.yaml",
		"../../cmd/reconcile/testdata/endtoend/normalized-collision/spec.yaml",
		"../../cmd/reconcile/testdata/endtoend/ledger-restart/spec.yaml",
	} {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			s, err := spec.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if s.Out == "" {
				s.Out = "ev" // given by --out to the end-to-end cases
			}
			s.Source.Options = map[string]any{"delimiter": ",", "skip_rows": 1, "ratio": 0.5, "list": []any{1, "a"}}
			want := parametersOf(redactSpec(s))
			var buf bytes.Buffer
			if err := (&evidence.Summary{SchemaVersion: evidence.SchemaVersion, Parameters: want}).Encode(&buf); err != nil {
				t.Fatal(err)
			}
			decoded, err := evidence.DecodeSummary(&buf)
			if err != nil {
				t.Fatal(err)
			}
			back, err := specOf(decoded.Parameters)
			if err != nil {
				t.Fatal(err)
			}
			if err := back.Validate(); err != nil {
				t.Errorf("the rebuilt spec does not validate: %v", err)
			}
			got := parametersOf(back)
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Errorf("parameters differ:\n got %s\nwant %s", g, w)
			}
			if !reflect.DeepEqual(back.Source.Options, s.Source.Options) {
				t.Errorf("options %#v, want %#v as YAML reads them", back.Source.Options, s.Source.Options)
			}
		})
	}
}

// A password the evidence masks is left out of the URI and the options,
// so the driver takes it from the environment; nothing else changes.
func TestUnmasked(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:xxxxx@h:5432/db?table=s.t":             "postgres://u@h:5432/db?table=s.t",
		"postgres://u@h/db?password=xxxxx&table=t":           "postgres://u@h/db?table=t",
		"mysql://root:xxxxx@127.0.0.1:3306/test?table=t":     "mysql://root@127.0.0.1:3306/test?table=t",
		"host=h port=5432 user=u password=xxxxx dbname=test": "host=h port=5432 user=u dbname=test",
		"samples/ledger/source.csv":                          "samples/ledger/source.csv",
		"postgres://u@h/db?table=xxxxx":                      "postgres://u@h/db?table=xxxxx",
	} {
		if got := unmasked(in); got != want {
			t.Errorf("unmasked(%q) = %q, want %q", in, got, want)
		}
	}
	in := inputOfParameters(evidence.InputSpec{URI: "kafka://b:9092/t", Options: map[string]any{"sasl_password": "xxxxx", "group": "g"}})
	if _, ok := in.Options["sasl_password"]; ok || in.Options["group"] != "g" {
		t.Errorf("options %v: the masked password kept or another option lost", in.Options)
	}
}
