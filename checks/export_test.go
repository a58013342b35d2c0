package checks

// WithoutIDCounts runs f with table id_counts never built, so the id checks
// join source and sink themselves (the form used when id types differ).
func WithoutIDCounts(f func()) {
	noIDCounts = true
	defer func() { noIDCounts = false }()
	f()
}

// RenamedColumn is renamedColumn, for the tests.
var RenamedColumn = renamedColumn
