package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/queries"
)

// measureType validates a measure in both tables (and in the opening, when
// openingType is not "": a roll-forward's third table) and returns the
// exact types for it: storage, the narrowest of DECIMAL(18,s) (a 64-bit
// integer, ten times faster to parse than a 128-bit one) and DECIMAL(38,s)
// that holds every value of the inputs; and arith, DECIMAL(38,s), for sums
// and differences. See numberType for how the digits are found and the
// errors.
func measureType(ctx context.Context, db *duck.DB, m, srcType, sinkType, openingType string) (storage, arith string, err error) {
	sides := []numberSide{{SourceTable, "source", srcType}, {SinkTable, "sink", sinkType}}
	if openingType != "" {
		sides = append(sides, numberSide{OpeningTable, "opening", openingType})
	}
	return numberTypeOf(ctx, db, "measure", m, sides)
}

// numberSide is one table a number column is sized over: its table, its
// role in messages and the column's DuckDB type there.
type numberSide struct{ table, side, typ string }

// numberType is measureType for a column that what names in messages
// ("measure", "compared column"). The digits come from the declared types
// where those fit one DECIMAL together (a DECIMAL(p,s) needs p-s integer and
// s fraction digits, a BIGINT 20 integer digits; a text column the digits its
// values are written with); where they do not — a PostgreSQL numeric without
// declared precision is DECIMAL(38,s) — from the values themselves: the
// integer digits present, then, if still too many, the fraction digits
// without trailing zeros (a cast that drops only zeros rounds nothing).
//
// Errors: measureDigits' (a floating-point or non-number type, a text value
// that is not a decimal number), or ErrValue when the values themselves
// need more than 38 digits, naming both inputs' types and the first value
// (file:line, or the input kind's location) that needs the integer digits
// and the one that needs the fraction digits.
func numberType(ctx context.Context, db *duck.DB, what, m, srcType, sinkType string) (storage, arith string, err error) {
	return numberTypeOf(ctx, db, what, m, []numberSide{{SourceTable, "source", srcType}, {SinkTable, "sink", sinkType}})
}

// numberTypeOf is numberType over sides: source and sink, and the opening
// of a roll-forward.
func numberTypeOf(ctx context.Context, db *duck.DB, what, m string, sides []numberSide) (storage, arith string, err error) {
	scale, intDigits := 0, 0
	declared := make([]int, len(sides)) // each side's scale
	for k, sd := range sides {
		s, i, err := measureDigits(ctx, db, sd.table, m, sd.typ)
		if err != nil {
			return "", "", err
		}
		declared[k] = s
		scale, intDigits = max(scale, s), max(intDigits, i)
	}
	if intDigits+scale > maxPrecision {
		// The declarations are too wide together: size from the data.
		var sig int
		scale, intDigits, sig = 0, 0, 0
		for k, sd := range sides {
			d, err := dataDigits(ctx, db, sd.table, m)
			if err != nil {
				return "", "", err
			}
			scale, intDigits, sig = max(scale, declared[k]), max(intDigits, d.intDigits), max(sig, d.significantScale)
		}
		if intDigits+scale > maxPrecision {
			scale = sig
		}
	}
	if intDigits+scale > maxPrecision {
		// The first value that does not fit beside the other digits, and,
		// unless its integer digits alone are too many, the first whose
		// fraction does not fit beside them.
		var where []string
		for _, need := range []struct {
			int         bool
			n, beside   int
			what, other string
		}{{true, maxPrecision - scale, scale, "integer", "fraction"}, {false, maxPrecision - intDigits, intDigits, "fraction", "integer"}} {
			if need.n < 0 || (!need.int && scale == 0) {
				continue
			}
			for _, sd := range sides {
				cond, err := prepareSQL.SQL(queries.PrepareDigitsOver, struct {
					Col string
					Int bool
					N   int
				}{m, need.int, need.n})
				if err != nil {
					return "", "", err
				}
				msg, ok, err := load.BadValue(ctx, db, sd.table, m, cond)
				if err != nil {
					return "", "", err
				}
				if ok {
					w := fmt.Sprintf("in the %s, %s has more than %d %s digits", sd.side, msg, need.n, need.what)
					if need.beside > 0 {
						w += fmt.Sprintf(" (%d less the %d %s digits)", maxPrecision, need.beside, need.other)
					}
					where = append(where, w)
					break
				}
			}
		}
		types := fmt.Sprintf("the source's %s is %s, the sink's %s", m, sides[0].typ, sides[1].typ)
		for _, sd := range sides[2:] {
			types += fmt.Sprintf(", the %s's %s", sd.side, sd.typ)
		}
		return "", "", tooWide{fmt.Errorf("%w: %s %s needs %d integer and %d fraction digits, more than the %d an exact DECIMAL holds (%s; no value is rounded to fit): %s",
			ErrValue, what, m, intDigits, scale, maxPrecision, types, strings.Join(where, "; "))}
	}
	arith = decimalType(maxPrecision, scale)
	storage = arith
	if intDigits+scale <= 18 {
		storage = decimalType(18, scale)
	}
	return storage, arith, nil
}

// tooWide is numberType's error for values that need more digits than one
// exact DECIMAL holds (ErrValue); its message names the column itself.
type tooWide struct{ error }

func (e tooWide) Unwrap() error { return e.error }

// digits are what prepare/number_digits.sql finds in one column.
type digits struct{ intDigits, scale, significantScale int }

// dataDigits returns the digits the values of number column m of table
// actually hold (prepare/number_digits.sql).
func dataDigits(ctx context.Context, db *duck.DB, table, m string) (digits, error) {
	_, r, err := db.StringsFile(ctx, prepareSQL, queries.PrepareNumberDigits, struct{ Table, Col string }{table, m})
	if err != nil {
		return digits{}, fmt.Errorf("the digits of %s in the %s: %w", m, table, err)
	}
	var d digits
	for i, p := range []*int{&d.intDigits, &d.scale, &d.significantScale} {
		if r[0][i] != nil {
			*p, _ = strconv.Atoi(*r[0][i])
		}
	}
	return d, nil
}
