package iceberg

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/sources"
)

// Kind names, as Register knows them and Input.Kind reports them.
const (
	// KindFS reads a table from the local file system: iceberg:PATH.
	KindFS = "iceberg"
	// KindSQL reads a table a SQL catalog names: iceberg+sql:DATABASE-URI.
	KindSQL = "iceberg+sql"
)

func init() {
	sources.Register(KindFS, openFS)
	sources.RegisterFileKind(KindFS) // a table folder or metadata file
	// A database URI keeps its scheme after the prefix, so the kind is
	// found by it: iceberg+sql:postgres://… (sources.KindOf takes what
	// stands before "://" as the kind), iceberg+sql:sqlite:catalog.db.
	sources.Register(KindSQL, openSQL, "iceberg+sql:postgres", "iceberg+sql:postgresql", "iceberg+sql:sqlite")
}

// options of both kinds: which snapshot is read.
type selector struct {
	// snapshot is the snapshot: option (an id), asOf the as_of: option (an
	// instant), ref the ref: option (a branch or tag); at most one is set.
	snapshot *int64
	asOf     *time.Time
	ref      string
}

// text reads option key as text ("" and false when absent): a number (a
// snapshot id in YAML) is given in decimal, an instant in RFC 3339.
func text(o *sources.Options, key string) (string, bool) {
	v, ok := o.Get(key)
	if !ok {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case time.Time:
		return v.Format(time.RFC3339Nano), true
	}
	o.Fail(fmt.Errorf("option %s: want text or a number, got %v", key, v))
	return "", false
}

// readSelector reads snapshot:, as_of: and ref:. An id is a decimal int64;
// an instant is RFC 3339 with a zone or offset (2026-11-27T10:00:00Z), or
// milliseconds since the epoch as Iceberg writes them.
func readSelector(o *sources.Options) selector {
	var sel selector
	n := 0
	if v, ok := text(o, "snapshot"); ok {
		n++
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			o.Fail(fmt.Errorf("option snapshot: %q is not a snapshot id (a decimal 64-bit integer)", v))
		} else {
			sel.snapshot = &id
		}
	}
	if v, ok := text(o, "as_of"); ok {
		n++
		v = strings.TrimSpace(v)
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			t := time.UnixMilli(ms).UTC()
			sel.asOf = &t
		} else if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			t = t.UTC()
			sel.asOf = &t
		} else {
			o.Fail(fmt.Errorf("option as_of: %q is not an instant: want RFC 3339 with a zone or offset (2026-11-27T10:00:00Z) or milliseconds since 1970-01-01 UTC", v))
		}
	}
	if v, ok := text(o, "ref"); ok {
		n++
		if sel.ref = strings.TrimSpace(v); sel.ref == "" {
			o.Fail(errors.New("option ref: empty: want a branch or tag name"))
		}
	}
	if n > 1 {
		o.Fail(errors.New("options snapshot, as_of and ref each choose the snapshot read: give at most one"))
	}
	return sel
}

// readChanges reads changes: (true: the rows each snapshot of the range
// inserted and deleted) and from_snapshot: (the range starts after it; a
// decimal id, only with changes: true).
func readChanges(o *sources.Options) (bool, *int64) {
	on := o.Bool("changes", false)
	v, ok := text(o, "from_snapshot")
	if !ok {
		return on, nil
	}
	if !on {
		o.Fail(errors.New("option from_snapshot: only with changes: true (it starts the range of snapshots whose changes are read)"))
		return on, nil
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		o.Fail(fmt.Errorf("option from_snapshot: %q is not a snapshot id (a decimal 64-bit integer)", v))
		return on, nil
	}
	return on, &id
}

// openFS opens iceberg:PATH, PATH being a table folder (its metadata/
// folder holds the metadata files) or one metadata file
// (….metadata.json), relative to the location's base folder.
func openFS(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions(KindFS, loc.Options)
	sel := readSelector(o)
	changes, from := readChanges(o)
	if err := o.Err(); err != nil {
		return nil, err
	}
	p := strings.TrimSpace(loc.URI)
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return nil, fmt.Errorf("%w: %q: a file URI names a local path (file:///path)", sources.ErrInvalidLocation, p)
		}
		p = u.Path
	}
	if strings.Contains(p, "://") {
		return nil, fmt.Errorf("%w: %q: only tables on the local file system are read (a path or file:///path); use iceberg+sql: for a table a SQL catalog names", sources.ErrInvalidLocation, sources.Redact(p))
	}
	if p == "" {
		return nil, fmt.Errorf("%w: no table folder or metadata file given (iceberg:warehouse/db/table)", sources.ErrInvalidLocation)
	}
	if !filepath.IsAbs(p) && loc.BaseDir != "" {
		p = filepath.Join(loc.BaseDir, p)
	}
	return &source{loc: loc, kind: KindFS, path: p, sel: sel, changes: changes, fromSnapshot: from}, nil
}

// sqlCatalog says where a SQL catalog is and which table of it is read.
type sqlCatalog struct {
	// driver is "postgres" or "sqlite"; dsn what database/sql opens.
	driver, dsn string
	// name is the catalog's name (catalog_name in iceberg_tables).
	name string
	// namespace and table name the table.
	namespace []string
	table     string
}

// openSQL opens iceberg+sql:postgres://user@host:port/db?table=ns.name
// (catalog=NAME) or iceberg+sql:sqlite:PATH?table=ns.name. The table and
// catalog may be options instead of URI parameters.
func openSQL(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions(KindSQL, loc.Options)
	sel := readSelector(o)
	changes, from := readChanges(o)
	optTable, hasTable := text(o, "table")
	optCatalog, hasCatalog := text(o, "catalog")
	if err := o.Err(); err != nil {
		return nil, err
	}
	uri := strings.TrimSpace(loc.URI)
	uri = strings.TrimPrefix(uri, KindSQL+":")
	c := &sqlCatalog{}
	var rest string
	switch {
	case strings.HasPrefix(uri, "postgres://"), strings.HasPrefix(uri, "postgresql://"):
		c.driver = "postgres"
		rest = uri
	case strings.HasPrefix(uri, "sqlite:"):
		c.driver = "sqlite"
		rest = strings.TrimPrefix(strings.TrimPrefix(uri, "sqlite:"), "//")
	default:
		return nil, fmt.Errorf("%w: %q: want iceberg+sql:postgres://user@host:port/database?table=namespace.name or iceberg+sql:sqlite:path/catalog.db?table=namespace.name", sources.ErrInvalidLocation, sources.Redact(loc.URI))
	}
	base, query, _ := strings.Cut(rest, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", sources.ErrInvalidLocation, sources.Redact(loc.URI), err)
	}
	tableName := q.Get("table")
	catalogName := q.Get("catalog")
	q.Del("table")
	q.Del("catalog")
	if hasTable {
		if tableName != "" {
			return nil, fmt.Errorf("%w: the table is given twice (URI parameter and option)", sources.ErrInvalidLocation)
		}
		tableName = optTable
	}
	if hasCatalog {
		if catalogName != "" {
			return nil, fmt.Errorf("%w: the catalog is given twice (URI parameter and option)", sources.ErrInvalidLocation)
		}
		catalogName = optCatalog
	}
	if catalogName == "" {
		catalogName = "default"
	}
	c.name = catalogName
	parts := strings.Split(tableName, ".")
	if tableName == "" || len(parts) < 2 || slices.Contains(parts, "") {
		return nil, fmt.Errorf("%w: %q: want the table as namespace.name (table=db.events, or the table: option)", sources.ErrInvalidLocation, tableName)
	}
	c.namespace, c.table = parts[:len(parts)-1], parts[len(parts)-1]
	switch c.driver {
	case "postgres":
		c.dsn = base
		if len(q) > 0 {
			c.dsn += "?" + q.Encode()
		}
	case "sqlite":
		if base == "" {
			return nil, fmt.Errorf("%w: no SQLite database file given (iceberg+sql:sqlite:path/catalog.db?table=ns.name)", sources.ErrInvalidLocation)
		}
		p := base
		if !filepath.IsAbs(p) && loc.BaseDir != "" {
			p = filepath.Join(loc.BaseDir, p)
		}
		c.dsn = p
		if len(q) > 0 {
			return nil, fmt.Errorf("%w: SQLite takes no parameters besides table and catalog, got %s", sources.ErrInvalidLocation, q.Encode())
		}
	}
	return &source{loc: loc, kind: KindSQL, cat: c, sel: sel, changes: changes, fromSnapshot: from}, nil
}
