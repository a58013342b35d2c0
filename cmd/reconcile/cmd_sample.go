package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/mysql"
	"github.com/reconcile-dev/reconcile/sources/postgres"
)

func init() {
	subcommands = append(subcommands, newCmdSample)
}

// ledgerSinkColumns are the columns of the ledger sample's sink as a JDBC
// sink would have created them.
var ledgerSinkColumns = []postgres.Column{
	{Name: "entry_id", Type: "text"},
	{Name: "account", Type: "text"},
	{Name: "amount", Type: "numeric(18,2)"},
	{Name: "status", Type: "text"},
	{Name: "checkpoint_id", Type: "bigint"},
	{Name: "posted_at", Type: "timestamptz"},
}

// defaultPGURL is the server of the samples and tests.
func defaultPGURL() string {
	if u := os.Getenv("RECONCILE_PG_URL"); u != "" {
		return u
	}
	return "postgres://root@127.0.0.1:5432/test"
}

// loadPostgresOptions are the flags of `reconcile sample load-postgres`.
type loadPostgresOptions struct {
	f     *factory
	url   string
	table string
	csv   string
}

func newCmdSample(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Helpers for the bundled samples",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdLoadPostgres(f))
	cmd.AddCommand(newCmdLoadMySQL(f))
	return cmd
}

func newCmdLoadPostgres(f *factory) *cobra.Command {
	o := &loadPostgresOptions{f: f}
	cmd := &cobra.Command{
		Use:   "load-postgres [--url URL] [--table SCHEMA.NAME] [--csv FILE]",
		Short: "Put the ledger sample's sink into a PostgreSQL table",
		Long: `Create a PostgreSQL table typed as the ledger sample's JDBC sink wrote it
(entry_id text, account text, amount numeric(18,2), status text,
checkpoint_id bigint, posted_at timestamptz), replacing any table of that name, and copy the
sample's sink CSV into it. Then reconcile the CSV source against the table:

  reconcile run --config samples/ledger/at-least-once.yaml \
    --sink 'postgres://root@127.0.0.1:5432/test?table=reconcile_sample.ledger_sink' \
    --out evidence/ledger-at-least-once-pg

The findings are those of the all-file run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := postgres.CopyCSV(cmd.Context(), o.url, o.table, ledgerSinkColumns, o.csv)
			if err != nil {
				return fmt.Errorf("load %s into %s: %w", o.csv, o.table, err)
			}
			uri := sources.Redact(o.url)
			sep := "?"
			for _, c := range uri {
				if c == '?' {
					sep = "&"
				}
			}
			fmt.Fprintf(o.f.stdout, "loaded %d rows of %s into %s\nreconcile it with:\n  bin/reconcile run --config samples/ledger/at-least-once.yaml --sink '%s%stable=%s' --out evidence/ledger-at-least-once-pg --force\n",
				n, o.csv, o.table, uri, sep, o.table)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.url, "url", defaultPGURL(), "PostgreSQL connection URI (default $RECONCILE_PG_URL or the local server)")
	fl.StringVar(&o.table, "table", "reconcile_sample.ledger_sink", "table to create (schema.name); an existing one is replaced")
	fl.StringVar(&o.csv, "csv", "samples/ledger/sink-at-least-once.csv", "sink CSV to load (header entry_id,account,amount,status,checkpoint_id,posted_at)")
	return cmd
}

// ledgerSinkMySQLColumns are the columns of the ledger sample's sink as a
// JDBC sink would have created them in MySQL or MariaDB.
var ledgerSinkMySQLColumns = []mysql.Column{
	{Name: "entry_id", Type: "VARCHAR(16)"},
	{Name: "account", Type: "VARCHAR(12)"},
	{Name: "amount", Type: "DECIMAL(18,2)"},
	{Name: "status", Type: "VARCHAR(12)"},
	{Name: "checkpoint_id", Type: "BIGINT"},
	{Name: "posted_at", Type: "TIMESTAMP(3)"},
}

// defaultMySQLURL is the MySQL or MariaDB server of the samples and tests.
func defaultMySQLURL() string {
	if u := os.Getenv("RECONCILE_MYSQL_URL"); u != "" {
		return u
	}
	return "mysql://root@127.0.0.1:3306/test"
}

// loadMySQLOptions are the flags of `reconcile sample load-mysql`.
type loadMySQLOptions struct {
	f     *factory
	url   string
	table string
	csv   string
}

func newCmdLoadMySQL(f *factory) *cobra.Command {
	o := &loadMySQLOptions{f: f}
	cmd := &cobra.Command{
		Use:   "load-mysql [--url URL] [--table DATABASE.NAME] [--csv FILE]",
		Short: "Put the ledger sample's sink into a MySQL or MariaDB table",
		Long: `Create a MySQL or MariaDB table typed as the ledger sample's JDBC sink wrote
it (entry_id VARCHAR(16), account VARCHAR(12), amount DECIMAL(18,2), status VARCHAR(12),
checkpoint_id BIGINT, posted_at TIMESTAMP(3); InnoDB, utf8mb4), replacing any
table of that name, and insert the sample's sink CSV into it. Then reconcile
the CSV source against the table:

  reconcile run --config samples/ledger/at-least-once.yaml \
    --sink 'mysql://root@127.0.0.1:3306/test?table=reconcile_sample.ledger_sink' \
    --out evidence/ledger-at-least-once-mysql

The findings are those of the all-file run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := mysql.LoadCSV(cmd.Context(), o.url, o.table, ledgerSinkMySQLColumns, o.csv)
			if err != nil {
				return fmt.Errorf("load %s into %s: %w", o.csv, o.table, err)
			}
			uri := sources.Redact(o.url)
			sep := "?"
			if strings.Contains(uri, "?") {
				sep = "&"
			}
			fmt.Fprintf(o.f.stdout, "loaded %d rows of %s into %s\nreconcile it with:\n  bin/reconcile run --config samples/ledger/at-least-once.yaml --sink '%s%stable=%s' --out evidence/ledger-at-least-once-mysql --force\n",
				n, o.csv, o.table, uri, sep, o.table)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.url, "url", defaultMySQLURL(), "MySQL or MariaDB connection URI (default $RECONCILE_MYSQL_URL or the local server)")
	fl.StringVar(&o.table, "table", "reconcile_sample.ledger_sink", "table to create (database.name); an existing one is replaced")
	fl.StringVar(&o.csv, "csv", "samples/ledger/sink-at-least-once.csv", "sink CSV to load (header entry_id,account,amount,checkpoint_id,posted_at)")
	return cmd
}
