package postgres

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// Column is a column of a table CopyCSV creates: its name and PostgreSQL
// type ("numeric(18,2)", "timestamptz", …).
type Column struct {
	Name string
	Type string
}

var pgTypeName = regexp.MustCompile(`^[a-z][a-z0-9_ ]*(\(\s*\d+\s*(,\s*-?\d+\s*)?\))?$`)

// CopyCSV creates table (schema.name; the schema is created if missing, an
// existing table of that name is replaced) with cols in the PostgreSQL
// database connStr names, and copies the rows of the CSV file at csvPath
// into it with COPY … FROM STDIN (FORMAT csv, HEADER): the server parses
// every value with the column's type, so a value that does not fit is an
// error naming the line. The CSV header must name cols in order. All of it
// happens in one transaction. It returns the number of rows copied. It is
// how the samples put a sink into PostgreSQL.
func CopyCSV(ctx context.Context, connStr, table string, cols []Column, csvPath string) (int64, error) {
	parts, err := ParseTableName(table)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(csvPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	header, err := csv.NewReader(bufio.NewReader(f)).Read()
	if err != nil {
		return 0, fmt.Errorf("%s: header: %w", csvPath, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		if !pgTypeName.MatchString(c.Type) {
			return 0, fmt.Errorf("%w: column %s: %q is not a PostgreSQL type name", sources.ErrInvalidLocation, c.Name, c.Type)
		}
		names[i] = c.Name
	}
	if strings.Join(header, ",") != strings.Join(names, ",") {
		return 0, fmt.Errorf("%s: header %v, want %v", csvPath, header, names)
	}
	if _, err := f.Seek(0, 0); err != nil { // COPY reads the header again
		return 0, err
	}
	cfg, err := pgx.ParseConfig(connStr)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	data := struct {
		Table   []string
		Schema  string
		Columns []Column
	}{Table: parts, Columns: cols}
	ids := []string{"copy_drop_table", "copy_create_table"}
	if len(parts) == 2 {
		data.Schema = parts[0]
		ids = append([]string{"copy_create_schema"}, ids...)
	}
	for _, id := range ids {
		q, err := pgSQL(id, data)
		if err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	copySQL, err := pgSQL(queries.PostgresCopyFromCSV, data)
	if err != nil {
		return 0, err
	}
	tag, err := conn.PgConn().CopyFrom(ctx, f, copySQL)
	if err != nil {
		return 0, fmt.Errorf("copy %s into %s: %w", csvPath, table, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
