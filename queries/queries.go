// Package queries embeds reconcile's SQL files: at the root, one file per
// check, each a text/template over the spec's columns that selects the
// check's exceptions (see package checks for the header format and template
// helpers; `reconcile run --queries DIR` reads a folder of such files
// instead); in load/, the statements package internal/load runs to put an
// input into the engine as a table; in postgres/, those the postgres input
// kind sends to the server.
package queries

import "embed"

// FS holds every check file (*.sql) at its root, the load statements in
// load/ and the PostgreSQL input's in postgres/.
//
//go:embed *.sql load/*.sql postgres/*.sql
var FS embed.FS
