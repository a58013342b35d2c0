package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// A base-10000 "digit" above 9999 is refused, not read by place value:
// ndigits 1, weight 0, sign +, dscale 0, digit 0x2710 (10000) read as the
// number 10000 (found by FuzzNumeric, seed digit-10000). PostgreSQL's
// numeric_recv refuses such a value and a server never sends one; pgFill
// adds file, row and column to the error. The largest digit, 9999, reads.
func TestDecodeNumericRefusesDigitAbove9999(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    []byte
		want string // the error, or "" for the value 9999
	}{
		{"10000", []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}, "numeric digit 1 of 1 is 10000, not a base-10000 digit"},
		{"65535, second digit", []byte{0, 2, 0, 1, 0x40, 0, 0, 0, 0, 1, 0xff, 0xff}, "numeric digit 2 of 2 is 65535, not a base-10000 digit"},
		{"9999", []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x0f}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dt := sqlserver.DecimalType(20, 2)
			c := pgColumn{Name: "amount", OID: oidNumeric, Arrow: dt}
			b := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
			defer b.Release()
			err := appenderFor(&c, b)(tt.v)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("err = %v, want the value 9999", err)
			case tt.want == "":
				a := b.NewDecimal128Array()
				defer a.Release()
				if got := a.Value(0); got != decimal128.FromI64(999900) {
					t.Errorf("read unscaled %s, want 999900 (9999.00)", got.BigInt())
				}
			case !errors.Is(err, errPGValue) || !strings.Contains(err.Error(), tt.want):
				t.Errorf("err = %v, want errPGValue saying %q", err, tt.want)
			}
		})
	}
}
