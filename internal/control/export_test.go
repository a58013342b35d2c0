package control

// WithoutReadInPlace runs f with every input loaded as a table: a
// re-performance's Parquet events are copied into DuckDB instead of read
// where they lie (load.Options.View).
func WithoutReadInPlace(f func()) {
	readInPlace = false
	defer func() { readInPlace = true }()
	f()
}
