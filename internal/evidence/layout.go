package evidence

import "path"

// The files of an evidence folder. Every path is relative to the folder,
// with forward slashes (as fs.FS and manifest.json name them); no other
// package spells one.
//
//	summary.json                  Summary, always written
//	report.md                     the readable report (--format md)
//	report.html                   the printable report (--format html)
//	workbook.xlsx                 the auditor's work paper (--format xlsx)
//	exceptions/<check>.csv        every exception row of a check that ran
//	queries/<check>.sql           the exact SQL a check ran
//	queries/_replay_tables.sql    the re-performance of a windowed sink
//	manifest.json                 Manifest, written last
//	manifest.sig                  Ed25519 signature of manifest.json (run --sign-key)
const (
	SummaryFile      = "summary.json"
	MarkdownFile     = "report.md"
	HTMLFile         = "report.html"
	WorkbookFile     = "workbook.xlsx"
	ManifestFile     = "manifest.json"
	SignatureFile    = "manifest.sig"
	ExceptionsDir    = "exceptions"
	QueriesDir       = "queries"
	ReplayTablesFile = QueriesDir + "/_replay_tables.sql"
)

// ExceptionsFile is the path of check's exceptions CSV:
// exceptions/<check>.csv.
func ExceptionsFile(check string) string { return path.Join(ExceptionsDir, check+".csv") }

// QueryFile is the path of the SQL check ran: queries/<check>.sql.
func QueryFile(check string) string { return path.Join(QueriesDir, check+".sql") }

// topLevel reports whether an entry directly inside a folder is one that
// reconcile writes into an evidence folder: the files and the two
// sub-folders listed above.
func topLevel(name string, dir bool) bool {
	if dir {
		return name == ExceptionsDir || name == QueriesDir
	}
	switch name {
	case SummaryFile, MarkdownFile, HTMLFile, WorkbookFile, ManifestFile, SignatureFile:
		return true
	}
	return false
}
