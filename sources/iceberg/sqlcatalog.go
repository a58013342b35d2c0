package iceberg

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "github.com/mattn/go-sqlite3"    // database/sql driver "sqlite3"

	"github.com/reconcile-dev/reconcile/sources"
)

// sqlDrivers are the database/sql drivers of the catalog databases, by
// driver name of sqlCatalog; a build without one refuses its URIs.
var sqlDrivers = map[string]string{"postgres": "pgx", "sqlite": "sqlite3"}

// locateSQL asks the SQL catalog (iceberg-go's catalog/sql, reading only:
// it never creates the catalog's tables) for the table's current metadata
// file, then reads that file from the local file system.
func (s *source) locateSQL(ctx context.Context) (*metadataFile, error) {
	c := s.cat
	driver, ok := sqlDrivers[c.driver]
	if !ok {
		return nil, fmt.Errorf("%w: %s: no %s driver in this build of reconcile", sources.ErrInvalidLocation, s.name(), c.driver)
	}
	dsn := c.dsn
	if c.driver == "sqlite" {
		// read only: the catalog is never written, and a missing file is
		// an error rather than a new empty catalog.
		if _, err := os.Stat(dsn); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, s.name(), err)
		}
		dsn = "file:" + dsn + "?mode=ro"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrRead, s.name(), scrub(err, c.dsn))
	}
	defer db.Close()
	dialect := sqlcat.Postgres
	if c.driver == "sqlite" {
		dialect = sqlcat.SQLite
	}
	cat, err := sqlcat.NewCatalog(c.name, db, dialect, iceberg.Properties{"init_catalog_tables": "false"})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: opening the catalog: %s", ErrRead, s.name(), scrub(err, c.dsn))
	}
	defer cat.Close()
	ident := append(append([]string{}, c.namespace...), c.table)
	tbl, err := cat.LoadTable(ctx, ident)
	if err != nil {
		if errors.Is(err, catalog.ErrNoSuchTable) {
			return nil, fmt.Errorf("%w: %s: no such table in the catalog: %s", sources.ErrInvalidLocation, s.name(), scrub(err, c.dsn))
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("%w: %s", cerr, scrub(err, c.dsn))
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrRead, s.name(), scrub(err, c.dsn))
	}
	loc := tbl.MetadataLocation()
	p := localPath(loc)
	if strings.Contains(p, "://") {
		return nil, fmt.Errorf("%w: %s: its metadata file %s is not on the local file system: only local tables are read", sources.ErrInvalidLocation, s.name(), loc)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: metadata file: %w", ErrRead, s.name(), err)
	}
	sum := sha256.Sum256(b)
	return &metadataFile{path: p, how: fmt.Sprintf("SQL catalog %s (%s), table %s: metadata_location", c.name, c.driver, strings.Join(ident, ".")),
		bytes: b, sum: hex.EncodeToString(sum[:]),
		catalog: map[string]any{"catalog": c.name, "catalog_database": c.driver, "catalog_table": strings.Join(ident, ".")}}, nil
}

// scrub is err's text without the connection string's password.
func scrub(err error, dsn string) string {
	msg := err.Error()
	red := sources.Redact(dsn)
	if red != dsn {
		msg = strings.ReplaceAll(msg, dsn, red)
	}
	return sources.Redact(msg)
}
