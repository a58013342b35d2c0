package evidence

import "testing"

// A check's scope changes with the settings it looks with, and not with
// what follows the data or the order of lists whose order means nothing:
// the compared columns' types and the method they give, the order of the
// compared columns, of the measures and of the re-performed aggregates.
// An id with normalize: is another key (every check matches by the
// normalised id), so its normalisation is part of the id's scope.
func TestCheckScope(t *testing.T) {
	params := func() *Parameters {
		return &Parameters{ID: []string{"id"}, Measures: []string{"amount", "fee"}, AllowEmpty: []string{"sink"}, Duplicates: []string{"account", "amount"},
			Reperform:        &Reperform{EventTime: "t", Window: Window{Size: "1h"}, Aggregates: []Aggregate{{Column: "revenue", Func: "sum", Arg: "amount"}, {Column: "events", Func: "count", Arg: "*"}}},
			BalanceTolerance: map[string]string{"amount": "0.01"}}
	}
	comparison := func() *Comparison {
		return &Comparison{Compared: []ComparedColumn{
			{Column: "amount", SourceType: "DECIMAL(18,2)", SinkType: "DECIMAL(18,2)", Method: "number"},
			{Column: "qty", SourceType: "BIGINT", SinkType: "BIGINT", Method: "number"},
			{Column: "note", SourceType: "VARCHAR", SinkType: "VARCHAR", Method: "text", Normalize: []string{"trim", "casefold"}}}}
	}
	all := []string{"id", "measures", "compare", "reperform", "allow_empty", "duplicates"}
	scope := func(p *Parameters, c *Comparison) []ScopeField { return CheckScope(p, c, all, "balance") }
	base := scope(params(), comparison())

	same := map[string]func(*Parameters, *Comparison){
		"types and method": func(_ *Parameters, c *Comparison) {
			c.Compared[0].SinkType = "DECIMAL(18,3)"
			c.Compared[1].SourceType, c.Compared[1].Method = "DOUBLE", "float"
		},
		"compared columns reordered": func(_ *Parameters, c *Comparison) { c.Compared[0], c.Compared[2] = c.Compared[2], c.Compared[0] },
		"normalisations reordered":   func(_ *Parameters, c *Comparison) { c.Compared[2].Normalize = []string{"casefold", "trim"} },
		"measures reordered":         func(p *Parameters, _ *Comparison) { p.Measures = []string{"fee", "amount"} },
		"aggregates reordered": func(p *Parameters, _ *Comparison) {
			a := p.Reperform.Aggregates
			a[0], a[1] = a[1], a[0]
		},
		"a column that is no key normalised": func(p *Parameters, _ *Comparison) { p.Normalize = map[string][]string{"note": {"trim"}} },
		"paths and parameters": func(p *Parameters, _ *Comparison) {
			p.Source.URI, p.Out, p.Params = "2026-11-30/source.csv", "ev/2026-11-30", map[string]string{"day": "2026-11-30"}
		},
	}
	for name, change := range same {
		p, c := params(), comparison()
		change(p, c)
		if d := ScopeChange(base, scope(p, c)); d != "" {
			t.Errorf("%s: scope changed (%s)", name, d)
		}
	}
	differ := map[string]func(*Parameters, *Comparison){
		"a column no longer compared": func(_ *Parameters, c *Comparison) { c.Compared = c.Compared[:2] },
		"a tolerance":                 func(_ *Parameters, c *Comparison) { c.Compared[0].Tolerance = "0.01" },
		"a normalisation":             func(_ *Parameters, c *Comparison) { c.Compared[2].Normalize = []string{"trim"} },
		"a zone":                      func(_ *Parameters, c *Comparison) { c.Compared[1].SourceZone = "Europe/Berlin" },
		"a measure":                   func(p *Parameters, _ *Comparison) { p.Measures = []string{"amount"} },
		"an aggregate":                func(p *Parameters, _ *Comparison) { p.Reperform.Aggregates[0].Func = "max" },
		"the window":                  func(p *Parameters, _ *Comparison) { p.Reperform.Window.Size = "2h" },
		"allow_empty":                 func(p *Parameters, _ *Comparison) { p.AllowEmpty = nil },
		"the balance tolerance":       func(p *Parameters, _ *Comparison) { p.BalanceTolerance["amount"] = "0.02" },
		"the posting's columns":       func(p *Parameters, _ *Comparison) { p.Duplicates = []string{"account"} },
		"a default tolerance applied": func(_ *Parameters, c *Comparison) {
			c.Compared[1].Tolerance, c.Compared[1].ToleranceFrom = "1", "default"
		},
		"the id normalised": func(p *Parameters, _ *Comparison) { p.Normalize = map[string][]string{"id": {"trim"}} },
	}
	for name, change := range differ {
		p, c := params(), comparison()
		change(p, c)
		if d := ScopeChange(base, scope(p, c)); d == "" {
			t.Errorf("%s: no change of scope", name)
		}
	}
}
