package trino

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/queries"
)

// Hidden is a column of a table behind a PostgreSQL, MySQL or MariaDB
// catalog that Trino does not read as the database declares it: hidden
// (the connector leaves out a column whose type it does not map — a
// numeric without precision under decimal_mapping STRICT, an array under
// array_mapping DISABLED, inet, interval, …, under
// unsupported-type-handling IGNORE, all three the defaults), or read as
// another value (bit(n), n > 1, as a boolean; PostgreSQL's time with time
// zone as a time). Trino's documentation of the
// connectors' type mapping is the source of the rule; the database's own
// catalog, read through the connector's pass-through query, is the
// evidence (trino/native_columns.sql).
type Hidden struct {
	// Table is the table's catalog.schema.table and Connector its
	// catalog's connector (postgresql, mysql, mariadb); Column the
	// column's name as the database declares it; Native its declared type
	// (numeric, bit(5), inet).
	Table, Connector, Column, Native string
	// Shown is the Trino type of a column read as another value, "" for a
	// hidden one.
	Shown string
}

// why says how Trino's connector treats h.
func (h Hidden) why() string {
	connector := h.Connector
	switch {
	case h.Shown != "" && h.Shown != "boolean":
		return fmt.Sprintf("read by Trino's %s connector as %s, without its zone", connector, h.Shown)
	case h.Shown != "":
		return fmt.Sprintf("read by Trino's %s connector as a %s, not as its bits (MySQL's reads every value but zero as true)", connector, h.Shown)
	case h.Native == "numeric" || h.Native == "decimal":
		return fmt.Sprintf("a numeric declared without precision: Trino's %s connector hides it (decimal_mapping STRICT, its default)", connector)
	case strings.HasSuffix(h.Native, "]"):
		return fmt.Sprintf("an array: Trino's %s connector hides it (array_mapping DISABLED, its default)", connector)
	}
	return fmt.Sprintf("a type Trino's %s connector does not map: it hides the column (unsupported-type-handling IGNORE, its default)", connector)
}

// nativeQuery is, by connector, the fragment of queries/trino that lists a
// table's declared columns in the database behind it (run through the
// connector's system.query); none for a connector without one.
var nativeQuery = map[string]string{
	"postgresql": queries.TrinoNativePostgresql,
	"mysql":      queries.TrinoNativeMySQL,
	"mariadb":    queries.TrinoNativeMySQL,
}

// bitN reads bit(n), the declared type of a bit string.
var bitN = regexp.MustCompile(`^bit\((\d+)\)$`)

// findHidden sets in.Hidden: for a table of a PostgreSQL, MySQL or
// MariaDB catalog, its columns the connector hides or misreads (Hidden);
// for a query input, those of every such table the query reads (EXPLAIN's
// IO plan, trino/input_tables.sql; a pass-through query is not listed, and
// Trino fails on a column of it that it cannot map rather than hide it).
// A table whose declared columns cannot be read is an error wrapping
// ErrRefused: reconcile cannot tell whether a column is left out.
func (e *Engine) findHidden(ctx context.Context, in *Input) error {
	in.Hidden = nil
	if in.Query == "" {
		if nativeQuery[in.Connector] == "" {
			return nil
		}
		h, err := e.tableHidden(ctx, in, in.Catalog, in.Connector, in.Schema, in.Table, in.Columns)
		in.Hidden = h
		return err
	}
	rows, err := e.rawFile(ctx, queries.TrinoInputTables, struct{ Query string }{in.Query})
	if err != nil {
		return fmt.Errorf("the %s %s: the tables it reads: %w", in.Role, in.Location, err)
	}
	if len(rows) != 1 {
		return fmt.Errorf("the %s %s: the tables it reads: EXPLAIN returned %d rows", in.Role, in.Location, len(rows))
	}
	var plan struct {
		Inputs []struct {
			Table struct {
				Catalog     string `json:"catalog"`
				SchemaTable struct {
					Schema string `json:"schema"`
					Table  string `json:"table"`
				} `json:"schemaTable"`
			} `json:"table"`
		} `json:"inputTableColumnInfos"`
	}
	if err := json.Unmarshal([]byte(str(rows[0][0])), &plan); err != nil {
		return fmt.Errorf("the %s %s: the tables it reads (EXPLAIN's IO plan): %w", in.Role, in.Location, err)
	}
	connectors := map[string]string{}
	seen := map[string]bool{}
	for _, t := range plan.Inputs {
		cat, schema, table := t.Table.Catalog, t.Table.SchemaTable.Schema, t.Table.SchemaTable.Table
		key := cat + "." + schema + "." + table
		if seen[key] || schema == "_generated" {
			continue
		}
		seen[key] = true
		conn, ok := connectors[cat]
		if !ok {
			crows, err := e.rawFile(ctx, queries.TrinoConnector, struct{ Catalog string }{cat})
			if err != nil {
				return err
			}
			if len(crows) > 0 {
				conn = str(crows[0][0])
			}
			connectors[cat] = conn
		}
		if nativeQuery[conn] == "" {
			continue
		}
		cols, err := e.columnsOf(ctx, ident(cat)+"."+ident(schema)+"."+ident(table))
		if err != nil {
			return fmt.Errorf("the %s %s: table %s it reads: %w", in.Role, in.Location, key, err)
		}
		h, err := e.tableHidden(ctx, in, cat, conn, schema, table, cols)
		if err != nil {
			return err
		}
		in.Hidden = append(in.Hidden, h...)
	}
	return nil
}

// tableHidden compares the columns table catalog.schema.table shows in
// Trino (cols) with those the database declares (trino/native_columns.sql)
// and returns the hidden and misread ones (Hidden), in declaration order.
func (e *Engine) tableHidden(ctx context.Context, in *Input, catalog, connector, schema, table string, cols []Column) ([]Hidden, error) {
	name := catalog + "." + schema + "." + table
	cannot := func(why string, err error) error {
		if err != nil {
			return fmt.Errorf("%w: the %s %s: table %s: %s, so reconcile cannot tell whether Trino's %s connector hides one of its columns (%w); reconcile it on the embedded engine", ErrRefused, in.Role, in.Location, name, why, connector, err)
		}
		return fmt.Errorf("%w: the %s %s: table %s: %s, so reconcile cannot tell whether Trino's %s connector hides one of its columns; reconcile it on the embedded engine", ErrRefused, in.Role, in.Location, name, why, connector)
	}
	if connector != "postgresql" && (strings.Contains(schema, `\`) || strings.Contains(table, `\`)) {
		return nil, cannot("its name holds a backslash, which MySQL's string literals read as an escape", nil)
	}
	native, err := statements().SQL(nativeQuery[connector], struct{ Schema, Table string }{schema, table})
	if err != nil {
		return nil, err
	}
	rows, err := e.rawFile(ctx, queries.TrinoNativeColumns, struct{ Catalog, Native string }{catalog, native})
	if err != nil {
		return nil, cannot("its declared columns could not be read through "+catalog+".system.query", err)
	}
	// The table: the one named exactly so, else the only one found
	// (Trino's case-insensitive matching maps one remote name).
	found := map[[2]string]bool{}
	for _, r := range rows {
		found[[2]string{str(r[0]), str(r[1])}] = true
	}
	pick := [2]string{schema, table}
	if !found[pick] {
		if len(found) != 1 {
			return nil, cannot(fmt.Sprintf("the database declares %d tables of that name (in any case)", len(found)), nil)
		}
		for k := range found {
			pick = k
		}
	}
	shown := map[string]string{}
	for _, c := range cols {
		shown[strings.ToLower(c.Name)] = c.Trino
	}
	var out []Hidden
	for _, r := range rows {
		if str(r[0]) != pick[0] || str(r[1]) != pick[1] {
			continue
		}
		col, typ := str(r[2]), strings.ToLower(str(r[3]))
		t, ok := shown[strings.ToLower(col)]
		switch {
		case !ok:
			out = append(out, Hidden{Table: name, Connector: connector, Column: col, Native: typ})
		case strings.HasPrefix(t, "time") && !strings.HasSuffix(t, "with time zone") && strings.HasPrefix(typ, "time") && strings.HasSuffix(typ, "with time zone"):
			out = append(out, Hidden{Table: name, Connector: connector, Column: col, Native: typ, Shown: t})
		case t == "boolean":
			if m := bitN.FindStringSubmatch(typ); m != nil {
				if n, _ := strconv.Atoi(m[1]); n > 1 {
					out = append(out, Hidden{Table: name, Connector: connector, Column: col, Native: typ, Shown: t})
				}
			}
		}
	}
	return out, nil
}

// refuseHidden refuses (ErrRefused) the hidden or misread columns of the
// inputs (Input.Hidden) that the checks would read: a column named by id:,
// measures:, group_by:, checkpoint:, logical_key: or duplicates:, and one a
// record control compares (every column not left out by ignore:, or not
// listed by compare: when it is given). It returns a note for each one
// left out, which the checks do not read, and the names (the control's)
// of those.
func refuseHidden(c checks.Columns, ins ...*Input) ([]string, map[string]bool, error) {
	var why, notes []string
	left := map[string]bool{}
	for _, in := range ins {
		for _, h := range in.Hidden {
			name := in.nameOf(strings.ToLower(h.Column))
			named := slices.Contains(c.ID, name) || slices.Contains(c.Measures, name) || slices.Contains(c.GroupBy, name) ||
				c.Checkpoint == name || slices.Contains(c.LogicalKey, name) || slices.Contains(c.Duplicates, name)
			compared := len(c.ID) > 0 && !slices.Contains(c.Ignore, name) && (len(c.Compare) == 0 || slices.Contains(c.Compare, name))
			what := fmt.Sprintf("column %s (%s in %s) is %s", h.Column, h.Native, h.Table, h.why())
			if named || compared {
				why = append(why, fmt.Sprintf("the %s %s: %s", in.Role, in.Location, what))
				continue
			}
			notes = append(notes, fmt.Sprintf("the %s's %s; not read by the checks (left out of the comparison)", in.Role, what))
			left[name] = true
		}
	}
	if len(why) == 0 {
		return notes, left, nil
	}
	return nil, nil, fmt.Errorf("%w: %s: a run would leave it out or misread it without a word; declare a numeric's precision in the database (numeric(p,s)), leave the column out (ignore:), or reconcile the table on the embedded engine (a postgres:// or mysql:// input)", ErrRefused, strings.Join(why, "; "))
}
