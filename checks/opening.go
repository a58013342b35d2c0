package checks

import (
	"fmt"
	"slices"
	"strings"
)

// prepareOpening returns the conversions of table opening (a roll-forward's
// opening balances) and their notes: each group column as the sink's is
// converted (sinkConv: the sink's conversions, keys by plan), each measure
// to its storage type. The opening's group columns are matched with the
// sink's (the closing balances, already made comparable with the source):
// a column must have the sink's type as loaded (then it is rewritten as the
// sink's is), or, when the sink's is not rewritten, be a number matched
// with the sink's number by exact value; a column rewritten to instants in
// a zone must be read in the same zone in both. Anything else is refused
// (ErrColumn, naming the column, both types and types: as the remedy),
// never matched loosely.
func prepareOpening(c Columns, plan *Plan, tc *tableColumns, zones map[string]string, sinkConv []conversion, storage map[string]string) ([]conversion, []string, error) {
	var out []conversion
	var notes, errs []string
	ot := tc.types["opening"]
	for _, k := range plan.Keys {
		typ, ok := ot[k.Name]
		if !ok {
			continue // Prepare's need() named it
		}
		i := slices.IndexFunc(sinkConv, func(cv conversion) bool { return cv.Name == k.Name })
		switch {
		case strings.EqualFold(typ, k.SinkType):
			if i < 0 {
				continue
			}
			if sinkConv[i].Typed != "" && zoneOr(c.OpeningZone) != zones[SinkTable] {
				errs = append(errs, fmt.Sprintf("group column %s is %s in the opening and in the sink, read as instants, the opening's zone-less values in %s and the sink's in %s: give both one time_zone:", k.Name, typ, zoneOr(c.OpeningZone), zones[SinkTable]))
				continue
			}
			out = append(out, sinkConv[i])
			notes = append(notes, fmt.Sprintf("group column %s of the opening rewritten as the sink's (its type there, %s, too)", k.Name, typ))
		case i < 0 && !matchedAsText(typ, k.SinkType) && numberFamily(typ) && numberFamily(k.SinkType):
			notes = append(notes, fmt.Sprintf("group column %s is %s in the opening and %s in the sink: matched by exact value", k.Name, typ, k.SinkType))
		default:
			errs = append(errs, fmt.Sprintf("group column %s is %s in the opening and %s in the sink: the opening's group columns are matched with the closing balances' (the sink's), so they must have the sink's type; declare it with types: {%s: %s} in the opening's long form", k.Name, typ, k.SinkType, k.Name, k.SinkType))
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrColumn, strings.Join(errs, "; "))
	}
	for _, m := range c.Measures {
		if !strings.EqualFold(ot[m], storage[m]) {
			out = append(out, conversion{Name: m, Decimal: storage[m]})
		}
	}
	return out, notes, nil
}

// numberFamily reports whether DuckDB type typ is an integer or an exact
// decimal.
func numberFamily(typ string) bool {
	f := familyOf(typ)
	return f == famInteger || f == famDecimal
}
