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
//	queries/_replay_episodes.sql  the replay episodes (with a checkpoint column)
//	queries/_id_counts.sql        table id_counts, which the id checks read (when built)
//	queries/_key_spellings.sql    table key_spellings, the ids and groups as written where
//	                              normalize: changed them (when an id or group is normalised)
//	resolved/<check>.csv          with a run history: the previous run's exceptions now absent
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
	// ReplayEpisodesFile holds the statements of Summary.Episodes.
	ReplayEpisodesFile = QueriesDir + "/_replay_episodes.sql"
	IDCountsFile       = QueriesDir + "/_id_counts.sql"
	KeySpellingsFile   = QueriesDir + "/_key_spellings.sql"
	ResolvedDir        = "resolved"
)

// ResolvedFileOf is the path of the resolved keys of check:
// resolved/<check>.csv — the key columns as text, then first_seen_run,
// first_seen_date, open_runs (the runs it was open) and last_seen_run.
func ResolvedFileOf(check string) string { return path.Join(ResolvedDir, check+".csv") }

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
		return name == ExceptionsDir || name == QueriesDir || name == ResolvedDir
	}
	switch name {
	case SummaryFile, MarkdownFile, HTMLFile, WorkbookFile, ManifestFile, SignatureFile:
		return true
	}
	return false
}
