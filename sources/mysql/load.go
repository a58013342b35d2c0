package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// Column is a column of a table LoadCSV creates: its name and
// MySQL type ("DECIMAL(18,2)", "TIMESTAMP(3)", "BIGINT UNSIGNED", …).
type Column struct {
	Name string
	Type string
}

var myTypeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// myInsertRows is the number of CSV rows one INSERT of LoadCSV sends.
const myInsertRows = 500

// LoadCSV creates table (database.name, or name in the URI's
// database; the database is created if missing, an existing table of that
// name is replaced) with cols, InnoDB and utf8mb4, on the MySQL or MariaDB
// server uri names (a mysql:// URI as the mysql kind reads it), and inserts
// the rows of the CSV file at csvPath, whose header must name cols in
// order. Every value is sent as text for the server to parse with its
// column's type (strict sql_mode: a value that does not fit is an error
// naming the line), an empty field as NULL; a value of a TIMESTAMP or
// DATETIME column written with a zone or offset (RFC 3339: 2026-11-27T00:00:31Z)
// is first turned into its UTC wall clock, which the session (time zone
// +00:00) stores as that instant. It all happens in one transaction. It
// returns the number of rows inserted. It is how the samples put a sink
// into MySQL.
func LoadCSV(ctx context.Context, uri, table string, cols []Column, csvPath string) (n int64, err error) {
	src, err := openMySQL(sources.Location{Role: "sink", URI: uri, Options: map[string]any{"table": table}})
	if err != nil {
		return 0, err
	}
	s := src.(*mysqlSource)
	defer func() {
		if err != nil {
			err = s.scrub(err)
		}
	}()
	names, zoned, err := loadColumns(cols)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(csvPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return 0, fmt.Errorf("%s: header: %w", csvPath, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	}
	if strings.Join(header, ",") != strings.Join(names, ",") {
		return 0, fmt.Errorf("%s: header %v, want %v", csvPath, header, names)
	}

	cfg := s.config()
	cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION'"}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", sources.ErrInvalidLocation, err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("connect to %s as %s: %w", cfg.Addr, cfg.User, err)
	}
	defer conn.Close()
	data := loadData{Table: s.table, Columns: cols}
	ids := []string{"copy_drop_table", "copy_create_table"}
	if len(s.table) == 2 {
		data.Database = s.table[0]
		ids = append([]string{"copy_create_database"}, ids...)
	}
	for _, id := range ids { // DDL: each commits on its own
		q, err := mySQL(id, data)
		if err != nil {
			return 0, err
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if n, err = insertCSV(ctx, tx, r, data, csvPath, names, zoned); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}

// loadData is what the copy_* statements of queries/mysql are rendered
// with: the table (database.name or name), its database, its columns, and
// the rows of an INSERT.
type loadData struct {
	Table    []string
	Database string
	Columns  []Column
	Rows     int
}

// loadColumns checks the columns of LoadCSV (each type a plain MySQL type
// name, else ErrInvalidLocation) and returns their names and which are
// TIMESTAMP or DATETIME.
func loadColumns(cols []Column) (names []string, zoned []bool, err error) {
	names = make([]string, len(cols))
	zoned = make([]bool, len(cols))
	for i, c := range cols {
		if !myTypeName.MatchString(c.Type) {
			return nil, nil, fmt.Errorf("%w: column %s: %q is not a MySQL type name", sources.ErrInvalidLocation, c.Name, c.Type)
		}
		names[i] = c.Name
		u := strings.ToUpper(c.Type)
		zoned[i] = strings.HasPrefix(u, "TIMESTAMP") || strings.HasPrefix(u, "DATETIME")
	}
	return names, zoned, nil
}

// insertCSV inserts the records r reads (after the header) of the CSV file
// csvPath into data's table, myInsertRows rows per INSERT, in tx, and
// returns the number of rows inserted. A value of a zoned column (a
// TIMESTAMP or DATETIME) written with a zone or offset is sent as its UTC
// wall clock; an empty field as NULL.
func insertCSV(ctx context.Context, tx *sql.Tx, r *csv.Reader, data loadData, csvPath string, names []string, zoned []bool) (n int64, err error) {
	args := make([]any, 0, myInsertRows*len(data.Columns))
	rows, line := 0, 1
	flush := func() error {
		if rows == 0 {
			return nil
		}
		data.Rows = rows
		q, err := mySQL(queries.MySQLCopyInsert, data)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: the %d rows before line %d: %w", csvPath, rows, line+1, err)
		}
		n += int64(rows)
		rows, args = 0, args[:0]
		return nil
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", csvPath, err)
		}
		line, _ = r.FieldPos(0)
		for i, v := range rec {
			switch {
			case v == "":
				args = append(args, nil)
			case zoned[i] && strings.ContainsAny(v[min(len(v), 10):], "Zz+-"):
				ts, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					return 0, fmt.Errorf("%s:%d: column %s: %q is not an RFC 3339 timestamp: %w", csvPath, line, names[i], v, err)
				}
				args = append(args, ts.UTC().Format("2006-01-02 15:04:05.999999"))
			default:
				args = append(args, v)
			}
		}
		if rows++; rows == myInsertRows {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return n, nil
}
