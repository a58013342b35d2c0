package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// PostingColumn is one column of the spec's duplicates: in one input, as
// the check duplicate_postings compares it there (queries/rules/
// posting_key.sql, template helper postingkey): by its value as the input
// types it, except text and intervals.
type PostingColumn struct {
	// Name is the column, by the control's name.
	Name string
	// Type is its DuckDB type in this input.
	Type string
	// Text: a text column (VARCHAR, JSON, ENUM), compared as written, with
	// an empty text as NULL (as MethodText compares).
	Text bool
	// Interval: an INTERVAL, compared by its months, days and micros,
	// never by DuckDB's equality, which takes a month for 30 days.
	Interval bool
	// AsText: the other input checked has the column under another type,
	// so that the exception table writes it as text (VARCHAR) for both
	// inputs, each value rendered from its own type.
	AsText bool
}

// PostingInput is one input duplicate_postings reads: one that has every
// column of duplicates:.
type PostingInput struct {
	// Table is the input's table and role: SourceTable or SinkTable.
	Table string
	// Location is the input's location form (Params.SourceLocation).
	Location string
	// Columns are the duplicates: columns in spec order, as typed here.
	Columns []PostingColumn
}

// PlanDuplicates decides which inputs the check duplicate_postings reads
// for the spec's duplicates: cols (nil: none), from the columns of each
// input (name and DuckDB type, by the control's names; provenance columns
// excluded), reading no row: every input that has all of them, source
// first. An input that lacks some is not checked, and the note returned
// says so, naming what it lacks ("" when every input is checked); an input
// whose column types are not known yet ("" types: a kind that tells its
// columns only once read) is taken as it is.
//
// Issue 31's grain: (another change) should leave out an input at balance
// grain here: its rows are balances, one per group, whose repetition is
// the check duplicate_balance_rows.
//
// Errors wrap ErrColumn (exit 2): no input has every column, naming each
// column and the input lacking it (the only way a column of duplicates:
// that is in neither input, or misspelt, could go unchecked).
func PlanDuplicates(cols []string, source, sink []sources.Column) ([]string, string, error) {
	if len(cols) == 0 {
		return nil, "", nil
	}
	var inputs, lacks []string
	for _, in := range []struct {
		table string
		cols  []sources.Column
	}{{SourceTable, source}, {SinkTable, sink}} {
		var missing []string
		for _, c := range cols {
			if !slices.ContainsFunc(in.cols, func(ic sources.Column) bool { return ic.Name == c }) {
				missing = append(missing, fmt.Sprintf("%q%s", c, suggestName(c, in.cols, nil)))
			}
		}
		if len(missing) == 0 {
			inputs = append(inputs, in.table)
			continue
		}
		var names []string
		for _, ic := range in.cols {
			names = append(names, ic.Name)
		}
		lacks = append(lacks, fmt.Sprintf("the %s lacks %s (its columns are: %s)", in.table, strings.Join(missing, ", "), strings.Join(names, ", ")))
	}
	if len(inputs) == 0 {
		return nil, "", fmt.Errorf("%w: duplicates: [%s]: no input has every column, so no input's postings could be checked for repeats: %s",
			ErrColumn, strings.Join(cols, ", "), strings.Join(lacks, "; "))
	}
	note := ""
	if len(lacks) > 0 {
		note = fmt.Sprintf("duplicates: [%s] checked for repeated postings in the %s only: %s", strings.Join(cols, ", "), inputs[0], strings.Join(lacks, "; "))
	}
	return inputs, note, nil
}

// prepareDuplicates sets p.Duplicates and p.Postings for the spec's
// duplicates: (PlanDuplicates over the prepared tables' columns, typed as
// the checks read them) and returns a note when an input is not checked.
// An input at balance grain (grain: balance) is never checked: it holds one
// row per group, and a repeat there is duplicate_balance_rows' finding. The
// error is PlanDuplicates', or ErrColumn when only balance-grain inputs
// have every column.
func (p *Params) prepareDuplicates(cols []string, tc *tableColumns) (string, error) {
	inputs, note, err := PlanDuplicates(cols, asColumns(tc.source), asColumns(tc.sink))
	if err != nil || len(inputs) == 0 {
		return "", err
	}
	var balance []string
	inputs = slices.DeleteFunc(inputs, func(t string) bool {
		if p.Grain(t) == GrainBalance {
			balance = append(balance, t)
			return true
		}
		return false
	})
	if len(balance) > 0 {
		if len(inputs) == 0 {
			return "", fmt.Errorf("%w: duplicates: [%s]: only the %s, at balance grain (one row per group), has every column; repeated postings are looked for in an input of postings (duplicate_balance_rows checks a balance input)",
				ErrColumn, strings.Join(cols, ", "), strings.Join(balance, " and "))
		}
		bn := fmt.Sprintf("duplicates: [%s] not checked in the %s: at balance grain, one row per group (duplicate_balance_rows checks it)", strings.Join(cols, ", "), strings.Join(balance, " and "))
		if note == "" {
			note = bn
		} else {
			note += "; " + bn
		}
	}
	p.Duplicates = cols
	location := map[string]string{SourceTable: p.SourceLocation, SinkTable: p.SinkLocation}
	for _, t := range inputs {
		in := PostingInput{Table: t, Location: location[t]}
		for _, c := range cols {
			typ := tc.types[t][c]
			f := familyOf(typ)
			in.Columns = append(in.Columns, PostingColumn{Name: c, Type: typ, Text: f == famText,
				Interval: strings.EqualFold(strings.TrimSpace(typ), "INTERVAL")})
		}
		p.Postings = append(p.Postings, in)
	}
	if len(p.Postings) == 2 {
		for i := range cols {
			s, k := &p.Postings[0].Columns[i], &p.Postings[1].Columns[i]
			if !strings.EqualFold(strings.TrimSpace(s.Type), strings.TrimSpace(k.Type)) {
				s.AsText, k.AsText = true, true
			}
		}
	}
	return note, nil
}
