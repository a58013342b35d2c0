package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// describe maps the columns of the input's statement, run with LIMIT 0 so
// that no row is read; for a table the catalog adds each column's declared
// type (and the exact precision of a DECIMAL UNSIGNED) and the evidence
// gets the table's engine. A column whose type is not mapped, a duplicate
// name or a provenance name is an error naming the column.
func (s *mysqlSource) describe(ctx context.Context, conn *sql.Conn, details map[string]any) ([]myColumn, error) {
	q, err := s.sql(true)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, s.queryError(details, err)
	}
	types, err := rows.ColumnTypes()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("mysql: column types: %w", err)
	}
	if len(types) == 0 {
		return nil, errors.New("mysql: the statement returns no columns")
	}
	cols := make([]myColumn, len(types))
	for i, t := range types {
		c := myColumn{Name: t.Name(), WireType: t.DatabaseTypeName()}
		if p, sc, ok := t.DecimalSize(); ok {
			c.Precision, c.Scale = p, sc
		}
		c.MyType = myMetaType(&c)
		// The driver takes a DECIMAL's precision from its display length
		// less a sign, which an UNSIGNED one does not have, and cannot say
		// which it is: a query's DECIMAL is read one digit wider, so that
		// an UNSIGNED DECIMAL(5,2) holding 999.99 is not refused as more
		// than 4 digits (a table's catalog gives the exact type instead).
		if s.table == nil && c.WireType == "DECIMAL" && c.Precision < sqlserver.MaxDecimalDigits {
			c.Precision++
		}
		cols[i] = c
	}
	if s.table != nil {
		if err := s.catalog(ctx, conn, cols, details); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	names := make([]string, 0, len(cols))
	var bad []string
	for i := range cols {
		c := &cols[i]
		switch {
		case seen[c.Name]:
			return nil, fmt.Errorf("%w: the result has two columns named %q; give them distinct names (SELECT a.x AS a_x, …)", sources.ErrInvalidLocation, c.Name)
		case c.Name == sources.FileColumn || c.Name == sources.LineColumn || c.Name == sources.RowColumn:
			return nil, fmt.Errorf("%w: column name %q is reserved for provenance; rename it in a query", sources.ErrInvalidLocation, c.Name)
		}
		seen[c.Name] = true
		names = append(names, c.Name)
		if err := sources.CaseClash(names); err != nil {
			return nil, fmt.Errorf("%w; give them distinct names in a query (SELECT a AS a_lower, A AS a_upper, …)", err)
		}
		if !mapMyType(c) {
			bad = append(bad, fmt.Sprintf("column %s has type %s", c.Name, c.MyType))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s, which reconcile cannot load exactly; read it through a query that casts it (query: SELECT …, CAST(col AS CHAR) AS col FROM …)", ErrUnmappedType, strings.Join(bad, "; "))
	}
	return cols, nil
}

// catalog adds to the columns of a table their declared types from
// information_schema, and to details the table's engine.
func (s *mysqlSource) catalog(ctx context.Context, conn *sql.Conn, cols []myColumn, details map[string]any) error {
	var db any // NULL: the session's database
	name := s.table[0]
	if len(s.table) == 2 {
		db, name = s.table[0], s.table[1]
	}
	q, err := mySQL(queries.MySQLTableColumns, nil)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, q, db, name)
	if err != nil {
		return fmt.Errorf("mysql: read the columns of %s from information_schema: %w", s.file(), err)
	}
	byName := map[string]int{}
	for i, c := range cols {
		byName[c.Name] = i
	}
	var hidden []string
	for rows.Next() {
		var col, colType, dataType string
		var prec, scale sql.NullInt64
		if err := rows.Scan(&col, &colType, &dataType, &prec, &scale); err != nil {
			rows.Close()
			return fmt.Errorf("mysql: columns of %s: %w", s.file(), err)
		}
		i, ok := byName[col]
		if !ok {
			// in the table, not in SELECT *: an INVISIBLE column
			hidden = append(hidden, col)
			continue
		}
		cols[i].MyType = colType
		if cols[i].WireType == "DECIMAL" && prec.Valid && scale.Valid {
			cols[i].Precision, cols[i].Scale = prec.Int64, scale.Int64
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("mysql: columns of %s: %w", s.file(), err)
	}
	if len(hidden) > 0 {
		return fmt.Errorf("%w: table %s has column(s) that SELECT * leaves out (INVISIBLE): %s; a table is read whole, so name its columns in a query (query: SELECT *, %s FROM …)", sources.ErrInvalidLocation, s.file(), strings.Join(hidden, ", "), strings.Join(hidden, ", "))
	}
	q, err = mySQL(queries.MySQLTableEngine, nil)
	if err != nil {
		return err
	}
	var engine sql.NullString
	var kind string
	if err := conn.QueryRowContext(ctx, q, db, name).Scan(&engine, &kind); err != nil {
		return fmt.Errorf("mysql: read the engine of %s from information_schema: %w", s.file(), err)
	}
	details["table_type"] = kind
	if engine.Valid {
		details["table_engine"] = engine.String
		if !strings.EqualFold(engine.String, "InnoDB") {
			details["snapshot_note"] = fmt.Sprintf("engine %s is not transactional: its rows are read as they are when read, not as of the snapshot", engine.String)
		}
	}
	return nil
}

// myColumnEvidence lists each column's MySQL type and the Arrow type it was
// read as.
func myColumnEvidence(cols []myColumn) []map[string]string {
	out := make([]map[string]string, len(cols))
	for i, c := range cols {
		out[i] = map[string]string{"name": c.Name, "mysql_type": c.MyType, "arrow_type": c.Arrow.String()}
	}
	return out
}
