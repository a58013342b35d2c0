package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/queries"
)

// ErrOverflow is returned by Run and ComputeTotals when a sum or difference
// of a measure is beyond its DECIMAL(38,s), the widest exact decimal: the
// total is not rounded to fit, so the check or the totals cannot be
// computed (exit code 3). The message names the measure, the input and the
// grouping whose sum overflowed, without the statement.
var ErrOverflow = fault.Runtime.New("checks: overflow")

// overflowError is err, or, when err is DuckDB's arithmetic overflow, an
// ErrOverflow naming which sum overflowed: each measure's sum is computed
// again on its own in each input (totals/sum_overflow.sql), per group of
// groupBy when given and in total, and the first that overflows is named;
// when none does, the difference of the sums (sink - source) or of two
// values did. what names the computation ("check sum_balance", "the
// totals").
func overflowError(ctx context.Context, db *duck.DB, p *Params, groupBy []string, what string, err error) error {
	msg, ok := duck.Overflow(err)
	if !ok {
		return err
	}
	groupings := [][]string{nil}
	if len(groupBy) > 0 {
		groupings = [][]string{groupBy, nil}
	}
	for _, m := range p.Measures {
		typ := p.MeasureTypes[m]
		for _, g := range groupings {
			for _, t := range []string{SourceTable, SinkTable} {
				_, _, perr := db.StringsFile(ctx, totalsSQL, queries.TotalsSumOverflow, struct {
					Measure, Table, Type string
					GroupBy              []string
				}{m, t, typ, g})
				if _, ok := duck.Overflow(perr); !ok {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					continue // this sum fits (or failed otherwise: no word on it)
				}
				per := "in total"
				if len(g) > 0 {
					per = "in a group of " + strings.Join(g, ", ")
				}
				return fmt.Errorf("%w: the sum of measure %s in the %s (%s) is beyond %s, the widest exact decimal: no total is rounded to fit, so %s cannot be computed (DuckDB: %s)",
					ErrOverflow, m, t, per, typ, what, msg)
			}
		}
	}
	var types []string
	for _, m := range p.Measures {
		types = append(types, "measure "+m+" "+p.MeasureTypes[m])
	}
	for _, c := range p.Compared {
		if c.Decimal != "" && !slices.Contains(p.Measures, c.Name) {
			types = append(types, "column "+c.Name+" "+c.Decimal)
		}
	}
	return fmt.Errorf("%w: a difference (sink - source) is beyond its exact decimal type (%s): no total or difference is rounded to fit, so %s cannot be computed (DuckDB: %s)",
		ErrOverflow, strings.Join(types, ", "), what, msg)
}
