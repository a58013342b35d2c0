// Package queries embeds reconcile's SQL files: at the root, one file per
// check, each a text/template over the spec's columns that selects the
// check's exceptions (see package checks for the header format and template
// helpers; `reconcile run --queries DIR` reads a folder of such files
// instead); in load/, the statements package internal/load runs to put an
// input into the engine as a table.
package queries

import "embed"

// FS holds every check file (*.sql) at its root and the load statements in
// load/.
//
//go:embed *.sql load/*.sql
var FS embed.FS
