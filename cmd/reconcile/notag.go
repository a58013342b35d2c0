//go:build !duckdb_arrow

package main

// reconcile needs DuckDB's Arrow interface, compiled only with the
// duckdb_arrow build tag. Build and test with -tags duckdb_arrow (the
// Makefile and .ci/run do), or set GOFLAGS=-tags=duckdb_arrow.
var _ = build_with_tags_duckdb_arrow__see_README
