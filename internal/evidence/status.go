package evidence

// Status is a verdict: of one check (any of the four), or of the control
// (Pass or Fail: Fail when at least one check failed).
type Status string

// The statuses, as summary.json and manifest.json spell them.
const (
	// Pass: the check ran and found no exceptions; for the control, no
	// check failed.
	Pass Status = "pass"
	// Fail: the check found exceptions; for the control, some check did.
	Fail Status = "fail"
	// Skipped: the check needs spec fields that were not given; it counts
	// neither way.
	Skipped Status = "skipped"
	// Info: a check of severity info found rows; they are reported for
	// information and do not fail the control.
	Info Status = "info"
)
