// Package queries embeds the check files: one SQL file per check, each a
// text/template over the spec's columns that selects the check's exceptions
// (see package checks for the header format and template helpers).
// `reconcile run --queries DIR` reads a folder of such files instead.
package queries

import "embed"

// FS holds every check file (*.sql) at its root.
//
//go:embed *.sql
var FS embed.FS
