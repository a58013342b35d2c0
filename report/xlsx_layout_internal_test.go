package report

import (
	"strings"
	"testing"
)

// TestTextWidth: the measure of text against widths LibreOffice printed
// (Carlito 11, the PDF's glyph boxes over the digit width), erring wide by
// at most a tenth.
func TestTextWidth(t *testing.T) {
	for _, c := range []struct {
		s       string
		printed float64 // in digits
	}{
		{"0000000000", 10},
		{"Column left uncompared", 19.92},
		{"abcdefghijklmnopqrstuvwxyz", 23.36},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ", 28.38},
		{"5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e", 31.72},
		{"key_checkpoint_conflicts", 20.21},
		{"exceptions/key_checkpoint_conflicts.csv", 32.59},
		{"The source and the sink each hold records: a control over", 45.81},
		{"2026-12-06 02:42:58", 16.70},
	} {
		got := textWidth(c.s, false)
		if got < c.printed || got > c.printed*1.1 {
			t.Errorf("textWidth(%q) = %.2f, printed %.2f", c.s, got, c.printed)
		}
	}
}

// TestWrapLines: words fill a line while they fit, a word longer than the
// line breaks, every newline starts a line.
func TestWrapLines(t *testing.T) {
	for _, c := range []struct {
		s     string
		width float64
		want  int
	}{
		{"", 10, 1},
		{"short", 10, 1},
		{"0000 0000 0000", 10, 2}, // two four-digit words fit in 9 digits, not three
		{"0000000000000000000000000", 10, 3},
		{"a\nb\n\nc", 50, 4},
	} {
		if got := wrapLines(c.s, c.width, false); got != c.want {
			t.Errorf("wrapLines(%q, %g) = %d, want %d", c.s, c.width, got, c.want)
		}
	}
}

// TestFitWidths: content widths while the sheet fits a landscape page;
// past it, the columns over their caps narrow to a common level, never
// below their caps.
func TestFitWidths(t *testing.T) {
	same := func(a, b []float64) bool {
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return len(a) == len(b)
	}
	if got := fitWidths([]float64{20, 80, 30}, []float64{20, 40, 30}); !same(got, []float64{20, 80, 30}) {
		t.Errorf("fits the page: %v, want the content widths", got)
	}
	got := fitWidths([]float64{20, 100, 90, 10}, []float64{20, 40, 40, 10})
	total := 0.0
	for _, w := range got {
		total += w
	}
	if total > landscapeWidth || got[1] != got[2] || got[1] < 40 || got[0] != 20 || got[3] != 10 {
		t.Errorf("too wide: %v (%g), want the two wide columns at one level ≥ 40, the rest as they are, within %g", got, total, landscapeWidth)
	}
	if got := fitWidths([]float64{100, 100, 100}, []float64{60, 60, 60}); !same(got, []float64{60, 60, 60}) {
		t.Errorf("wider than the page at the caps: %v, want the caps", got)
	}
}

// TestSQLPieces: a query longer than a row holds is cut between lines
// into pieces of at most sqlRowLines wrapped lines, which joined are the
// query.
func TestSQLPieces(t *testing.T) {
	var lines []string
	for i := range 70 {
		lines = append(lines, "SELECT "+strings.Repeat("x", i))
	}
	sql := strings.Join(lines, "\n")
	pieces := sqlPieces(sql, 40)
	if len(pieces) < 3 {
		t.Fatalf("%d pieces", len(pieces))
	}
	for i, p := range pieces {
		if n := wrapLines(p, 40, false); n > sqlRowLines {
			t.Errorf("piece %d takes %d lines", i, n)
		}
	}
	if strings.Join(pieces, "\n") != sql {
		t.Error("the pieces joined are not the query")
	}
	if got := sqlPieces("SELECT 1", 40); len(got) != 1 || got[0] != "SELECT 1" {
		t.Errorf("short query: %q", got)
	}
}
