package load_test

import (
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/load"
)

// A comma in a number names the option that reads the value as written:
// commas grouping thousands before a decimal point, or more than one of
// them, are a thousands separator (1,000.00 is not a decimal comma); one
// comma before three digits alone is either, and both are named; any other
// comma is a decimal comma.
func TestCommaHint(t *testing.T) {
	for _, c := range []struct {
		value     string
		want, not []string
	}{
		{"1,000.00", []string{`thousands: "," on the input`, `the decimal separator stays "."`}, []string{"decimal_separator"}},
		{"-12,345,678.9", []string{`thousands: "," on the input`}, []string{"decimal_separator"}},
		{"1,234,567", []string{`thousands: "," on the input`}, []string{"decimal_separator"}},
		{"1,000", []string{`thousands: "," on the input if it is 1000`, `decimal_separator: "," on the input if it is 1.000`, "nothing is guessed"}, nil},
		{"12,50", []string{`decimal_separator: "," on the input`}, []string{`thousands: ","`}},
		{"1.234,50", []string{`decimal_separator: "," on the input (and thousands: "." if 1.234,50 is grouped)`}, nil},
		{"1,0000.5", []string{`decimal_separator: ","`}, []string{`thousands: ","`}},
	} {
		got := load.CommaHint(c.value, " on the input")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.value, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q has %q", c.value, got, n)
			}
		}
	}
}
