package spec

import (
	"fmt"
	"slices"
	"time"
)

// The keys of a balance control: a control with group_by and measures and
// no id (and no reperform), which proves that postings add up to balances
// rather than that every record was posted once (issue 31; the SOX ledger
// control "the postings add up to the balances"):
//
//	group_by: [aid]                   the group (an account) every input is summed per
//	measures: [delta]                 the amounts summed, exact decimals, named alike in
//	                                  every input (rename: abalance:delta)
//	grain: {sink: balance}            per input: posting (default: its rows are postings,
//	                                  summed and counted) or balance (one row per group,
//	                                  holding the group's balance)
//	opening: {uri: …, rename: …}      a roll-forward: the balances at the start of the
//	                                  period, same group and measure columns; the control
//	                                  is then opening + Σ postings (source) = closing (sink)
//
// A balance control runs population, row_count_balance (only when the
// source and the sink are both at posting grain), sum_balance (roll_forward
// and roll_forward_changes with opening:) and duplicate_balance_rows (when
// an input is at balance grain); the record-id checks are listed as not
// run, "no id: balance control". checkpoint, logical_key, compare, ignore
// and tolerance describe matched records, which a balance control has
// none of: they are refused, as are grain: and opening: in a control with
// an id or a reperform:.

// The grains of an input (grain:).
const (
	// GrainPosting: each row is a posting; a group's figure is the sum of
	// its rows, and its rows are counted. The default of source and sink.
	GrainPosting = "posting"
	// GrainBalance: each group has one row, holding its balance; a second
	// row of one group is an exception (duplicate_balance_rows). The
	// opening is always at balance grain.
	GrainBalance = "balance"
)

// Grain is the grain: key, per input: GrainPosting, GrainBalance, or ""
// for the default (posting for source and sink, balance for the opening).
type Grain struct {
	Source  string `yaml:"source,omitempty" json:"source,omitempty"`
	Sink    string `yaml:"sink,omitempty" json:"sink,omitempty"`
	Opening string `yaml:"opening,omitempty" json:"opening,omitempty"`
}

// BalanceControl reports whether s is a balance control: group_by and
// measures, no id and no reperform (see the keys above).
func (s *Spec) BalanceControl() bool {
	return len(s.ID) == 0 && s.Reperform == nil && len(s.GroupBy) > 0 && len(s.Measures) > 0
}

// GrainOf is the grain of input role ("source", "sink" or "opening"):
// GrainBalance for the opening, else the grain: given, else GrainPosting.
func (s *Spec) GrainOf(role string) string {
	if role == RoleOpening {
		return GrainBalance
	}
	if g := s.Grain; g != nil {
		switch {
		case role == RoleSource && g.Source != "":
			return g.Source
		case role == RoleSink && g.Sink != "":
			return g.Sink
		}
	}
	return GrainPosting
}

// validateLedger checks grain:, opening: and the keys a balance control
// refuses (see above), and that no two measures would give sum_balance's
// columns one name (amount and pct_amount: difference_pct_amount).
func (s *Spec) validateLedger() []string {
	var errs []string
	for _, m := range s.Measures {
		if slices.Contains(s.Measures, "pct_"+m) {
			errs = append(errs, fmt.Sprintf("measures %s and pct_%s: the balance checks would name two columns difference_pct_%s (the percentage of %s, the difference of pct_%s); rename: one of them", m, m, m, m, m))
		}
	}
	balance := s.BalanceControl()
	if !balance {
		why := "it has an id: (a control of records)"
		switch {
		case s.Reperform != nil:
			why = "it has reperform: (a windowed sink)"
		case len(s.ID) == 0:
			why = "it needs group_by and measures"
		}
		if s.Grain != nil {
			errs = append(errs, "grain: is a key of a balance control (group_by and measures, no id:), and this spec is not one: "+why)
		}
		if s.Opening != nil {
			errs = append(errs, "opening: is a key of a balance control (group_by and measures, no id:; the roll-forward opening + postings = closing per group), and this spec is not one: "+why)
		}
		return errs
	}
	for _, k := range []struct {
		key string
		set bool
	}{{"checkpoint", s.Checkpoint != ""}, {"logical_key", len(s.LogicalKey) > 0}, {"compare", len(s.Compare) > 0},
		{"ignore", len(s.Ignore) > 0}, {"tolerance", len(s.Tolerance) > 0}} {
		if k.set {
			errs = append(errs, fmt.Sprintf("%s: a balance control (group_by and measures, no id:) matches no records, so %s does not apply; give id: for a control of records, or balance_tolerance: for the sums", k.key, k.key))
		}
	}
	if g := s.Grain; g != nil {
		for _, f := range []struct{ field, grain string }{{"grain.source", g.Source}, {"grain.sink", g.Sink}} {
			if f.grain != "" && f.grain != GrainPosting && f.grain != GrainBalance {
				errs = append(errs, fmt.Sprintf("%s: %q: want %s (rows are postings, summed and counted) or %s (one row per group, its balance)", f.field, f.grain, GrainPosting, GrainBalance))
			}
		}
		switch {
		case g.Opening != "" && s.Opening == nil:
			errs = append(errs, "grain.opening: the spec has no opening:")
		case g.Opening != "" && g.Opening != GrainBalance:
			errs = append(errs, fmt.Sprintf("grain.opening: %q: the opening holds the balances at the start of the period: it is always at %s grain", g.Opening, GrainBalance))
		}
	}
	if o := s.Opening; o != nil {
		if o.URI == "" {
			errs = append(errs, "opening: a path, glob or connection URI is required (opening: or opening: {uri: …})")
		}
		if o.TimeZone != "" {
			if _, err := time.LoadLocation(o.TimeZone); err != nil || o.TimeZone == "Local" {
				errs = append(errs, fmt.Sprintf("opening.time_zone: %q is not an IANA time zone name (such as UTC, Europe/Berlin or Asia/Shanghai)", o.TimeZone))
			}
		}
		errs = append(errs, validateRename("opening.rename", o.Rename)...)
	}
	return errs
}
