// Package ducktype names DuckDB's types without linking DuckDB: the one
// Arrow-to-DuckDB type map (FromArrow), for the input kinds, and the
// integer types, for the packages that decide by a column's type what its
// values are (checks: how a column is compared and how many digits a
// measure needs; load: what a declared type or a value format applies to;
// report: how a value is laid out). The
// names are DuckDB's own, in upper case, as its catalog and typeof() write
// them (DuckDB documentation, "Numeric Types": Integer Types). A type
// DuckDB adds is added here once.
//
// It is a package of its own beside internal/duck, not part of it, so that
// a package that only names types (report) does not link DuckDB.
package ducktype

import "slices"

// Integers are DuckDB's integer types, signed then unsigned, narrowest
// first.
var Integers = []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}

// IntegerAliases are the other names of integer types reconcile reads in
// a declared type or a catalog: INT (INTEGER), INT2 (SMALLINT), INT4
// (INTEGER) and INT8 (BIGINT).
var IntegerAliases = []string{"INT", "INT2", "INT4", "INT8"}

// integerDigits is the number of decimal digits of the largest value of
// each integer type (UBIGINT's 18446744073709551615 has 20).
var integerDigits = map[string]int{
	"TINYINT": 3, "SMALLINT": 5, "INTEGER": 10, "BIGINT": 19, "HUGEINT": 39,
	"UTINYINT": 3, "USMALLINT": 5, "UINTEGER": 10, "UBIGINT": 20, "UHUGEINT": 39,
}

// IsInteger reports whether typ is one of Integers (exactly, upper case).
func IsInteger(typ string) bool { return slices.Contains(Integers, typ) }

// IsIntegerName reports whether typ is one of Integers or IntegerAliases
// (exactly, upper case).
func IsIntegerName(typ string) bool { return IsInteger(typ) || slices.Contains(IntegerAliases, typ) }

// IntegerDigits is the number of decimal digits the values of integer type
// typ (one of Integers, exactly) can have: 20 at most for the 64-bit and
// narrower types, 39 for HUGEINT and UHUGEINT; 0 for any other type.
func IntegerDigits(typ string) int { return integerDigits[typ] }
