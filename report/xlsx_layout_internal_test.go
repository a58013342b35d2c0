package report

import "testing"

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
