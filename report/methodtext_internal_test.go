package report

import (
	"testing"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The comparison table says how an interval column was compared: field by
// field, not "interval" alone nor DuckDB's equality (issue 30, item 2).
func TestMethodTextInterval(t *testing.T) {
	got := methodText(evidence.ComparedColumn{Column: "d", SourceType: "INTERVAL", SinkType: "VARCHAR", Method: "interval"})
	if want := "interval, field by field (months, days, microseconds)"; got != want {
		t.Errorf("methodText = %q, want %q", got, want)
	}
}
