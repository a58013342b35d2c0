// Package sources loads the two populations a reconciliation compares — the
// source records (what should have been posted) and the committed sink
// output (what was posted) — into the run's embedded DuckDB session.
//
// Inputs are addressed by a URI. A kind is chosen, in this order, by the
// spec's `kind:` option, by a scheme ("postgres://…"), by a "kind:" prefix
// ("csv:exports/part-*"), or by the file extension (.csv .tsv .parquet
// .ndjson .jsonl, optionally followed by .gz or .zst). Kinds register
// themselves with Register, in the manner of database/sql drivers.
//
// # Loaded table layout
//
// Every kind materialises its input as one table holding the input's columns
// in input order, under their input names, followed by three provenance
// columns:
//
//	__file  VARCHAR  the file (or table) the record came from
//	__line  BIGINT   its position there: the line number for CSV (the header
//	                 is line 1) and NDJSON, the 1-based row for Parquet and
//	                 PostgreSQL
//	__row   BIGINT   0-based position across the whole input, in read order
//
// Column types: text formats (CSV, NDJSON) load every column as VARCHAR
// exactly as written — nothing is sniffed, so an id "0123" stays "0123" and an
// amount "1.5" after row 20,480 stays "1.5" — unless the location declares a
// type with the `types:` option. Typed formats (Parquet, PostgreSQL) keep
// their declared types. Turning measures into exact decimals is the checks
// package's job, done identically for every kind.
//
// # PostgreSQL
//
// Kind postgres (alias postgresql) reads a table or the result of a query:
//
//	postgres://user@host:5432/db?table=schema.name
//	postgres://user@host/db?query=SELECT+…      (form-encoded)
//	{uri: "postgres://user@host/db", table: ledger.postings}
//	{uri: "host=h dbname=db", kind: postgres, query: "SELECT …"}
//
// What the URI leaves out comes from the standard PG* environment variables
// and ~/.pgpass, as libpq does. An unquoted table name is folded to lower
// case; "Quoted"."Names" are kept; the name is always quoted as an
// identifier in the SQL, never spliced. The rows are read in one REPEATABLE
// READ, READ ONLY transaction in PostgreSQL's binary format and streamed
// through Arrow record batches of at most 65,536 rows (or 32 MiB of values),
// so memory does not grow with the table. Input.Details records
// server_version, database, user, snapshot (pg_current_snapshot()),
// wal_lsn (pg_current_wal_lsn(), or the replay position on a standby; when
// it cannot be read, wal_lsn_unavailable says why), transaction_started_at,
// the exact sql run and each column's PostgreSQL and Arrow types. __file is
// the table (schema.name) or "query"; __line is the 1-based row in read
// order.
//
// Every value keeps its exact value. The type mapping:
//
//	PostgreSQL                         Arrow                 DuckDB
//	smallint, integer, bigint          int16, int32, int64   SMALLINT, INTEGER, BIGINT
//	numeric(p,s), p ≤ 38               decimal128(p,s)       DECIMAL(p,s)
//	numeric(p,s), p > 38               decimal128(38,s)      DECIMAL(38,s)
//	numeric (unconstrained)            decimal128(38,s)      DECIMAL(38,s), s = largest
//	                                                         scale in the data (pre-scan)
//	real, double precision             float32, float64      FLOAT, DOUBLE
//	text, varchar(n), char(n), name    utf8                  VARCHAR (char(n) keeps its
//	                                                         padding as the server sends it)
//	boolean                            bool                  BOOLEAN
//	date                               date32                DATE
//	timestamp (without time zone)      timestamp[us]         TIMESTAMP (zone-less)
//	timestamptz                        timestamp[us, UTC]    TIMESTAMP WITH TIME ZONE
//	uuid                               utf8 (canonical)      VARCHAR
//	json, jsonb                        utf8 (the JSON text)  VARCHAR
//	bytea                              binary                BLOB
//
// A numeric NaN or ±Infinity, a value with more than 38 digits, and a date
// or timestamp ±infinity stop the load with an error naming the row, the
// column and the value. Any other type (interval, time, arrays, enums,
// domains, …) is an error naming each such column before a row is read;
// cast it in a query. Floating-point columns load as they are but are
// refused as measures by package checks.
package sources

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
)

// Provenance column names of every loaded table (see the package doc).
const (
	FileColumn = "__file"
	LineColumn = "__line"
	RowColumn  = "__row"
)

// Errors returned by Open. Both mean the location itself is wrong (a usage
// error), as opposed to an input that could not be read.
var (
	// ErrUnknownKind: no registered kind matches the location.
	ErrUnknownKind = fault.Usage.New("sources: unknown kind")
	// ErrInvalidLocation: the URI or one of its options is malformed.
	ErrInvalidLocation = fault.Usage.New("sources: invalid location")
)

// Location says where an input is.
type Location struct {
	// Role is "source" or "sink"; it names the input in messages.
	Role string
	// URI is the path, glob or connection URI as given in the spec or flag.
	URI string
	// Options are the kind-specific fields of the spec's long form
	// ({uri: …, delimiter: ";"}); an option a kind does not know is an
	// ErrInvalidLocation.
	Options map[string]any
	// BaseDir is the folder relative file paths are resolved against (the
	// spec file's folder, or the working directory for flags).
	BaseDir string
	// Progress, when set, receives the progress of a long load: a live
	// line of rows and rows/s when it is a terminal, else one summary line.
	Progress io.Writer
}

// Source is one input of a reconciliation.
//
// Implementations follow these rules:
//  1. The Opener only parses and validates the Location; it does no I/O and
//     reads no environment variable that the Location did not name.
//  2. Load creates exactly one new table named table in db, laid out as the
//     package doc says, and returns a description of what it read. On error
//     it leaves no table behind.
//  3. Load honours ctx: a cancelled context stops the load and is returned.
//  4. Nothing a Source returns — Input, errors — contains a password.
type Source interface {
	Load(ctx context.Context, db *duck.DB, table string) (*Input, error)
	Close() error
}

// Opener builds a Source from a Location without doing any I/O.
type Opener func(loc Location) (Source, error)

// Input describes a loaded input for the evidence.
type Input struct {
	// Role is "source" or "sink".
	Role string `json:"role"`
	// Kind is the registered kind that read it ("csv", "postgres", …).
	Kind string `json:"kind"`
	// Location is the URI with any password removed.
	Location string `json:"location"`
	// Files lists every file read, with its SHA-256, in read order.
	Files []File `json:"files,omitempty"`
	// Ignored lists files a glob matched but that were not read because
	// their names start with "." or "_" (in-progress or temporary part
	// files of stream sinks).
	Ignored []string `json:"ignored_files,omitempty"`
	// Rows is the number of records loaded.
	Rows int64 `json:"rows"`
	// Columns are the loaded columns, provenance columns excluded.
	Columns []duck.Column `json:"columns"`
	// Details holds kind-specific facts an auditor needs to say "as of
	// what" the input was read (a database snapshot, the SQL run, …).
	Details map[string]any `json:"details,omitempty"`
}

// File is one file read, fingerprinted.
type File struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

var (
	mu      sync.RWMutex
	openers = map[string]Opener{}
	aliases = map[string]string{}
)

// Register makes a kind available to Open under name and any aliases
// (URI schemes or extensions such as "postgresql" or "jsonl"). It panics
// if opener is nil or a name is registered twice, as database/sql.Register
// does.
func Register(name string, opener Opener, alias ...string) {
	mu.Lock()
	defer mu.Unlock()
	if opener == nil {
		panic("sources: Register opener is nil")
	}
	if _, dup := openers[name]; dup {
		panic("sources: Register called twice for kind " + name)
	}
	openers[name] = opener
	for _, a := range alias {
		if _, dup := aliases[a]; dup {
			panic("sources: Register called twice for alias " + a)
		}
		aliases[a] = name
	}
}

// Kinds returns the sorted names of the registered kinds.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	var ks []string
	for k := range openers {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func lookup(name string) (string, Opener, bool) {
	mu.RLock()
	defer mu.RUnlock()
	name = strings.ToLower(name)
	if a, ok := aliases[name]; ok {
		name = a
	}
	o, ok := openers[name]
	return name, o, ok
}

// Open chooses the kind of loc (see the package doc) and returns its Source.
// It does no I/O. Errors wrap ErrUnknownKind (the message lists Kinds()) or
// ErrInvalidLocation.
func Open(loc Location) (Source, error) {
	if strings.TrimSpace(loc.URI) == "" {
		return nil, fmt.Errorf("%s: %w: no URI given", loc.Role, ErrInvalidLocation)
	}
	kind, rest := KindOf(loc)
	name, opener, ok := lookup(kind)
	if !ok {
		return nil, fmt.Errorf("%s %q: %w %q (known kinds: %s; a kind is taken from the kind: option, a scheme, a kind: prefix or the file extension)",
			loc.Role, Redact(loc.URI), ErrUnknownKind, kind, strings.Join(Kinds(), ", "))
	}
	loc.URI = rest
	src, err := opener(loc)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", loc.Role, name, err)
	}
	return src, nil
}

// KindOf returns the kind name a location asks for and the URI left once a
// "kind:" prefix is removed. Scheme URIs ("postgres://…") are returned
// whole.
func KindOf(loc Location) (kind, uri string) {
	if k, ok := loc.Options["kind"].(string); ok && k != "" {
		return k, loc.URI
	}
	if i := strings.Index(loc.URI, "://"); i > 0 {
		return loc.URI[:i], loc.URI
	}
	if i := strings.IndexByte(loc.URI, ':'); i > 1 {
		if _, _, ok := lookup(loc.URI[:i]); ok {
			return loc.URI[:i], loc.URI[i+1:]
		}
	}
	base := strings.ToLower(filepath.Base(loc.URI))
	for _, c := range []string{".gz", ".zst"} {
		base = strings.TrimSuffix(base, c)
	}
	ext := strings.TrimPrefix(filepath.Ext(base), ".")
	return ext, loc.URI
}

// Redact removes a password from a URI-like string ("postgres://u:secret@h"
// becomes "postgres://u:xxxxx@h", and a "password=" parameter is masked).
// Inputs are echoed only through Redact.
func Redact(uri string) string {
	out := uri
	if i := strings.Index(out, "://"); i >= 0 {
		rest := out[i+3:]
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		hostPart := rest[:end]
		if at := strings.LastIndexByte(hostPart, '@'); at >= 0 {
			userInfo := hostPart[:at]
			if c := strings.IndexByte(userInfo, ':'); c >= 0 {
				userInfo = userInfo[:c] + ":xxxxx"
			}
			out = out[:i+3] + userInfo + hostPart[at:] + rest[end:]
		}
	}
	// A key=value connection string or URI parameter: password=… up to the
	// next & or space.
	const key = "password="
	for start := 0; ; {
		j := strings.Index(strings.ToLower(out[start:]), key)
		if j < 0 {
			break
		}
		j += start + len(key)
		k := j
		for k < len(out) && out[k] != '&' && out[k] != ' ' {
			k++
		}
		out = out[:j] + "xxxxx" + out[k:]
		start = j + len("xxxxx")
	}
	return out
}
