//go:build !duckdb_arrow

package duck

// This package needs DuckDB's Arrow interface, compiled only with the
// duckdb_arrow build tag: build and test with -tags duckdb_arrow.
var _ = build_with_tags_duckdb_arrow__see_README
