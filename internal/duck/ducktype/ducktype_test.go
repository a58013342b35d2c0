package ducktype

import (
	"math"
	"math/big"
	"strconv"
	"testing"
)

// Every integer type has its digit count, taken from the largest value
// it holds (and the smallest, for a signed type's minus sign excluded);
// the aliases are not types of their own and have none.
func TestIntegerDigits(t *testing.T) {
	hugeMax := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	uhugeMax := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	want := map[string]string{
		"TINYINT": strconv.Itoa(math.MinInt8)[1:], "SMALLINT": strconv.Itoa(math.MinInt16)[1:], "INTEGER": strconv.Itoa(math.MinInt32)[1:],
		"BIGINT": strconv.FormatInt(math.MinInt64, 10)[1:], "HUGEINT": hugeMax.String(),
		"UTINYINT": strconv.Itoa(math.MaxUint8), "USMALLINT": strconv.Itoa(math.MaxUint16), "UINTEGER": strconv.Itoa(math.MaxUint32),
		"UBIGINT": strconv.FormatUint(math.MaxUint64, 10), "UHUGEINT": uhugeMax.String(),
	}
	if len(want) != len(Integers) {
		t.Fatalf("%d types tested, %d listed", len(want), len(Integers))
	}
	for _, typ := range Integers {
		if got := IntegerDigits(typ); got != len(want[typ]) {
			t.Errorf("IntegerDigits(%s) = %d, want %d (%s)", typ, got, len(want[typ]), want[typ])
		}
		if !IsInteger(typ) || !IsIntegerName(typ) {
			t.Errorf("%s is not an integer", typ)
		}
	}
	for _, typ := range IntegerAliases {
		if IsInteger(typ) || !IsIntegerName(typ) || IntegerDigits(typ) != 0 {
			t.Errorf("alias %s: IsInteger %v, IsIntegerName %v, digits %d", typ, IsInteger(typ), IsIntegerName(typ), IntegerDigits(typ))
		}
	}
	for _, typ := range []string{"DECIMAL(18,2)", "DOUBLE", "VARCHAR", "integer", ""} {
		if IsIntegerName(typ) || IntegerDigits(typ) != 0 {
			t.Errorf("%q is taken for an integer", typ)
		}
	}
}
