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

// The comparison table's tolerance column says whether a tolerance is the
// default's and why a column under a default is compared exactly (issue
// 31, item 5).
func TestToleranceTextDefault(t *testing.T) {
	for _, c := range []struct {
		col  evidence.ComparedColumn
		want string
	}{
		{evidence.ComparedColumn{Tolerance: "0.01"}, "0.01"},
		{evidence.ComparedColumn{Tolerance: "0.01", ToleranceFrom: "default"}, "0.01 (default)"},
		{evidence.ComparedColumn{NoTolerance: "default tolerance 0.01 does not apply to VARCHAR"}, "none (default tolerance 0.01 does not apply to VARCHAR)"},
		{evidence.ComparedColumn{}, ""},
	} {
		if got := toleranceText(c.col); got != c.want {
			t.Errorf("toleranceText(%+v) = %q, want %q", c.col, got, c.want)
		}
	}
}
